//! `LIFECYCLE`: handles, loss, frames and the registry.

use std::sync::Arc;

use f3d_hal::{
    BackendId, Color, ColorAttachment, DeviceError, DeviceFeature, DeviceRegistry, DeviceRequest,
    GeometryDescriptor, GraphicsDevice, LossReason, OpenError, RenderPassDescriptor, SamplerDescriptor,
    TextureDescriptor, TextureFormat, TextureRegion,
};

use crate::draw::probe_pipeline_desc;
use crate::support::{clear, expect_uniform, read, rgba8};
use crate::{Check, CheckFn, CheckResult, Context, Factory, Tier, Verdict, ensure, fail};

pub(crate) fn checks() -> Vec<Check> {
    let d = |name, f| Check { tier: Tier::Lifecycle, name, run: CheckFn::Device(f) };
    let o = |name, f| Check { tier: Tier::Lifecycle, name, run: CheckFn::Owned(f) };
    vec![
        d("handles_release_on_drop", handles_release_on_drop),
        d("memory_report_follows_resources", memory_report_follows_resources),
        o("foreign_handles_refused", foreign_handles_refused),
        d("use_after_loss_refused", use_after_loss_refused),
        d("loss_reported_once", loss_reported_once),
        o("drop_is_loss_destroyed", drop_is_loss_destroyed),
        d("begin_frame_after_failed_frame", begin_frame_after_failed_frame),
        o("registry_order_and_fallback", registry_order_and_fallback),
    ]
}

fn handles_release_on_drop(device: &dyn GraphicsDevice) -> CheckResult {
    let before = device.live_resources();
    // Watches on every handle: whether any clone survives (in the device or anywhere), seen
    // without the device's word — its live counter could lie.
    let mut watches = Vec::new();
    {
        let t = rgba8(device, 4, 4)?;
        let t2 = t.clone();
        let g = device.create_geometry(&GeometryDescriptor::new("g", 16), None).ctx("create_geometry")?;
        let s = device.create_sampler(&SamplerDescriptor::default()).ctx("create_sampler")?;
        let pipeline =
            device.create_pipeline(&probe_pipeline_desc(device, "fs_color", TextureFormat::Rgba8Unorm)?);
        clear(device, &t, Color::RED)?;
        watches.extend([t.watch(), g.watch(), s.watch()]);
        if let Ok(p) = &pipeline {
            watches.push(p.watch());
        }
        let during = device.live_resources();
        // Texture, buffer, sampler, two shaders and a pipeline (when the device makes them).
        let expected = 3 + if pipeline.is_ok() { 3 } else { 0 };
        ensure!(
            during >= before + expected,
            "{} live resources with {expected} more alive, {before} before",
            during
        );
        drop(t);
        ensure!(device.live_resources() == during, "dropping one of two clones released the texture");
        drop((t2, g, s, pipeline));
    }
    let after = device.live_resources();
    ensure!(
        after == before,
        "{after} live resources after every handle dropped, {before} before: something leaked"
    );
    for w in &watches {
        ensure!(!w.is_alive(), "after every handle was dropped, the device keeps a clone of {}", w.label());
    }
    Ok(())
}

