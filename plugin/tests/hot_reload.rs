//! Material hot reload through the whole plugin: files edited on disk while the app runs
//! (each test in its own temporary folder), waits bounded by events rather than sleeps.
//!
//! The scenarios run on the soft backend (the reference); [`reload_on_each_backend`] runs the
//! same round trip on every backend the project has, so a new backend inherits it. wgpu and
//! vulkan decline where no adapter exists unless `F3D_REQUIRE_BACKENDS` names them.

mod support;

use f3d::prelude::*;
use support::{BLUE, GREEN, Harness, PROBE, RED, SHADE_SAME, SHADE_SWAP, is_mostly, location_of, open, ron};

fn files(tint: &str) -> Vec<(&'static str, String)> {
    vec![("probe.ron", ron(tint)), ("probe.wgsl", PROBE.to_owned()), ("shade.wgsl", SHADE_SAME.to_owned())]
}

fn start(name: &str, backend: &str, tint: &str) -> Option<Harness> {
    let device = open(backend)?;
    let files = files(tint);
    let refs: Vec<(&str, &str)> = files.iter().map(|(f, t)| (*f, t.as_str())).collect();
    let mut h = Harness::start(name, device, &refs, "probe.ron");
    assert_eq!(h.expect_reload(), "Probe", "the first load");
    Some(h)
}

fn soft(name: &str, tint: &str) -> Harness {
    start(name, "soft", tint).expect("the soft backend always opens")
}

#[test]
fn editing_a_default_changes_the_pixels() {
    let mut h = soft("default", "[1.0, 0.0, 0.0, 1.0]");
    assert!(is_mostly(h.center(), RED), "{:?}", h.center());
    h.write("probe.ron", &ron("[0.0, 1.0, 0.0, 1.0]"));
    h.expect_reload();
    let c = h.center();
    assert!(is_mostly(c, GREEN), "after the edit: {c:?}");
}

#[test]
fn a_runtime_value_survives_a_shader_edit() {
    let mut h = soft("runtime_kept", "[1.0, 0.0, 0.0, 1.0]");
    h.custom_mut().set("tint", f3d::f3d_materials::Value::Vec4([0.0, 1.0, 0.0, 1.0])).unwrap();
    assert!(is_mostly(h.center(), GREEN));
    // The shader now paints the tint's blue channel red and vice versa; the runtime tint is
    // green, so a kept value stays green, and a lost one (the red default) would turn blue.
    h.write(
        "probe.wgsl",
        &PROBE
            .replace("(*m).base_color = shade(", "(*m).base_color = vec4<f32>(0.0, 0.0, 0.0, 0.0) + shade("),
    );
    h.expect_reload();
    h.write("shade.wgsl", SHADE_SWAP);
    h.expect_reload();
    let c = h.center();
    assert!(is_mostly(c, GREEN), "the runtime tint did not survive: {c:?}");
    match h.custom().parameters().get("tint") {
        Some(f3d::f3d_materials::Value::Vec4(v)) => assert_eq!(v, [0.0, 1.0, 0.0, 1.0]),
        other => panic!("{other:?}"),
    }
    // And the new shader is the one drawing: a runtime blue now shows red.
    h.custom_mut().set("tint", f3d::f3d_materials::Value::Vec4([0.0, 0.0, 1.0, 1.0])).unwrap();
    let c = h.center();
    assert!(is_mostly(c, RED), "the edited shader is not drawing: {c:?}");
}

#[test]
fn changing_a_parameters_type_drops_the_runtime_value() {
    let mut h = soft("type_change", "[1.0, 0.0, 0.0, 1.0]");
    h.custom_mut().set_float("gain", 0.0).unwrap();
    assert_eq!(h.center()[..3], [0, 0, 0], "gain 0 is black");
    // `gain` becomes a Vec4 defaulting to (0, 0, 1, 1) per channel: the Float runtime value
    // cannot carry over, so the new default (blue through the red tint... ) applies.
    let text = ron("[1.0, 1.0, 1.0, 1.0]").replace(
        r#"(name: "gain", type: Float, default: 1.0)"#,
        r#"(name: "gain", type: Vec4, default: [0.0, 0.0, 1.0, 1.0])"#,
    );
    h.write("probe.ron", &text);
    h.expect_reload();
    let c = h.center();
    assert!(is_mostly(c, BLUE), "the new default did not apply: {c:?}");
    assert!(
        matches!(h.custom().parameters().get("gain"), Some(f3d::f3d_materials::Value::Vec4(v)) if v == [0.0, 0.0, 1.0, 1.0])
    );
}

