//! Dense render-world storage of mesh instances, grouped into batches that draw with one
//! instanced call each.
//!
//! ```text
//!  entity index ──location[]──▶ (batch, slot) ──▶ batches[b].transforms[slot]  (48 B, GPU layout)
//!                                                  batches[b].entities[slot]
//! ```
//!
//! A batch is every visible instance of one (mesh, material table, shadow casting) triple. A
//! material table ([`MaterialTables`](crate::render::prepare::materials::MaterialTables)) holds
//! the parameters of many materials that share a shader and textures, so instances of
//! different materials draw together: each instance carries its material's slot in the table
//! (`slots`, a second per-instance buffer). Its `transforms` are exactly the bytes of its
//! instance buffer (three rows of the affine model matrix), so a changed transform is one
//! 48-byte store plus a dirty range, and an unchanged frame uploads nothing. Removal swaps the
//! last instance into the hole.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::ops::Range;

use bevy_ecs::entity::Entity;
use bevy_ecs::prelude::Resource;
use bevy_math::{Affine3A, Mat4};

/// Bytes per instance in an instance buffer.
pub(crate) const INSTANCE_STRIDE: u32 = 48;

/// The rows of an affine transform as the shader reads them.
pub(crate) type InstanceRows = [f32; 12];

/// `affine`'s three rows (x, y, z axes in columns, translation in `w`).
#[inline]
pub(crate) fn instance_rows(affine: &Affine3A) -> InstanceRows {
    let m = affine.matrix3;
    let t = affine.translation;
    // The rows are the first three columns of [x y z t] transposed: a vector transpose and
    // three 16-byte stores (`write_to_slice`), where building the array element by element
    // compiled to twelve scalar stores (the moved-transform copy of `extract` is mostly this).
    let rows =
        Mat4::from_cols(m.x_axis.extend(0.0), m.y_axis.extend(0.0), m.z_axis.extend(0.0), t.extend(1.0))
            .transpose();
    let mut out = [0.0; 12];
    rows.x_axis.write_to_slice(&mut out[0..4]);
    rows.y_axis.write_to_slice(&mut out[4..8]);
    rows.z_axis.write_to_slice(&mut out[8..12]);
    out
}

/// Bytes per instance in the material-slot buffer.
pub(crate) const SLOT_STRIDE: u32 = 4;

/// The table of instances whose material has no table (not prepared, not loaded, removed):
/// they are kept, so they draw once their material arrives, but never drawn.
pub(crate) const NO_TABLE: u32 = u32::MAX;

/// What instances of one batch share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct BatchKey {
    /// The mesh asset's slot.
    pub mesh: u32,
    /// The material table of the instances' materials ([`NO_TABLE`] when they have none).
    pub table: u32,
    /// Whether these instances cast shadows.
    pub casts_shadows: bool,
}

/// One batch.
pub(crate) struct InstanceBatch {
    pub key: BatchKey,
    pub transforms: Vec<InstanceRows>,
    pub entities: Vec<Entity>,
    /// Each instance's material asset slot.
    pub materials: Vec<u32>,
    /// Each instance's slot in the material table: the bytes of the slot buffer.
    pub slots: Vec<u32>,
    /// Instances whose transform changed since the last upload.
    pub dirty: Option<Range<usize>>,
    /// Whether the instance count changed (the buffer may need to grow).
    pub resized: bool,
    /// Whether `slots` changed since the last upload.
    pub slots_dirty: bool,
    /// The instance buffer and how many instances it holds room for.
    pub buffer: Option<(f3d_hal::GeometryBuffer, usize)>,
    /// The material-slot buffer and how many instances it holds room for.
    pub slot_buffer: Option<(f3d_hal::GeometryBuffer, usize)>,
}

impl InstanceBatch {
    fn mark(&mut self, slot: usize) {
        self.dirty = union(self.dirty.take(), Some(slot..slot + 1));
    }
}

#[derive(Clone, Copy)]
struct Location {
    entity: Entity,
    batch: u32,
    slot: u32,
}

/// Every visible mesh instance, batched.
#[derive(Resource, Default)]
pub struct RenderInstances {
    pub(crate) batches: Vec<InstanceBatch>,
    batch_of: HashMap<BatchKey, u32>,
    /// By entity index.
    location: Vec<Option<Location>>,
}

