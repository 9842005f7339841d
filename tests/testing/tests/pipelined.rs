//! Inline and pipelined rendering draw the same pixels (DESIGN §2): the same animated scene
//! captured on the same frame both ways.

use std::sync::Arc;

use f3d_backend_soft::SoftDevice;
use f3d_testing::{RenderOptions, render_frames};

fn capture(pipelined: bool) -> f3d_testing::Frame {
    let options = RenderOptions { pipelined, frame: 3, time_step: 0.25, ..Default::default() };
    // The materials scene animates (ocean waves, water ripples run on the shader clock), so a
    // frame captured with the wrong frame's data would differ.
    render_frames(160, 96, Arc::new(SoftDevice::new("pipelined")), &options, f3d_examples::scenes::materials)
        .unwrap_or_else(|e| panic!("pipelined={pipelined}: {e}"))
}

#[test]
fn inline_and_pipelined_agree() {
    let inline = capture(false);
    let pipelined = capture(true);
    assert_eq!((inline.width, inline.height), (160, 96));
    let differing = inline.pixels.chunks(4).zip(pipelined.pixels.chunks(4)).filter(|(a, b)| a != b).count();
    assert_eq!(differing, 0, "{differing} pixels differ between inline and pipelined");
    // And the animation is real: another frame differs.
    let other = render_frames(
        160,
        96,
        Arc::new(SoftDevice::new("pipelined")),
        &RenderOptions { pipelined: false, frame: 2, time_step: 0.25, ..Default::default() },
        f3d_examples::scenes::materials,
    )
    .unwrap();
    assert_ne!(other.pixels, inline.pixels, "frames 2 and 3 should differ (the ocean moves)");
}
