//! Texels in host memory, for CPU backends (null, soft) and for staging in GPU backends:
//! one byte vector per (mip level, array layer), tightly packed rows, top row first.

use crate::{ReadbackImage, TextureDescriptor, TextureRegion, convert_for_readback, readback_format};

/// The planes of one texture in host memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostPlanes {
    planes: Vec<Vec<u8>>,
    layers: u32,
    /// Bytes per texel block in these planes (may differ from the format's, e.g. f32 depth).
    block_bytes: u32,
    block_size: (u32, u32),
    sizes: Vec<(u32, u32)>,
}

impl HostPlanes {
    /// Zeroed planes for `desc`, in the format's own layout.
    pub fn new(desc: &TextureDescriptor) -> Self {
        let f = desc.format.facts();
        Self::with_texel_bytes(desc, f.block_bytes, f.block_size)
    }

    /// Zeroed planes for `desc` with `block_bytes` per `block_size` block (for backends that
    /// store some formats in their own layout, such as depth as f32).
    pub fn with_texel_bytes(desc: &TextureDescriptor, block_bytes: u32, block_size: (u32, u32)) -> Self {
        let sizes: Vec<(u32, u32)> = (0..desc.mip_level_count).map(|l| desc.level_size(l)).collect();
        let planes = sizes
            .iter()
            .flat_map(|&(w, h)| {
                let bytes = w.div_ceil(block_size.0) as usize
                    * h.div_ceil(block_size.1) as usize
                    * block_bytes as usize
                    * desc.sample_count as usize;
                (0..desc.array_layers).map(move |_| vec![0u8; bytes])
            })
            .collect();
        Self { planes, layers: desc.array_layers, block_bytes, block_size, sizes }
    }

    /// The bytes the planes hold.
    pub fn bytes(&self) -> u64 {
        self.planes.iter().map(|p| p.len() as u64).sum()
    }

    fn index(&self, level: u32, layer: u32) -> usize {
        (level * self.layers + layer) as usize
    }

    /// Bytes per row of `level`.
    pub fn row_pitch(&self, level: u32) -> usize {
        self.sizes[level as usize].0.div_ceil(self.block_size.0) as usize * self.block_bytes as usize
    }

    /// The plane of `level` and `layer`.
    pub fn plane(&self, level: u32, layer: u32) -> &[u8] {
        &self.planes[self.index(level, layer)]
    }

    /// The plane of `level` and `layer`, to write.
    pub fn plane_mut(&mut self, level: u32, layer: u32) -> &mut [u8] {
        let i = self.index(level, layer);
        &mut self.planes[i]
    }

    /// Every plane, level-major (`planes()[level * layers + layer]`).
    pub fn planes(&self) -> &[Vec<u8>] {
        &self.planes
    }

    fn rows(&self, region: &TextureRegion) -> (usize, usize, usize, usize) {
        let pitch = self.row_pitch(region.mip_level);
        let (bw, bh) = self.block_size;
        let bb = self.block_bytes as usize;
        let start = (region.y / bh) as usize * pitch + (region.x / bw) as usize * bb;
        let row_bytes = region.width.div_ceil(bw) as usize * bb;
        (start, pitch, row_bytes, region.height.div_ceil(bh) as usize)
    }

    /// Copies `data` (tightly packed rows of the region) into `region`, which the caller
    /// checked lies inside the texture.
    pub fn write_region(&mut self, region: &TextureRegion, data: &[u8]) {
        let (start, pitch, row_bytes, rows) = self.rows(region);
        let plane = self.plane_mut(region.mip_level, region.layer);
        for (i, row) in data.chunks_exact(row_bytes).take(rows).enumerate() {
            let s = start + i * pitch;
            plane[s..s + row_bytes].copy_from_slice(row);
        }
    }

    /// The bytes of `region`, tightly packed rows, top first.
    pub fn read_region(&self, region: &TextureRegion) -> Vec<u8> {
        let (start, pitch, row_bytes, rows) = self.rows(region);
        let plane = self.plane(region.mip_level, region.layer);
        let mut out = Vec::with_capacity(row_bytes * rows);
        for i in 0..rows {
            let s = start + i * pitch;
            out.extend_from_slice(&plane[s..s + row_bytes]);
        }
        out
    }

    /// The pixels of `region` of a texture described by `desc` stored in these planes, as
    /// [`GraphicsDevice::readback`](crate::GraphicsDevice::readback) returns them (converted
    /// by the shared rule).
    pub fn readback(&self, desc: &TextureDescriptor, region: &TextureRegion) -> ReadbackImage {
        ReadbackImage {
            width: region.width,
            height: region.height,
            format: readback_format(desc.format),
            data: convert_for_readback(desc.format, self.read_region(region)),
        }
    }

    /// Fills the whole plane of `level` and `layer` with copies of `texel`.
    pub fn fill(&mut self, level: u32, layer: u32, texel: &[u8]) {
        if texel.is_empty() {
            return;
        }
        for t in self.plane_mut(level, layer).chunks_exact_mut(texel.len()) {
            t.copy_from_slice(texel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TextureFormat;

    #[test]
    fn regions_round_trip() {
        let desc = TextureDescriptor::new_2d("t", 4, 3, TextureFormat::Rgba8Unorm).with_mips(2);
        let mut p = HostPlanes::new(&desc);
        let region = TextureRegion::rect(1, 1, 2, 2);
        let data: Vec<u8> = (0..16).collect();
        p.write_region(&region, &data);
        assert_eq!(p.read_region(&region), data);
        assert_eq!(p.read_region(&TextureRegion::rect(0, 0, 1, 1)), vec![0; 4]);
        assert_eq!(p.plane(1, 0).len(), 2 * 4);
    }
}
