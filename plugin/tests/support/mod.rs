//! A small app around one material file in its own temporary folder, for hot-reload tests:
//! it draws a plane covering the view with that material, edits the files on disk, and waits
//! (bounded) for the store's events and for frames.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use f3d::f3d_hal::{BackendId, DeviceRegistry, DeviceRequest, GraphicsDevice};
use f3d::plugin::RenderRegistry;
use f3d::prelude::*;

/// How long any wait may take before the test fails: generous, for a loaded 2-core machine.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// The debounce the tests use: short, so they are quick; the editor-burst behaviour does not
/// depend on its length.
pub const DEBOUNCE: Duration = Duration::from_millis(20);

const SIZE: u32 = 32;

/// A temporary folder of its own, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "f3d_hot_reload_{name}_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Opens `backend`, or `None` (with a note) when this machine cannot and
/// `F3D_REQUIRE_BACKENDS` does not name it.
pub fn open(backend: &str) -> Option<Arc<dyn GraphicsDevice>> {
    quiet_mesa();
    let id = BackendId::from_name(backend);
    let mut registry = DeviceRegistry::new();
    let _ = f3d_backend_null::register_null_backend(&mut registry);
    let _ = f3d_backend_soft::register_soft_backend(&mut registry);
    let _ = f3d_backend_wgpu::register_wgpu_backend(&mut registry);
    let _ = f3d_backend_vulkan::register_vulkan_backend(&mut registry);
    let mut request = DeviceRequest::new(SIZE, SIZE);
    request.backend = Some(id.clone());
    request.label = "hot reload test".into();
    match registry.open(&request) {
        Ok(d) => Some(d),
        Err(e) if f3d_conformance::backend_required(&id) => {
            panic!("F3D_REQUIRE_BACKENDS names {backend}, but it did not open: {e}")
        }
        Err(e) => {
            eprintln!("skipped: the {backend} device did not open: {e}");
            None
        }
    }
}

/// Mesa prints harmless errors without a private runtime folder.
fn quiet_mesa() {
    use std::os::unix::fs::PermissionsExt;
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return;
    }
    let dir = std::env::temp_dir().join("f3d-hot-reload-xdg");
    if std::fs::create_dir_all(&dir).is_ok()
        && std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).is_ok()
    {
        // SAFETY: tests read no environment variable concurrently with this write other than
        // through std's own lock-protected accessors.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
    }
}

#[derive(Resource, Clone, Default)]
struct Seen {
    events: Arc<Mutex<Vec<MaterialEvent>>>,
    shots: Arc<Mutex<Vec<ScreenshotCaptured>>>,
}

#[derive(Resource)]
struct Probe(Handle<CustomMaterial>);

/// The app, its folder and what it has seen.
pub struct Harness {
    pub app: App,
    pub dir: TempDir,
    pub material: Handle<CustomMaterial>,
    seen: Seen,
    /// Events already handed out.
    taken: usize,
    pub backend: BackendId,
}

