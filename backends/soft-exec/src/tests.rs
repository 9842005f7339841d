//! Unit tests that need the executor's insides: both instruction-set paths agree.

use super::*;
use f3d_hal::{AddressMode, SamplerDescriptor, TextureDimension, TextureFormat};

/// Runs `program` with the SIMD path forced on or off.
fn run_with(program: &mut Program, simd: bool, inputs: &[Lanes], resources: &[Resource<'_>]) -> Vec<Lanes> {
    program.avx2 = simd && detect_avx2();
    let bindings = program.bind(resources).expect("resources fit");
    let mut ex = Executor::new(program);
    for (slot, lanes) in inputs.iter().enumerate() {
        ex.input_mut(slot)[0] = *lanes;
    }
    ex.run(&bindings, u64::MAX);
    (0..program.interface().outputs.len()).flat_map(|s| ex.output(s).to_vec()).collect()
}

#[test]
fn simd_and_portable_paths_agree() {
    let src = "
        @group(0) @binding(0) var t: texture_2d<f32>;
        @group(0) @binding(1) var s: sampler;
        struct Out { @location(0) a: vec4<f32>, @location(1) b: vec4<f32> }
        @fragment fn fs(@location(0) x: f32, @location(1) y: f32) -> Out {
            var acc = 0.0;
            for (var i = 0; i < i32(x * 3.0) % 7; i++) { acc += pow(abs(y), f32(i)) + sin(x * f32(i)); }
            let n = normalize(vec3<f32>(x, y, 1.0));
            let c = textureSample(t, s, vec2<f32>(x, y) * 0.37);
            return Out(vec4<f32>(acc, exp2(y), log2(abs(x) + 0.1), n.x * 7.0 + floor(x * 9.3)), c);
        }";
    let module = naga::front::wgsl::parse_str(src).expect("parses");
    let module = ValidatedModule::new(module).expect("validates");
    let mut program = Program::compile(&module, ShaderStage::Fragment, "fs").expect("compiles");
    let planes: Vec<Vec<u8>> = (0..3u32)
        .map(|level| {
            let size = 4 >> level;
            (0..size * size * 4).map(|i| (i * 37 + level * 91) as u8).collect()
        })
        .collect();
    let refs: Vec<&[u8]> = planes.iter().map(|p| p.as_slice()).collect();
    let view = TextureView {
        format: TextureFormat::Rgba8UnormSrgb,
        dimension: TextureDimension::D2,
        width: 4,
        height: 4,
        mip_levels: 3,
        layers: 1,
        planes: &refs,
    };
    let sampler = SamplerDescriptor::linear(AddressMode::Repeat);
    let resources = [Resource::Texture(view), Resource::Sampler(&sampler)];
    let x: Lanes = std::array::from_fn(|l| l as f32 * 0.093 - 1.3);
    let y: Lanes = std::array::from_fn(|l| (l as f32 * 0.41).cos() * 1.7);
    let simd = run_with(&mut program, true, &[x, y], &resources);
    let portable = run_with(&mut program, false, &[x, y], &resources);
    assert_eq!(simd.len(), 8);
    // Shader arithmetic is bit-identical; sampled sRGB texels may differ by an ULP or so.
    for (i, (a, b)) in simd.iter().zip(&portable).enumerate() {
        for l in 0..LANES {
            if i < 4 {
                assert_eq!(a[l].to_bits(), b[l].to_bits(), "output component {i}, lane {l}");
            } else {
                assert!(
                    (a[l] - b[l]).abs() <= 1e-6,
                    "sampled component {}, lane {l}: {} vs {}",
                    i - 4,
                    a[l],
                    b[l]
                );
            }
        }
    }
}

#[test]
fn programs_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Program>();
    check::<Bindings<'static>>();
    fn send<T: Send>() {}
    send::<Executor<'static>>();
}

#[test]
fn a_stored_program_reads_back_and_runs_alike() {
    let src = "
        @group(0) @binding(0) var t: texture_2d<f32>;
        @group(0) @binding(1) var s: sampler;
        @fragment fn fs(@location(0) x: f32, @location(1) y: f32) -> @location(0) vec4<f32> {
            var acc = 0.0;
            for (var i = 0; i < i32(x * 3.0) % 7; i++) { acc += pow(abs(y), f32(i)); }
            if (x > 0.5) { discard; }
            return textureSample(t, s, vec2<f32>(x, y)) + vec4<f32>(acc, 0.0 / x, 1.0, 0.5);
        }";
    let module = ValidatedModule::new(naga::front::wgsl::parse_str(src).expect("parses")).expect("validates");
    let mut program = Program::compile(&module, ShaderStage::Fragment, "fs").expect("compiles");
    let bytes = program.to_bytes().expect("writes");
    let mut read = Program::from_bytes(&bytes).expect("reads back");
    assert_eq!(read.to_bytes(), Some(bytes.clone()), "the same program");
    assert_eq!(read.interface(), program.interface());

    let texels: Vec<u8> = (0..64u32).map(|i| (i * 37) as u8).collect();
    let planes: [&[u8]; 1] = [&texels];
    let view = TextureView {
        format: TextureFormat::Rgba8Unorm,
        dimension: TextureDimension::D2,
        width: 4,
        height: 4,
        mip_levels: 1,
        layers: 1,
        planes: &planes,
    };
    let sampler = SamplerDescriptor::linear(AddressMode::Repeat);
    let resources = [Resource::Texture(view), Resource::Sampler(&sampler)];
    let x: Lanes = std::array::from_fn(|l| l as f32 * 0.031 - 0.7);
    let y: Lanes = std::array::from_fn(|l| (l as f32 * 0.41).cos());
    let bits = |lanes: Vec<Lanes>| -> Vec<u32> { lanes.iter().flatten().map(|v| v.to_bits()).collect() };
    assert_eq!(
        bits(run_with(&mut read, true, &[x, y], &resources)),
        bits(run_with(&mut program, true, &[x, y], &resources)),
        "bit for bit, NaNs included"
    );

    // What is not a program, or names registers or jumps past its own tables, is refused.
    assert!(Program::from_bytes(&bytes[..bytes.len() / 2]).is_none(), "truncated");
    assert!(Program::from_bytes(b"not a program").is_none());
    let mut stored: Program = ciborium::from_reader(bytes.as_slice()).expect("decodes");
    stored.n_v = 1;
    let tampered = stored.to_bytes().expect("encodes");
    assert!(Program::from_bytes(&tampered).is_none(), "registers past n_v are refused");
}