impl RenderInstances {
    /// How many instances there are.
    pub fn len(&self) -> usize {
        self.batches.iter().map(|b| b.entities.len()).sum()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.batches.iter().all(|b| b.entities.is_empty())
    }

    /// How many batches hold instances.
    pub fn batch_count(&self) -> usize {
        self.batches.iter().filter(|b| !b.entities.is_empty()).count()
    }

    fn location(&self, entity: Entity) -> Option<Location> {
        self.location.get(entity.index_u32() as usize).copied().flatten().filter(|l| l.entity == entity)
    }

    /// Adds or moves `entity` into the batch of `key`, as an instance of the material asset
    /// `material` at `slot` of the batch's table.
    pub(crate) fn insert(
        &mut self,
        entity: Entity,
        key: BatchKey,
        material: u32,
        slot: u32,
        rows: InstanceRows,
    ) {
        if let Some(loc) = self.location(entity) {
            let batch = &mut self.batches[loc.batch as usize];
            if batch.key == key {
                let i = loc.slot as usize;
                if batch.materials[i] != material || batch.slots[i] != slot {
                    batch.materials[i] = material;
                    batch.slots[i] = slot;
                    batch.slots_dirty = true;
                }
                self.set_transform_at(loc, rows);
                return;
            }
            self.remove(entity);
        }
        let b = *self.batch_of.entry(key).or_insert_with(|| {
            self.batches.push(InstanceBatch {
                key,
                transforms: Vec::new(),
                entities: Vec::new(),
                materials: Vec::new(),
                slots: Vec::new(),
                dirty: None,
                resized: true,
                slots_dirty: true,
                buffer: None,
                slot_buffer: None,
            });
            (self.batches.len() - 1) as u32
        });
        let batch = &mut self.batches[b as usize];
        let slot_in_batch = batch.entities.len();
        batch.entities.push(entity);
        batch.transforms.push(rows);
        batch.materials.push(material);
        batch.slots.push(slot);
        batch.mark(slot_in_batch);
        batch.resized = true;
        batch.slots_dirty = true;
        let index = entity.index_u32() as usize;
        if self.location.len() <= index {
            self.location.resize(index + 1, None);
        }
        self.location[index] = Some(Location { entity, batch: b, slot: slot_in_batch as u32 });
    }

    /// Removes `entity` (nothing when it has no instance).
    pub(crate) fn remove(&mut self, entity: Entity) {
        let Some(loc) = self.location(entity) else { return };
        self.location[entity.index_u32() as usize] = None;
        let batch = &mut self.batches[loc.batch as usize];
        let slot = loc.slot as usize;
        batch.entities.swap_remove(slot);
        batch.transforms.swap_remove(slot);
        batch.materials.swap_remove(slot);
        batch.slots.swap_remove(slot);
        batch.resized = true;
        batch.slots_dirty = true;
        if slot < batch.entities.len() {
            batch.mark(slot);
            let moved = batch.entities[slot];
            if let Some(Some(l)) = self.location.get_mut(moved.index_u32() as usize) {
                l.slot = slot as u32;
            }
        }
        if let Some(r) = &batch.dirty {
            let len = batch.entities.len();
            batch.dirty = (r.start < len).then(|| r.start..r.end.min(len));
        }
    }

    /// Moves every instance of the material assets in `moved` to where `place` now puts them
    /// (table and slot): what follows a material changing table (a texture or shader edit, a
    /// load, a removal). A scan of every instance, so only for such rare changes.
    pub(crate) fn replace_materials(
        &mut self,
        moved: &std::collections::HashSet<u32>,
        place: impl Fn(u32) -> (u32, u32),
    ) {
        if moved.is_empty() {
            return;
        }
        let mut found = Vec::new();
        for batch in &self.batches {
            for (i, material) in batch.materials.iter().enumerate() {
                if moved.contains(material) {
                    found.push((batch.entities[i], batch.key, *material, batch.transforms[i]));
                }
            }
        }
        for (entity, key, material, rows) in found {
            let (table, slot) = place(material);
            self.insert(entity, BatchKey { table, ..key }, material, slot, rows);
        }
    }

    #[inline]
    fn set_transform_at(&mut self, loc: Location, rows: InstanceRows) {
        let batch = &mut self.batches[loc.batch as usize];
        batch.transforms[loc.slot as usize] = rows;
        batch.mark(loc.slot as usize);
    }
}