impl Harness {
    /// Writes `files` into a new folder and starts an app drawing the material `ron` (one of
    /// them, loaded with `CustomMaterial::from_file`) on `device`; runs the first frame.
    pub fn start(name: &str, device: Arc<dyn GraphicsDevice>, files: &[(&str, &str)], ron: &str) -> Self {
        let dir = TempDir::new(name);
        for (file, text) in files {
            std::fs::write(dir.0.join(file), text).expect("write a material file");
        }
        let backend = device.backend_id();
        let mut registry = DeviceRegistry::new();
        let shared = device.clone();
        let _ = registry.add_backend(backend.clone(), move |_| Ok(shared.clone()));
        let seen = Seen::default();
        let mut app = App::new();
        app.insert_resource(RenderRegistry(registry))
            .add_plugins(F3dRenderPlugin {
                backend: BackendChoice::Named(backend.clone()),
                size: (SIZE, SIZE),
                fixed_time_step: Some(1.0 / 60.0),
                hot_reload: HotReload { watch: true, debounce: DEBOUNCE },
                ..Default::default()
            })
            .insert_resource(seen.clone());
        let path = dir.0.join(ron);
        let material = {
            let world = app.world_mut();
            let material =
                world.resource_mut::<Assets<CustomMaterial>>().add(CustomMaterial::from_file(&path));
            spawn_probe_view(world, &material);
            world.insert_resource(Probe(material.clone()));
            material
        };
        app.add_systems(
            Update,
            |mut events: MessageReader<MaterialEvent>,
             mut shots: MessageReader<ScreenshotCaptured>,
             seen: Res<Seen>| {
                seen.events.lock().unwrap().extend(events.read().cloned());
                seen.shots.lock().unwrap().extend(shots.read().cloned());
            },
        );
        app.finish();
        app.cleanup();
        assert!(app.world().contains_resource::<RenderDevice>(), "the plugin did not open the device");
        let mut h = Self { app, dir, material, seen, taken: 0, backend };
        h.app.update();
        h
    }

    /// The path of `file` in the folder.
    pub fn path(&self, file: &str) -> PathBuf {
        self.dir.0.join(file)
    }

    /// Overwrites `file` in place (truncate, write), as most editors save.
    pub fn write(&self, file: &str, text: &str) {
        std::fs::write(self.path(file), text).expect("write");
    }

    /// Saves `file` atomically: the text goes to a temporary file renamed over it.
    pub fn write_atomic(&self, file: &str, text: &str) {
        let tmp = self.path(&format!(".{file}.tmp"));
        std::fs::write(&tmp, text).expect("write the temporary file");
        std::fs::rename(&tmp, self.path(file)).expect("rename over the file");
    }

    /// Runs frames until a material event arrives (bounded by [`TIMEOUT`]), waiting on the
    /// watcher between frames rather than sleeping.
    pub fn next_event(&mut self) -> MaterialEvent {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(e) = self.take_event() {
                return e;
            }
            assert!(Instant::now() < deadline, "no material event within {TIMEOUT:?}");
            let watch = self.app.world().resource::<MaterialWatch>().clone();
            watch.wait(Duration::from_millis(50));
            self.app.update();
        }
    }

    /// Events that arrived and were not taken yet.
    fn take_event(&mut self) -> Option<MaterialEvent> {
        let events = self.seen.events.lock().unwrap();
        let e = events.get(self.taken).cloned();
        if e.is_some() {
            self.taken += 1;
        }
        e
    }

    /// Every event seen so far that was not taken, without running frames.
    pub fn pending_events(&mut self) -> Vec<MaterialEvent> {
        let mut out = Vec::new();
        while let Some(e) = self.take_event() {
            out.push(e);
        }
        out
    }

    /// Runs frames until a reload (or load) event, failing on anything else.
    pub fn expect_reload(&mut self) -> String {
        match self.next_event() {
            MaterialEvent::Loaded { name, .. } | MaterialEvent::Reloaded { name, .. } => name,
            MaterialEvent::Failed { message, .. } => {
                panic!("expected a reload, the material failed: {message}")
            }
        }
    }

    /// Runs frames until a failure event, failing on anything else; its one-line message.
    pub fn expect_failure(&mut self) -> String {
        match self.next_event() {
            MaterialEvent::Failed { message, .. } => message,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    /// Draws a frame and returns the pixel at the centre of the view.
    pub fn center(&mut self) -> [u8; 4] {
        centre_pixel(&mut self.app, &self.seen.shots)
    }

    /// The material asset as the main world holds it.
    pub fn custom(&self) -> &CustomMaterial {
        match self.app.world().resource::<Assets<CustomMaterial>>().get(&self.material) {
            Some(m) => m,
            None => panic!("the probe material is gone"),
        }
    }

    /// Edits the material asset as an app would.
    pub fn custom_mut(&mut self) -> &mut CustomMaterial {
        let handle = self.material.clone();
        match self.app.world_mut().resource_mut::<Assets<CustomMaterial>>().into_inner().get_mut(&handle) {
            Some(m) => m.into_inner(),
            None => panic!("the probe material is gone"),
        }
    }

    /// Runs `n` frames.
    pub fn frames(&mut self, n: u32) {
        for _ in 0..n {
            self.app.update();
        }
    }
}

/// Whether `pixel` is mostly the colour named by the dominant channel `channel` (0 red,
/// 1 green, 2 blue).
pub fn is_mostly(pixel: [u8; 4], channel: usize) -> bool {
    (0..3).all(|c| if c == channel { pixel[c] > 150 } else { pixel[c] < 80 })
}

/// Absolute-path check helper for messages: `path:line:col: ...`.
pub fn location_of(message: &str) -> (String, u32, u32) {
    let mut parts = message.splitn(4, ':');
    let path = parts.next().unwrap_or_default().to_owned();
    let line = parts.next().and_then(|l| l.parse().ok()).unwrap_or(0);
    let col = parts.next().and_then(|c| c.parse().ok()).unwrap_or(0);
    (path, line, col)
}

/// Channel indices for [`is_mostly`].
pub const RED: usize = 0;
pub const GREEN: usize = 1;
pub const BLUE: usize = 2;

/// An unlit material whose colour is `tint`, shaded by `probe.wgsl` through `shade.wgsl`.
pub fn ron(tint_default: &str) -> String {
    format!(
        r#"Material(
    name: "Probe",
    shading_model: Unlit,
    parameters: [
        (name: "tint", type: Vec4, default: {tint_default}),
        (name: "gain", type: Float, default: 1.0),
    ],
    fragment_file: "probe.wgsl",
)
"#
    )
}

