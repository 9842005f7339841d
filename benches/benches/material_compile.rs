//! Material compile time (DESIGN §5, §8): `.ron` bytes → checked `LoadedMaterial` → composed
//! and naga-validated module → the backend's form, for the toon (unlit, a texture), brass
//! (lit, its fragment in a file, noise) and water (lit, engine inputs, noise include) example
//! materials. Target: ≤ 10 ms each.
//!
//! * `full/<material>`: everything, the colour variant, for the soft backend.
//! * `all_variants/<material>`: colour, depth-only and shadow (what `f3d material check` does).
//! * `parse/<material>`: bytes → checked description only.
//! * `soft_program/<material>`: the soft executor's compile of the colour variant's vertex and
//!   fragment stages alone (lowering, optimisation, register allocation), from the validated
//!   module: what a reload costs the soft backend after naga.
//!
//! Run: `cargo bench -p f3d_benches --bench material_compile`

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use f3d_backend_soft::exec::Program;
use f3d_hal::ShaderStage;
use f3d_materials::{
    CompileOptions, MaterialCompiler, SoftCompiler, Variant, compile_material, parse_material,
};

fn example(name: &str) -> (PathBuf, Vec<u8>) {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../examples/assets/materials/{name}.ron"));
    let bytes = std::fs::read(&path).expect("the example materials are in the repository");
    (path, bytes)
}

fn material_compile(c: &mut Criterion) {
    let options = CompileOptions::default();
    let mut group = c.benchmark_group("material_compile");
    group.measurement_time(Duration::from_secs(4));
    for name in ["toon", "brass", "water"] {
        let (path, bytes) = example(name);
        group.bench_function(format!("full/{name}"), |b| {
            b.iter(|| {
                let loaded = parse_material(&path, black_box(&bytes)).expect("valid example");
                let compiled = compile_material(&loaded, Variant::Color, &options).expect("compiles");
                SoftCompiler.compile(name, &compiled.module).expect("soft accepts it")
            })
        });
        group.bench_function(format!("all_variants/{name}"), |b| {
            b.iter(|| {
                let loaded = parse_material(&path, black_box(&bytes)).expect("valid example");
                Variant::ALL.map(|v| {
                    let compiled = compile_material(&loaded, v, &options).expect("compiles");
                    SoftCompiler.compile(name, &compiled.module).expect("soft accepts it")
                })
            })
        });
        let loaded = parse_material(&path, &bytes).expect("valid example");
        let compiled = compile_material(&loaded, Variant::Color, &options).expect("compiles");
        group.bench_function(format!("soft_program/{name}"), |b| {
            b.iter(|| {
                let module = black_box(&compiled.module);
                let vertex = Program::compile(module, ShaderStage::Vertex, compiled.vertex_entry);
                let fragment = Program::compile(module, ShaderStage::Fragment, compiled.fragment_entry);
                (vertex.expect("the executor runs it"), fragment.expect("the executor runs it"))
            })
        });
        group.bench_function(format!("parse/{name}"), |b| {
            b.iter(|| parse_material(&path, black_box(&bytes)).expect("valid example"))
        });
    }
    group.finish();
}

criterion_group!(benches, material_compile);
criterion_main!(benches);