/// Writes transforms of many instances at once, from several threads: what the scan of moved
/// transforms uses. Each thread keeps its own [`DirtyRanges`], merged back with
/// [`RenderInstances::mark_dirty`].
pub(crate) struct TransformWriter<'a> {
    location: &'a [Option<Location>],
    /// Each batch's transforms: start and length.
    batches: Vec<(*mut InstanceRows, usize)>,
    _instances: PhantomData<&'a mut RenderInstances>,
}

// SAFETY: the writer hands out writes to distinct elements only (see `set`'s contract), and
// the exclusive borrow of the instances it was made from keeps anyone else from touching them.
unsafe impl Send for TransformWriter<'_> {}
// SAFETY: as above.
unsafe impl Sync for TransformWriter<'_> {}

/// Per batch, the slots a writer changed.
pub(crate) struct DirtyRanges(Vec<Option<Range<usize>>>);

impl DirtyRanges {
    /// Adds `other`'s ranges to these.
    pub(crate) fn merge(mut self, other: DirtyRanges) -> DirtyRanges {
        for (mine, theirs) in self.0.iter_mut().zip(other.0) {
            *mine = union(mine.take(), theirs);
        }
        self
    }
}

/// The smallest range covering both.
#[inline]
fn union(a: Option<Range<usize>>, b: Option<Range<usize>>) -> Option<Range<usize>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.start.min(b.start)..a.end.max(b.end)),
        (a, b) => a.or(b),
    }
}

impl TransformWriter<'_> {
    /// Empty dirty ranges, one per batch, for one thread's writes.
    pub(crate) fn dirty_ranges(&self) -> DirtyRanges {
        DirtyRanges(vec![None; self.batches.len()])
    }

    /// Stores `rows` as `entity`'s transform, noting the slot in `dirty`; false when it has
    /// no instance.
    ///
    /// # Safety
    ///
    /// While this writer lives, no two calls (on any threads) may name the same entity at
    /// the same time. (Distinct live entities have distinct slots, so calls for distinct
    /// entities write distinct elements.)
    #[inline]
    pub(crate) unsafe fn set(&self, entity: Entity, rows: InstanceRows, dirty: &mut DirtyRanges) -> bool {
        let Some(loc) = self.location.get(entity.index_u32() as usize).copied().flatten() else {
            return false;
        };
        if loc.entity != entity {
            return false;
        }
        let (batch, slot) = (loc.batch as usize, loc.slot as usize);
        let (start, len) = self.batches[batch];
        debug_assert!(slot < len, "a location points past its batch");
        if slot >= len {
            return false;
        }
        // SAFETY: `slot < len` of a live batch's transforms, which the exclusive borrow keeps
        // from moving; by the contract no other call writes this entity's slot meanwhile.
        unsafe { start.add(slot).write(rows) };
        let d = &mut dirty.0[batch];
        *d = union(d.take(), Some(slot..slot + 1));
        true
    }
}

impl RenderInstances {
    /// A writer of transforms for several threads at once.
    pub(crate) fn transform_writer(&mut self) -> TransformWriter<'_> {
        TransformWriter {
            batches: self
                .batches
                .iter_mut()
                .map(|b| (b.transforms.as_mut_ptr(), b.transforms.len()))
                .collect(),
            location: &self.location,
            _instances: PhantomData,
        }
    }

    /// Adds what a [`TransformWriter`] changed to each batch's dirty range.
    pub(crate) fn mark_dirty(&mut self, dirty: DirtyRanges) {
        for (batch, range) in self.batches.iter_mut().zip(dirty.0) {
            batch.dirty = union(batch.dirty.take(), range);
        }
    }
}

