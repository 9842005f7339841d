//! Textures and geometry in memory.

use std::sync::Mutex;

use f3d_hal::TextureDescriptor;
use f3d_hal::backend::HostPlanes;

use f3d_hal::backend::LiveToken;

/// A texture's texels, in the format's own layout.
pub(crate) struct NullTexture {
    pub(crate) planes: Mutex<HostPlanes>,
    pub(crate) _live: LiveToken,
}

impl NullTexture {
    pub(crate) fn new(desc: &TextureDescriptor, live: LiveToken) -> Self {
        Self { planes: Mutex::new(HostPlanes::new(desc)), _live: live }
    }
}

/// A geometry buffer's bytes.
pub(crate) struct NullGeometry {
    pub(crate) bytes: Mutex<Vec<u8>>,
    pub(crate) _live: LiveToken,
}
