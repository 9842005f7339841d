//! # f3d_testing
//!
//! Engine frames in tests (DESIGN §7):
//!
//! * [`render_frame`] builds an app around a given device, runs a scene-building function,
//!   renders and returns the pixels of the first frame (RGBA8, sRGB, rows from the top).
//!   [`render_frames`] takes options: pipelined, which frame, the clock step.
//! * [`assert_golden`] compares with `tests/goldens/<backend>/<name>.png` ([`golden_path`]):
//!   a pixel matches when every channel differs by at most [`Tolerance::channel`] (2); at
//!   most [`Tolerance::max_mismatch`] (0.5 %) of the pixels may mismatch, and no channel
//!   anywhere may differ by more than [`Tolerance::max_difference`] (32), so a thin crack of
//!   a few very wrong pixels fails however few they are. On failure it writes
//!   `<name>.actual.png` and `<name>.diff.png` (mismatches red over a dimmed copy) next to
//!   the golden. `F3D_BLESS=1` (exactly that value) rewrites goldens instead, except where
//!   `CI` is set: CI never blesses, so a red golden there cannot be turned green unseen.
//! * [`gltf`]: a glTF writer for tests and [`gltf::render_gltf`], which draws a file
//!   through the `AssetServer`.
//! * [`gpu`]: the golden and against-soft tests every GPU backend runs; [`materials`]: example
//!   materials drawn with stand-in bindings, compared with soft; [`xvfb`]: a private X
//!   server for window tests.

pub mod gltf;
pub mod gpu;
pub mod materials;
pub mod xvfb;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use f3d::f3d_hal::{BackendId, GraphicsDevice};
use f3d::plugin::RenderRegistry;
use f3d::prelude::*;

/// A rendered frame: RGBA8, sRGB-encoded, rows from the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub pixels: Vec<u8>,
}

impl Frame {
    /// The RGBA of pixel (`x`, `y`).
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2], self.pixels[i + 3]]
    }

    /// Writes the frame as a PNG.
    pub fn write_png(&self, path: &Path) -> Result<(), String> {
        f3d::screenshot::write_png(path, self.width, self.height, &self.pixels)
    }

    /// Reads a PNG written by [`write_png`](Self::write_png) (RGBA8).
    pub fn read_png(path: &Path) -> Result<Self, String> {
        let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
        let mut buf = vec![0; reader.output_buffer_size().ok_or("image too large")?];
        let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
        buf.truncate(info.buffer_size());
        let pixels = match info.color_type {
            png::ColorType::Rgba => buf,
            png::ColorType::Rgb => buf.chunks_exact(3).flat_map(|c| [c[0], c[1], c[2], 255]).collect(),
            other => return Err(format!("{}: unsupported colour type {other:?}", path.display())),
        };
        Ok(Self { width: info.width, height: info.height, pixels })
    }
}

/// [`render_frame`] on a fresh device of `backend` from the default registry (the test
/// already knows it opens: [`backend_opens`]); panics naming the backend when it does not.
pub fn render_on(
    backend: &str,
    width: u32,
    height: u32,
    build: impl FnOnce(&mut World) + Send + Sync + 'static,
) -> Frame {
    let request = f3d::f3d_hal::DeviceRequest {
        backend: Some(BackendId::from_name(backend)),
        ..f3d::f3d_hal::DeviceRequest::new(width, height)
    };
    let device = f3d::plugin::default_registry().open(&request).unwrap_or_else(|e| panic!("{backend}: {e}"));
    render_frame(width, height, device, build).unwrap_or_else(|e| panic!("{backend}: {e}"))
}

/// An untonemapped orthographic camera looking straight down at `centre` on a black clear,
/// `width`×`height` world units in view, +x to the right and +z down the frame: scenes whose
/// pixels a test works out from world positions.
pub fn top_down_camera(world: &mut World, centre: Vec3, width: f32, height: f32) {
    use f3d::bevy_camera::ScalingMode;
    world.spawn((
        Camera3d::default(),
        Camera { clear_color: ClearColorConfig::Custom(Color::BLACK), ..default() },
        Projection::Orthographic(OrthographicProjection {
            scaling_mode: ScalingMode::Fixed { width, height },
            ..OrthographicProjection::default_3d()
        }),
        Tonemapping::None,
        Transform::from_translation(centre + Vec3::Y * 10.0).looking_at(centre, Vec3::NEG_Z),
    ));
}

