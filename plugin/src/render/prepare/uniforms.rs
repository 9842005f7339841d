//! Uniform blocks packed at the offsets naga's layouter gives the engine's WGSL (never
//! hand-computed): every member path (`directional.shadow_view_proj`, `points[3].color`,
//! `sh[8]`) is looked up once in a table read from the module's types.

use std::collections::HashMap;

use bevy_math::Mat4;
use f3d_hal::naga;

/// The layout of one uniform block, flattened to member paths.
#[derive(Clone, Debug, Default)]
pub struct BlockLayoutTable {
    /// Bytes the block takes.
    pub size: u32,
    /// By member path. Looked up ~30 times a frame (the view and lights blocks), so hashed
    /// with foldhash: SipHash's lookups were half of packing those blocks.
    offsets: Offsets,
}

type Offsets = HashMap<String, u32, foldhash::fast::FixedState>;

impl BlockLayoutTable {
    /// The layout of the uniform global variable `name` in `module`.
    pub fn of(module: &naga::Module, name: &str) -> Option<Self> {
        let mut layouter = naga::proc::Layouter::default();
        layouter.update(module.to_ctx()).ok()?;
        let (_, var) = module.global_variables.iter().find(|(_, v)| v.name.as_deref() == Some(name))?;
        let mut table = Self { size: layouter[var.ty].size, offsets: Offsets::default() };
        flatten(module, var.ty, String::new(), 0, &mut table.offsets);
        Some(table)
    }

    /// The byte offset of a member path.
    pub fn offset(&self, path: &str) -> Option<u32> {
        self.offsets.get(path).copied()
    }
}

fn flatten(module: &naga::Module, ty: naga::Handle<naga::Type>, path: String, base: u32, out: &mut Offsets) {
    match &module.types[ty].inner {
        naga::TypeInner::Struct { members, .. } => {
            for m in members {
                let name = m.name.clone().unwrap_or_default();
                let p = if path.is_empty() { name } else { format!("{path}.{name}") };
                flatten(module, m.ty, p, base + m.offset, out);
            }
        }
        naga::TypeInner::Array { base: elem, size: naga::ArraySize::Constant(n), stride } => {
            for i in 0..n.get() {
                flatten(module, *elem, format!("{path}[{i}]"), base + i * stride, out);
            }
            out.insert(path, base);
        }
        _ => {
            out.insert(path, base);
        }
    }
}

/// Writes values into a block's bytes by member path. Unknown paths are skipped (a library
/// that dropped a member draws without it rather than panicking); a test holds every path
/// the renderer writes against the library.
pub struct BlockWriter<'a> {
    table: &'a BlockLayoutTable,
    bytes: Vec<u8>,
}

impl<'a> BlockWriter<'a> {
    /// A zeroed block.
    pub fn new(table: &'a BlockLayoutTable) -> Self {
        Self { table, bytes: vec![0; table.size as usize] }
    }

    /// Little-endian words at a member path's offset, one after another.
    fn put(&mut self, path: &str, words: impl IntoIterator<Item = [u8; 4]>) {
        let Some(at) = self.table.offset(path) else { return };
        for (i, w) in words.into_iter().enumerate() {
            let o = at as usize + i * 4;
            if let Some(dst) = self.bytes.get_mut(o..o + 4) {
                dst.copy_from_slice(&w);
            }
        }
    }

    /// An `f32`.
    pub fn f32(&mut self, path: &str, v: f32) -> &mut Self {
        self.put(path, [v.to_le_bytes()]);
        self
    }

    /// A `u32`.
    pub fn u32(&mut self, path: &str, v: u32) -> &mut Self {
        self.put(path, [v.to_le_bytes()]);
        self
    }

    /// A `vec2<f32>`, `vec3<f32>` or `vec4<f32>`.
    pub fn vec(&mut self, path: &str, v: &[f32]) -> &mut Self {
        self.put(path, v.iter().map(|f| f.to_le_bytes()));
        self
    }

    /// A `mat4x4<f32>` (column-major).
    pub fn mat4(&mut self, path: &str, m: &Mat4) -> &mut Self {
        self.put(path, m.to_cols_array().map(f32::to_le_bytes));
        self
    }

    /// The packed bytes.
    pub fn finish(self) -> Vec<u8> {
        self.bytes
    }
}