pub const PROBE: &str = r#"#include "shade.wgsl"
fn surface(m: ptr<function, MaterialInputs>) {
    (*m).base_color = shade(material_params.tint * material_params.gain);
}
"#;

pub const SHADE_SAME: &str = "fn shade(c: vec4<f32>) -> vec4<f32> { return c; }\n";
/// Swaps red and blue.
pub const SHADE_SWAP: &str =
    "fn shade(c: vec4<f32>) -> vec4<f32> { return vec4<f32>(c.b, c.g, c.r, c.a); }\n";

/// Asks for a screenshot, runs frames until it arrives in `shots` (at most 8) and returns
/// the pixel at its centre.
pub fn centre_pixel(app: &mut App, shots: &Mutex<Vec<ScreenshotCaptured>>) -> [u8; 4] {
    app.world_mut().spawn(Screenshot::pixels());
    let before = shots.lock().unwrap().len();
    for _ in 0..8 {
        app.update();
        let shots = shots.lock().unwrap();
        if let Some(s) = shots.get(before) {
            assert!(s.error.is_none(), "screenshot: {:?}", s.error);
            let i = ((s.height / 2 * s.width + s.width / 2) * 4) as usize;
            return [s.pixels[i], s.pixels[i + 1], s.pixels[i + 2], s.pixels[i + 3]];
        }
    }
    panic!("no screenshot arrived within 8 frames")
}

/// A plane filling the view with `material`, seen from above by an untonemapped camera on a
/// black clear: the centre pixel is the material's colour.
pub fn spawn_probe_view(world: &mut World, material: &Handle<CustomMaterial>) {
    let plane = world.resource_mut::<Assets<Mesh>>().add(Plane3d::default().mesh().size(4.0, 4.0));
    world.spawn((Mesh3d(plane), MeshMaterial3d(material.clone()), Transform::default()));
    world.spawn((
        Camera3d::default(),
        Camera { clear_color: ClearColorConfig::Custom(Color::BLACK), ..default() },
        Tonemapping::None,
        Transform::from_xyz(0.0, 3.0, 0.0).looking_at(Vec3::ZERO, Vec3::Z),
    ));
}