/// The bytes of instance rows, as the instance buffer holds them.
pub(crate) fn rows_as_bytes(rows: &[InstanceRows]) -> &[u8] {
    // SAFETY: `[f32; 12]` has no padding and every byte of an f32 is initialised, so the
    // slice's memory is `size_of_val(rows)` initialised bytes, aligned for u8; the returned
    // slice borrows `rows`. f3d targets little-endian machines, where these are the
    // little-endian bytes the shader reads.
    unsafe { std::slice::from_raw_parts(rows.as_ptr().cast::<u8>(), std::mem::size_of_val(rows)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(x: f32) -> InstanceRows {
        instance_rows(&Affine3A::from_translation(bevy_math::Vec3::new(x, 0.0, 0.0)))
    }

    /// Sets one transform through a writer, as the scan of moved transforms does.
    fn set(inst: &mut RenderInstances, entity: Entity, rows: InstanceRows) -> bool {
        let writer = inst.transform_writer();
        let mut dirty = writer.dirty_ranges();
        // SAFETY: one call, on this thread.
        let found = unsafe { writer.set(entity, rows, &mut dirty) };
        inst.mark_dirty(dirty);
        found
    }

    /// The rows are the model matrix's first three rows, element by element (checked against
    /// `Mat4`'s own row access, not the vector transpose `instance_rows` uses).
    #[test]
    fn instance_rows_are_the_matrix_rows() {
        let affine = Affine3A::from_scale_rotation_translation(
            bevy_math::Vec3::new(2.0, 3.0, 0.5),
            bevy_math::Quat::from_euler(bevy_math::EulerRot::XYZ, 0.3, -1.1, 2.0),
            bevy_math::Vec3::new(7.0, -8.0, 9.5),
        );
        let m = Mat4::from(affine);
        let rows = instance_rows(&affine);
        for r in 0..3 {
            for c in 0..4 {
                assert_eq!(rows[r * 4 + c], m.row(r)[c], "row {r}, column {c}");
            }
        }
    }

    #[test]
    fn removal_keeps_the_batch_dense() {
        let mut world = bevy_ecs::world::World::new();
        let e: Vec<Entity> = (0..3).map(|_| world.spawn_empty().id()).collect();
        let key = BatchKey { mesh: 0, table: 0, casts_shadows: true };
        let mut inst = RenderInstances::default();
        for (i, &entity) in e.iter().enumerate() {
            inst.insert(entity, key, 0, 0, rows(i as f32));
        }
        inst.remove(e[0]);
        assert_eq!(inst.len(), 2);
        // e[2] moved into slot 0 and can still be updated.
        inst.batches[0].dirty = None;
        assert!(set(&mut inst, e[2], rows(9.0)));
        assert_eq!(inst.batches[0].dirty, Some(0..1), "the written slot is dirty");
        assert_eq!(inst.batches[0].transforms[0][3], 9.0);
        assert!(!set(&mut inst, e[0], rows(1.0)));
        // Moving to another batch.
        inst.insert(e[1], BatchKey { table: 1, ..key }, 1, 0, rows(5.0));
        assert_eq!(inst.batch_count(), 2);
        assert_eq!(inst.len(), 2);
    }

    /// A material that changes table takes its instances along, slots and transforms intact,
    /// and other materials' instances stay where they are.
    #[test]
    fn replaced_materials_take_their_instances() {
        let mut world = bevy_ecs::world::World::new();
        let e: Vec<Entity> = (0..4).map(|_| world.spawn_empty().id()).collect();
        let key = BatchKey { mesh: 0, table: 0, casts_shadows: true };
        let mut inst = RenderInstances::default();
        for (i, &entity) in e.iter().enumerate() {
            // Materials 7 and 8 alternate, in slots 0 and 1 of table 0.
            inst.insert(entity, key, 7 + (i as u32 % 2), i as u32 % 2, rows(i as f32));
        }
        assert_eq!(inst.batch_count(), 1);
        let moved: std::collections::HashSet<u32> = [8].into_iter().collect();
        inst.replace_materials(&moved, |m| if m == 8 { (3, 5) } else { (0, 0) });
        assert_eq!(inst.batch_count(), 2);
        let moved_batch = inst.batches.iter().find(|b| b.key.table == 3).unwrap();
        assert_eq!(moved_batch.entities.len(), 2);
        assert!(moved_batch.slots.iter().all(|&s| s == 5));
        assert!(moved_batch.materials.iter().all(|&m| m == 8));
        let kept = inst.batches.iter().find(|b| b.key.table == 0).unwrap();
        assert_eq!(kept.materials, vec![7, 7]);
        assert_eq!(kept.slots, vec![0, 0]);
        // Transforms travelled with their entities.
        for (entity, rows_) in moved_batch.entities.iter().zip(&moved_batch.transforms) {
            let i = e.iter().position(|x| x == entity).unwrap();
            assert_eq!(*rows_, rows(i as f32));
        }
    }
}
