//! The transient pool: physical textures kept across frames for the graph's transients.

use f3d_hal::{DeviceError, GraphicsDevice, TextureHandle, TextureUsages};

use crate::compile::alias::PhysicalKey;

/// How many executions a pooled texture may go unused before the pool drops it, by default.
pub const DEFAULT_MAX_UNUSED_FRAMES: u32 = 2;

struct Entry {
    key: PhysicalKey,
    usage: TextureUsages,
    texture: TextureHandle,
    /// The execution that last took it.
    last_used: u64,
}

/// Physical textures for transient graph textures, kept from one execution to the next.
///
/// Owned by the caller (the render world keeps one per device) and handed to
/// [`CompiledGraph::execute`](crate::CompiledGraph::execute). Each execution takes, for each
/// slot of the graph's aliasing plan, a texture of the same shape (size, format, levels,
/// layers, samples) whose usages cover the slot's, not already taken by this execution and
/// made by this device; or creates one. After the execution, textures no execution took
/// for more than `max_unused_frames` executions are dropped (released to their device).
///
/// Textures may be taken again by the next execution while the previous one's work is
/// still in flight: the device orders work by submission, and explicit backends see an
/// `Undefined` transition at the texture's first use in each graph.
pub struct TransientPool {
    entries: Vec<Entry>,
    execution: u64,
    max_unused_frames: u32,
    created: u64,
}

impl Default for TransientPool {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_UNUSED_FRAMES)
    }
}

impl TransientPool {
    /// An empty pool that drops textures unused for more than `max_unused_frames`
    /// executions (0: drop whatever the last execution did not use).
    pub fn new(max_unused_frames: u32) -> Self {
        Self { entries: Vec::new(), execution: 0, max_unused_frames, created: 0 }
    }

    /// How many physical textures the pool holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the pool holds no texture.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many textures the pool has created over its life: what reuse and aliasing keep low.
    pub fn textures_created(&self) -> u64 {
        self.created
    }

    /// Drops every pooled texture (a device change, a resize storm).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    pub(crate) fn begin_execution(&mut self) {
        self.execution += 1;
    }

    /// A texture for one slot, taken for the current execution.
    pub(crate) fn acquire(
        &mut self,
        device: &dyn GraphicsDevice,
        key: PhysicalKey,
        usage: TextureUsages,
        label: &str,
    ) -> Result<TextureHandle, DeviceError> {
        let now = self.execution;
        let owner = device.owner();
        let found = self.entries.iter_mut().find(|e| {
            e.last_used != now && e.key == key && e.usage.contains(usage) && e.texture.is_owned_by(owner)
        });
        if let Some(entry) = found {
            entry.last_used = now;
            return Ok(entry.texture.clone());
        }
        let texture = device.create_texture(&key.descriptor(format!("f3d transient {label}"), usage))?;
        self.created += 1;
        self.entries.push(Entry { key, usage, texture: texture.clone(), last_used: now });
        Ok(texture)
    }

    pub(crate) fn end_execution(&mut self) {
        let (now, keep) = (self.execution, u64::from(self.max_unused_frames));
        self.entries.retain(|e| now - e.last_used <= keep);
    }
}
