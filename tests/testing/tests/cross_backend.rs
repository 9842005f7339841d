//! Frames that answer to each other beyond each backend's goldens:
//!
//! * vulkan against wgpu directly, every scene of `f3d_examples::SCENES` (both on the same
//!   adapter in CI: lavapipe), within the GPU goldens' tolerance — two GPU backends drifting
//!   the same way from soft would each stay near soft's bound, but not near each other;
//! * a later frame (the fourth, the clock having run three steps: the showcase's ocean and
//!   water move) drawn inline and pipelined: the same pixels on soft, and every GPU backend's
//!   pipelined frame within the against-soft tolerance of soft's inline one.
//!
//! Backends that do not open are passed over (CI sets `F3D_REQUIRE_BACKENDS`, under which
//! they fail instead).

use f3d::f3d_hal::{BackendId, DeviceRequest};
use f3d_testing::{Frame, RenderOptions, backend_opens, compare, gpu, render_frames};

const SIZE: (u32, u32) = (192, 108);

fn frame(backend: &str, scene: &str, options: &RenderOptions) -> Frame {
    let request =
        DeviceRequest { backend: Some(BackendId::from_name(backend)), ..DeviceRequest::new(SIZE.0, SIZE.1) };
    let device = f3d::plugin::default_registry().open(&request).unwrap_or_else(|e| panic!("{backend}: {e}"));
    let build = f3d_examples::scene(scene).unwrap_or_else(|| panic!("no scene {scene}"));
    render_frames(SIZE.0, SIZE.1, device, options, build)
        .unwrap_or_else(|e| panic!("{backend} {scene}, pipelined {}: {e}", options.pipelined))
}

#[test]
fn vulkan_and_wgpu_agree_with_each_other() {
    if !backend_opens("vulkan") || !backend_opens("wgpu") {
        return;
    }
    let mut failures = Vec::new();
    for (scene, _) in f3d_examples::SCENES {
        let vulkan = frame("vulkan", scene, &RenderOptions::default());
        let wgpu = frame("wgpu", scene, &RenderOptions::default());
        let cmp = compare(&vulkan, &wgpu, gpu::GOLDEN).unwrap_or_else(|e| panic!("{scene}: {e}"));
        println!(
            "{scene}: {} pixels past {}, largest difference {}",
            cmp.mismatched,
            gpu::GOLDEN.channel,
            cmp.max_difference
        );
        if let Err(e) = cmp.within(gpu::GOLDEN) {
            failures.push(format!("{scene}, vulkan against wgpu: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_later_frame_is_the_same_inline_and_pipelined() {
    let later = |pipelined| RenderOptions { pipelined, frame: 4, ..RenderOptions::default() };
    let mut failures = Vec::new();
    for scene in ["showcase", "materials", "msaa"] {
        let inline = frame("soft", scene, &later(false));
        if scene == "showcase" {
            let first = frame("soft", scene, &RenderOptions::default());
            assert_ne!(inline, first, "{scene}: the fourth frame is the first (the clock did not run)");
        }
        let pipelined = frame("soft", scene, &later(true));
        let differing =
            inline.pixels.chunks(4).zip(pipelined.pixels.chunks(4)).filter(|(a, b)| a != b).count();
        if differing != 0 {
            failures.push(format!(
                "{scene}: {differing} pixels of the fourth frame differ between inline and pipelined soft"
            ));
        }
        for backend in ["wgpu", "vulkan"] {
            if !backend_opens(backend) {
                continue;
            }
            let gpu_frame = frame(backend, scene, &later(true));
            let cmp =
                compare(&gpu_frame, &inline, gpu::AGAINST_SOFT).unwrap_or_else(|e| panic!("{scene}: {e}"));
            if let Err(e) = cmp.within(gpu::AGAINST_SOFT) {
                failures.push(format!("{scene}, {backend} pipelined fourth frame against soft: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
