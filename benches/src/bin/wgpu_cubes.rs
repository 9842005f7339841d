//! The hand-written wgpu baseline for BENCHMARKS.md's many-cubes comparison (DESIGN §8): the
//! scene of `examples/examples/many_cubes.rs` drawn straight on wgpu, with no engine between.
//!
//! `cargo run --release -p f3d_benches --bin wgpu_cubes -- [--n N] [--frames F] [--size WxH]
//! [--mode per-cube|instanced] [--msaa 1|4] [--out FILE.png]`
//!
//! A cubic grid of `N` cubes (side 0.6, spacing 1, grid side `s = ceil(cbrt(N))`) seen from
//! `(-0.6 s, 1.4 s, 1.9 s)` towards the grid's centre through Bevy's default perspective (45°
//! vertical, near 0.1, infinite reverse Z), lit by a sun shining from `(3, 5, 2)` towards the
//! origin (Lambert plus an ambient term), into an `Rgba8UnormSrgb` target with a
//! `Depth32Float` depth buffer, on Vulkan.
//!
//! * `per-cube` (default): every cube has its own colour and model matrix in one uniform
//!   buffer, one aligned slot each, bound with a dynamic offset: one `set_bind_group` and one
//!   `draw_indexed` per cube — the loop f3d's `many_cubes --per-cube-materials` is held to.
//! * `instanced`: one draw of `N` instances, matrix and colour from a per-instance vertex buffer.
//!
//! `--msaa 4` draws into 4-sample colour and depth targets resolved into the colour target (f3d
//! multisamples a camera 4× unless told otherwise, so this is the like-for-like loop for
//! `many_cubes` without `--msaa off`); the default is 1 sample.
//!
//! Each frame writes every cube's data (`queue.write_buffer`), renders, copies the colour target
//! into a mappable buffer and waits for the map, so a frame time includes the GPU's work, as
//! f3d's example does. It prints the same `frame time:` line as `many_cubes`.

use std::num::NonZeroU64;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use glam::camera::rh::{proj::directx::perspective_infinite_reverse, view::look_at_mat4};
use glam::{Mat4, Vec3};
use wgpu::util::DeviceExt;

const USAGE: &str = "usage: wgpu_cubes [--n N] [--frames F] [--size WxH] [--mode per-cube|instanced] [--msaa 1|4] [--out FILE.png]";
const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Bytes of each block of data, 20 floats: a cube's (in its uniform slot or as an instance) is
/// its model matrix (column-major) then its linear RGBA colour; the frame's is clip-from-world
/// then the direction towards the sun and the ambient term.
const BLOCK_BYTES: u64 = 20 * 4;
const AMBIENT: f32 = 0.15;

const SHADER: &str = r"
struct Frame { clip_from_world: mat4x4<f32>, sun: vec4<f32> };
struct Cube { world_from_local: mat4x4<f32>, color: vec4<f32> };
@group(0) @binding(0) var<uniform> frame: Frame;
@group(1) @binding(0) var<uniform> cube: Cube;
struct Varyings { @builtin(position) clip: vec4<f32>, @location(0) normal: vec3<f32>, @location(1) color: vec3<f32> };

fn transform(model: mat4x4<f32>, color: vec4<f32>, position: vec3<f32>, normal: vec3<f32>) -> Varyings {
    var out: Varyings;
    out.clip = frame.clip_from_world * model * vec4(position, 1.0);
    out.normal = (model * vec4(normal, 0.0)).xyz;
    out.color = color.rgb;
    return out;
}

@vertex fn vs_per_cube(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>) -> Varyings {
    return transform(cube.world_from_local, cube.color, position, normal);
}

@vertex fn vs_instanced(
    @location(0) position: vec3<f32>, @location(1) normal: vec3<f32>,
    @location(2) m0: vec4<f32>, @location(3) m1: vec4<f32>, @location(4) m2: vec4<f32>,
    @location(5) m3: vec4<f32>, @location(6) color: vec4<f32>,
) -> Varyings {
    return transform(mat4x4(m0, m1, m2, m3), color, position, normal);
}

@fragment fn fs(in: Varyings) -> @location(0) vec4<f32> {
    let lambert = max(dot(normalize(in.normal), frame.sun.xyz), 0.0);
    return vec4(in.color * (frame.sun.w + (1.0 - frame.sun.w) * lambert), 1.0);
}
";

