//! Frame capture and replay (`f3d_hal::trace`) through the whole engine:
//!
//! * the showcase drawn on vulkan through a tracing device, written to the `.f3dtrace` format
//!   and read back, replays on soft within the GPU-against-soft tolerance — and draws exactly
//!   what soft draws of the scene itself — and on wgpu within the GPU golden tolerance;
//! * what a replay cannot carry out is an error naming the record: a call the replay device
//!   refuses, an id the trace never made, a capture that saw handles made before it began.
//!
//! Backends that do not open are passed over (CI sets `F3D_REQUIRE_BACKENDS`, under which
//! they fail instead).

use std::sync::Arc;

use f3d::f3d_hal::trace::{Trace, TraceCall, TraceError, TracingDevice};
use f3d::f3d_hal::{
    BackendId, DeviceRequest, GraphicsDevice, TextureDescriptor, TextureFormat, TextureRegion,
};
use f3d_testing::{Frame, Tolerance, backend_opens, compare, gpu, render_frame, soft_frame};

const SIZE: (u32, u32) = (192, 108);

fn open(backend: &str) -> Arc<dyn GraphicsDevice> {
    let request =
        DeviceRequest { backend: Some(BackendId::from_name(backend)), ..DeviceRequest::new(SIZE.0, SIZE.1) };
    f3d::plugin::default_registry().open(&request).unwrap_or_else(|e| panic!("{backend}: {e}"))
}

fn showcase() -> impl FnOnce(&mut f3d::prelude::World) + Send + Sync + 'static {
    f3d_examples::scene("showcase").expect("the showcase scene")
}

/// The last readback a replay returned, as a frame.
fn replayed_frame(trace: &Trace, backend: &str) -> Frame {
    let device = open(backend);
    let readbacks = trace.replay(device.as_ref()).unwrap_or_else(|e| panic!("replay on {backend}: {e}"));
    let last = readbacks.last().unwrap_or_else(|| panic!("the replay on {backend} read nothing back"));
    Frame { width: last.replayed.width, height: last.replayed.height, pixels: last.replayed.to_rgba8() }
}

fn within(name: &str, actual: &Frame, expected: &Frame, tolerance: Tolerance) -> Result<(), String> {
    let cmp = compare(actual, expected, tolerance).map_err(|e| format!("{name}: {e}"))?;
    println!(
        "{name}: {} pixels past {}, largest difference {}",
        cmp.mismatched, tolerance.channel, cmp.max_difference
    );
    cmp.within(tolerance).map_err(|e| format!("{name}: {e}"))
}

