//! A material preview that redraws when the material's files change: a sphere wearing the
//! material on a lit, shadowed ground plane under the procedural sky. `f3d watch`, the
//! `hot_reload` example and the hot-reload benchmark all drive it.
//!
//! ```text
//!  Preview::next_event:
//!    MaterialWatch::wait ──▶ app.update() ──▶ MaterialEvent::{Loaded, Reloaded}
//!                                               └─▶ Screenshot::to_file ──▶ update until
//!                                                   ScreenshotCaptured ──▶ PreviewEvent
//!                                           └─▶ MaterialEvent::Failed ──▶ PreviewEvent
//! ```
//!
//! Between events the preview sleeps on the store's [`MaterialWatch`] rather than drawing
//! frames: an idle preview costs nothing.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use f3d::f3d_hal::DeviceRegistry;
use f3d::material::RenderMaterialStore;
use f3d::plugin::RenderRegistry;
use f3d::prelude::*;

/// How many frames a screenshot may take to come back before the preview gives up on it
/// (it normally takes one or two).
const SCREENSHOT_FRAMES: u32 = 16;

/// The preview scene: the material in the `.ron` file at `path` (through
/// [`CustomMaterial::from_file`], so it hot-reloads) on a sphere standing on a grey ground
/// plane, a sun casting its shadow, and the procedural sky with image-based lighting. Returns
/// the material's handle.
pub fn material_preview(world: &mut World, path: &Path) -> Handle<CustomMaterial> {
    world.spawn((
        Camera3d::default(),
        Projection::Perspective(PerspectiveProjection {
            fov: 40f32.to_radians(),
            near: 0.1,
            far: 100.0,
            ..default()
        }),
        Transform::from_xyz(0.0, 1.0, 3.4).looking_at(Vec3::new(0.0, 0.6, 0.0), Vec3::Y),
    ));
    world.spawn((
        DirectionalLight {
            color: Color::linear_rgb(1.0, 0.96, 0.9),
            illuminance: 3.0 / Exposure::default().exposure(),
            shadow_maps_enabled: true,
            ..default()
        },
        ShadowBox { half_extent: 3.0, center: Vec3::ZERO },
        Transform::from_xyz(-3.0, 6.0, 4.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    world.spawn(Environment::default());
    let plane = world.resource_mut::<Assets<Mesh>>().add(Plane3d::default().mesh().size(40.0, 40.0));
    let grey = world.resource_mut::<Assets<StandardMaterial>>().add(StandardMaterial {
        base_color: Color::srgb(0.55, 0.56, 0.58),
        perceptual_roughness: 0.85,
        ..default()
    });
    world.spawn((Mesh3d(plane), MeshMaterial3d(grey), Transform::default()));
    let sphere = world.resource_mut::<Assets<Mesh>>().add(Sphere::new(0.6).mesh().uv(48, 24));
    let material = world.resource_mut::<Assets<CustomMaterial>>().add(CustomMaterial::from_file(path));
    world.spawn((Mesh3d(sphere), MeshMaterial3d(material.clone()), Transform::from_xyz(0.0, 0.62, 0.0)));
    material
}

/// How to open a [`Preview`].
pub struct PreviewSettings {
    /// The `.ron` material to show.
    pub material: PathBuf,
    /// The picture's size.
    pub size: (u32, u32),
    /// Which backend.
    pub backend: BackendChoice,
    /// The backends to choose from (the plugin's default registry when `None`).
    pub registry: Option<DeviceRegistry>,
    /// The watcher's debounce.
    pub debounce: Duration,
}

impl PreviewSettings {
    /// A preview of `material` at 512x512 on the best backend, with the plugin's default
    /// debounce.
    pub fn new(material: impl Into<PathBuf>) -> Self {
        Self {
            material: material.into(),
            size: (512, 512),
            backend: BackendChoice::Auto,
            registry: None,
            debounce: HotReload::default().debounce,
        }
    }
}

/// What happened to the previewed material.
#[derive(Clone, Debug, PartialEq)]
pub enum PreviewEvent {
    /// The material loaded (the first time, or again after an edit) and a frame drawn with
    /// the new version was written.
    Reloaded {
        /// The material's name (from the file).
        name: String,
        /// From the moment the store learnt of the change (the watcher's event after its
        /// debounce, or the load) to the picture being written.
        latency: Duration,
        /// Where the picture went (`None` when the preview writes none).
        written: Option<PathBuf>,
    },
    /// The material (or a file it includes) did not load; the last good version stays.
    Failed {
        /// `path:line:col: message`.
        message: String,
    },
}

/// A headless app drawing [`material_preview`] that reports each change of the material.
pub struct Preview {
    app: App,
    material: Handle<CustomMaterial>,
    out: Option<PathBuf>,
    queue: VecDeque<MaterialEvent>,
    device: String,
}

impl Preview {
    /// Opens the device and builds the scene; writes the picture to `out` (if given) after
    /// each load. Errors name what failed (the device did not open).
    pub fn start(settings: PreviewSettings, out: Option<PathBuf>) -> Result<Self, String> {
        let mut app = App::new();
        if let Some(registry) = settings.registry {
            app.insert_resource(RenderRegistry(registry));
        }
        app.add_plugins(F3dRenderPlugin {
            backend: settings.backend,
            size: settings.size,
            fixed_time_step: Some(1.0 / 60.0),
            hot_reload: HotReload { watch: true, debounce: settings.debounce },
            ..Default::default()
        });
        app.finish();
        app.cleanup();
        let device = RenderDevice::describe_opened(app.world())?;
        let material = material_preview(app.world_mut(), &settings.material);
        Ok(Self { app, material, out, queue: VecDeque::new(), device })
    }

    /// The backend and adapter drawing the preview.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// The app, for callers that drive it themselves (benchmarks).
    pub fn app_mut(&mut self) -> &mut App {
        &mut self.app
    }

    /// The previewed material's asset.
    pub fn material(&self) -> Handle<CustomMaterial> {
        self.material.clone()
    }

    /// Runs one frame and returns the material events it produced (the frame drawn in this
    /// update already uses a version that `Loaded`/`Reloaded` announce).
    pub fn step(&mut self) -> Vec<MaterialEvent> {
        self.app.update();
        let mut messages = self.app.world_mut().resource_mut::<Messages<MaterialEvent>>();
        messages.drain().collect()
    }

    /// Makes the store rebuild the material at the next frame even though no file changed,
    /// leaving the watcher and its debounce out (benchmarks). False before the material was
    /// registered with the store (run a frame first).
    pub fn request_reload(&mut self) -> bool {
        let handle = self.material.id();
        let render = self.app.sub_app_mut(RenderApp).world_mut();
        let Some(mut store) = render.get_resource_mut::<RenderMaterialStore>() else { return false };
        let Some(source) = store.source_of(handle) else { return false };
        store.store.request_reload(source);
        true
    }

    /// Waits (on the material watcher, not spinning) for the next event, at most `timeout`;
    /// `Ok(None)` when none came. A load or reload is reported once its picture is written.
    /// An error means the picture could not be written.
    pub fn next_event(&mut self, timeout: Duration) -> Result<Option<PreviewEvent>, String> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(event) = self.queue.pop_front() {
                return self.report(event).map(Some);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            let watch = self.app.world().resource::<MaterialWatch>().clone();
            // The first frames load the material without any file event: do not wait on
            // the watcher before the material was ever drawn.
            if self.app.world().resource::<RenderStats>().frames_rendered > 0 {
                watch.wait(left.min(Duration::from_millis(250)));
            }
            let events = self.step();
            self.queue.extend(events);
        }
    }

    /// Turns a material event into a preview event, writing the picture for a load.
    fn report(&mut self, event: MaterialEvent) -> Result<PreviewEvent, String> {
        let (name, changed_at) = match event {
            MaterialEvent::Loaded { name, changed_at, .. }
            | MaterialEvent::Reloaded { name, changed_at, .. } => (name, changed_at),
            MaterialEvent::Failed { message, .. } => return Ok(PreviewEvent::Failed { message }),
        };
        let written = match self.out.clone() {
            Some(out) => Some(self.screenshot(out)?),
            None => None,
        };
        Ok(PreviewEvent::Reloaded { name, latency: changed_at.elapsed(), written })
    }

    /// Draws a frame into `out` and waits for it to be written.
    fn screenshot(&mut self, out: PathBuf) -> Result<PathBuf, String> {
        self.app.world_mut().spawn(Screenshot::to_file(out.clone()));
        for _ in 0..SCREENSHOT_FRAMES {
            let events = self.step();
            self.queue.extend(events);
            let mut shots = self.app.world_mut().resource_mut::<Messages<ScreenshotCaptured>>();
            if let Some(shot) = shots.drain().find(|s| s.path.as_deref() == Some(out.as_path())) {
                return match shot.error {
                    Some(e) => Err(format!("{}: {e}", out.display())),
                    None => Ok(out),
                };
            }
        }
        Err(format!("{}: the screenshot did not arrive within {SCREENSHOT_FRAMES} frames", out.display()))
    }
}