/// A `.ron` material from `text`, written to a file named `name.ron` (so includes and hot
/// reload see a real file) in a temporary folder of its own, and loaded from there. A folder
/// per call: tests run on parallel threads, and two that load the same name must not read
/// each other's half-written file.
pub fn material_from_text(name: &str, text: &str) -> f3d::prelude::CustomMaterial {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("f3d_test_materials_{}_{call}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let path = dir.join(format!("{name}.ron"));
    std::fs::write(&path, text).expect("write the material");
    f3d::prelude::CustomMaterial::load(&path).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

/// Whether the default registry opens `backend` here. A backend that does not open is
/// skipped with a note, unless `F3D_REQUIRE_BACKENDS` names it: then the test fails.
pub fn backend_opens(backend: &str) -> bool {
    let request = f3d::f3d_hal::DeviceRequest {
        backend: Some(BackendId::from_name(backend)),
        ..f3d::f3d_hal::DeviceRequest::new(64, 64)
    };
    match f3d::plugin::default_registry().open(&request) {
        Ok(_) => true,
        Err(e) => {
            let required = std::env::var("F3D_REQUIRE_BACKENDS")
                .is_ok_and(|list| list.split(',').any(|b| b.trim() == backend));
            assert!(!required, "{backend} is required (F3D_REQUIRE_BACKENDS) but did not open: {e}");
            eprintln!("skipped on {backend}: {e}");
            false
        }
    }
}

/// How to render.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    /// Render on the render thread, one frame behind.
    pub pipelined: bool,
    /// Which frame to capture (1 = the first).
    pub frame: u32,
    /// Seconds the shader clock advances per frame.
    pub time_step: f64,
    /// Adds to the app after `F3dRenderPlugin` (plugins with passes of their own).
    pub configure: Option<fn(&mut App)>,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self { pipelined: false, frame: 1, time_step: 1.0 / 60.0, configure: None }
    }
}

/// Renders the first frame of the scene `build` makes, on `device`.
pub fn render_frame(
    width: u32,
    height: u32,
    device: Arc<dyn GraphicsDevice>,
    build: impl FnOnce(&mut World) + Send + Sync + 'static,
) -> Result<Frame, String> {
    render_frames(width, height, device, &RenderOptions::default(), build)
}

/// [`render_frame`] on a fresh soft device: the reference frame a GPU backend's frame of the
/// same scene is compared with ([`gpu::close_to_soft`]).
pub fn soft_frame(
    width: u32,
    height: u32,
    build: impl FnOnce(&mut World) + Send + Sync + 'static,
) -> Result<Frame, String> {
    render_frame(width, height, Arc::new(f3d_backend_soft::SoftDevice::new("reference")), build)
}

/// The last screenshot a test app captured (its frame, or why it failed).
#[derive(Resource, Clone, Default)]
pub(crate) struct Captured(pub(crate) Arc<Mutex<Option<Result<Frame, String>>>>);

/// Keeps the screenshots that arrive in [`Captured`] (the last one wins).
pub(crate) fn keep_screenshots(mut shots: MessageReader<ScreenshotCaptured>, captured: Res<Captured>) {
    for s in shots.read() {
        let frame = match &s.error {
            Some(e) => Err(e.clone()),
            None => Ok(Frame { width: s.width, height: s.height, pixels: s.pixels.to_vec() }),
        };
        *captured.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(frame);
    }
}

#[derive(Resource)]
struct CaptureOn(u32);

/// Renders the scene `build` makes on `device` and returns frame `options.frame`.
pub fn render_frames(
    width: u32,
    height: u32,
    device: Arc<dyn GraphicsDevice>,
    options: &RenderOptions,
    build: impl FnOnce(&mut World) + Send + Sync + 'static,
) -> Result<Frame, String> {
    let backend: BackendId = device.backend_id();
    let mut registry = f3d::f3d_hal::DeviceRegistry::new();
    let shared = device.clone();
    let _ = registry.add_backend(backend.clone(), move |_| Ok(shared.clone()));
    let captured = Captured::default();
    let mut app = App::new();
    app.insert_resource(RenderRegistry(registry))
        .add_plugins(F3dRenderPlugin {
            backend: BackendChoice::Named(backend),
            size: (width, height),
            pipelined: options.pipelined,
            fixed_time_step: Some(options.time_step),
            ..Default::default()
        })
        .insert_resource(captured.clone())
        .insert_resource(CaptureOn(options.frame.max(1)));
    if let Some(configure) = options.configure {
        configure(&mut app);
    }
    let mut build = Some(build);
    app.add_systems(Startup, move |world: &mut World| {
        if let Some(b) = build.take() {
            b(world);
        }
    });
    app.add_systems(Update, |mut commands: Commands, on: Res<CaptureOn>, mut frame: Local<u32>| {
        *frame += 1;
        if *frame == on.0 {
            commands.spawn(Screenshot::pixels());
        }
    });
    app.add_systems(Update, keep_screenshots);
    app.finish();
    app.cleanup();
    if !app.world().contains_resource::<RenderDevice>() {
        return Err("the plugin did not open the device".into());
    }
    // The capture frame, plus two for the pipelined hand-over and the report.
    for _ in 0..options.frame + 3 {
        app.update();
        if let Some(result) = captured.0.lock().unwrap_or_else(|e| e.into_inner()).take() {
            return result;
        }
    }
    Err(format!("no screenshot arrived within {} frames", options.frame + 3))
}

