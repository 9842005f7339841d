//! `.ron` materials loaded through Bevy's `AssetServer` (`asset_server.load("probe.ron")`),
//! each test with an asset folder of its own, watched by bevy_asset's file watcher: load
//! errors in the asset's load state with `path:line:col`, included files as dependencies
//! that reload the material, a broken save keeping the last good version drawing, values
//! set by the app surviving a reload, and values set before the file loaded applied when
//! it does. On the soft backend (the reference); waits are bounded, never sleeps alone.

mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy_asset::{AssetLoadFailedEvent, AssetPlugin, LoadState};
use f3d::f3d_materials::Value;
use f3d::prelude::*;
use support::{
    BLUE, GREEN, PROBE, RED, SHADE_SAME, SHADE_SWAP, TIMEOUT, TempDir, centre_pixel, is_mostly, location_of,
    ron, spawn_probe_view,
};

#[derive(Resource, Clone, Default)]
struct Seen {
    shots: Arc<Mutex<Vec<ScreenshotCaptured>>>,
    failures: Arc<Mutex<Vec<String>>>,
}

struct AssetHarness {
    app: App,
    dir: TempDir,
    material: Handle<CustomMaterial>,
    seen: Seen,
}

impl AssetHarness {
    /// An app whose asset folder holds `files`, drawing `probe.ron` (loaded through the
    /// AssetServer) on a plane that fills the view; `before_load` runs on the handle in the
    /// frame it was requested.
    fn start(
        name: &str,
        files: &[(&str, &str)],
        before_load: impl FnOnce(&mut World, &Handle<CustomMaterial>),
    ) -> Self {
        let dir = TempDir::new(&format!("assets_{name}"));
        for (file, text) in files {
            std::fs::write(dir.0.join(file), text).expect("write an asset");
        }
        let seen = Seen::default();
        let mut app = App::new();
        app.add_plugins(AssetPlugin {
            file_path: dir.0.display().to_string(),
            watch_for_changes_override: Some(true),
            ..Default::default()
        })
        .add_plugins(F3dRenderPlugin {
            backend: BackendChoice::Named(f3d::f3d_hal::BackendId::SOFT),
            size: (32, 32),
            fixed_time_step: Some(1.0 / 60.0),
            ..Default::default()
        })
        .insert_resource(seen.clone())
        .add_systems(
            Update,
            |mut shots: MessageReader<ScreenshotCaptured>,
             mut failed: MessageReader<AssetLoadFailedEvent<CustomMaterial>>,
             seen: Res<Seen>| {
                seen.shots.lock().unwrap().extend(shots.read().cloned());
                seen.failures.lock().unwrap().extend(failed.read().map(|f| f.error.to_string()));
            },
        );
        app.finish();
        app.cleanup();
        let material = {
            let world = app.world_mut();
            let material: Handle<CustomMaterial> = world.resource::<AssetServer>().load("probe.ron");
            before_load(world, &material);
            spawn_probe_view(world, &material);
            material
        };
        Self { app, dir, material, seen }
    }

    fn probe(name: &str, tint: &str) -> Self {
        let ron = ron(tint);
        Self::start(
            name,
            &[("probe.ron", &ron), ("probe.wgsl", PROBE), ("shade.wgsl", SHADE_SAME)],
            |_, _| {},
        )
    }

    fn load_state(&self) -> LoadState {
        self.app.world().resource::<AssetServer>().load_state(&self.material)
    }

