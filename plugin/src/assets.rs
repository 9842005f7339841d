//! Asset storage: `Assets<T>` resources hand out copyable [`Handle`]s, remember which assets
//! changed since the render world last looked, and never panic on a stale handle.
//!
//! f3d does not depend on bevy_asset: meshes, images and materials are plain values an app
//! builds (or loads with [`CustomMaterial::load`](crate::material::CustomMaterial::load)) and
//! adds to their `Assets` resource. Extraction takes the list of changed assets each frame,
//! so an unchanged asset costs nothing.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

use bevy_ecs::prelude::Resource;

/// A reference to an asset in an [`Assets`] resource: an index and a generation, so a handle
/// to a removed asset never finds the asset that later took its slot.
pub struct Handle<T> {
    index: u32,
    generation: u32,
    _marker: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    /// The slot index (dense: render-world tables are indexed by it).
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The slot's generation when the handle was made.
    pub fn generation(&self) -> u32 {
        self.generation
    }

    pub(crate) fn from_parts(index: u32, generation: u32) -> Self {
        Self { index, generation, _marker: PhantomData }
    }
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}
impl<T> PartialEq for Handle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index && self.generation == other.generation
    }
}
impl<T> Eq for Handle<T> {}
impl<T> Hash for Handle<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.index.hash(state);
        self.generation.hash(state);
    }
}
impl<T> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Handle<{}>({}v{})", short_type_name::<T>(), self.index, self.generation)
    }
}

fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}

struct Slot<T> {
    value: Option<T>,
    generation: u32,
    queued: bool,
}

/// A store of assets of one type: a main-world resource.
#[derive(Resource)]
pub struct Assets<T: Send + Sync + 'static> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    changed: Vec<u32>,
}

impl<T: Send + Sync + 'static> Default for Assets<T> {
    fn default() -> Self {
        Self { slots: Vec::new(), free: Vec::new(), changed: Vec::new() }
    }
}

/// What happened to one asset slot since the render world last looked.
#[derive(Debug)]
pub enum AssetChange<'a, T> {
    /// The asset at this handle was added or changed.
    Changed(Handle<T>, &'a T),
    /// The slot was emptied.
    Removed(u32),
}

impl<T: Send + Sync + 'static> Assets<T> {
    /// Adds an asset and returns its handle.
    pub fn add(&mut self, value: T) -> Handle<T> {
        let index = match self.free.pop() {
            Some(i) => {
                let slot = &mut self.slots[i as usize];
                slot.generation = slot.generation.wrapping_add(1);
                slot.value = Some(value);
                i
            }
            None => {
                self.slots.push(Slot { value: Some(value), generation: 0, queued: false });
                (self.slots.len() - 1) as u32
            }
        };
        self.queue(index);
        Handle::from_parts(index, self.slots[index as usize].generation)
    }

    /// The asset, if the handle is still valid.
    pub fn get(&self, handle: Handle<T>) -> Option<&T> {
        self.slots
            .get(handle.index as usize)
            .filter(|s| s.generation == handle.generation)
            .and_then(|s| s.value.as_ref())
    }

    /// The asset for editing; the edit reaches the render world at the next extraction.
    pub fn get_mut(&mut self, handle: Handle<T>) -> Option<&mut T> {
        let valid = self
            .slots
            .get(handle.index as usize)
            .is_some_and(|s| s.generation == handle.generation && s.value.is_some());
        if !valid {
            return None;
        }
        self.queue(handle.index);
        self.slots[handle.index as usize].value.as_mut()
    }

    /// Removes the asset; entities still naming it draw nothing.
    pub fn remove(&mut self, handle: Handle<T>) -> Option<T> {
        let slot = self.slots.get_mut(handle.index as usize)?;
        if slot.generation != handle.generation {
            return None;
        }
        let value = slot.value.take()?;
        self.free.push(handle.index);
        self.queue(handle.index);
        Some(value)
    }

    /// How many assets are stored.
    pub fn len(&self) -> usize {
        self.slots.iter().filter(|s| s.value.is_some()).count()
    }

    /// Whether no asset is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every stored asset with its handle.
    pub fn iter(&self) -> impl Iterator<Item = (Handle<T>, &T)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.value.as_ref().map(|v| (Handle::from_parts(i as u32, s.generation), v)))
    }

    /// The handles of assets added or changed since the render world last looked (removed
    /// ones are left out).
    pub(crate) fn changed_handles(&self) -> impl Iterator<Item = Handle<T>> + '_ {
        self.changed.iter().filter_map(|&i| {
            let slot = self.slots.get(i as usize)?;
            slot.value.as_ref().map(|_| Handle::from_parts(i, slot.generation))
        })
    }

    /// Queues every stored asset as changed: the render world takes them all again (after it
    /// replaced a lost device).
    pub(crate) fn mark_all_changed(&mut self) {
        for index in 0..self.slots.len() as u32 {
            if self.slots[index as usize].value.is_some() {
                self.queue(index);
            }
        }
    }

    fn queue(&mut self, index: u32) {
        let slot = &mut self.slots[index as usize];
        if !slot.queued {
            slot.queued = true;
            self.changed.push(index);
        }
    }

    /// Calls `f` for every asset added, changed or removed since the last call, then forgets
    /// them: what extraction does once per frame.
    pub fn drain_changes(&mut self, mut f: impl FnMut(AssetChange<'_, T>)) {
        let changed = std::mem::take(&mut self.changed);
        for index in &changed {
            let slot = &mut self.slots[*index as usize];
            slot.queued = false;
            match &slot.value {
                Some(v) => f(AssetChange::Changed(Handle::from_parts(*index, slot.generation), v)),
                None => f(AssetChange::Removed(*index)),
            }
        }
        // Keep the allocation for the next frame.
        self.changed = changed;
        self.changed.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_handles_find_nothing() {
        let mut assets = Assets::<u32>::default();
        let a = assets.add(1);
        assert_eq!(assets.remove(a), Some(1));
        let b = assets.add(2);
        assert_eq!(a.index(), b.index());
        assert_eq!(assets.get(a), None);
        assert_eq!(assets.get(b), Some(&2));
        assert!(assets.get_mut(a).is_none());
    }

    #[test]
    fn changes_are_reported_once() {
        let mut assets = Assets::<u32>::default();
        let a = assets.add(1);
        *assets.get_mut(a).unwrap() = 5;
        let mut seen = Vec::new();
        assets.drain_changes(|c| {
            if let AssetChange::Changed(h, v) = c {
                seen.push((h, *v));
            }
        });
        assert_eq!(seen, vec![(a, 5)]);
        let mut again = 0;
        assets.drain_changes(|_| again += 1);
        assert_eq!(again, 0);
        assets.remove(a);
        let mut removed = Vec::new();
        assets.drain_changes(|c| {
            if let AssetChange::Removed(i) = c {
                removed.push(i);
            }
        });
        assert_eq!(removed, vec![a.index()]);
    }
}