/// What counts as a match.
#[derive(Clone, Copy, Debug)]
pub struct Tolerance {
    /// Largest per-channel difference of a matching pixel.
    pub channel: u8,
    /// Largest fraction of mismatching pixels.
    pub max_mismatch: f64,
    /// Largest channel difference allowed anywhere, mismatching pixels included.
    pub max_difference: u8,
}

impl Default for Tolerance {
    fn default() -> Self {
        Self { channel: 2, max_mismatch: 0.005, max_difference: 32 }
    }
}

/// The result of comparing two frames.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// Pixels with a channel differing by more than the tolerance.
    pub mismatched: usize,
    /// The largest channel difference anywhere.
    pub max_difference: u8,
    /// The diff image (mismatches red over a dimmed copy of `actual`).
    pub diff: Frame,
}

impl Comparison {
    /// Whether the comparison is within `tolerance`: at most `max_mismatch` of the pixels
    /// past `channel`, and no channel anywhere past `max_difference`. The error says which.
    pub fn within(&self, tolerance: Tolerance) -> Result<(), String> {
        let pixels = (self.diff.width * self.diff.height) as usize;
        let allowed = (tolerance.max_mismatch * pixels as f64) as usize;
        if self.mismatched > allowed {
            return Err(format!(
                "{} of {pixels} pixels differ by more than {} (at most {allowed} may; largest difference {})",
                self.mismatched, tolerance.channel, self.max_difference
            ));
        }
        if self.max_difference > tolerance.max_difference {
            return Err(format!(
                "a channel differs by {}, past the cap of {} ({} pixels differ by more than {})",
                self.max_difference, tolerance.max_difference, self.mismatched, tolerance.channel
            ));
        }
        Ok(())
    }
}

/// Compares `actual` with `expected` (same size required).
pub fn compare(actual: &Frame, expected: &Frame, tolerance: Tolerance) -> Result<Comparison, String> {
    if (actual.width, actual.height) != (expected.width, expected.height) {
        return Err(format!(
            "size differs: actual {}x{}, golden {}x{}",
            actual.width, actual.height, expected.width, expected.height
        ));
    }
    let mut mismatched = 0;
    let mut max_difference = 0u8;
    let mut diff = Vec::with_capacity(actual.pixels.len());
    for (a, e) in actual.pixels.chunks_exact(4).zip(expected.pixels.chunks_exact(4)) {
        let d = a.iter().zip(e).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0);
        max_difference = max_difference.max(d);
        if d > tolerance.channel {
            mismatched += 1;
            diff.extend_from_slice(&[255, 0, 0, 255]);
        } else {
            diff.extend_from_slice(&[a[0] / 4, a[1] / 4, a[2] / 4, 255]);
        }
    }
    Ok(Comparison {
        mismatched,
        max_difference,
        diff: Frame { width: actual.width, height: actual.height, pixels: diff },
    })
}

/// `tests/goldens/<backend>/<name>.png` in this repository.
pub fn golden_path(backend: &str, name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("goldens")
        .join(backend)
        .join(format!("{name}.png"))
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!("{stem}.{suffix}.png"))
}

/// Compares `frame` with the golden at `path` under the default [`Tolerance`]; panics with a
/// report (and writes `<name>.actual.png` and `<name>.diff.png`) when they differ.
/// `F3D_BLESS=1` writes the golden instead.
pub fn assert_golden(frame: &Frame, path: impl AsRef<Path>) {
    assert_golden_with(frame, path, Tolerance::default());
}

