//! A plugin's own pass (`f3d_examples::vignette`: a `RenderStartup` system making its
//! pipeline and a `Render` system adding the pass, both added in the plugin's `build`) draws
//! inline and pipelined, the same pixels both ways, on every backend that opens (the windowed
//! mode has its own test binary, `window_custom_pass`).

use f3d::f3d_hal::{BackendId, DeviceRequest};
use f3d::prelude::*;
use f3d_examples::vignette::VignettePlugin;
use f3d_testing::{Frame, RenderOptions, render_frames};

fn vignette(app: &mut App) {
    app.add_plugins(VignettePlugin);
}

fn render(backend: &str, pipelined: bool, with_pass: bool) -> Frame {
    render_scene(backend, pipelined, with_pass, Msaa::Off)
}

fn render_scene(backend: &str, pipelined: bool, with_pass: bool, msaa: Msaa) -> Frame {
    let request =
        DeviceRequest { backend: Some(BackendId::from_name(backend)), ..DeviceRequest::new(160, 90) };
    let device = f3d::plugin::default_registry().open(&request).expect("the backend opened a moment ago");
    let options = RenderOptions {
        pipelined,
        configure: with_pass.then_some(vignette as fn(&mut App)),
        ..Default::default()
    };
    let scene = move |world: &mut World| {
        f3d_examples::scenes::pbr_grid(world);
        let cameras: Vec<Entity> = world.query_filtered::<Entity, With<Camera3d>>().iter(world).collect();
        for camera in cameras {
            world.entity_mut(camera).insert(msaa);
        }
    };
    render_frames(160, 90, device, &options, scene)
        .unwrap_or_else(|e| panic!("{backend}, pipelined {pipelined}: {e}"))
}

fn luma(frame: &Frame, x: u32, y: u32) -> u32 {
    let p = frame.pixel(x, y);
    u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2])
}

#[test]
fn a_plugins_pass_draws_inline_and_pipelined() {
    for backend in ["soft", "wgpu", "vulkan"] {
        if !f3d_testing::backend_opens(backend) {
            continue;
        }
        let inline = render(backend, false, true);
        let pipelined = render(backend, true, true);
        let differing =
            inline.pixels.chunks(4).zip(pipelined.pixels.chunks(4)).filter(|(a, b)| a != b).count();
        assert_eq!(differing, 0, "{backend}: {differing} pixels differ between inline and pipelined");
        // The pass ran: the corners are darker than without it, the middle is not.
        let plain = render(backend, false, false);
        let (corner, middle) = ((2, 2), (80, 45));
        assert!(
            luma(&inline, corner.0, corner.1) * 2 < luma(&plain, corner.0, corner.1),
            "{backend}: the vignette did not darken the corner ({} with it, {} without)",
            luma(&inline, corner.0, corner.1),
            luma(&plain, corner.0, corner.1)
        );
        assert!(
            luma(&inline, middle.0, middle.1).abs_diff(luma(&plain, middle.0, middle.1)) <= 6,
            "{backend}: the vignette changed the middle"
        );
    }
}

/// With 4× MSAA the scene colour is multisampled: the plugin's pass samples its resolve
/// (`ViewGraph::resolved_hdr`) and draws as without MSAA, away from edges.
#[test]
fn a_plugins_pass_samples_the_resolved_scene_with_msaa() {
    for backend in ["soft", "wgpu", "vulkan"] {
        if !f3d_testing::backend_opens(backend) {
            continue;
        }
        let with = render_scene(backend, false, true, Msaa::Sample4);
        let plain = render_scene(backend, false, false, Msaa::Sample4);
        let without_msaa = render(backend, false, true);
        let (corner, middle) = ((2, 2), (80, 45));
        assert!(
            luma(&with, corner.0, corner.1) * 2 < luma(&plain, corner.0, corner.1),
            "{backend}: with MSAA the vignette did not darken the corner"
        );
        assert!(
            luma(&with, middle.0, middle.1).abs_diff(luma(&plain, middle.0, middle.1)) <= 6,
            "{backend}: with MSAA the vignette changed the middle"
        );
        // Only edges differ from the same pass over the scene without MSAA.
        let differing = with
            .pixels
            .chunks(4)
            .zip(without_msaa.pixels.chunks(4))
            .filter(|(a, b)| a.iter().zip(b.iter()).any(|(x, y)| x.abs_diff(*y) > 8))
            .count();
        assert!(
            differing > 0 && differing < (160 * 90) / 10,
            "{backend}: {differing} pixels differ from the frame without MSAA (its edges, and only those, should)"
        );
    }
}
