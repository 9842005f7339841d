//! Readback: a copy of the texels, taken when asked for.

use f3d_hal::{ReadbackImage, TextureDescriptor, TextureRegion, convert_for_readback, readback_format};

use crate::texture::RowSpan;

/// The pixels of `region` in `planes`, converted by the HAL's shared rule.
pub(crate) fn read_region(
    desc: &TextureDescriptor,
    planes: &[Vec<u8>],
    region: &TextureRegion,
) -> ReadbackImage {
    let span = RowSpan::of(desc, region);
    let mut raw = Vec::with_capacity(span.row_bytes * span.rows);
    for i in 0..span.rows {
        raw.extend_from_slice(&planes[span.plane][span.row(i)]);
    }
    ReadbackImage {
        width: region.width,
        height: region.height,
        format: readback_format(desc.format),
        data: convert_for_readback(desc.format, &raw),
    }
}
