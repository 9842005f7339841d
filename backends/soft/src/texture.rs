//! Textures, samplers and geometry in memory.
//!
//! Colour textures keep the format's own bytes. Depth formats keep one f32 per texel (the
//! rasteriser compares floats), with stencil in a plane of its own.

use std::sync::{Mutex, RwLock};

use f3d_hal::backend::{HostPlanes, LiveToken, MemoryCharge, MemoryCounter};
use f3d_hal::{MemoryKind, TextureDescriptor};

/// A texture's texels.
pub(crate) struct TexelStore {
    /// Colour texels in the format's layout, or f32 depth.
    pub(crate) main: HostPlanes,
    /// One byte per texel for formats with stencil.
    pub(crate) stencil: Option<HostPlanes>,
}

/// A texture on the soft device.
pub(crate) struct SoftTexture {
    pub(crate) store: RwLock<TexelStore>,
    pub(crate) _live: LiveToken,
    _memory: MemoryCharge,
}

impl SoftTexture {
    pub(crate) fn new(desc: &TextureDescriptor, live: LiveToken, memory: &MemoryCounter) -> Self {
        let main = if desc.format.has_depth() {
            HostPlanes::with_texel_bytes(desc, 4, (1, 1))
        } else {
            HostPlanes::new(desc)
        };
        let stencil = desc.format.has_stencil().then(|| HostPlanes::with_texel_bytes(desc, 1, (1, 1)));
        let bytes = main.bytes() + stencil.as_ref().map_or(0, HostPlanes::bytes);
        Self {
            store: RwLock::new(TexelStore { main, stencil }),
            _live: live,
            _memory: memory.charge(MemoryKind::Textures, bytes),
        }
    }
}

/// A geometry buffer's bytes.
pub(crate) struct SoftGeometry {
    pub(crate) bytes: RwLock<Vec<u8>>,
    pub(crate) _live: LiveToken,
    pub(crate) _memory: MemoryCharge,
}

/// A sampler: its descriptor is on the handle.
pub(crate) struct SoftSampler {
    pub(crate) _live: LiveToken,
}

/// A query set's results.
pub(crate) struct SoftQuerySet {
    pub(crate) values: Mutex<Vec<u64>>,
    pub(crate) _live: LiveToken,
}
