//! The soft backend's shader executor on its hot path: a Blinn-Phong fragment shader with one
//! trilinear sample of a mipmapped sRGB texture, run over 8x8-pixel (64-lane) batches.
//!
//! `cargo bench -p f3d_benches --bench soft_exec`; criterion reports time per batch and
//! pixels per second (one batch = 64 pixels), so ns/pixel = time / 64.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use f3d_backend_soft::exec::{Builtin, Executor, LANES, Program, Resource, TextureView};
use f3d_hal::{AddressMode, SamplerDescriptor, ShaderStage, TextureDimension, TextureFormat};

const BLINN_PHONG: &str = r#"
struct Material {
    light_dir: vec4<f32>,
    light_color: vec4<f32>,
    ambient: vec4<f32>,
    camera_pos: vec4<f32>,
    specular: vec4<f32>, // rgb, shininess in w
}
@group(0) @binding(0) var<uniform> material: Material;
@group(0) @binding(1) var albedo: texture_2d<f32>;
@group(0) @binding(2) var albedo_sampler: sampler;

struct In {
    @builtin(position) position: vec4<f32>,
    @location(0) world_pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
}

@fragment
fn fs(in: In) -> @location(0) vec4<f32> {
    let base = textureSample(albedo, albedo_sampler, in.uv);
    let n = normalize(in.normal);
    let l = normalize(material.light_dir.xyz);
    let v = normalize(material.camera_pos.xyz - in.world_pos);
    let h = normalize(l + v);
    let diffuse = max(dot(n, l), 0.0);
    let specular = pow(max(dot(n, h), 0.0), material.specular.w);
    let lit = material.ambient.rgb + diffuse * material.light_color.rgb;
    let color = base.rgb * lit + specular * material.specular.rgb * material.light_color.rgb;
    return vec4<f32>(color, base.a);
}
"#;

fn bench(c: &mut Criterion) {
    let module =
        f3d_materials::compile_wgsl("blinn_phong.wgsl", BLINN_PHONG).expect("the bench shader compiles");
    let program = Program::compile(&module, ShaderStage::Fragment, "fs").expect("the executor runs it");
    let itf = program.interface();

    // 256x256 RGBA8 sRGB, full mip chain (9 levels), a checker with some noise.
    let mut planes = Vec::new();
    for level in 0..9u32 {
        let size: u32 = 256 >> level;
        let mut p = Vec::with_capacity((size * size * 4) as usize);
        for y in 0..size {
            for x in 0..size {
                let check = ((x >> (4u32.saturating_sub(level))) ^ (y >> (4u32.saturating_sub(level)))) & 1;
                let n = (x.wrapping_mul(73) ^ y.wrapping_mul(151)) as u8 & 31;
                p.extend([if check == 1 { 200 } else { 60 } + n, 120 + n, 80, 255]);
            }
        }
        planes.push(p);
    }
    let refs: Vec<&[u8]> = planes.iter().map(|p| p.as_slice()).collect();
    let view = TextureView {
        format: TextureFormat::Rgba8UnormSrgb,
        dimension: TextureDimension::D2,
        width: 256,
        height: 256,
        mip_levels: 9,
        layers: 1,
        planes: &refs,
    };
    let sampler = SamplerDescriptor::linear(AddressMode::Repeat);
    let mut block = Vec::new();
    for v in [
        0.3f32, 0.8, 0.5, 0.0, 1.0, 0.95, 0.9, 0.0, 0.08, 0.08, 0.1, 0.0, 0.0, 2.0, 5.0, 0.0, 0.6, 0.6, 0.6,
        32.0,
    ] {
        block.extend(v.to_le_bytes());
    }
    let bindings = program
        .bind(&[Resource::UniformBlock(&block), Resource::Texture(view), Resource::Sampler(&sampler)])
        .expect("resources fit");

    let mut ex = Executor::new(&program);
    let slot = |loc: u32| itf.input_location(loc).expect("input");
    let pos = itf.input_builtin(Builtin::Position).expect("position");
    // One 8x8 tile in 2x2-quad lane order, on a surface seen at a slant: about 1.6 texels per
    // pixel in x and 1.1 in y, so trilinear filtering blends two levels.
    let px = |l: usize| (2 * ((l / 4) % 4) + (l % 2)) as f32 + 0.5;
    let py = |l: usize| (2 * ((l / 4) / 4) + (l % 4) / 2) as f32 + 0.5;
    let fill = |ex: &mut Executor<'_>, tile: u32| {
        let ox = (tile % 160) as f32 * 8.0;
        let oy = (tile / 160 % 90) as f32 * 8.0;
        let p = ex.input_mut(pos);
        p[0] = std::array::from_fn(|l| ox + px(l));
        p[1] = std::array::from_fn(|l| oy + py(l));
        p[2] = [0.5; LANES];
        p[3] = [1.0; LANES];
        let w = ex.input_mut(slot(0));
        w[0] = std::array::from_fn(|l| (ox + px(l)) * 0.01);
        w[1] = std::array::from_fn(|l| (oy + py(l)) * 0.01);
        w[2] = [-3.0; LANES];
        let n = ex.input_mut(slot(1));
        n[0] = std::array::from_fn(|l| 0.2 + 0.001 * px(l));
        n[1] = std::array::from_fn(|l| 0.9 - 0.001 * py(l));
        n[2] = [0.3; LANES];
        let uv = ex.input_mut(slot(2));
        uv[0] = std::array::from_fn(|l| (ox + px(l)) * 1.6 / 256.0);
        uv[1] = std::array::from_fn(|l| (oy + py(l)) * 1.1 / 256.0);
    };

    let stats = program.stats();
    println!(
        "blinn-phong: {} instructions ({} per-lane, {} uniform, {} control), {} varying registers",
        stats.instructions,
        stats.varying_instructions,
        stats.uniform_instructions,
        stats.control_instructions,
        stats.varying_registers
    );

    let mut group = c.benchmark_group("soft_exec");
    group.throughput(Throughput::Elements(LANES as u64));
    let mut tile = 0u32;
    group.bench_function("blinn_phong_trilinear_64px", |b| {
        b.iter(|| {
            tile = tile.wrapping_add(1);
            fill(&mut ex, tile);
            ex.run(&bindings, u64::MAX);
            std::hint::black_box(ex.output(0)[0][0]);
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