struct Args {
    n: u32,
    frames: u32,
    size: (u32, u32),
    /// One draw of every cube as instances instead of a bind and a draw per cube.
    instanced: bool,
    /// Samples per pixel: 1 or 4.
    samples: u32,
    out: Option<std::path::PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { n: 10_000, frames: 5, size: (1280, 720), instanced: false, samples: 1, out: None };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--n" => args.n = number(&flag, &value()?, 4_000_000)?,
            "--frames" => args.frames = number(&flag, &value()?, 1_000_000)?,
            "--size" => {
                let v = value()?;
                let dim = |d: &str| number(&flag, d, 8192).ok();
                let size = v.split_once('x').and_then(|(w, h)| Some((dim(w)?, dim(h)?)));
                args.size = size.ok_or_else(|| format!("--size {v}: expected WxH, each from 1 to 8192"))?;
            }
            "--mode" => {
                args.instanced = match value()?.as_str() {
                    "per-cube" => false,
                    "instanced" => true,
                    other => return Err(format!("--mode {other}: expected per-cube or instanced")),
                };
            }
            "--msaa" => {
                args.samples = match value()?.as_str() {
                    "1" => 1,
                    "4" => 4,
                    other => return Err(format!("--msaa {other}: expected 1 or 4")),
                };
            }
            "--out" => args.out = Some(value()?.into()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

fn number(flag: &str, v: &str, max: u32) -> Result<u32, String> {
    v.parse().ok().filter(|x| (1..=max).contains(x)).ok_or_else(|| format!("{flag} {v}: expected 1 to {max}"))
}

/// Runs a wgpu future to completion: adapter and device requests resolve at once or after a
/// poll, so a waker that does nothing is enough.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

/// Writes `values` as little-endian `f32`s at the start of `dst`.
fn put_f32s(dst: &mut [u8], values: &[f32]) {
    for (d, v) in dst.chunks_exact_mut(4).zip(values) {
        d.copy_from_slice(&v.to_le_bytes());
    }
}

/// A cube of side 0.6 centred on the origin: 24 vertices (position, normal), 36 indices,
/// counter-clockwise seen from outside.
fn cube_mesh() -> (Vec<u8>, Vec<u8>) {
    let (mut vertices, mut indices) = (Vec::new(), Vec::new());
    let axes = [Vec3::X, Vec3::Y, Vec3::Z];
    for a in 0..3 {
        for sign in [1.0f32, -1.0] {
            let n = axes[a] * sign;
            let (mut u, mut v) = (axes[(a + 1) % 3], axes[(a + 2) % 3]);
            if sign < 0.0 {
                std::mem::swap(&mut u, &mut v);
            }
            let base = (vertices.len() / 24) as u16;
            for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let p = (n + u * su + v * sv) * 0.3;
                let mut bytes = [0; 24];
                put_f32s(&mut bytes, &[p.x, p.y, p.z, n.x, n.y, n.z]);
                vertices.extend_from_slice(&bytes);
            }
            for i in [0, 1, 2, 0, 2, 3] {
                indices.extend_from_slice(&(base + i).to_le_bytes());
            }
        }
    }
    (vertices, indices)
}

/// Each cube's position and colour, in many_cubes' order (x, then y, then z) and with its
/// per-cube material colours: every cube's colour is its own.
fn grid(n: u32) -> (u32, Vec<(Vec3, [f32; 4])>) {
    let side = (n as f32).cbrt().ceil() as u32;
    let c = |v: u32| 0.15 + 0.85 * v as f32 / side.max(2) as f32;
    let cubes = (0..side)
        .flat_map(|x| (0..side).flat_map(move |y| (0..side).map(move |z| (x, y, z))))
        .take(n as usize)
        .map(|(x, y, z)| (Vec3::new(x as f32, y as f32, z as f32), [c(x), c(y), c(z), 1.0]))
        .collect();
    (side, cubes)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("wgpu_cubes: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    let instance = wgpu::Instance::new(desc);
    let options = wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    };
    let adapter = match block_on(instance.request_adapter(&options)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("wgpu_cubes: no Vulkan adapter (is mesa-vulkan-drivers installed?): {e}");
            return ExitCode::from(2);
        }
    };
    match run(&args, &adapter) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wgpu_cubes: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args, adapter: &wgpu::Adapter) -> Result<(), String> {
    let info = adapter.get_info();
    println!("backend: {} ({:?})", info.name, info.backend);
    // No features; the adapter's own limits, as f3d's wgpu backend asks for.
    let (device, queue) =
        block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| format!("{} did not open a device: {e}", info.name))?;
    let limits = device.limits();

    let (side, cubes) = grid(args.n);
    let n = cubes.len() as u64;
    let align = u64::from(limits.min_uniform_buffer_offset_alignment);
    // Per-cube slots start at multiples of the device's dynamic-offset alignment (256 here).
    let (stride, cube_usage) = if args.instanced {
        (BLOCK_BYTES, wgpu::BufferUsages::VERTEX)
    } else {
        (BLOCK_BYTES.div_ceil(align) * align, wgpu::BufferUsages::UNIFORM)
    };
    if n * stride > limits.max_buffer_size || n * stride > u64::from(u32::MAX) {
        return Err(format!("{n} cubes need {} bytes of cube data, more than one buffer holds", n * stride));
    }
    let buffer = |label, size, usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    let cube_buffer = buffer("cubes", n * stride, cube_usage | wgpu::BufferUsages::COPY_DST);
    let frame_buffer =
        buffer("frame", BLOCK_BYTES, wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST);
    let (vertices, indices) = cube_mesh();
    let init = |contents: &[u8], usage| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: None, contents, usage })
    };
    let vertex_buffer = init(&vertices, wgpu::BufferUsages::VERTEX);
    let index_buffer = init(&indices, wgpu::BufferUsages::INDEX);

    let uniform_layout = |dynamic: bool, visibility| {
        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: dynamic,
                    min_binding_size: NonZeroU64::new(BLOCK_BYTES),
                },
                count: None,
            }],
        })
    };
    let frame_layout = uniform_layout(false, wgpu::ShaderStages::VERTEX_FRAGMENT);
    let cube_layout = uniform_layout(true, wgpu::ShaderStages::VERTEX);
    let bind = |layout: &wgpu::BindGroupLayout, buffer: &wgpu::Buffer| {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset: 0,
                    size: NonZeroU64::new(BLOCK_BYTES),
                }),
            }],
        })
    };
    let frame_group = bind(&frame_layout, &frame_buffer);
    let cube_group = (!args.instanced).then(|| bind(&cube_layout, &cube_buffer));

    let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("wgpu_cubes"),
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let (groups, entry): (&[Option<&wgpu::BindGroupLayout>], _) = if args.instanced {
        (&[Some(&frame_layout)], "vs_instanced")
    } else {
        (&[Some(&frame_layout), Some(&cube_layout)], "vs_per_cube")
    };
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        bind_group_layouts: groups,
        ..Default::default()
    });
    let mesh_attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
    let instance_attributes = wgpu::vertex_attr_array![2 => Float32x4, 3 => Float32x4, 4 => Float32x4, 5 => Float32x4, 6 => Float32x4];
    let mesh = wgpu::VertexBufferLayout {
        array_stride: 24,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &mesh_attributes,
    };
    let per_instance = wgpu::VertexBufferLayout {
        array_stride: BLOCK_BYTES,
        step_mode: wgpu::VertexStepMode::Instance,
        attributes: &instance_attributes,
    };
    let buffers = if args.instanced { vec![Some(mesh), Some(per_instance)] } else { vec![Some(mesh)] };
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("wgpu_cubes"),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module: &shader,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            buffers: &buffers,
        },
        primitive: wgpu::PrimitiveState { cull_mode: Some(wgpu::Face::Back), ..Default::default() },
        // Reverse Z, as Bevy's infinite perspective: near is 1, far 0.
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Greater),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: wgpu::MultisampleState { count: args.samples, ..Default::default() },
        fragment: Some(wgpu::FragmentState {
            module: &shader,
            entry_point: Some("fs"),
            compilation_options: Default::default(),
            targets: &[Some(COLOR_FORMAT.into())],
        }),
        multiview_mask: None,
        cache: None,
    });

    let (width, height) = args.size;
    let extent = wgpu::Extent3d { width, height, depth_or_array_layers: 1 };
    let target = |format, usage, sample_count| {
        device.create_texture(&wgpu::TextureDescriptor {
            label: None,
            size: extent,
            mip_level_count: 1,
            sample_count,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | usage,
            view_formats: &[],
        })
    };
    let color = target(COLOR_FORMAT, wgpu::TextureUsages::COPY_SRC, 1);
    let depth = target(DEPTH_FORMAT, wgpu::TextureUsages::empty(), args.samples);
    let color_view = color.create_view(&Default::default());
    let depth_view = depth.create_view(&Default::default());
    // With MSAA the cubes are drawn into a multisampled target resolved into `color`.
    let samples =
        (args.samples > 1).then(|| target(COLOR_FORMAT, wgpu::TextureUsages::empty(), args.samples));
    let samples_view = samples.as_ref().map(|t| t.create_view(&Default::default()));
    // Readback rows start at multiples of 256 bytes, as copies into buffers require.
    let row_bytes = width * 4;
    let padded_row =
        row_bytes.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let readback_usage = wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST;
    let readback = buffer("readback", u64::from(padded_row) * u64::from(height), readback_usage);

    // The camera and the sun of many_cubes; Bevy's default perspective.
    let s = side as f32;
    let view = look_at_mat4(Vec3::new(-0.6 * s, 1.4 * s, 1.9 * s), Vec3::splat(0.5 * s), Vec3::Y);
    let projection =
        perspective_infinite_reverse(std::f32::consts::FRAC_PI_4, width as f32 / height as f32, 0.1);
    let to_sun = Vec3::new(3.0, 5.0, 2.0).normalize();
    let mut frame_bytes = [0u8; BLOCK_BYTES as usize];
    let mut cube_bytes = vec![0u8; (n * stride) as usize];

    let (mut total, mut last) = (Duration::ZERO, Duration::ZERO);
    let mut times = Vec::new();
    let mut image = Vec::new();
    for frame in 0..args.frames {
        let start = Instant::now();
        put_f32s(&mut frame_bytes, &(projection * view).to_cols_array());
        put_f32s(&mut frame_bytes[64..], &[to_sun.x, to_sun.y, to_sun.z, AMBIENT]);
        for (slot, (position, rgba)) in cube_bytes.chunks_exact_mut(stride as usize).zip(&cubes) {
            put_f32s(slot, &Mat4::from_translation(*position).to_cols_array());
            put_f32s(&mut slot[64..], rgba);
        }
        queue.write_buffer(&frame_buffer, 0, &frame_bytes);
        queue.write_buffer(&cube_buffer, 0, &cube_bytes);

        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("cubes"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: samples_view.as_ref().unwrap_or(&color_view),
                    depth_slice: None,
                    resolve_target: samples_view.as_ref().map(|_| &color_view),
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color { r: 0.02, g: 0.02, b: 0.03, a: 1.0 }),
                        // The samples are needed only until they are resolved.
                        store: match samples_view {
                            Some(_) => wgpu::StoreOp::Discard,
                            None => wgpu::StoreOp::Store,
                        },
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(0.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                ..Default::default()
            });
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &frame_group, &[]);
            pass.set_vertex_buffer(0, vertex_buffer.slice(..));
            pass.set_index_buffer(index_buffer.slice(..), wgpu::IndexFormat::Uint16);
            match &cube_group {
                // The hand-written loop: one bind and one draw per cube.
                Some(group) => {
                    for i in 0..n {
                        pass.set_bind_group(1, group, &[(i * stride) as u32]);
                        pass.draw_indexed(0..36, 0, 0..1);
                    }
                }
                None => {
                    pass.set_vertex_buffer(1, cube_buffer.slice(..));
                    pass.draw_indexed(0..36, 0, 0..n as u32);
                }
            }
        }
        encoder.copy_texture_to_buffer(
            color.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &readback,
                layout: wgpu::TexelCopyBufferLayout { bytes_per_row: Some(padded_row), ..Default::default() },
            },
            extent,
        );
        queue.submit([encoder.finish()]);

        let (tx, rx) = std::sync::mpsc::channel();
        readback.map_async(wgpu::MapMode::Read, .., move |result| {
            // The receiver is read right after the poll below; nobody else is told.
            let _ = tx.send(result);
        });
        device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| format!("waiting for the GPU: {e}"))?;
        match rx.try_recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(format!("mapping the readback buffer: {e}")),
            Err(_) => return Err("the readback buffer was not mapped after waiting".into()),
        }
        // The frame is done once the GPU is; keeping the last one's pixels is not timed.
        last = start.elapsed();
        total += last;
        times.push(last);
        if frame + 1 == args.frames && args.out.is_some() {
            let mapped = readback.get_mapped_range(..).map_err(|e| format!("reading the readback: {e}"))?;
            image = mapped
                .chunks(padded_row as usize)
                .flat_map(|row| &row[..row_bytes as usize])
                .copied()
                .collect();
        }
        readback.unmap();
    }
    println!(
        "frame time: {:.2} ms (mean of {} frames), {:.2} ms (last)",
        total.as_secs_f64() * 1e3 / f64::from(args.frames),
        args.frames,
        last.as_secs_f64() * 1e3
    );
    f3d_examples::cli::print_steady_median(&times);
    if let Some(path) = &args.out {
        // f3d's PNG writer (the image only; nothing timed goes through the engine).
        f3d::screenshot::write_png(path, width, height, &image)
            .map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    Ok(())
}