#[test]
fn a_broken_save_keeps_the_last_good_pixels_and_reports_once() {
    let mut h = soft("broken", "[0.0, 0.0, 1.0, 1.0]");
    assert!(is_mostly(h.center(), BLUE));
    let broken =
        PROBE.replace("shade(material_params.tint * material_params.gain)", "shade(material_params.tint *)");
    h.write("probe.wgsl", &broken);
    let message = h.expect_failure();
    let (path, line, col) = location_of(&message);
    assert!(path.ends_with("probe.wgsl"), "{message}");
    assert_eq!(line, 3, "{message}");
    assert!(col > 1, "{message}");
    // Still drawing the last good version, and the same broken text saved again (an editor
    // that writes twice) is not reported again.
    assert!(is_mostly(h.center(), BLUE), "the last good material is not drawing");
    h.write("probe.wgsl", &broken);
    h.frames(3);
    let watch = h.app.world().resource::<MaterialWatch>().clone();
    watch.wait(std::time::Duration::from_millis(500));
    h.frames(3);
    assert!(h.pending_events().is_empty(), "the same error was reported twice");
    // The next good save recovers.
    h.write(
        "probe.wgsl",
        &PROBE.replace("material_params.tint * material_params.gain", "vec4<f32>(1.0, 0.0, 0.0, 1.0)"),
    );
    h.expect_reload();
    assert!(is_mostly(h.center(), RED));
}

#[test]
fn a_save_the_live_device_cannot_run_is_refused_by_that_device() {
    // Valid WGSL that naga accepts, with a compute entry point the soft backend's executor
    // does not run: the live device (not a baseline compiler) refuses it, in its own words,
    // and the last good version keeps drawing.
    let mut h = soft("device_refuses", "[0.0, 1.0, 0.0, 1.0]");
    h.write("probe.wgsl", &format!("{PROBE}\n@compute @workgroup_size(1) fn extra() {{}}\n"));
    let message = h.expect_failure();
    assert!(message.contains("soft") && message.contains("compute entry point `extra`"), "{message}");
    assert!(is_mostly(h.center(), GREEN), "the last good material is not drawing");
}

#[test]
fn an_empty_file_mid_save_does_not_panic() {
    let mut h = soft("empty", "[1.0, 0.0, 0.0, 1.0]");
    // An editor truncates first and writes a moment later: the store may see the empty file
    // (a failure, reported, the last good version drawing) or only the final text.
    h.write("probe.ron", "");
    let watch = h.app.world().resource::<MaterialWatch>().clone();
    watch.wait(std::time::Duration::from_millis(200));
    h.frames(2);
    assert!(is_mostly(h.center(), RED), "the last good material is not drawing");
    h.write("probe.ron", &ron("[0.0, 1.0, 0.0, 1.0]"));
    loop {
        match h.next_event() {
            MaterialEvent::Failed { message, .. } => assert!(message.contains("empty"), "{message}"),
            MaterialEvent::Reloaded { .. } => break,
            other => panic!("{other:?}"),
        }
    }
    assert!(is_mostly(h.center(), GREEN));
}

#[test]
fn an_atomic_save_through_rename_reloads() {
    let mut h = soft("atomic", "[1.0, 0.0, 0.0, 1.0]");
    h.write_atomic("probe.ron", &ron("[0.0, 0.0, 1.0, 1.0]"));
    h.expect_reload();
    assert!(is_mostly(h.center(), BLUE));
    // Delete and recreate counts too.
    std::fs::remove_file(h.path("probe.ron")).unwrap();
    std::fs::write(h.path("probe.ron"), ron("[0.0, 1.0, 0.0, 1.0]")).unwrap();
    loop {
        match h.next_event() {
            // The removal may be seen on its own: it fails, and the last good version stays.
            MaterialEvent::Failed { .. } => assert!(is_mostly(h.center(), BLUE)),
            MaterialEvent::Reloaded { .. } => break,
            other => panic!("{other:?}"),
        }
    }
    assert!(is_mostly(h.center(), GREEN));
}

#[test]
fn editing_an_included_file_reloads() {
    let mut h = soft("include", "[1.0, 0.0, 0.0, 1.0]");
    h.write("shade.wgsl", SHADE_SWAP);
    h.expect_reload();
    assert!(is_mostly(h.center(), BLUE), "the included file's edit is not drawing");
}