/// Whether goldens are to be written rather than compared: `F3D_BLESS` is exactly `1` (any
/// other value compares), and never where `CI` is set (to anything but empty or `false`),
/// which is an error: CI compares, a person blesses after looking at the picture.
pub fn bless_requested(
    bless: Option<&std::ffi::OsStr>,
    ci: Option<&std::ffi::OsStr>,
) -> Result<bool, String> {
    let bless = bless.is_some_and(|v| v == "1");
    let on_ci = ci.is_some_and(|v| !v.is_empty() && v != "false");
    match (bless, on_ci) {
        (true, true) => Err("F3D_BLESS=1 is refused where CI is set: goldens are blessed on a \
                             developer's machine, after looking at the new picture"
            .to_owned()),
        (bless, _) => Ok(bless),
    }
}

/// [`assert_golden`] with another tolerance.
pub fn assert_golden_with(frame: &Frame, path: impl AsRef<Path>, tolerance: Tolerance) {
    let path = path.as_ref();
    let bless = bless_requested(std::env::var_os("F3D_BLESS").as_deref(), std::env::var_os("CI").as_deref())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if bless {
        frame.write_png(path).unwrap_or_else(|e| panic!("cannot bless {}: {e}", path.display()));
        return;
    }
    let expected = Frame::read_png(path)
        .unwrap_or_else(|e| panic!("no golden {} ({e}); run with F3D_BLESS=1 to write it", path.display()));
    let report = |message: String| -> ! {
        let actual = sibling(path, "actual");
        let _ = frame.write_png(&actual);
        panic!("{}: {message}; actual written to {}", path.display(), actual.display());
    };
    let cmp = compare(frame, &expected, tolerance).unwrap_or_else(|e| report(e));
    if let Err(e) = cmp.within(tolerance) {
        let diff = sibling(path, "diff");
        let _ = cmp.diff.write_png(&diff);
        report(format!("{e}; diff in {}", diff.display()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparison_counts_pixels_beyond_the_tolerance() {
        let a = Frame { width: 2, height: 1, pixels: vec![10, 10, 10, 255, 0, 0, 0, 255] };
        let mut b = a.clone();
        b.pixels[0] = 12;
        assert_eq!(compare(&a, &b, Tolerance::default()).unwrap().mismatched, 0);
        b.pixels[4] = 9;
        let c = compare(&a, &b, Tolerance::default()).unwrap();
        assert_eq!((c.mismatched, c.max_difference), (1, 9));
        assert!(
            compare(&a, &Frame { width: 1, height: 1, pixels: vec![0; 4] }, Tolerance::default()).is_err()
        );
    }

    /// A 100x100 grey frame and a copy with `pixels` pixels off by `by` in red.
    fn cracked(pixels: usize, by: u8) -> (Frame, Frame) {
        let a = Frame { width: 100, height: 100, pixels: [100, 100, 100, 255].repeat(100 * 100) };
        let mut b = a.clone();
        for p in 0..pixels {
            b.pixels[4 * p * 37] = 100 + by;
        }
        (a, b)
    }

    #[test]
    fn a_thin_crack_of_large_differences_fails_however_few_its_pixels() {
        let tolerance = Tolerance::default();
        // Four pixels are well inside 0.5 % of 10,000, so only the cap can catch them.
        let (a, b) = cracked(4, 85);
        let c = compare(&b, &a, tolerance).unwrap();
        assert_eq!((c.mismatched, c.max_difference), (4, 85));
        let e = c.within(tolerance).unwrap_err();
        assert!(e.contains("85") && e.contains("cap"), "{e}");
        // The same crack, faint, passes; many faint mismatches fail on the count.
        let (a, b) = cracked(4, 20);
        assert!(compare(&b, &a, tolerance).unwrap().within(tolerance).is_ok());
        let (a, b) = cracked(60, 5);
        assert!(compare(&b, &a, tolerance).unwrap().within(tolerance).unwrap_err().contains("60 of 10000"));
    }

    #[test]
    fn only_f3d_bless_1_blesses_and_never_on_ci() {
        use std::ffi::OsStr;
        let os = |s: &'static str| Some(OsStr::new(s));
        assert_eq!(bless_requested(os("1"), None), Ok(true));
        assert_eq!(bless_requested(os("1"), os("false")), Ok(true));
        assert_eq!(bless_requested(os("1"), os("")), Ok(true));
        for other in ["true", "yes", "0", ""] {
            assert_eq!(bless_requested(os(other), None), Ok(false), "F3D_BLESS={other:?}");
        }
        assert_eq!(bless_requested(None, os("true")), Ok(false));
        assert!(bless_requested(os("1"), os("true")).unwrap_err().contains("CI"));
    }
}