/// The memory report rises by at least a resource's bytes when it is made, not by absurdly
/// more, and goes back when its handle drops: textures and geometry to exactly where they
/// were, anything retiring given back once the device has finished its work (a readback waits
/// for it, a new frame collects). The expectations are the descriptors' own sizes, computed
/// here, not the backend's figures.
fn memory_report_follows_resources(device: &dyn GraphicsDevice) -> CheckResult {
    // A probe to wait on, made before the first report so it is part of the baseline.
    let probe = rgba8(device, 1, 1)?;
    clear(device, &probe, Color::BLACK)?;
    read(device, &probe)?;
    device.begin_frame().ctx("begin_frame")?;
    let before = device.memory_report();
    let (w, h) = (64u32, 32u32);
    let texture_bytes = u64::from(w * h * 4);
    let geometry_bytes = 4096u64;
    {
        let t = rgba8(device, w, h)?;
        device
            .write_texture(&t, TextureRegion::rect(0, 0, w, h), &vec![7u8; texture_bytes as usize])
            .ctx("write_texture")?;
        let g = device
            .create_geometry(
                &GeometryDescriptor::new("g", geometry_bytes),
                Some(&vec![1u8; geometry_bytes as usize]),
            )
            .ctx("create_geometry")?;
        let during = device.memory_report();
        // Allocators round up (alignment, pages); four times the size plus 64 KiB would
        // be a different resource, not rounding.
        let bounded = |what: &str, now: u64, was: u64, size: u64| -> CheckResult {
            ensure!(
                now >= was + size,
                "{what}: {now} bytes with a {size}-byte resource alive, {was} before: it is not counted"
            );
            ensure!(
                now <= was + 4 * size + (64 << 10),
                "{what}: {now} bytes with a {size}-byte resource alive, {was} before: far more than it holds"
            );
            Ok(())
        };
        bounded("textures", during.textures, before.textures, texture_bytes)?;
        bounded("geometry", during.geometry, before.geometry, geometry_bytes)?;
        ensure!(
            during.total() >= before.total() + texture_bytes + geometry_bytes,
            "the total does not add up"
        );
        drop((t, g));
    }
    let dropped = device.memory_report();
    ensure!(
        dropped.textures == before.textures && dropped.geometry == before.geometry,
        "after the handles dropped: textures {} (was {}), geometry {} (was {})",
        dropped.textures,
        before.textures,
        dropped.geometry,
        before.geometry
    );
    // Wait for the device, then let a frame collect what finished.
    read(device, &probe)?;
    device.begin_frame().ctx("begin_frame")?;
    let settled = device.memory_report();
    ensure!(
        settled.retiring <= before.retiring,
        "{} bytes still retiring after the device finished its work ({} before)",
        settled.retiring,
        before.retiring
    );
    ensure!(
        settled.total() <= before.total() + (64 << 10),
        "{} bytes held after everything was dropped and finished, {} before: something leaked ({settled})",
        settled.total(),
        before.total()
    );
    Ok(())
}

fn foreign_handles_refused(device: Arc<dyn GraphicsDevice>, factory: &Factory) -> CheckResult {
    let other = factory().map_err(|e| Verdict::Failed(format!("a second device: {e}")))?;
    let theirs = rgba8(other.as_ref(), 4, 4)?;
    let mine = rgba8(device.as_ref(), 4, 4)?;
    let wrong = |r: Result<(), DeviceError>, what: &str| -> CheckResult {
        match r {
            Err(DeviceError::WrongDevice { operation, .. }) => {
                ensure!(!operation.is_empty(), "{what}: refused without naming the operation");
                Ok(())
            }
            Err(DeviceError::Validation(_)) => Ok(()),
            other => fail(format!("{what} with another device's texture gave {other:?}")),
        }
    };
    wrong(device.write_texture(&theirs, TextureRegion::rect(0, 0, 1, 1), &[0; 4]), "write_texture")?;
    wrong(device.readback(&theirs, TextureRegion::rect(0, 0, 1, 1)).map(|_| ()), "readback")?;
    let pass = device.begin_render_pass(&RenderPassDescriptor::color(
        "foreign",
        ColorAttachment::clear(&theirs, Color::RED),
    ));
    wrong(pass.map(|_| ()), "begin_render_pass")?;
    if device.features().has(DeviceFeature::COPY_TEXTURE) {
        let r = device.copy_texture(
            &theirs,
            TextureRegion::rect(0, 0, 1, 1),
            &mine,
            TextureRegion::rect(0, 0, 1, 1),
        );
        wrong(r, "copy_texture")?;
    }
    // The other device's texture is untouched and still its own.
    clear(other.as_ref(), &theirs, Color::GREEN)?;
    expect_uniform(&read(other.as_ref(), &theirs)?, [0, 255, 0, 255], "the other device's texture")
}

