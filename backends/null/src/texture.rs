//! Textures and geometry in memory.

use std::sync::{Mutex, MutexGuard};

use f3d_hal::backend::{HostPlanes, LiveToken, MemoryCharge, MemoryCounter};
use f3d_hal::{MemoryKind, ReadbackImage, TextureDescriptor, TextureRegion};

/// A texture's texels, in the format's own layout.
pub(crate) struct NullTexture {
    planes: Mutex<LazyPlanes>,
    pub(crate) _live: LiveToken,
    _memory: MemoryCharge,
}

/// Planes whose clears are deferred: a clear records its texel, and the plane is filled only
/// when something reads or writes it. Nothing draws on null, so a frame that clears its
/// attachments and is never read back costs nothing per texel (the engine's CPU benchmarks
/// run on null and would otherwise measure memory bandwidth), while every read still sees
/// exactly what the clear wrote.
struct LazyPlanes {
    planes: HostPlanes,
    /// Per plane (level-major, as [`HostPlanes::planes`]), the clear texel not filled in yet.
    pending: Vec<Option<Vec<u8>>>,
    layers: u32,
}

impl LazyPlanes {
    /// The planes with `level`/`layer`'s pending clear filled in.
    fn settled(&mut self, level: u32, layer: u32) -> &mut HostPlanes {
        let i = (level * self.layers + layer) as usize;
        if let Some(texel) = self.pending.get_mut(i).and_then(Option::take) {
            self.planes.fill(level, layer, &texel);
        }
        &mut self.planes
    }
}

impl NullTexture {
    pub(crate) fn new(desc: &TextureDescriptor, live: LiveToken, memory: &MemoryCounter) -> Self {
        let planes = HostPlanes::new(desc);
        let pending = vec![None; planes.planes().len()];
        Self {
            _memory: memory.charge(MemoryKind::Textures, planes.bytes()),
            planes: Mutex::new(LazyPlanes { planes, pending, layers: desc.array_layers }),
            _live: live,
        }
    }

    fn lock(&self) -> MutexGuard<'_, LazyPlanes> {
        self.planes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Clears the plane of `level` and `layer` to `texel` (deferred until it is next used).
    pub(crate) fn clear(&self, level: u32, layer: u32, texel: &[u8]) {
        let mut p = self.lock();
        let i = (level * p.layers + layer) as usize;
        if let Some(slot) = p.pending.get_mut(i) {
            *slot = Some(texel.to_vec());
        }
    }

    /// Writes tightly packed rows into `region` (checked by the caller).
    pub(crate) fn write_region(&self, region: &TextureRegion, data: &[u8]) {
        self.lock().settled(region.mip_level, region.layer).write_region(region, data);
    }

    /// The bytes of `region`, tightly packed rows.
    pub(crate) fn read_region(&self, region: &TextureRegion) -> Vec<u8> {
        self.lock().settled(region.mip_level, region.layer).read_region(region)
    }

    /// `region` as [`GraphicsDevice::readback`](f3d_hal::GraphicsDevice::readback) returns it.
    pub(crate) fn readback(&self, desc: &TextureDescriptor, region: &TextureRegion) -> ReadbackImage {
        self.lock().settled(region.mip_level, region.layer).readback(desc, region)
    }
}

/// A geometry buffer's bytes.
pub(crate) struct NullGeometry {
    pub(crate) bytes: Mutex<Vec<u8>>,
    pub(crate) _live: LiveToken,
    pub(crate) _memory: MemoryCharge,
}