#[test]
fn a_material_whose_first_load_failed_loads_when_fixed() {
    let device = open("soft").unwrap();
    let broken = ron("[0.0, 1.0, 0.0, 1.0]").replace("Vec4", "Vec9");
    let mut h = Harness::start(
        "first_broken",
        device,
        &[("probe.ron", &broken), ("probe.wgsl", PROBE), ("shade.wgsl", SHADE_SAME)],
        "probe.ron",
    );
    let message = h.expect_failure();
    assert!(message.contains("probe.ron:5:") && message.contains("Vec9"), "{message}");
    assert!(!h.custom().is_loaded());
    assert_eq!(h.center()[..3], [0, 0, 0], "an unloaded material draws nothing");
    h.write("probe.ron", &ron("[0.0, 1.0, 0.0, 1.0]"));
    match h.next_event() {
        MaterialEvent::Loaded { name, .. } => assert_eq!(name, "Probe"),
        other => panic!("{other:?}"),
    }
    assert!(is_mostly(h.center(), GREEN));
}

#[test]
fn a_render_state_edit_applies() {
    let mut h = soft("render_state", "[1.0, 0.0, 0.0, 1.0]");
    assert!(is_mostly(h.center(), RED));
    // The plane faces the camera: culling front faces hides it.
    h.write(
        "probe.ron",
        &ron("[1.0, 0.0, 0.0, 1.0]")
            .replace("shading_model: Unlit,", "shading_model: Unlit,\n    culling: Front,"),
    );
    h.expect_reload();
    assert_eq!(h.center()[..3], [0, 0, 0], "culling did not change");
    // Additive blending over black with half alpha: half the colour.
    h.write(
        "probe.ron",
        &ron("[1.0, 0.0, 0.0, 0.5]")
            .replace("shading_model: Unlit,", "shading_model: Unlit,\n    blending: Additive,"),
    );
    h.expect_reload();
    let c = h.center();
    assert!((150..=210).contains(&c[0]) && c[1] < 20, "additive half red over black (sRGB ~188): {c:?}");
}

#[test]
fn only_the_edited_materials_pipelines_are_rebuilt() {
    let mut h = soft("pipelines", "[1.0, 0.0, 0.0, 1.0]");
    h.center();
    let count = |h: &mut Harness| {
        h.app.sub_app(f3d::render::RenderApp).world().resource::<f3d::render::prepare::PipelineCache>().len()
    };
    let before = count(&mut h);
    h.write("shade.wgsl", SHADE_SWAP);
    h.expect_reload();
    h.center();
    assert_eq!(count(&mut h), before, "the old version's pipelines were not dropped, or others were");
}

/// The same reload on every backend: a default edited on disk reaches the pixels (on null,
/// which draws nothing, the events alone).
fn reload_round_trip(backend: &str) {
    let Some(mut h) = start(&format!("backend_{backend}"), backend, "[1.0, 0.0, 0.0, 1.0]") else { return };
    let draws = h.backend != f3d::f3d_hal::BackendId::NULL;
    if draws {
        assert!(is_mostly(h.center(), RED), "{backend}: {:?}", h.center());
    }
    h.custom_mut().set_float("gain", 1.0).unwrap();
    h.write("probe.ron", &ron("[0.0, 0.0, 1.0, 1.0]"));
    assert_eq!(h.expect_reload(), "Probe");
    if draws {
        let c = h.center();
        assert!(is_mostly(c, BLUE), "{backend}: after the edit {c:?}");
    }
    h.write("shade.wgsl", "fn shade(c: vec4<f32>) -> vec4<f32> { return c +; }\n");
    let message = h.expect_failure();
    assert!(message.contains("shade.wgsl:1:"), "{backend}: {message}");
    if draws {
        assert!(is_mostly(h.center(), BLUE), "{backend}: the last good version is not drawing");
    }
    h.write("shade.wgsl", SHADE_SWAP);
    h.expect_reload();
    if draws {
        let c = h.center();
        assert!(is_mostly(c, RED), "{backend}: the swapped shader {c:?}");
    }
}

mod reload_on_each_backend {
    #[test]
    fn null() {
        super::reload_round_trip("null");
    }
    #[test]
    fn soft() {
        super::reload_round_trip("soft");
    }
    #[test]
    fn wgpu() {
        super::reload_round_trip("wgpu");
    }
    #[test]
    fn vulkan() {
        super::reload_round_trip("vulkan");
    }
}