    /// Runs frames until the load state is loaded or failed (bounded).
    fn settle(&mut self) -> LoadState {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            self.app.update();
            let state = self.load_state();
            if matches!(state, LoadState::Loaded | LoadState::Failed(_)) {
                return state;
            }
            assert!(Instant::now() < deadline, "the material neither loaded nor failed within {TIMEOUT:?}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn write(&self, file: &str, text: &str) {
        std::fs::write(self.dir.0.join(file), text).expect("write");
    }

    /// The pixel at the centre of the next frame.
    fn center(&mut self) -> [u8; 4] {
        centre_pixel(&mut self.app, &self.seen.shots)
    }

    /// Runs frames until the centre pixel is mostly `channel` (bounded): the watcher saw a
    /// save and the reload reached the screen.
    fn wait_for(&mut self, channel: usize) -> [u8; 4] {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let c = self.center();
            if is_mostly(c, channel) {
                return c;
            }
            assert!(Instant::now() < deadline, "the centre stayed {c:?}, not mostly channel {channel}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Runs frames until a load failure arrives (bounded); its message.
    fn wait_for_failure(&mut self) -> String {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            self.app.update();
            if let Some(f) = self.seen.failures.lock().unwrap().pop() {
                return f;
            }
            assert!(Instant::now() < deadline, "no load failure within {TIMEOUT:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn custom_mut(&mut self) -> Mut<'_, CustomMaterial> {
        let handle = self.material.clone();
        let assets = self.app.world_mut().resource_mut::<Assets<CustomMaterial>>();
        Mut::map_unchanged(assets, |a| match a.get_mut(&handle) {
            Some(m) => m.into_inner(),
            None => panic!("the probe material is not loaded"),
        })
    }
}

#[test]
fn a_material_loaded_by_the_asset_server_draws() {
    let mut h = AssetHarness::probe("draws", "[1.0, 0.0, 0.0, 1.0]");
    assert!(matches!(h.settle(), LoadState::Loaded), "{:?}", h.load_state());
    let c = h.center();
    assert!(is_mostly(c, RED), "{c:?}");
    // The loader compiled the colour variant to check the file, and the frame drew with that
    // very compile: it is kept with the loaded material, once.
    let loaded = h.custom_mut().loaded().cloned().expect("a loaded material");
    let variants = loaded.compiled_variants();
    let colour = variants.iter().filter(|v| **v == f3d::f3d_materials::Variant::Color).count();
    assert_eq!(colour, 1, "the colour variant was compiled {colour} times: {variants:?}");
}

#[test]
fn a_malformed_file_fails_its_load_with_path_line_and_column() {
    let bad = ron("[1.0, 0.0, 0.0, 1.0]").replace("type: Float", "type: Flaot");
    let mut h = AssetHarness::start(
        "malformed",
        &[("probe.ron", &bad), ("probe.wgsl", PROBE), ("shade.wgsl", SHADE_SAME)],
        |_, _| {},
    );
    let LoadState::Failed(error) = h.settle() else {
        panic!("a malformed file loaded: {:?}", h.load_state())
    };
    let message = error.to_string();
    assert!(message.contains("Flaot"), "the error names the thing at fault: {message}");
    let summary = message.lines().find(|l| l.contains("probe.ron:")).unwrap_or_default();
    let at = summary.find(h.dir.0.to_str().unwrap_or_default()).unwrap_or(0);
    let (path, line, col) = location_of(&summary[at..]);
    assert!(path.ends_with("probe.ron"), "{message}");
    assert_eq!(line, 6, "the line of the bad type: {message}");
    assert!(col > 0, "{message}");
    // The app goes on drawing (the black clear: the material draws nothing).
    let c = h.center();
    assert!(c[0] < 10 && c[1] < 10 && c[2] < 10, "{c:?}");
}

#[test]
fn wgsl_that_does_not_compile_fails_the_load_naming_its_file() {
    let broken = PROBE.replace("* material_params.gain", "* material_params.gian");
    let ron = ron("[1.0, 0.0, 0.0, 1.0]");
    let mut h = AssetHarness::start(
        "wgsl",
        &[("probe.ron", &ron), ("probe.wgsl", &broken), ("shade.wgsl", SHADE_SAME)],
        |_, _| {},
    );
    let LoadState::Failed(error) = h.settle() else { panic!("broken WGSL loaded") };
    let message = error.to_string();
    assert!(message.contains("gian"), "{message}");
    assert!(message.contains("probe.wgsl:3:") || message.contains("probe.ron:"), "{message}");
}

#[test]
fn a_missing_file_fails_its_load() {
    let mut h = AssetHarness::start("missing", &[], |_, _| {});
    let LoadState::Failed(error) = h.settle() else { panic!("a missing file loaded") };
    assert!(error.to_string().contains("probe.ron"), "{error}");
}

#[test]
fn saving_an_included_file_reloads_and_app_values_survive() {
    let mut h = AssetHarness::probe("include", "[1.0, 0.0, 0.0, 1.0]");
    assert!(matches!(h.settle(), LoadState::Loaded));
    // A runtime tint of blue; the swap shader then paints it red. A lost value (the red
    // default) would turn blue.
    h.custom_mut().set("tint", Value::Vec4([0.0, 0.0, 1.0, 1.0])).unwrap();
    h.wait_for(BLUE);
    h.write("shade.wgsl", SHADE_SWAP);
    h.wait_for(RED);
    match h.custom_mut().parameters().get("tint") {
        Some(Value::Vec4(v)) => assert_eq!(v, [0.0, 0.0, 1.0, 1.0]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_broken_save_keeps_the_last_good_material_drawing() {
    let mut h = AssetHarness::probe("broken_save", "[0.0, 1.0, 0.0, 1.0]");
    assert!(matches!(h.settle(), LoadState::Loaded));
    h.wait_for(GREEN);
    h.write("probe.ron", &ron("[0.0, 1.0, 0.0, 1.0]").replace("Unlit,", "Unlit"));
    let message = h.wait_for_failure();
    assert!(message.contains("probe.ron:"), "{message}");
    let c = h.center();
    assert!(is_mostly(c, GREEN), "the last good version stopped drawing: {c:?}");
    // A fixed save loads again.
    h.write("probe.ron", &ron("[1.0, 0.0, 0.0, 1.0]"));
    h.wait_for(RED);
}

/// A red probe whose placeholder gets a green tint before the file has loaded, `wait` after
/// the load was asked for; the tint must reach the screen once the file loads.
fn pending_tint_reaches_the_screen(name: &str, wait: Duration) -> AssetHarness {
    let ron = ron("[1.0, 0.0, 0.0, 1.0]");
    let mut h = AssetHarness::start(
        name,
        &[("probe.ron", &ron), ("probe.wgsl", PROBE), ("shade.wgsl", SHADE_SAME)],
        |world, handle| {
            std::thread::sleep(wait);
            let mut materials = world.resource_mut::<Assets<CustomMaterial>>();
            let mut m = materials.get_or_insert_with(handle, CustomMaterial::loading).expect("a live handle");
            m.set("tint", Value::Vec4([0.0, 1.0, 0.0, 1.0])).expect("kept until the file loads");
        },
    );
    assert!(matches!(h.settle(), LoadState::Loaded));
    let c = h.wait_for(GREEN);
    assert!(is_mostly(c, GREEN), "{c:?}");
    h
}

#[test]
fn values_set_before_the_file_loads_are_applied_when_it_does() {
    let mut h = pending_tint_reaches_the_screen("pending", Duration::ZERO);
    assert!(h.custom_mut().is_loaded());
}

/// A value set on the placeholder while the file loads survives even when the loaded material
/// lands in the very frame that first sees the placeholder (both asset events read together):
/// the load runs on bevy's IO threads and is given time to finish before the first update.
#[test]
fn values_set_while_the_file_loads_survive_a_load_landing_in_the_same_frame() {
    pending_tint_reaches_the_screen("pending_same_frame", Duration::from_millis(1500));
}

/// The probe's typed struct, made by `f3d material codegen probe.ron` in a folder holding
/// [`ron`]`("[1.0, 0.0, 0.0, 1.0]")`.
#[rustfmt::skip]
#[allow(dead_code)]
#[path = "support/probe_typed.rs"]
mod probe_typed;

use probe_typed::Probe;

#[test]
fn the_probe_struct_is_what_codegen_makes_of_the_probe() {
    let dir = TempDir::new("typed_sync");
    for (file, text) in [
        ("probe.ron", ron("[1.0, 0.0, 0.0, 1.0]").as_str()),
        ("probe.wgsl", PROBE),
        ("shade.wgsl", SHADE_SAME),
    ] {
        std::fs::write(dir.0.join(file), text).unwrap();
    }
    let path = dir.0.join("probe.ron");
    let fresh =
        f3d::material::typed::generate(&path, None).unwrap_or_else(|e| panic!("{}", e[0].diagnostic()));
    let fresh = fresh.replace(&path.display().to_string().replace('\\', "/"), "probe.ron");
    assert!(fresh == include_str!("support/probe_typed.rs"), "support/probe_typed.rs is stale:\n{fresh}");
}

/// A typed struct applied before the file loads takes effect when it loads; a save that
/// adds a parameter makes it stale: `check` and `apply` say so, naming the parameter, and
/// write nothing, while the material keeps drawing with the values it has.
#[test]
fn a_typed_struct_applies_and_goes_stale_when_a_reload_changes_the_parameters() {
    let ron = ron("[1.0, 0.0, 0.0, 1.0]");
    let mut h = AssetHarness::start(
        "typed",
        &[("probe.ron", &ron), ("probe.wgsl", PROBE), ("shade.wgsl", SHADE_SAME)],
        |world, handle| {
            let mut materials = world.resource_mut::<Assets<CustomMaterial>>();
            let mut m = materials.get_or_insert_with(handle, CustomMaterial::loading).expect("a live handle");
            Probe { tint: Some(Vec4::new(0.0, 1.0, 0.0, 1.0)), ..default() }
                .apply(&mut m)
                .expect("kept until the file loads");
        },
    );
    assert!(matches!(h.settle(), LoadState::Loaded));
    let c = h.wait_for(GREEN);
    assert!(is_mostly(c, GREEN), "{c:?}");
    Probe::check(&h.custom_mut()).expect("in sync with the file it was made from");
    Probe { gain: Some(0.5), ..default() }.apply(&mut h.custom_mut()).expect("in sync");
    assert!(matches!(h.custom_mut().parameters().get("gain"), Some(Value::Float(0.5))));

    h.write(
        "probe.ron",
        &ron.replace(
            r#"(name: "gain", type: Float, default: 1.0),"#,
            "(name: \"gain\", type: Float, default: 1.0),\n        (name: \"bias\", type: Float, default: 0.0),",
        ),
    );
    let deadline = Instant::now() + TIMEOUT;
    while Probe::check(&h.custom_mut()).is_ok() {
        assert!(Instant::now() < deadline, "the save with a new parameter did not reload within {TIMEOUT:?}");
        h.app.update();
        std::thread::sleep(Duration::from_millis(20));
    }
    let e = Probe { tint: Some(Vec4::new(0.0, 0.0, 1.0, 1.0)), ..default() }
        .apply(&mut h.custom_mut())
        .unwrap_err();
    assert!(
        matches!(&e, f3d::material::TypedMaterialError::Stale { difference, .. } if difference.contains("`bias`")),
        "{e}"
    );
    let c = h.center();
    assert!(is_mostly(c, GREEN), "the stale struct's blue was written, or the app's green was lost: {c:?}");
}
