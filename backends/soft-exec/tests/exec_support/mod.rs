//! Shared helpers for the executor tests: compile WGSL, fill inputs, run one batch.
#![allow(dead_code)]

use f3d_hal::{ShaderStage, ValidatedModule};
use f3d_soft_exec::{Bindings, ExecError, Executor, LANES, Lanes, Program, Resource};

/// Parses and validates WGSL (panics with naga's message: a test bug, not an executor one).
pub fn module(src: &str) -> ValidatedModule {
    let m = naga::front::wgsl::parse_str(src).unwrap_or_else(|e| panic!("{}", e.emit_to_string(src)));
    ValidatedModule::new(m).unwrap_or_else(|e| panic!("validation: {e:?}"))
}

pub fn try_compile(src: &str, stage: ShaderStage, entry: &str) -> Result<Program, ExecError> {
    Program::compile(&module(src), stage, entry)
}

pub fn fragment(src: &str) -> Program {
    try_compile(src, ShaderStage::Fragment, "fs").unwrap_or_else(|e| panic!("{e}"))
}

pub fn vertex(src: &str) -> Program {
    try_compile(src, ShaderStage::Vertex, "vs").unwrap_or_else(|e| panic!("{e}"))
}

/// Lanes from a function of the lane index.
pub fn lanes(f: impl Fn(usize) -> f32) -> Lanes {
    std::array::from_fn(f)
}

pub fn ilanes(f: impl Fn(usize) -> i32) -> Lanes {
    std::array::from_fn(|l| f32::from_bits(f(l) as u32))
}

pub fn ulanes(f: impl Fn(usize) -> u32) -> Lanes {
    std::array::from_fn(|l| f32::from_bits(f(l)))
}

/// Runs `program` once with `inputs[slot][component]` and `resources`; all lanes active.
pub fn run<'p>(program: &'p Program, inputs: &[Vec<Lanes>], resources: &[Resource<'_>]) -> Executor<'p> {
    run_active(program, inputs, resources, u64::MAX)
}

pub fn run_active<'p>(
    program: &'p Program,
    inputs: &[Vec<Lanes>],
    resources: &[Resource<'_>],
    active: u64,
) -> Executor<'p> {
    let bindings: Bindings<'_> = program.bind(resources).unwrap_or_else(|e| panic!("{e}"));
    let mut ex = Executor::new(program);
    for (slot, comps) in inputs.iter().enumerate() {
        let regs = ex.input_mut(slot);
        assert_eq!(regs.len(), comps.len(), "input {slot} has {} components", regs.len());
        regs.copy_from_slice(comps);
    }
    ex.run(&bindings, active);
    ex
}

/// Output `slot` component `c` as floats.
pub fn out(ex: &Executor<'_>, slot: usize, c: usize) -> Lanes {
    ex.output(slot)[c]
}

pub fn out_i(ex: &Executor<'_>, slot: usize, c: usize) -> [i32; LANES] {
    std::array::from_fn(|l| ex.output(slot)[c][l].to_bits() as i32)
}

pub fn out_u(ex: &Executor<'_>, slot: usize, c: usize) -> [u32; LANES] {
    std::array::from_fn(|l| ex.output(slot)[c][l].to_bits())
}

/// Asserts two floats agree to `tol` relative (or absolute near zero); NaN matches NaN.
#[track_caller]
pub fn close(got: f32, want: f32, tol: f32, what: &str) {
    if got.is_nan() && want.is_nan() {
        return;
    }
    let ok = got == want || (got - want).abs() <= tol * want.abs().max(1.0);
    assert!(ok, "{what}: got {got}, want {want}");
}