/// A material the app read with `CustomMaterial::load` is the store's first version when its
/// file has not changed since: the asset keeps the app's reading (no adoption), and each
/// variant is compiled once, for the app's reading and the store alike.
#[test]
fn a_material_read_by_the_app_is_compiled_once() {
    let dir = support::TempDir::new("read_once");
    for (file, text) in files("[1.0, 0.0, 0.0, 1.0]") {
        std::fs::write(dir.0.join(file), text).expect("write a material file");
    }
    let material = CustomMaterial::load(dir.0.join("probe.ron")).expect("the probe loads");
    let read = material.loaded().cloned().expect("read by the app");
    let mut app = App::new();
    app.add_plugins(F3dRenderPlugin {
        backend: BackendChoice::Named(f3d::f3d_hal::BackendId::SOFT),
        size: (16, 16),
        fixed_time_step: Some(1.0 / 60.0),
        ..Default::default()
    });
    app.finish();
    app.cleanup();
    let handle = app.world_mut().resource_mut::<Assets<CustomMaterial>>().add(material);
    support::spawn_probe_view(app.world_mut(), &handle);
    for _ in 0..4 {
        app.update();
    }
    let asset = app.world().resource::<Assets<CustomMaterial>>().get(&handle).expect("the asset");
    let now = asset.loaded().expect("loaded");
    assert!(
        std::sync::Arc::ptr_eq(now, &read),
        "the store read the unchanged file again and the asset adopted it"
    );
    let variants = read.compiled_variants();
    let mut unique = variants.clone();
    unique.sort_by_key(|v| v.name());
    unique.dedup();
    assert_eq!(unique.len(), variants.len(), "a variant compiled twice: {variants:?}");
    assert!(variants.contains(&f3d::f3d_materials::Variant::Color), "{variants:?}");
}

/// With the scene snapshots switched off (`StandardPasses::scene_color`), a translucent
/// material that reads `scene_color()` and `scene_depth()` still draws, with inert values:
/// black and the far plane. (Without them its draw misses two bindings and is refused.)
#[test]
fn scene_inputs_without_their_snapshots_read_black_and_far() {
    let dir = support::TempDir::new("inert_inputs");
    let ron = r#"Material(
    name: "Scene reader",
    blending: Alpha,
    engine_inputs: [SceneColor, SceneDepth],
    fragment: r"
fn surface(m: ptr<function, MaterialInputs>) {
    let far = select(0.0, 1.0, scene_depth(vec2<f32>(0.0)) > 500.0);
    (*m).base_color = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    (*m).emissive = vec3<f32>(scene_color(vec2<f32>(0.0)).r * 1e6, far * 1e6, 0.0);
}
",
)"#;
    std::fs::write(dir.0.join("reader.ron"), ron).expect("write the material");
    let material = CustomMaterial::load(dir.0.join("reader.ron")).expect("the reader loads");
    let shots = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut app = App::new();
    app.add_plugins(F3dRenderPlugin {
        backend: BackendChoice::Named(f3d::f3d_hal::BackendId::SOFT),
        size: (16, 16),
        fixed_time_step: Some(1.0 / 60.0),
        passes: StandardPasses { scene_color: false, ..Default::default() },
        ..Default::default()
    });
    let kept = shots.clone();
    app.add_systems(Update, move |mut seen: MessageReader<ScreenshotCaptured>| {
        kept.lock().unwrap().extend(seen.read().cloned());
    });
    app.finish();
    app.cleanup();
    let handle = app.world_mut().resource_mut::<Assets<CustomMaterial>>().add(material);
    support::spawn_probe_view(app.world_mut(), &handle);
    // An opaque floor below, so there is a scene the snapshots would have copied.
    let floor = app.world_mut().resource_mut::<Assets<Mesh>>().add(Plane3d::default().mesh().size(8.0, 8.0));
    let red = app.world_mut().resource_mut::<Assets<StandardMaterial>>().add(StandardMaterial {
        base_color: Color::srgb(1.0, 0.0, 0.0),
        unlit: true,
        ..default()
    });
    app.world_mut().spawn((Mesh3d(floor), MeshMaterial3d(red), Transform::from_xyz(0.0, -1.0, 0.0)));
    let c = support::centre_pixel(&mut app, &shots);
    assert!(
        c[1] > 250 && c[0] < 20,
        "a reader without snapshots drew {c:?} (green: far plane, no red: black colour)"
    );
}