fn use_after_loss_refused(device: &dyn GraphicsDevice) -> CheckResult {
    let t = rgba8(device, 4, 4)?;
    device.simulate_loss("conformance");
    let lost = |r: Result<(), DeviceError>, op: &str| -> CheckResult {
        match r {
            Err(DeviceError::Lost { operation, reason: LossReason::Simulated(_), .. }) => {
                ensure!(operation == op, "{op} after loss was refused naming operation {operation}");
                Ok(())
            }
            other => fail(format!("{op} after loss gave {other:?}, expected Lost naming {op}")),
        }
    };
    lost(device.write_texture(&t, TextureRegion::rect(0, 0, 1, 1), &[0; 4]), "write_texture")?;
    lost(device.readback(&t, TextureRegion::rect(0, 0, 1, 1)).map(|_| ()), "readback")?;
    lost(
        device
            .create_texture(&TextureDescriptor::new_2d("late", 4, 4, TextureFormat::Rgba8Unorm))
            .map(|_| ()),
        "create_texture",
    )?;
    lost(device.begin_frame(), "begin_frame")?;
    ensure!(t.check_owner_alive("probe").is_err(), "a handle of a lost device says its owner is alive");
    Ok(())
}

fn loss_reported_once(device: &dyn GraphicsDevice) -> CheckResult {
    ensure!(device.take_loss_report().is_none(), "a fresh device reported a loss");
    device.simulate_loss("first");
    device.simulate_loss("second");
    match device.take_loss_report() {
        Some(LossReason::Simulated(why)) => {
            ensure!(why == "first", "the loss reported was {why:?}; the first reason must stick")
        }
        other => return fail(format!("after simulate_loss, take_loss_report gave {other:?}")),
    }
    ensure!(device.take_loss_report().is_none(), "the loss was reported twice");
    Ok(())
}

fn drop_is_loss_destroyed(device: Arc<dyn GraphicsDevice>, _factory: &Factory) -> CheckResult {
    let t = rgba8(device.as_ref(), 4, 4)?;
    ensure!(t.check_owner_alive("probe").is_ok(), "a live device's handle says its owner is gone");
    drop(device);
    match t.check_owner_alive("write_texture") {
        Err(DeviceError::Lost { operation: "write_texture", reason: LossReason::Destroyed, .. }) => Ok(()),
        other => fail(format!(
            "after the device dropped, its texture's owner check gave {other:?}, expected Lost(destroyed)"
        )),
    }
}

fn begin_frame_after_failed_frame(device: &dyn GraphicsDevice) -> CheckResult {
    device.begin_frame().ctx("begin_frame")?;
    let t = rgba8(device, 4, 4)?;
    // A frame of failures: a wrong-size upload, a region past the edge, a draw without a pipeline.
    ensure!(
        device.write_texture(&t, TextureRegion::full(t.descriptor()), &[0; 3]).is_err(),
        "a 3-byte upload was accepted"
    );
    ensure!(
        device.readback(&t, TextureRegion::rect(3, 3, 2, 2)).is_err(),
        "a region past the edge was accepted"
    );
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("failing", ColorAttachment::clear(&t, Color::RED)))
        .ctx("begin_render_pass")?;
    ensure!(pass.draw(0..3, 0..1).is_err(), "a draw without a pipeline was accepted");
    drop(pass);
    device.begin_frame().ctx("begin_frame after a failed frame")?;
    clear(device, &t, Color::BLUE)?;
    expect_uniform(&read(device, &t)?, [0, 0, 255, 255], "a clear in the frame after the failed one")
}

