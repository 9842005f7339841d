//! Textures and geometry in memory.

use std::sync::Mutex;

use f3d_hal::{TextureDescriptor, TextureRegion};

use crate::device::LiveToken;

/// A texture's planes: one byte vector per (level, layer), tightly packed rows, top first.
pub(crate) struct NullTexture {
    pub(crate) planes: Mutex<Vec<Vec<u8>>>,
    pub(crate) _live: LiveToken,
}

impl NullTexture {
    pub(crate) fn new(desc: &TextureDescriptor, live: LiveToken) -> Self {
        let planes = (0..desc.mip_level_count)
            .flat_map(|level| {
                let (w, h) = desc.level_size(level);
                let bytes = desc.format.image_bytes(w, h) as usize * desc.sample_count as usize;
                (0..desc.array_layers).map(move |_| vec![0u8; bytes])
            })
            .collect();
        Self { planes: Mutex::new(planes), _live: live }
    }
}

/// Where a region's rows sit in a plane, in bytes.
pub(crate) struct RowSpan {
    pub(crate) plane: usize,
    pub(crate) row_pitch: usize,
    pub(crate) start: usize,
    pub(crate) row_bytes: usize,
    pub(crate) rows: usize,
}

impl RowSpan {
    /// The rows of `region` (already checked to fit) in the planes of `desc`.
    pub(crate) fn of(desc: &TextureDescriptor, region: &TextureRegion) -> Self {
        let (w, _) = desc.level_size(region.mip_level);
        let (bw, bh) = desc.format.facts().block_size;
        let row_pitch = desc.format.row_bytes(w) as usize;
        let block_bytes = desc.format.facts().block_bytes as usize;
        Self {
            plane: (region.mip_level * desc.array_layers + region.layer) as usize,
            row_pitch,
            start: (region.y / bh) as usize * row_pitch + (region.x / bw) as usize * block_bytes,
            row_bytes: desc.format.row_bytes(region.width) as usize,
            rows: region.height.div_ceil(bh) as usize,
        }
    }

    /// The byte range of row `i` of the region inside its plane.
    pub(crate) fn row(&self, i: usize) -> std::ops::Range<usize> {
        let s = self.start + i * self.row_pitch;
        s..s + self.row_bytes
    }
}

/// A geometry buffer's bytes.
pub(crate) struct NullGeometry {
    pub(crate) bytes: Mutex<Vec<u8>>,
    pub(crate) _live: LiveToken,
}
