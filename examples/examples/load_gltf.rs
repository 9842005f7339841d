//! Draws a glTF file: `cargo run --release --example load_gltf -- FILE.gltf|FILE.glb
//! [--backend B] [--size WxH] [--out FILE] [--frames N]`.
//!
//! The file is loaded through the `AssetServer` (its folder is the asset folder, so buffers
//! and images next to it load too) and its default scene spawned with `GltfSceneRoot`. A file
//! without a camera is framed by one looking at the scene's bounds (its meshes with their
//! node transforms); a file without a light gets a sun and f3d's sky `Environment`. Once the
//! scene has drawn `--frames` frames (1) the picture goes to `--out` (`load_gltf.png`) and the
//! backend, the file written and the frame time are printed. A missing file or a load
//! failure prints the reason and exits non-zero.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use f3d::gltf::GltfBounds;
use f3d::prelude::*;
use f3d_examples::cli::{ExampleArgs, bad_args};

const NAME: &str = "load_gltf";

#[derive(Resource)]
struct Run {
    file: String,
    frames: u32,
    out: Option<PathBuf>,
    started: Instant,
    gltf: Handle<Gltf>,
    /// Frames drawn since the scene spawned.
    drawn: Option<u32>,
}

fn main() -> ExitCode {
    let args = match ExampleArgs::parse_with(
        NAME,
        "FILE.gltf|FILE.glb ",
        ExampleArgs::defaults(Some("load_gltf.png"), 1),
        |_, _| Ok(false),
    ) {
        Ok(a) => a,
        Err(e) => return bad_args(NAME, &e),
    };
    let [file] = args.positional.as_slice() else {
        return bad_args(NAME, "expected one FILE.gltf or FILE.glb");
    };
    let path = match Path::new(file).canonicalize() {
        Ok(p) if p.is_file() => p,
        Ok(p) => return fail(&format!("{}: not a file", p.display())),
        Err(e) => return fail(&format!("{file}: {e}")),
    };
    let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else {
        return fail(&format!("{}: no folder or file name", path.display()));
    };
    let mut plugin = args.plugin();
    // The example ends itself once the scene has loaded and drawn.
    plugin.exit_after_frames = None;
    let mut app = App::new();
    app.add_plugins(AssetPlugin { file_path: folder.display().to_string(), ..Default::default() })
        .add_plugins(plugin)
        .add_plugins(bevy_app::ScheduleRunnerPlugin::run_loop(Duration::ZERO))
        .insert_resource(Run {
            file: name.to_string_lossy().into_owned(),
            frames: args.frames,
            out: args.out.clone(),
            started: Instant::now(),
            gltf: Handle::default(),
            drawn: None,
        })
        .add_systems(Startup, load)
        .add_systems(Update, (stage, report));
    f3d_examples::cli::run(app)
}

fn fail(reason: &str) -> ExitCode {
    eprintln!("{NAME}: {reason}");
    ExitCode::FAILURE
}

fn load(mut commands: Commands, server: Res<AssetServer>, mut run: ResMut<Run>) {
    run.gltf = server.load::<Gltf>(run.file.clone());
    commands.spawn(GltfSceneRoot::new(run.gltf.clone()));
}

/// Waits for the scene, adds a camera and light where the file has none, and asks for the
/// screenshot after `frames` frames.
fn stage(
    mut commands: Commands,
    mut run: ResMut<Run>,
    roots: Query<&GltfSceneStatus>,
    scenes: Res<Assets<GltfScene>>,
    gltfs: Res<Assets<Gltf>>,
    mut exit: MessageWriter<AppExit>,
) {
    if let Some(drawn) = &mut run.drawn {
        *drawn += 1;
        if *drawn == run.frames {
            match run.out.clone() {
                Some(path) => commands.spawn(Screenshot::to_file(path)),
                None => commands.spawn(Screenshot::pixels()),
            };
        }
        return;
    }
    match roots.iter().next() {
        Some(GltfSceneStatus::Spawned { scene, .. }) => {
            let Some(scene) = scenes.get(scene) else { return };
            if !scene.has_camera() {
                let bounds =
                    scene.bounds.unwrap_or(GltfBounds { min: Vec3::splat(-1.0), max: Vec3::splat(1.0) });
                commands.spawn(framing_camera(bounds));
            }
            if !scene.has_light() {
                commands.spawn((
                    DirectionalLight { illuminance: 8000.0, shadow_maps_enabled: true, ..default() },
                    Transform::from_xyz(1.0, 2.0, 1.2).looking_at(Vec3::ZERO, Vec3::Y),
                ));
                commands.spawn(Environment::default());
            }
            println!(
                "{}: {} nodes, camera from the {}, light from the {}",
                run.file,
                scene.nodes.len(),
                if scene.has_camera() { "file" } else { "example" },
                if scene.has_light() { "file" } else { "example" }
            );
            if let Some(gltf) = gltfs.get(&run.gltf).filter(|g| !g.skipped.is_empty()) {
                println!("{}: drawn without {}", run.file, gltf.skipped.join(", "));
            }
            run.drawn = Some(0);
        }
        Some(GltfSceneStatus::Failed { reason }) => {
            eprintln!("{NAME}: {reason}");
            exit.write(AppExit::error());
        }
        None if run.started.elapsed() > Duration::from_secs(120) => {
            eprintln!("{NAME}: {} did not load within 120 s", run.file);
            exit.write(AppExit::error());
        }
        None => {}
    }
}

/// A camera looking at `bounds` from the front, above and to the right, far enough back that
/// its bounding sphere fits the vertical field of view.
fn framing_camera(bounds: GltfBounds) -> impl Bundle {
    let center = bounds.center();
    let radius = ((bounds.max - bounds.min).length() * 0.5).max(1e-3);
    let fov = std::f32::consts::FRAC_PI_4;
    let distance = radius / (fov * 0.5).sin() * 1.1;
    let eye = center + Vec3::new(0.5, 0.4, 1.0).normalize() * distance;
    let near = (distance - radius * 1.5).max(distance * 0.01);
    let projection = PerspectiveProjection {
        fov,
        near,
        far: distance + radius * 2.0,
        near_clip_plane: Vec4::new(0.0, 0.0, -1.0, -near),
        ..default()
    };
    (
        Camera3d::default(),
        Projection::Perspective(projection),
        Transform::from_translation(eye).looking_at(center, Vec3::Y),
    )
}

/// Prints the file written and the frame time, then ends the app.
fn report(
    mut shots: MessageReader<ScreenshotCaptured>,
    stats: Res<RenderStats>,
    mut exit: MessageWriter<AppExit>,
) {
    for shot in shots.read() {
        if let Some(e) = &shot.error {
            eprintln!("{NAME}: screenshot failed: {e}");
            exit.write(AppExit::error());
            continue;
        }
        if let Some(path) = &shot.path {
            println!("wrote {} ({}x{})", path.display(), shot.width, shot.height);
        }
        // Only the last frame: the ones before it drew while the file was loading.
        println!(
            "frame time: {:.1} ms (the last of {} frames): extract, prepare, graph, execute and readback",
            stats.last_frame_time.as_secs_f64() * 1e3,
            stats.frames_rendered
        );
        exit.write(AppExit::Success);
    }
}