fn registry_order_and_fallback(device: Arc<dyn GraphicsDevice>, factory: &Factory) -> CheckResult {
    let backend = device.backend_id();
    drop(device);
    // The registry's opener hands out fresh devices opened beforehand (the factory is
    // borrowed, the opener must be 'static): one per `open` that reaches this backend.
    let mut devices = Vec::new();
    for _ in 0..3 {
        devices.push(Some(factory().map_err(|e| Verdict::Failed(format!("factory: {e}")))?));
    }
    let slots = Arc::new(std::sync::Mutex::new(devices));
    let take = move |slots: &std::sync::Mutex<Vec<Option<Arc<dyn GraphicsDevice>>>>| {
        slots.lock().unwrap_or_else(|e| e.into_inner()).pop().flatten()
    };

    let mut registry = DeviceRegistry::new();
    let s1 = slots.clone();
    let real = registry.add_backend(backend.clone(), move |_| {
        take(&s1).ok_or_else(|| OpenError::DeviceUnavailable {
            backend: BackendId::new("spent"),
            reason: "no more devices".into(),
        })
    });
    let absent = BackendId::new("conformance-absent");
    let unavailable = registry.add_backend(absent.clone(), |_| {
        Err(OpenError::DeviceUnavailable {
            backend: BackendId::new("conformance-absent"),
            reason: "no adapter here".into(),
        })
    });
    ensure!(
        registry.backends() == vec![absent.clone(), backend.clone()],
        "backends() lists {:?}: last added must come first",
        registry.backends()
    );

    // The unavailable backend is tried first and skipped.
    let opened =
        registry.open(&DeviceRequest::new(64, 64)).map_err(|e| Verdict::Failed(format!("open: {e}")))?;
    ensure!(
        opened.backend_id() == backend,
        "open handed out {} instead of falling through to {backend}",
        opened.backend_id()
    );

    // A device lacking a required feature is never handed out; every reason is reported.
    let never = DeviceFeature::new("conformance-never-supported");
    let mut request = DeviceRequest::new(64, 64);
    request.required_features.insert(never);
    match registry.open(&request) {
        Err(OpenError::NoBackend { attempts }) => {
            ensure!(attempts.len() == 2, "{} reasons for 2 backends: {attempts:?}", attempts.len());
            ensure!(
                attempts[0].0 == absent && attempts[0].1.contains("no adapter here"),
                "first reason {:?}",
                attempts[0]
            );
            ensure!(
                attempts[1].1.contains(never.name()),
                "the reason for {backend} does not name the missing feature: {}",
                attempts[1].1
            );
        }
        Err(other) => return fail(format!("a request for a feature no device has gave {other}")),
        Ok(d) => return fail(format!("{} was handed out without a required feature", d.backend_id())),
    }

    // F3D_BACKEND forces one backend; an unknown one is an error naming the registered ones.
    let forced =
        DeviceRequest::new(8, 8).with_env(|k| (k == "F3D_BACKEND").then(|| "CONFORMANCE-ABSENT".to_owned()));
    ensure!(forced.backend.as_ref() == Some(&absent), "F3D_BACKEND was not read case-insensitively");
    match registry.open(&forced) {
        Err(OpenError::NoBackend { attempts }) => {
            ensure!(attempts.len() == 1, "a forced backend tried {} backends", attempts.len())
        }
        other => {
            return fail(format!("forcing an unavailable backend gave {:?}", other.map(|d| d.backend_id())));
        }
    }
    let unknown = DeviceRequest::new(8, 8).with_env(|k| (k == "F3D_BACKEND").then(|| "nope".to_owned()));
    ensure!(
        matches!(registry.open(&unknown), Err(OpenError::UnknownBackend { .. })),
        "an unregistered F3D_BACKEND was not refused as unknown"
    );

    // Validation wraps the device: a draw without a pipeline is a validation error.
    let validated = DeviceRequest::new(8, 8).with_env(|k| (k == "F3D_VALIDATION").then(|| "1".to_owned()));
    ensure!(validated.validation, "F3D_VALIDATION=1 was not read");
    let v = registry.open(&validated).map_err(|e| Verdict::Failed(format!("open with validation: {e}")))?;
    let t = rgba8(v.as_ref(), 4, 4)?;
    let mut pass = v
        .begin_render_pass(&RenderPassDescriptor::color("v", ColorAttachment::clear(&t, Color::RED)))
        .ctx("begin_render_pass")?;
    ensure!(
        matches!(pass.draw(0..3, 0..1), Err(DeviceError::Validation(_))),
        "the validated device did not report a draw without a pipeline as a validation error"
    );
    drop(pass);

    // Removal.
    ensure!(registry.remove(unavailable), "removing a registered backend failed");
    ensure!(registry.backends() == vec![backend.clone()], "after removal: {:?}", registry.backends());
    ensure!(registry.remove(real), "removing the second backend failed");
    ensure!(registry.open(&DeviceRequest::new(8, 8)).is_err(), "an empty registry opened a device");
    Ok(())
}