#[test]
fn a_vulkan_showcase_frame_replays_on_soft_and_wgpu() {
    if !backend_opens("vulkan") {
        return;
    }
    let tracing = Arc::new(TracingDevice::new(open("vulkan")));
    let log = tracing.log();
    let recorded = render_frame(SIZE.0, SIZE.1, tracing, showcase()).expect("the showcase on vulkan");
    let bytes = log.finish().expect("a complete capture").to_bytes();
    let trace = Trace::from_bytes(&bytes).expect("the trace reads back");
    assert_eq!(trace.backend, "vulkan");
    let Some(TraceCall::Readback { recorded: Some(image), .. }) =
        trace.calls.iter().rev().find(|c| matches!(c, TraceCall::Readback { .. }))
    else {
        panic!("the trace holds no waited-for readback");
    };
    assert_eq!(image.to_rgba8(), recorded.pixels, "the trace's readback is not the frame the app got");

    let mut failures = Vec::new();
    let on_soft = replayed_frame(&trace, "soft");
    failures.extend(within("vulkan trace replayed on soft", &on_soft, &recorded, gpu::AGAINST_SOFT).err());
    let soft_itself = soft_frame(SIZE.0, SIZE.1, showcase()).expect("the showcase on soft");
    failures.extend(
        within(
            "soft replay against soft's own frame",
            &on_soft,
            &soft_itself,
            Tolerance { channel: 0, max_mismatch: 0.0, max_difference: 0 },
        )
        .err(),
    );
    if backend_opens("wgpu") {
        let on_wgpu = replayed_frame(&trace, "wgpu");
        failures.extend(within("vulkan trace replayed on wgpu", &on_wgpu, &recorded, gpu::GOLDEN).err());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn what_a_replay_cannot_do_names_the_record() {
    // A multisampled target replayed where multisampling is refused (null).
    let tracing = TracingDevice::new(open("soft"));
    let log = tracing.log();
    let desc = TextureDescriptor::new_2d("msaa target", 8, 8, TextureFormat::Rgba8UnormSrgb).with_samples(4);
    let _target = tracing.create_texture(&desc).expect("soft multisamples");
    let trace = log.finish().expect("a complete capture");
    match trace.replay(open("null").as_ref()) {
        Err(TraceError::Replay { record: 0, call: "create_texture", error }) => {
            assert!(error.to_string().contains("msaa"), "{error}")
        }
        other => panic!("expected the null device to refuse record 0, got {other:?}"),
    }

    // An id the trace never made.
    let bad = Trace {
        backend: "soft".into(),
        adapter: String::new(),
        calls: vec![TraceCall::WriteTexture {
            texture: 42,
            region: TextureRegion::rect(0, 0, 1, 1),
            data: vec![0; 4],
        }],
    };
    let e = bad.replay(open("soft").as_ref()).unwrap_err();
    assert_eq!(e.to_string(), "record 0 (write_texture): id 42 was never made");

    // A handle made before the device was wrapped.
    let soft = open("soft");
    let early =
        soft.create_texture(&TextureDescriptor::new_2d("early", 4, 4, TextureFormat::Rgba8Unorm)).unwrap();
    let tracing = TracingDevice::new(soft);
    let log = tracing.log();
    tracing.write_texture(&early, TextureRegion::rect(0, 0, 1, 1), &[1, 2, 3, 4]).unwrap();
    let e = log.finish().unwrap_err();
    assert_eq!(e.to_string(), "the capture is incomplete: texture early was made before tracing began");
}

#[test]
fn damaged_traces_that_still_parse_replay_without_panicking() {
    // A small showcase trace recorded on soft, damaged a few bytes at a time (fixed-seed
    // xorshift, so a failure reproduces). Whatever still reads as a trace must replay to the
    // end or stop with an error naming a record: a damaged file never panics the engine.
    let tracing = Arc::new(TracingDevice::new(open("soft")));
    let log = tracing.log();
    render_frame(32, 18, tracing, showcase()).expect("the showcase on soft");
    let bytes = log.finish().expect("a complete capture").to_bytes();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut parsed, mut replayed) = (0, 0);
    for round in 0..40 {
        let mut damaged = bytes.clone();
        for _ in 0..1 + next() % 3 {
            let at = (next() % damaged.len() as u64) as usize;
            damaged[at] ^= (next() as u8) | 1;
        }
        let outcome = std::panic::catch_unwind(|| match Trace::from_bytes(&damaged) {
            Err(_) => (false, false),
            Ok(trace) => (true, trace.replay(open("soft").as_ref()).is_ok()),
        });
        let (p, r) = outcome.unwrap_or_else(|_| panic!("round {round}: a damaged trace panicked"));
        parsed += usize::from(p);
        replayed += usize::from(r);
    }
    println!("40 damaged traces: {parsed} still parsed, {replayed} replayed to the end");
    assert!(parsed > 0, "no damaged trace parsed: the replay side was never exercised");
}

#[test]
fn a_tracing_device_holds_the_limits_it_reports() {
    // What the wrapped device takes but the reported (guaranteed) limits do not is refused
    // while recording, so it cannot fail on the device that replays it.
    if !backend_opens("vulkan") {
        return;
    }
    let vulkan = open("vulkan");
    let wide = TextureDescriptor::new_2d("wide", 8192, 8, TextureFormat::Rgba8Unorm);
    assert!(vulkan.limits().max_texture_dimension_2d >= 8192, "this check needs a device past 4096");
    vulkan.create_texture(&wide).expect("the wrapped device takes it");
    let tracing = TracingDevice::new(vulkan);
    assert_eq!(tracing.limits().max_texture_dimension_2d, 4096);
    let e = tracing.create_texture(&wide).unwrap_err();
    assert!(e.to_string().contains("max_texture_dimension_2d"), "{e}");
    assert!(tracing.log().is_empty(), "a refused call was logged");
}
