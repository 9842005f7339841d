//! The soft rasteriser packs the sparse 8x8 blocks of small primitives, quad by quad, into
//! shared shader batches. Packing must not change a pixel: every scene of
//! `f3d_examples::SCENES` (small spheres, the water's scene colour and depth, textures with
//! mip selection from quad derivatives, blending, shadows) is drawn with packing and without,
//! and the frames must be identical byte for byte. The sizes are small so that most
//! triangles are a few pixels across, where packing happens most.

use std::sync::Arc;

use f3d_backend_soft::SoftDevice;
use f3d_testing::render_frame;

fn frame(name: &str, size: (u32, u32), packed: bool) -> Vec<u8> {
    let build = f3d_examples::scene(name).unwrap_or_else(|| panic!("no scene {name}"));
    let device = SoftDevice::new(name);
    let device = if packed { device } else { device.without_quad_packing() };
    render_frame(size.0, size.1, Arc::new(device), build).unwrap_or_else(|e| panic!("{name}: {e}")).pixels
}

#[test]
fn packing_changes_no_pixel_of_any_scene() {
    let mut differing = Vec::new();
    for &(name, _) in f3d_examples::SCENES {
        for size in [(160, 96), (97, 61)] {
            let (packed, plain) = (frame(name, size, true), frame(name, size, false));
            let n = packed.chunks(4).zip(plain.chunks(4)).filter(|(a, b)| a != b).count();
            if n != 0 {
                differing.push(format!("{name} at {}x{}: {n} pixels", size.0, size.1));
            }
        }
    }
    assert!(differing.is_empty(), "packing changed pixels: {differing:?}");
}
