//! Soft against the vulkan backend, side by side in one process: the same frames drawn on
//! both, interleaved (soft, vulkan, soft, vulkan, …) so a busy machine slows both alike, each
//! frame ending when its pixels are back on the CPU. Prints, per case and soft thread count,
//! the median frame time of each and their ratio (soft / vulkan; below 1 soft is faster).
//!
//! Cases: `showcase` (the README's scene through the whole engine), `cubes` (10,000 cubes,
//! one material, through the engine), `flat` (four full-screen flat-colour quads straight on
//! the HAL) and `lit` (four full-screen Blinn-Phong quads with a trilinear-sampled texture).
//!
//! ```text
//! compare [--cases showcase,cubes,flat,lit] [--threads 1,2,all] [--frames N] [--size WxH]
//! ```
//!
//! Without a vulkan device (no driver), it says so and exits 1: a comparison needs both.

use std::sync::Arc;
use std::time::{Duration, Instant};

use f3d::f3d_hal::{BackendId, DeviceRegistry, DeviceRequest, GraphicsDevice};
use f3d::plugin::RenderRegistry;
use f3d::prelude::*;
use f3d_backend_soft::SoftDevice;
use f3d_benches::soft_fill;

struct Args {
    cases: Vec<String>,
    threads: Vec<Option<usize>>,
    frames: usize,
    size: (u32, u32),
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        cases: ["showcase", "cubes", "flat", "lit"].map(String::from).to_vec(),
        threads: vec![Some(1), Some(2), None],
        frames: 10,
        size: (1280, 720),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--cases" => args.cases = value()?.split(',').map(str::to_owned).collect(),
            "--threads" => {
                args.threads = value()?
                    .split(',')
                    .map(|t| match t {
                        "all" => Ok(None),
                        n => n.parse().map(Some).map_err(|_| format!("--threads {n}: a count or `all`")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--frames" => {
                let v = value()?;
                args.frames = v
                    .parse()
                    .ok()
                    .filter(|n| (1..=1000).contains(n))
                    .ok_or(format!("--frames {v}: 1 to 1000"))?;
            }
            "--size" => {
                let v = value()?;
                args.size = f3d_examples::parse_size(&v).ok_or(format!("--size {v}: expected WxH"))?;
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

/// Something that draws one frame and returns when its pixels are on the CPU.
trait Frames {
    fn frame(&mut self);
}

/// A fill-rate frame straight on the HAL.
struct Fill {
    scene: soft_fill::Scene,
    lit: bool,
}

impl Frames for Fill {
    fn frame(&mut self) {
        let s = &self.scene;
        let (pipeline, depth) = if self.lit { (&s.lit, false) } else { (&s.flat, false) };
        soft_fill::frame_and_wait(s, pipeline, depth);
    }
}

/// A frame of a Bevy app through the whole engine (main world, extraction, render world,
/// readback of a screenshot every frame).
struct Engine(App);

impl Frames for Engine {
    fn frame(&mut self) {
        self.0.world_mut().spawn(Screenshot::pixels());
        self.0.update();
    }
}

fn engine(device: Arc<dyn GraphicsDevice>, size: (u32, u32), build: fn(&mut World)) -> Engine {
    let id = device.backend_id();
    let mut registry = DeviceRegistry::new();
    let _ = registry.add_backend(id.clone(), move |_| Ok(device.clone()));
    let mut app = App::new();
    app.insert_resource(RenderRegistry(registry)).add_plugins(F3dRenderPlugin {
        backend: BackendChoice::Named(id),
        size,
        fixed_time_step: Some(1.0 / 60.0),
        ..Default::default()
    });
    app.finish();
    app.cleanup();
    build(app.world_mut());
    Engine(app)
}

/// 10,000 cubes of one material on a grid, seen from above at an angle (as `many_cubes`).
fn cubes(world: &mut World) {
    const SIDE: usize = 100;
    let cube = world.resource_mut::<Assets<Mesh>>().add(Cuboid::from_length(0.5));
    let material = world
        .resource_mut::<Assets<StandardMaterial>>()
        .add(StandardMaterial::from(Color::srgb(0.8, 0.5, 0.3)));
    world.spawn_batch((0..SIDE * SIDE).map(move |i| {
        let (x, z) = ((i % SIDE) as f32, (i / SIDE) as f32);
        (Mesh3d(cube.clone()), MeshMaterial3d(material.clone()), Transform::from_xyz(x, 0.0, z))
    }));
    let s = SIDE as f32;
    world.spawn((
        DirectionalLight::default(),
        Transform::from_xyz(3.0, 5.0, 2.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    world.spawn((
        Camera3d::default(),
        Transform::from_xyz(-0.6 * s, 1.4 * s, 1.9 * s).looking_at(Vec3::splat(s * 0.5), Vec3::Y),
    ));
    world.spawn(Environment::default());
}

fn make(case: &str, device: Arc<dyn GraphicsDevice>, size: (u32, u32)) -> Result<Box<dyn Frames>, String> {
    Ok(match case {
        "showcase" => Box::new(engine(device, size, f3d_examples::showcase)),
        "cubes" => Box::new(engine(device, size, cubes)),
        "flat" | "lit" => Box::new(Fill { scene: soft_fill::scene(device), lit: case == "lit" }),
        other => return Err(format!("unknown case {other} (showcase, cubes, flat, lit)")),
    })
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() -> std::process::ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            eprintln!(
                "usage: compare [--cases showcase,cubes,flat,lit] [--threads 1,2,all] [--frames N] [--size WxH]"
            );
            return std::process::ExitCode::from(2);
        }
    };
    let mut request = DeviceRequest::new(args.size.0, args.size.1);
    request.backend = Some(BackendId::VULKAN);
    request.label = "compare".into();
    let vulkan = match f3d::plugin::default_registry().open(&request) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: no vulkan device to compare with: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("vulkan: {}", vulkan.adapter_info().name);
    println!(
        "{} cores; {} frames each after 3 unmeasured, interleaved; {}x{}",
        cores, args.frames, args.size.0, args.size.1
    );
    println!("| case | soft threads | soft | vulkan | soft / vulkan |");
    println!("|---|---:|---:|---:|---:|");
    for case in &args.cases {
        for threads in &args.threads {
            let n = threads.unwrap_or(cores).min(cores);
            let soft: Arc<dyn GraphicsDevice> = Arc::new(SoftDevice::with_threads("compare", n));
            let (mut a, mut b) = match (make(case, soft, args.size), make(case, vulkan.clone(), args.size)) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(e), _) | (_, Err(e)) => {
                    eprintln!("error: {e}");
                    return std::process::ExitCode::from(2);
                }
            };
            let (mut ta, mut tb) = (Vec::new(), Vec::new());
            for i in 0..args.frames + 3 {
                let t = Instant::now();
                a.frame();
                let da = t.elapsed();
                let t = Instant::now();
                b.frame();
                let db = t.elapsed();
                if i >= 3 {
                    ta.push(da);
                    tb.push(db);
                }
            }
            let (sa, sb) = (median(ta), median(tb));
            println!(
                "| {case} | {n} | {:.1} ms | {:.1} ms | {:.2} |",
                ms(sa),
                ms(sb),
                sa.as_secs_f64() / sb.as_secs_f64()
            );
        }
    }
    std::process::ExitCode::SUCCESS
}
