//! Readback: a copy of the texels, taken when asked for.

use f3d_hal::backend::HostPlanes;
use f3d_hal::{ReadbackImage, TextureDescriptor, TextureRegion, convert_for_readback, readback_format};

/// The pixels of `region`, converted by the HAL's shared rule.
pub(crate) fn read_region(
    desc: &TextureDescriptor,
    planes: &HostPlanes,
    region: &TextureRegion,
) -> ReadbackImage {
    ReadbackImage {
        width: region.width,
        height: region.height,
        format: readback_format(desc.format),
        data: convert_for_readback(desc.format, &planes.read_region(region)),
    }
}
