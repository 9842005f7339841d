//! Bounded fuzzing of the material pipeline (issue 20): bad user input must end in an error
//! that names its file and, where it is about a place, the line there; it must never panic
//! and never hang.
//!
//! ```text
//!  seeds (examples/assets/materials, tests/invalid)   ─mutate─┐
//!  structured generation (whole materials)             ───────┼─▶ a case folder in the temp dir
//!  preprocessor-heavy code + includes                  ───────┤   (.ron, .wgsl, includes)
//!  fragment shaders (WGSL, GLSL)                       ─mutate─┘        │ catch_unwind
//!       read_material → compile_material(every variant) → parameters, bindings, CLI  ◀─┘
//!       compose_material's source map, ShaderMaterial::from_path
//! ```
//!
//! Every error is checked against the file it names: the file exists (or is a file of the
//! engine library), and a positional error's line text is that line of the file. Materials
//! built valid by the generator must compile once `read_material` accepts them.
//!
//! Each test is a function of a seed and the case's index alone (a splitmix64 generator), so
//! any case replays by itself. By default each test stops after a fixed number of cases or a
//! few seconds, whichever comes first (about 10 s for the whole file in a debug build, the
//! tests running two at a time). Longer runs:
//!
//! ```text
//! F3D_FUZZ_SECONDS=600 cargo test --release -p f3d_materials --test fuzz -- --nocapture
//! ```
//!
//! * `F3D_FUZZ_SECONDS=N`: each fuzz test runs N seconds, with no cap on the cases.
//! * `F3D_FUZZ_ITERATIONS=N`: at most N cases per test.
//! * `F3D_FUZZ_SEED=N` (decimal or `0x` hex): another seed.
//! * `F3D_FUZZ_START=I`: begin at case I. A reported failure replays with
//!   `F3D_FUZZ_SEED=<seed> F3D_FUZZ_START=<case> F3D_FUZZ_ITERATIONS=1 cargo test -p f3d_materials
//!   --test fuzz <test> -- --nocapture`.
//!
//! A failure writes its case, and a minimised copy, to `target/fuzz-failures/<test>-<seed>-<case>/`.
//! The case being run is always in the folder the test prints at its start, so an abort
//! (a stack overflow) leaves its input behind too.
//!
//! The tests after the fuzzers are the regressions: each holds an input a fuzzer found.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

use f3d_materials::compose::compose_material;
use f3d_materials::format::MAX_FILE_SIZE;
use f3d_materials::layout::STORAGE_SLOTS;
use f3d_materials::{
    CompileOptions, MaterialError, MaterialLayout, MaterialParameters, ShaderMaterial, Variant, cli,
    compile_material, library, parse_material, read_material,
};

// ---- the seeded generator

/// splitmix64: tiny, fast and good enough to drive mutations reproducibly.
struct Rng(u64);

impl Rng {
    /// The generator of case `index` under `seed`.
    fn for_case(seed: u64, index: u64) -> Self {
        let mut rng = Self(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
        rng.next();
        rng
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

// ---- cases and the driver

/// One input: files written into a fresh folder, the first being the one the pipeline is
/// given (a `.ron`, or a shader for `ShaderMaterial`).
#[derive(Clone, Debug)]
struct Case {
    /// Relative paths and contents; a path ending in `/` is a folder.
    files: Vec<(String, Vec<u8>)>,
    /// `Some(budget)`: compile instanced, with that material array budget.
    instanced: Option<u32>,
    /// The generator built it valid: once read, it must compile.
    expect_ok: bool,
}

impl Case {
    fn new(main: &str, bytes: Vec<u8>) -> Self {
        Self { files: vec![(main.to_owned(), bytes)], instanced: None, expect_ok: false }
    }

    fn main(&self) -> &str {
        &self.files[0].0
    }

    fn write(&self, dir: &Path) -> std::io::Result<()> {
        if dir.exists() {
            std::fs::remove_dir_all(dir)?;
        }
        std::fs::create_dir_all(dir)?;
        for (name, bytes) in &self.files {
            let path = dir.join(name);
            if name.ends_with('/') {
                std::fs::create_dir_all(&path)?;
                continue;
            }
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, bytes)?;
        }
        Ok(())
    }
}

/// What went wrong with a case. Failures with the same `kind` are one bug.
#[derive(Clone, Debug)]
struct Failure {
    kind: String,
    detail: String,
}

/// What a case ended in: the error variants it was refused with (empty: accepted).
type Outcome = Result<Vec<String>, Failure>;

/// A fuzz test: how to make case `index`, and how to run a case written in a folder.
struct Target {
    name: &'static str,
    make: fn(&Corpus, &mut Rng) -> Case,
    run: fn(&Case, &Path) -> Outcome,
    /// Default bounds: seconds and cases.
    seconds: f64,
    cases: u64,
}

const DEFAULT_SEED: u64 = 0xF3D_F022_2026;
/// A case running longer than this is reported as a hang.
const HANG: Duration = Duration::from_secs(60);

struct Budget {
    seed: u64,
    start: u64,
    cases: u64,
    time: Duration,
}

impl Budget {
    fn from_env(target: &Target) -> Self {
        let number = |name: &str| {
            let text = std::env::var(name).ok()?;
            let text = text.trim();
            match text.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16).ok(),
                None => text.parse().ok(),
            }
        };
        let seconds = std::env::var("F3D_FUZZ_SECONDS").ok().and_then(|s| s.trim().parse::<f64>().ok());
        let cases =
            number("F3D_FUZZ_ITERATIONS").unwrap_or(if seconds.is_some() { u64::MAX } else { target.cases });
        Self {
            seed: number("F3D_FUZZ_SEED").unwrap_or(DEFAULT_SEED),
            start: number("F3D_FUZZ_START").unwrap_or(0),
            cases,
            time: Duration::from_secs_f64(seconds.unwrap_or(target.seconds).max(0.0)),
        }
    }
}

thread_local! {
    /// Set on fuzzing threads: a panic there is recorded, not printed.
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// Where the last panic on this thread happened.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                let at = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
                LAST_PANIC.with(|p| *p.borrow_mut() = at);
            } else {
                default(info);
            }
        }));
    });
}

/// Runs a written case, turning a panic into a failure.
fn run_caught(run: fn(&Case, &Path) -> Outcome, case: &Case, dir: &Path) -> Outcome {
    LAST_PANIC.with(|p| p.borrow_mut().take());
    match panic::catch_unwind(AssertUnwindSafe(|| run(case, dir))) {
        Ok(outcome) => outcome,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let at = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "?".into());
            Err(Failure { kind: format!("panic at {at}"), detail: message })
        }
    }
}

/// The scratch folder of a test: `case/` is rewritten for every case; the files beside it
/// are reachable from a case through `..`.
fn scratch(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("f3d_fuzz_{}_{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("chain")).unwrap();
    std::fs::write(root.join("outside.wgsl"), "fn outside_helper() -> f32 { return 1.0; }\n").unwrap();
    // One byte over the limit, and exactly at it.
    let mut big = b"// big\n".to_vec();
    big.resize(MAX_FILE_SIZE as usize + 1, b'/');
    std::fs::write(root.join("big.wgsl"), &big).unwrap();
    big.truncate(MAX_FILE_SIZE as usize);
    std::fs::write(root.join("limit.wgsl"), &big).unwrap();
    // A chain of includes deeper than the composer allows.
    for i in 0..40 {
        std::fs::write(root.join(format!("chain/c{i}.wgsl")), format!("#include \"c{}.wgsl\"\n", i + 1))
            .unwrap();
    }
    root
}

fn failures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/fuzz-failures")
}

struct Report {
    cases: u64,
    refused: u64,
    kinds: BTreeMap<String, u64>,
    slowest: (Duration, u64),
    failures: Vec<(Failure, u64, u64, PathBuf)>,
}

/// Runs `target` within its budget on a worker thread, watched for hangs; fails the test with
/// every distinct failure found.
fn fuzz(target: Target) {
    install_panic_hook();
    let budget = Budget::from_env(&target);
    let root = scratch(target.name);
    let dir = root.join("case");
    println!(
        "fuzz {}: seed {:#x}, cases {}.., at most {} cases or {:.0} s; the running case is in {}",
        target.name,
        budget.seed,
        budget.start,
        budget.cases,
        budget.time.as_secs_f64(),
        dir.display()
    );
    let name = target.name;
    let current: Arc<Mutex<Option<(u64, Instant)>>> = Arc::default();
    let started = Instant::now();
    let worker = {
        let current = Arc::clone(&current);
        let dir = dir.clone();
        std::thread::Builder::new()
            .name(format!("fuzz-{}", target.name))
            .spawn(move || {
                QUIET.with(|q| q.set(true));
                drive(&target, &budget, &dir, &current)
            })
            .unwrap()
    };
    while !worker.is_finished() {
        std::thread::sleep(Duration::from_millis(50));
        let running = *current.lock().unwrap();
        if let Some((index, since)) = running
            && since.elapsed() > HANG
        {
            let saved = failures_dir().join(format!("hang-{index}"));
            let _ = copy_dir(&dir, &saved);
            panic!("case {index} runs longer than {HANG:?} (a hang?); its files: {}", saved.display());
        }
    }
    let report = worker.join().expect("the driver catches every panic of a case");
    println!(
        "fuzz {name}: {} cases in {:.1} s ({} refused), slowest case {} ({} ms); errors: {:?}",
        report.cases,
        started.elapsed().as_secs_f64(),
        report.refused,
        report.slowest.1,
        report.slowest.0.as_millis(),
        report.kinds
    );
    if report.failures.is_empty() {
        let _ = std::fs::remove_dir_all(&root);
        return;
    }
    let mut message = format!("{} distinct failure(s):\n", report.failures.len());
    for (f, seed, index, saved) in &report.failures {
        message += &format!(
            "  {} (seed {seed:#x}, case {index}; files in {}):\n    {}\n",
            f.kind,
            saved.display(),
            f.detail.replace('\n', "\n    ")
        );
    }
    panic!("{message}");
}

fn drive(target: &Target, budget: &Budget, dir: &Path, current: &Mutex<Option<(u64, Instant)>>) -> Report {
    let corpus = Corpus::load();
    let started = Instant::now();
    let mut report = Report {
        cases: 0,
        refused: 0,
        kinds: BTreeMap::new(),
        slowest: (Duration::ZERO, 0),
        failures: Vec::new(),
    };
    let end = budget.start.saturating_add(budget.cases);
    for index in budget.start..end {
        if started.elapsed() >= budget.time || report.failures.len() >= 20 {
            break;
        }
        let case = (target.make)(&corpus, &mut Rng::for_case(budget.seed, index));
        case.write(dir).expect("the scratch folder is writable");
        let t = Instant::now();
        *current.lock().unwrap() = Some((index, t));
        let outcome = run_caught(target.run, &case, dir);
        *current.lock().unwrap() = None;
        report.cases += 1;
        if t.elapsed() > report.slowest.0 {
            report.slowest = (t.elapsed(), index);
        }
        match outcome {
            Ok(kinds) => {
                report.refused += u64::from(!kinds.is_empty());
                for k in kinds {
                    *report.kinds.entry(k).or_default() += 1;
                }
            }
            Err(failure) => {
                if report.failures.iter().any(|(f, ..)| f.kind == failure.kind) {
                    continue;
                }
                println!("fuzz {}: case {index}: {}\n  {}", target.name, failure.kind, failure.detail);
                let saved = failures_dir().join(format!("{}-{:x}-{index}", target.name, budget.seed));
                save(&case, &failure, budget.seed, index, target.name, &saved);
                let small = minimise(target, &case, &failure.kind, dir);
                save(&small, &failure, budget.seed, index, target.name, &saved.join("minimised"));
                report.failures.push((failure, budget.seed, index, saved));
            }
        }
    }
    report
}

fn save(case: &Case, failure: &Failure, seed: u64, index: u64, test: &str, to: &Path) {
    let _ = case.write(to);
    let note = format!(
        "{}\n{}\n\nreplay: F3D_FUZZ_SEED={seed:#x} F3D_FUZZ_START={index} F3D_FUZZ_ITERATIONS=1 \
         cargo test -p f3d_materials --test fuzz {test} -- --nocapture\ninstanced: {:?}\n",
        failure.kind, failure.detail, case.instanced
    );
    let _ = std::fs::write(to.join("FAILURE.txt"), note);
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// Deletes files, then chunks of each file, while the case still fails the same way.
fn minimise(target: &Target, case: &Case, kind: &str, dir: &Path) -> Case {
    let deadline = Instant::now() + Duration::from_secs(20);
    let same =
        |c: &Case| c.write(dir).is_ok() && matches!(run_caught(target.run, c, dir), Err(f) if f.kind == kind);
    let mut best = case.clone();
    let mut i = 1;
    while i < best.files.len() && Instant::now() < deadline {
        let mut c = best.clone();
        c.files.remove(i);
        if same(&c) { best = c } else { i += 1 }
    }
    for f in 0..best.files.len() {
        let mut chunk = best.files[f].1.len().div_ceil(2);
        while chunk > 0 && Instant::now() < deadline {
            let mut start = 0;
            while start < best.files[f].1.len() && Instant::now() < deadline {
                let mut c = best.clone();
                let bytes = &mut c.files[f].1;
                bytes.drain(start..(start + chunk).min(bytes.len()));
                if same(&c) { best = c } else { start += chunk }
            }
            chunk /= 2;
        }
    }
    best
}

// ---- checking errors

/// The variant's name (`Shader`, `IncludeCycle`, ...).
fn variant_name(e: &MaterialError) -> String {
    format!("{e:?}").split(|c: char| !c.is_ascii_alphanumeric()).next().unwrap_or("").to_owned()
}

/// An error must name a file that exists (or a file of the engine library); unless it is
/// about a whole file, the line it names must be in that file, with the text it quotes.
fn check_error(e: &MaterialError) -> Result<String, Failure> {
    let kind = variant_name(e);
    let diagnostic = e.diagnostic();
    let fail = |what: &str| Err(Failure { kind: format!("{kind} error {what}"), detail: diagnostic.clone() });
    let Some(at) = e.location() else { return fail("without a location") };
    if e.to_string().trim().is_empty() {
        return fail("with no message");
    }
    if at.line == 0 || at.column == 0 || at.length == 0 {
        return fail("at line, column or length 0");
    }
    let path = at.path.to_string_lossy();
    let text = match path.strip_prefix("<f3d>/") {
        Some(name) => match library::file(name) {
            Some(text) => Some(text.to_owned()),
            None => return fail("in a library file that does not exist"),
        },
        None if !at.path.exists() => return fail("naming a file that does not exist"),
        None => std::fs::read(&at.path).ok().map(|b| String::from_utf8_lossy(&b).into_owned()),
    };
    if matches!(e, MaterialError::Io { .. } | MaterialError::Empty { .. } | MaterialError::TooLarge { .. }) {
        return Ok(kind);
    }
    let Some(text) = text else { return fail("at a line of something that is not a readable file") };
    let Some(line) = text.split('\n').nth(at.line as usize - 1).map(|l| l.trim_end_matches('\r')) else {
        return fail("at a line past the end of its file");
    };
    let quoted = if matches!(e, MaterialError::NotUtf8 { .. }) {
        line.starts_with(&at.line_text)
    } else {
        line == at.line_text
    };
    if !quoted {
        return fail(&format!("quoting a line that is not line {} of its file", at.line));
    }
    if at.column as usize > at.line_text.chars().count() + 1 {
        return fail("at a column past the end of its line");
    }
    Ok(kind)
}

fn check_errors(errors: &[MaterialError]) -> Result<Vec<String>, Failure> {
    if errors.is_empty() {
        return Err(Failure { kind: "refused with no error".into(), detail: String::new() });
    }
    errors.iter().map(check_error).collect()
}

// ---- the material pipeline, as the engine runs it

fn options(case: &Case, dir: &Path) -> CompileOptions {
    CompileOptions {
        include_dirs: vec![dir.join("project"), dir.join("no_such_folder")],
        instanced: case.instanced.is_some(),
        material_array_bytes: case.instanced.filter(|b| *b != STORAGE_SLOTS).unwrap_or(0),
        material_storage: case.instanced == Some(STORAGE_SLOTS),
    }
}

/// What `MaterialStore` and the renderer do with a `.ron`: read it, compile every variant,
/// lay out its parameters and reflect its bindings; then, for some cases, `f3d material check`.
fn run_material(case: &Case, dir: &Path) -> Outcome {
    let ron = dir.join(case.main());
    let options = options(case, dir);
    let mut kinds = Vec::new();
    let refused = |kinds: &mut Vec<String>, kind: String, e: &MaterialError| {
        if case.expect_ok {
            let message = e.to_string();
            let first = message.lines().next().unwrap_or("");
            let kind = format!("a valid material refused with {kind}: {first}");
            return Err(Failure { kind, detail: e.diagnostic() });
        }
        kinds.push(kind);
        Ok(())
    };
    match read_material(&ron) {
        Err(errors) => kinds = check_errors(&errors)?,
        Ok(loaded) => {
            for variant in Variant::ALL {
                match compile_material(&loaded, variant, &options) {
                    Ok(compiled) => {
                        let params = MaterialParameters::for_compiled(&loaded.desc, &compiled);
                        let size = compiled.layout.block.as_ref().map_or(0, |b| b.size as usize);
                        if params.block().len() != size {
                            return Err(Failure {
                                kind: "parameters not the size of their block".into(),
                                detail: format!("{} bytes for a {size} byte block", params.block().len()),
                            });
                        }
                        for p in &loaded.desc.parameters {
                            let _ = params.get(&p.name);
                        }
                        let _ = params.carry_over(&loaded.desc, &compiled.layout);
                        if let Err(e) = compiled.bindings() {
                            kinds.push(format!("bindings: {e}"));
                        }
                        let _ = cli::reflection(&compiled);
                    }
                    Err(e) => {
                        let kind = check_error(&e)?;
                        refused(&mut kinds, kind, &e)?;
                    }
                }
            }
        }
    }
    // The CLI agrees, and says something when it refuses.
    if case.files[0].1.len().is_multiple_of(16) {
        let mut out = Vec::new();
        let code = cli::check_with(&[ron], &options, &mut out);
        let refused = kinds.iter().any(|k| !k.starts_with("bindings"));
        if code != i32::from(refused) || (refused && !String::from_utf8_lossy(&out).contains("error:")) {
            return Err(Failure {
                kind: "the CLI disagrees with the library".into(),
                detail: format!("exit {code}, errors {kinds:?}:\n{}", String::from_utf8_lossy(&out)),
            });
        }
    }
    Ok(kinds)
}

// ---- the corpus and the mutations

/// The seeds and the dictionaries the mutations draw on.
struct Corpus {
    /// `.ron` seeds: the example materials and the invalid corpus.
    rons: Vec<(String, Vec<u8>)>,
    /// Every other file the seeds' folders hold, written beside every case, plus traps
    /// (a self-include, a folder named like a file, non-UTF-8, CRLF, a BOM).
    files: Vec<(String, Vec<u8>)>,
    /// Lines of every seed and of the engine library.
    lines: Vec<Vec<u8>>,
    /// Words, numbers and punctuation of the same.
    tokens: Vec<Vec<u8>>,
    /// Every identifier of the engine library.
    library_names: Vec<String>,
}

/// Include names: library files, files of the case, missing files, cycles, `..`, folders.
const INCLUDES: &[&str] = &[
    "noise.wgsl",
    "brdf.wgsl",
    "surface.wgsl",
    "fragment.wgsl",
    "lighting.wgsl",
    "tonemap.wgsl",
    "skybox.wgsl",
    "color.wgsl",
    "missing.wgsl",
    "self.wgsl",
    "cycle_a.wgsl",
    "cycle_b.wgsl",
    "sub/up.wgsl",
    "brass.wgsl",
    "broken_surface.wgsl",
    "empty.wgsl",
    "ripples.wgsl",
    "waves/shape.wgsl",
    "latin1.wgsl",
    "crlf.wgsl",
    "bom.wgsl",
    "dir.wgsl",
    "../outside.wgsl",
    "../big.wgsl",
    "../limit.wgsl",
    "../chain/c0.wgsl",
    "../case/self.wgsl",
    "sub/../cycle_a.wgsl",
    "..",
    "../",
    ".",
    "",
    " ",
    "/nonexistent/x.wgsl",
    "a\\b.wgsl",
];

/// Preprocessor lines, `{}` being an include name.
const DIRECTIVES: &[&str] = &[
    "#include <{}>",
    "#include \"{}\"",
    "#include {}",
    "# include <{}>",
    "  #include \"{}\"  // note",
    "#include <{}",
    "#include \"{}",
    "#include",
    "#ifdef F3D_LIT",
    "#ifdef F3D_VARIANT_COLOR",
    "#ifndef F3D_INSTANCED",
    "#ifdef",
    "#else",
    "#endif",
    "#define F3D_LIT",
    "#define FUZZ",
    "#undef F3D_VARIANT_COLOR",
    "#undef",
    "#",
    "#if FUZZ",
    "#pragma once",
    "#élan",
];

/// `.ron` lines that change what a material asks for.
const FIELDS: &[&str] = &[
    "fragment_file: \"{}\",",
    "fragment: \"#include <{}>\",",
    "vertex: Some(\"#include \\\"{}\\\"\"),",
    "vertex: \"fn vertex(v: ptr<function, VertexInputs>) { (*v).world_position.y += 1.0; }\",",
    "vertex: \"fn vertex(v: ptr<function, VertexInputs>) { (*v).position.y += 1.0; (*v).world_offset = vec3<f32>(0.0); }\",",
    "light: \"fn light(l: ptr<function, LightInputs>) -> vec3<f32> { return (*l).radiance * (*l).shadow; }\",",
    "light: Some(\"fn light(l: ptr<function, LightInputs>) -> f32 { return 1.0; }\"),",
    "light: \"#include \\\"{}\\\"\",",
    "engine_inputs: [SceneColor, SceneDepth],",
    "engine_inputs: [SceneDepth, SceneDepth],",
    "varyings: [(name: \"crest\", type: Float), (name: \"v2\", type: Vec4)],",
    "attributes: [(name: \"phase\", type: Vec3)],",
    "(name: \"extra\", type: Mat4, default: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]),",
    "(name: \"cube\", type: TextureCube, hint: DefaultNormal),",
    "(name: \"slider\", type: Int, hint: Range(min: -2147483648, max: 2147483647, step: 1), default: 0),",
    "shading_model: Unlit,",
    "blending: Premultiplied,",
    "culling: None,",
    "depth: (write: false, compare: Always),",
    "depth: Some((compare: Never)),",
    "#![enable(implicit_some)]",
    "#![enable(unwrap_newtypes)]",
];

/// Numbers at the edges: beyond f32, beyond i64 and u64, signed zero, NaN, malformed.
const NUMBERS: &[&str] = &[
    "1e39",
    "-1e39",
    "3.4028235e38",
    "1e-46",
    "1e308",
    "1e309",
    "-0",
    "-0.0",
    "NaN",
    "inf",
    "-inf",
    "2147483648",
    "-2147483649",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "0x7fffffff",
    "0b101",
    "0o777",
    "1_000",
    ".5",
    "5.",
    "1e",
    "--1",
    "+1",
    "0.1f",
    "1u",
];

/// Unicode and control characters that break line maths and byte offsets.
const ODD_TEXT: &[&str] =
    &["é", "\u{2028}", "\u{85}", "\r", "\r\n", "\t", "\0", "\u{feff}", "👩‍🚀", "e\u{301}", "\u{ffff}", "\\"];

/// Byte sequences that are not UTF-8.
const NOT_UTF8: &[&[u8]] =
    &[b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\xf4\x90\x80\x80", b"\x80"];

impl Corpus {
    fn load() -> Self {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut rons = Vec::new();
        let mut files = Vec::new();
        for folder in [manifest.join("../examples/assets/materials"), manifest.join("tests/invalid")] {
            let mut entries: Vec<PathBuf> =
                std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().path()).collect();
            entries.sort();
            for path in entries {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let bytes = std::fs::read(&path).unwrap();
                if name.ends_with(".ron") { rons.push((name, bytes)) } else { files.push((name, bytes)) }
            }
        }
        let project = manifest.join("tests/project_shaders");
        for name in ["ripples.wgsl", "waves/shape.wgsl"] {
            files.push((format!("project/{name}"), std::fs::read(project.join(name)).unwrap()));
        }
        let traps: [(&str, &[u8]); 6] = [
            ("self.wgsl", b"#include \"self.wgsl\"\nfn self_helper() {}\n"),
            ("sub/up.wgsl", b"// reached through sub/\n#include \"../cycle_a.wgsl\"\nfn up() {}\n"),
            ("latin1.wgsl", b"fn latin1() {} // caf\xe9\n"),
            ("crlf.wgsl", b"fn crlf() -> f32 {\r\n    return 1.0 +;\r\n}\r\n"),
            ("bom.wgsl", "\u{feff}fn bom() {}\n".as_bytes()),
            ("dir.wgsl/", b""),
        ];
        files.extend(traps.iter().map(|(n, b)| ((*n).to_owned(), b.to_vec())));

        let mut lines = Vec::new();
        let mut tokens: Vec<Vec<u8>> = Vec::new();
        let texts = rons.iter().chain(&files).map(|(_, b)| b.as_slice());
        for text in texts.chain(library::FILES.iter().map(|(_, t)| t.as_bytes())) {
            lines.extend(text.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec));
            tokens.extend(tokenize(text));
        }
        tokens.extend(NUMBERS.iter().map(|n| n.as_bytes().to_vec()));
        tokens.sort();
        tokens.dedup();
        let mut library_names: Vec<String> = library::FILES
            .iter()
            .flat_map(|(_, text)| tokenize(text.as_bytes()))
            .filter(|t| t[0].is_ascii_alphabetic() || t[0] == b'_')
            .filter_map(|t| String::from_utf8(t).ok())
            .collect();
        library_names.sort();
        library_names.dedup();
        Self { rons, files, lines, tokens, library_names }
    }
}

/// Runs of identifier characters, of digits (with `.`), and single punctuation bytes.
fn tokenize(text: &[u8]) -> Vec<Vec<u8>> {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let start = i;
        if word(text[i]) {
            while i < text.len() && word(text[i]) {
                i += 1;
            }
        } else {
            i += 1;
        }
        if !text[start].is_ascii_whitespace() {
            out.push(text[start..i].to_vec());
        }
    }
    out
}

/// A byte offset at a line start.
fn line_start(rng: &mut Rng, bytes: &[u8]) -> usize {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i + 1))
        .collect();
    *rng.pick(&starts)
}

fn directive(rng: &mut Rng) -> Vec<u8> {
    let include = *rng.pick(INCLUDES);
    let line = rng.pick(DIRECTIVES).replace("{}", include);
    format!("{line}\n").into_bytes()
}

/// One random change to `bytes`, some aimed at the format (fields, numbers, directives),
/// some blind (bits, bytes, splices).
fn mutate(rng: &mut Rng, corpus: &Corpus, bytes: &mut Vec<u8>) {
    let len = bytes.len();
    let at = rng.below(len + 1);
    // Weighted towards the changes that keep a file readable enough to get past ron.
    match *rng
        .pick(&[0, 1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 7, 7, 7, 8, 9, 9, 10, 11, 11, 12, 12, 12, 13, 13, 14, 15])
    {
        0 if len > 0 => {
            let i = rng.below(len);
            bytes[i] ^= 1 << rng.below(8);
        }
        1 => {
            let b = if rng.one_in(2) { rng.next() as u8 } else { *rng.pick(b"()[]{}\",:#\\\n r/*'-.0") };
            bytes.insert(at, b);
        }
        2 => {
            let n = if rng.one_in(4) { rng.below(len / 2 + 1) } else { rng.below(16) + 1 };
            bytes.drain(at..(at + n).min(len));
        }
        3 => {
            let n = rng.below(64) + 1;
            let piece = bytes[at..(at + n).min(len)].to_vec();
            let to = rng.below(len + 1);
            bytes.splice(to..to, piece);
        }
        4 => {
            let line = rng.pick(&corpus.lines).clone();
            let to = line_start(rng, bytes);
            bytes.splice(to..to, line);
        }
        5 => {
            // Replace one line with a line of another seed.
            let from = line_start(rng, bytes);
            let end = bytes[from..].iter().position(|&b| b == b'\n').map_or(len, |i| from + i + 1);
            let line = rng.pick(&corpus.lines).clone();
            bytes.splice(from..end, line);
        }
        6 => {
            // Replace a token with another.
            let tokens = tokenize(bytes);
            if tokens.is_empty() {
                return;
            }
            let old = rng.pick(&tokens).clone();
            if let Some(i) = bytes.windows(old.len()).position(|w| w == old.as_slice()) {
                let new = rng.pick(&corpus.tokens).clone();
                bytes.splice(i..i + old.len(), new);
            }
        }
        7 => {
            // A number at the edge, in place of a number.
            let starts: Vec<usize> = (0..len)
                .filter(|&i| bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()))
                .collect();
            if starts.is_empty() {
                return;
            }
            let from = *rng.pick(&starts);
            let end = (from..len)
                .find(|&i| !(bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.' || bytes[i] == b'_'))
                .unwrap_or(len);
            bytes.splice(from..end, rng.pick(NUMBERS).bytes());
        }
        8 => {
            // A long run: up to past the file size limit.
            let unit = if rng.one_in(2) { vec![b'a'] } else { rng.pick(&corpus.tokens).clone() };
            let limit = MAX_FILE_SIZE as usize;
            let n =
                *rng.pick(&[200, 5_000, 70_000, limit.saturating_sub(len), (limit + 1).saturating_sub(len)]);
            let mut run = Vec::with_capacity(n + unit.len());
            while run.len() < n.max(1) {
                run.extend_from_slice(&unit);
            }
            bytes.splice(at..at, run);
        }
        9 => {
            // Deep nesting.
            let (open, close): (&str, &str) = *rng.pick(&[
                ("[", "]"),
                ("(", ")"),
                ("Some(", ")"),
                ("{", "}"),
                ("/*", "*/"),
                ("(1.0 + ", ")"),
                ("-", ""),
                ("!", ""),
                ("array<", ", 1>"),
                ("{\n", "}\n"),
                ("#ifdef X\n", "#endif\n"),
                (" + a", ""),
                (".x", ""),
                ("} else if a {", "}"),
                ("const k = k;\n", ""),
            ]);
            let depth = *rng.pick(&[33, 128, 257, 1_000, 20_000, 100_000]);
            let depth = depth.min(MAX_FILE_SIZE as usize / (open.len() + close.len()).max(1));
            let end = (at + rng.below(32)).min(len);
            bytes.splice(end..end, close.repeat(depth).into_bytes());
            bytes.splice(at..at, open.repeat(depth).into_bytes());
        }
        10 => {
            let odd = rng.pick(NOT_UTF8);
            bytes.splice(at..at, odd.iter().copied());
        }
        11 => {
            let odd = rng.pick(ODD_TEXT);
            bytes.splice(at..at, odd.bytes());
        }
        12 => {
            let to = line_start(rng, bytes);
            let line = directive(rng);
            bytes.splice(to..to, line);
        }
        13 => {
            let to = line_start(rng, bytes);
            let include = *rng.pick(INCLUDES);
            let field = format!("    {}\n", rng.pick(FIELDS).replace("{}", include));
            bytes.splice(to..to, field.into_bytes());
        }
        14 => bytes.truncate(at),
        _ => {
            // Splice: this file's head onto another seed's tail.
            let other = &rng.pick(&corpus.rons).1;
            let from = rng.below(other.len() + 1);
            bytes.truncate(at);
            bytes.extend_from_slice(&other[from..]);
        }
    }
}

/// A seed, mutated a few times; now and then one of the files beside it too.
fn mutated_material(corpus: &Corpus, rng: &mut Rng) -> Case {
    let (name, seed) = rng.pick(&corpus.rons);
    let mut bytes = seed.clone();
    let mutations = if rng.one_in(4) { 1 + rng.below(6) } else { 1 };
    for _ in 0..mutations {
        mutate(rng, corpus, &mut bytes);
        if bytes.len() > 2 * MAX_FILE_SIZE as usize {
            bytes.truncate(MAX_FILE_SIZE as usize + 1);
        }
    }
    let mut case = Case::new(name, bytes);
    case.files.extend(corpus.files.iter().cloned());
    while rng.one_in(3) {
        let i = 1 + rng.below(case.files.len() - 1);
        if !case.files[i].0.ends_with('/') {
            mutate(rng, corpus, &mut case.files[i].1);
        }
    }
    case.instanced = instanced(rng);
    case
}

/// Instanced compilation, with the material array budgets the renderer uses (none, tiny, and
/// the 16 KiB and 64 KiB device limits; the renderer never asks for more than 64 KiB).
fn instanced(rng: &mut Rng) -> Option<u32> {
    // `STORAGE_SLOTS` stands for a storage-buffer table (`material_storage`).
    rng.one_in(3).then(|| *rng.pick(&[0, 1, 16, 16 << 10, 64 << 10, STORAGE_SLOTS]))
}

#[test]
fn fuzz_mutated_materials() {
    fuzz(Target {
        name: "mutated_materials",
        make: mutated_material,
        run: run_material,
        seconds: 10.0,
        cases: 1500,
    });
}

// ---- structured generation: whole materials, valid by construction or broken on purpose

/// Names: plain, odd but legal (WGSL's context-dependent words), and ones that must be
/// refused. The generator also draws every identifier of the engine library.
const NAMES: &[&str] = &[
    "roughness",
    "tint",
    "x",
    "in",
    "out",
    "main",
    "position",
    "normal",
    "color",
    "custom_tint",
    "_private",
    "Tint2",
    "a_sampler",
    "sampler_a",
    "function",
    "private",
    "uniform",
    "storage",
    "workgroup",
    "read_write",
    "rgba8unorm",
    "flat",
    "linear",
    "vertex_index",
    "front_facing",
    "location",
    "builtin",
    "group",
    "binding",
    "fragment",
    "compute",
    "f3d_x",
    "noise_x",
    "surface",
    "loop",
    "f32",
    "normalize",
    "1x",
    "",
    "a b",
    "__x",
    "_",
    "é",
];

const TYPES: &[&str] = &["Float", "Int", "Vec2", "Vec3", "Vec4", "Mat4", "Texture2d", "TextureCube"];

/// A number written as ron reads it.
fn number(rng: &mut Rng, valid: bool, int: bool) -> String {
    if !valid && rng.one_in(16) {
        return (*rng.pick(NUMBERS)).to_owned();
    }
    if int {
        return (*rng.pick(&["0", "1", "-1", "7", "2147483647", "-2147483648"])).to_owned();
    }
    (*rng.pick(&["0.0", "-0.0", "1.0", "0.5", "-2.25", "1e-45", "1e38", "-3.4028235e38", "1", "100"]))
        .to_owned()
}

fn default_of(rng: &mut Rng, ty: &str, valid: bool) -> String {
    let components = match ty {
        "Float" | "Int" => 0,
        "Vec2" => 2,
        "Vec3" => 3,
        "Vec4" => 4,
        _ => 16,
    };
    let components = if valid || !rng.one_in(3) { components } else { rng.below(18) };
    let list =
        |rng: &mut Rng, n: usize| (0..n).map(|_| number(rng, valid, false)).collect::<Vec<_>>().join(", ");
    match components {
        0 => number(rng, valid, ty == "Int"),
        16 if rng.one_in(2) => {
            let columns: Vec<String> = (0..4).map(|_| format!("[{}]", list(rng, 4))).collect();
            format!("[{}]", columns.join(", "))
        }
        n => format!("[{}]", list(rng, n)),
    }
}

fn hint_of(rng: &mut Rng, ty: &str, valid: bool) -> Option<String> {
    if rng.one_in(2) {
        return None;
    }
    let options: &[&str] = match (valid, ty) {
        (true, "Vec3" | "Vec4") => &["SourceColor"],
        (true, "Float" | "Int") => &["Range(min: -10, max: 10, step: 1)", "Range(min: -10, max: 10)"],
        (true, "Texture2d" | "TextureCube") => {
            &["DefaultWhite", "DefaultBlack", "DefaultNormal", "DefaultTransparent"]
        }
        (true, _) => return None,
        (false, _) => &[
            "SourceColor",
            "DefaultNormal",
            "Range(min: 1, max: 0)",
            "Range(min: 0, max: 1, step: 0)",
            "Range(min: NaN, max: 1)",
            "Range(min: 0, max: inf)",
            "Range(min: 0.5, max: 2.5)",
            "Range(min: -1e39, max: 1e39, step: 1e-46)",
            "Range(0, 1)",
            "Slider",
        ],
    };
    Some((*rng.pick(options)).to_owned())
}

/// A parameter, varying or attribute as the generator holds it.
struct Decl {
    name: String,
    ty: &'static str,
}

/// Statements that use every declaration, so naga sees them all.
fn uses(decls: &[Decl], params: bool) -> String {
    let mut s = String::new();
    for d in decls {
        let line = match (params, d.ty) {
            (true, "Texture2d") => format!("    _ = textureSample({0}, {0}_sampler, uv0());\n", d.name),
            (true, "TextureCube") => {
                format!("    _ = textureSample({0}, {0}_sampler, vec3<f32>(0.0, 0.0, 1.0));\n", d.name)
            }
            (true, _) => format!("    _ = material_params.{};\n", d.name),
            (false, _) => format!("    _ = {};\n", d.name),
        };
        s += &line;
    }
    s
}

/// The WGSL zero of an interface type.
fn zero(ty: &str) -> &'static str {
    match ty {
        "Int" => "0",
        "Vec2" => "vec2<f32>(0.0)",
        "Vec3" => "vec3<f32>(0.0)",
        "Vec4" => "vec4<f32>(0.0)",
        _ => "0.0",
    }
}

/// Code that must not compile: each wrong in its own way.
const BROKEN_CODE: &[&str] = &[
    "fn surface(m: ptr<function, MaterialInputs>) { (*m).roughness = vec3<f32>(1.0); }",
    "fn surface(m: ptr<function, MaterialInputs>) { (*m).metallic = undefined_name; }",
    "fn surface(m: ptr<function, MaterialInputs>) { material_params = material_params; }",
    "fn surface(m: ptr<function, MaterialInputs>) { (*m).normal = normal_from_tangent_space(1.0); }",
    "fn surface(m: ptr<function, MaterialInputs>) {\n    let x = 1.0\n}",
    "fn surface(m: ptr<function, MaterialInputs>, extra: f32) {}",
    "fn surface(m: f32) {}",
    "fn surfaces(m: ptr<function, MaterialInputs>) {}",
    "fn world_normal() -> vec3<f32> { return vec3<f32>(0.0); }\nfn surface(m: ptr<function, MaterialInputs>) {}",
    "fn surface(m: ptr<function, MaterialInputs>) {}\nfn surface(m: ptr<function, MaterialInputs>) {}",
    "@fragment fn surface(m: ptr<function, MaterialInputs>) {}",
    "#include <noise.wgsl>\nfn surface(m: ptr<function, MaterialInputs>) { (*m).roughness = noise_simplex2(1.0); }",
    "#ifdef F3D_LIT\nfn surface(m: ptr<function, MaterialInputs>) {}\n",
    "#include \"missing.wgsl\"\nfn surface(m: ptr<function, MaterialInputs>) {}",
    "#include \"self.wgsl\"\nfn surface(m: ptr<function, MaterialInputs>) {}",
    "#include \"../chain/c0.wgsl\"\nfn surface(m: ptr<function, MaterialInputs>) {}",
    "@group(1) @binding(0) var<uniform> mine: vec4<f32>;\nfn surface(m: ptr<function, MaterialInputs>) { _ = mine; }",
    "fn surface(m: ptr<function, MaterialInputs>) { (*m).base_color = vec4<f32>(1e39); }",
    "fn surface(m: ptr<function, MaterialInputs>) { let a = array<f32, 4294967295>(); }",
    "fn surface(m: ptr<function, MaterialInputs>) { var i = 0; loop { i++; } }",
    "fn surface(m: ptr<function, MaterialInputs>) { (*m).roughness = 1.0 / 0.0; }",
    "fn surface(m: ptr<function, MaterialInputs>) { (*m).roughness = f32(2147483647 + 1); }",
    "fn surface(m: ptr<function, MaterialInputs>) { _ = textureSample(material_params, uv0()); }",
    "enable f16;\nfn surface(m: ptr<function, MaterialInputs>) {}",
    "fn surface(m: ptr<function, MaterialInputs>) { _ = scene_color(vec2<f32>(0.0)); }",
    "fn vertex(v: ptr<function, VertexInputs>) {}\nfn surface(m: ptr<function, MaterialInputs>) {}",
    "",
    "   \n\t",
    "/* unterminated fn surface(m: ptr<function, MaterialInputs>) {}",
];

/// A string literal as ron reads it: raw, or with escapes.
fn ron_string(rng: &mut Rng, text: &str) -> String {
    if !text.contains("\"#") && rng.one_in(2) {
        return format!("r#\"{text}\"#");
    }
    let mut s = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => s += "\\\"",
            '\\' => s += "\\\\",
            '\n' => s += "\\n",
            '\t' => s += "\\t",
            'é' => s += "\\u{e9}",
            c => s.push(c),
        }
    }
    s += "\"";
    s
}

/// A whole material: half the time valid by construction (and so must compile once read),
/// otherwise with a few things wrong.
fn generated_material(corpus: &Corpus, rng: &mut Rng) -> Case {
    let valid = rng.one_in(2);
    let mut fields: Vec<String> = Vec::new();
    let mut extra_files: Vec<(String, Vec<u8>)> = Vec::new();
    let name = *rng.pick(&[
        "Generated",
        "",
        "ü∂ material",
        "line\nbreak",
        "cr\r fn broken(",
        "ls\u{2028}fn broken(",
        "nel\u{85}fn broken(",
        "*/ /*",
        "\"quoted\"",
        "tab\there",
    ]);
    fields.push(format!("name: {}", ron_string(rng, name)));
    let lit = rng.one_in(2);
    if !lit || rng.one_in(2) {
        fields.push(format!("shading_model: {}", if lit { "Lit" } else { "Unlit" }));
    }
    let mut translucent = false;
    if rng.one_in(2) {
        let blending = rng.pick(&["Opaque", "Alpha", "Additive", "Multiply", "Premultiplied"]);
        translucent = *blending != "Opaque";
        fields.push(format!("blending: {blending}"));
    }
    if rng.one_in(3) {
        fields.push(format!("culling: {}", rng.pick(&["Back", "Front", "None"])));
    }
    if rng.one_in(3) {
        let compare = rng.pick(&[
            "Never",
            "Less",
            "Equal",
            "LessEqual",
            "Greater",
            "NotEqual",
            "GreaterEqual",
            "Always",
        ]);
        fields.push(format!("depth: (write: {}, compare: {compare})", rng.one_in(2)));
    }

    // Names: unique, legal and plain when valid (a few odd ones too; if the checks refuse
    // one, the case is refused, which is allowed).
    let mut taken: Vec<String> = Vec::new();
    let mut fresh = |rng: &mut Rng, prefix: &str| -> String {
        let name = match rng.below(24) {
            0 => (*rng.pick(NAMES)).to_owned(),
            1 => rng.pick(&corpus.library_names).clone(),
            _ => format!("{prefix}{}", rng.below(1000)),
        };
        // `m`, `v` and `helper` are the generated code's own names: a material using them is
        // wrong in its code, which is not what a valid case is for.
        if valid && (taken.contains(&name) || ["m", "v", "helper"].contains(&name.as_str())) {
            let unique = format!("{prefix}{}_{}", taken.len(), rng.below(1000));
            taken.push(unique.clone());
            return unique;
        }
        taken.push(name.clone());
        name
    };
    let count =
        if !valid && rng.one_in(8) { *rng.pick(&[9, 300, 1025]) } else { *rng.pick(&[0, 1, 2, 3, 5, 8]) };
    let mut params = Vec::new();
    let mut entries = Vec::new();
    let mut textures = 0;
    for _ in 0..count {
        let mut ty = *rng.pick(TYPES);
        if ty.starts_with("Texture") {
            textures += 1;
            if valid && textures > 8 {
                ty = "Vec4";
            }
        }
        let name = fresh(rng, "p");
        let mut entry = format!("(name: {}, type: {ty}", ron_string(rng, &name));
        if let Some(hint) = hint_of(rng, ty, valid) {
            entry += &format!(", hint: {hint}");
        }
        if (!ty.starts_with("Texture") || !valid) && rng.one_in(2) {
            let default = if ty == "Float" || ty == "Int" {
                // Inside the valid Range hint.
                (*rng.pick(&["0", "1", "-2", "10"])).to_owned()
            } else {
                default_of(rng, ty, valid)
            };
            entry += &format!(", default: {default}");
        }
        entries.push(entry + ")");
        params.push(Decl { name, ty });
    }
    if !entries.is_empty() {
        fields.push(format!("parameters: [\n        {},\n    ]", entries.join(",\n        ")));
    } else if rng.one_in(2) {
        fields.push("parameters: []".into());
    }
    let mut inputs = Vec::new();
    if lit || !valid {
        for input in ["SceneColor", "SceneDepth"] {
            // An opaque material can never read the scene colour (it draws into it).
            if rng.one_in(3) && (input != "SceneColor" || translucent || !valid) {
                inputs.push(input);
            }
        }
        if !inputs.is_empty() {
            fields.push(format!("engine_inputs: [{}]", inputs.join(", ")));
        }
    }
    let interface =
        |rng: &mut Rng, fresh: &mut dyn FnMut(&mut Rng, &str) -> String, prefix: &str, limit: usize| {
            let n = if !valid && rng.one_in(6) { limit + 1 } else { rng.below(limit.min(3) + 1) };
            (0..n)
                .map(|_| {
                    let ty = if valid { *rng.pick(&TYPES[..5]) } else { *rng.pick(TYPES) };
                    Decl { name: fresh(rng, prefix), ty }
                })
                .collect::<Vec<Decl>>()
        };
    let varyings = interface(rng, &mut fresh, "vary", 8);
    let attributes = interface(rng, &mut fresh, "attr", 7);
    for (field, decls) in [("varyings", &varyings), ("attributes", &attributes)] {
        if !decls.is_empty() {
            let list: Vec<String> = decls
                .iter()
                .map(|d| format!("(name: {}, type: {})", ron_string(rng, &d.name), d.ty))
                .collect();
            fields.push(format!("{field}: [{}]", list.join(", ")));
        }
    }

    let vertex_needed = !varyings.is_empty() || !attributes.is_empty();
    if vertex_needed || rng.one_in(3) {
        let mut code = String::from("// vertex: é\nfn vertex(v: ptr<function, VertexInputs>) {\n");
        for d in &varyings {
            code += &format!("    {} = {};\n", d.name, zero(d.ty));
        }
        code += &uses(&attributes, false);
        code += "    (*v).world_position.y += 0.0;\n}\n";
        let text = ron_string(rng, &code);
        fields.push(format!("vertex: {}", if rng.one_in(2) { format!("Some({text})") } else { text }));
    }
    let mut code = String::new();
    if rng.one_in(3) {
        code +=
            "#include <noise.wgsl>\nfn helper(p: vec2<f32>) -> f32 {\n    return noise_simplex2(p, 3);\n}\n";
    }
    code += "fn surface(m: ptr<function, MaterialInputs>) {\n";
    code += &uses(&params, true);
    code += &uses(&varyings, false);
    if inputs.contains(&"SceneColor") {
        code += "    _ = scene_color(vec2<f32>(0.0));\n";
    }
    if inputs.contains(&"SceneDepth") {
        code += "    _ = scene_depth(vec2<f32>(0.0)) - fragment_view_depth();\n";
    }
    code += "    (*m).base_color = vec4<f32>(world_normal() * 0.5 + 0.5, 1.0);\n}\n";
    if !valid && rng.one_in(2) {
        code = (*rng.pick(BROKEN_CODE)).to_owned();
    }
    match rng.below(if valid { 3 } else { 5 }) {
        0 => fields.push(format!("fragment: {}", ron_string(rng, &code))),
        1 => {
            fields.push("fragment_file: \"gen.wgsl\"".into());
            extra_files.push(("gen.wgsl".into(), code.into_bytes()));
        }
        2 => {
            fields.push("fragment_file: \"sub/gen.wgsl\"".into());
            extra_files.push(("sub/gen.wgsl".into(), code.into_bytes()));
        }
        3 => {
            fields.push(format!("fragment: {}", ron_string(rng, &code)));
            fields.push(format!("fragment_file: \"{}\"", rng.pick(INCLUDES)));
        }
        _ => fields.push(format!("fragment_file: \"{}\"", rng.pick(INCLUDES))),
    }

    if !valid {
        // A few things wrong with the form itself.
        for _ in 0..rng.below(2) {
            let i = rng.below(fields.len() + 1);
            let wrong = *rng.pick(&[
                "name: \"again\"",
                "colour: Red",
                "parameters: (name: \"p\")",
                "parameters: [(name: \"p\", type: Vec5)]",
                "parameters: [(name: \"p\", type: Float, default: \"one\")]",
                "parameters: [(name: \"p\", type: Float, default: true)]",
                "parameters: [(name: \"p\", type: Int, default: 1.5)]",
                "parameters: [(name: \"p\", type: Float, default: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1.0]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]])]",
                "varyings: [(name: \"t\", type: Texture2d)]",
                "engine_inputs: [SceneColor, SceneColor]",
                "depth: (write: maybe)",
                "shading_model: Phong",
                "vertex: None",
                "vertex: Some(None)",
                "fragment: None",
            ]);
            fields.insert(i, wrong.to_owned());
        }
    }
    let separator = if rng.one_in(4) { ", " } else { ",\n    " };
    let mut ron = format!("// generated\nMaterial(\n    {}", fields.join(separator));
    ron += if rng.one_in(2) { ",\n)\n" } else { "\n)" };
    let mut case = Case::new("gen.ron", ron.into_bytes());
    case.files.extend(extra_files);
    case.files.extend(files_beside());
    case.instanced = instanced(rng);
    case.expect_ok = valid;
    case
}

/// What a generated material's includes may reach: cycles, a self-include, an empty file,
/// a folder named like a file, and Latin-1.
fn files_beside() -> Vec<(String, Vec<u8>)> {
    let invalid = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/invalid");
    let mut files: Vec<(String, Vec<u8>)> =
        ["cycle_a.wgsl", "cycle_b.wgsl", "empty.wgsl", "broken_surface.wgsl"]
            .iter()
            .map(|n| ((*n).to_owned(), std::fs::read(invalid.join(n)).unwrap()))
            .collect();
    files.push(("self.wgsl".into(), b"#include \"self.wgsl\"\n".to_vec()));
    files.push(("dir.wgsl/".into(), Vec::new()));
    files.push(("latin1.wgsl".into(), b"// caf\xe9\n".to_vec()));
    files
}

#[test]
fn fuzz_generated_materials() {
    fuzz(Target {
        name: "generated_materials",
        make: generated_material,
        run: run_material,
        seconds: 6.0,
        cases: 1500,
    });
}

// ---- the include composer on its own, and its source map

/// Preprocessor-heavy code: `#ifdef` blocks (balanced, but for a stray directive now and
/// then), includes of the other generated files and of the library, defines, helpers.
fn composer_code(rng: &mut Rng, depth: usize, first_include: usize, out: &mut String) {
    for _ in 0..rng.below(8) {
        match rng.below(10) {
            0 | 1 if depth < 6 => {
                let define =
                    rng.pick(&["F3D_LIT", "F3D_UNLIT", "F3D_VARIANT_DEPTH", "F3D_INSTANCED", "FUZZ"]);
                *out += &format!("{} {define}\n", rng.pick(&["#ifdef", "#ifndef", "  # ifdef"]));
                composer_code(rng, depth + 1, first_include, out);
                if rng.one_in(2) {
                    *out += "#else\n";
                    composer_code(rng, depth + 1, first_include, out);
                }
                *out += "#endif\n";
            }
            2 | 3 => {
                // Files include the ones after them; now and then any, which may close a cycle.
                let first = if rng.one_in(8) { 0 } else { first_include };
                if first < 4 {
                    *out += &format!("#include \"inc{}.wgsl\"\n", first + rng.below(4 - first));
                }
            }
            4 => {
                *out += &format!(
                    "#include <{}>\n",
                    rng.pick(&["noise.wgsl", "brdf.wgsl", "color.wgsl", "ripples.wgsl"])
                )
            }
            5 => *out += *rng.pick(&["#define FUZZ\n", "#undef FUZZ\n", "#undef F3D_LIT\n"]),
            6 => {
                *out += &format!(
                    "fn helper_{}() -> f32 {{ return {}; }}\n",
                    rng.below(10_000),
                    rng.pick(&["1.0", "2.0 * 3.0", "é"])
                )
            }
            7 => {
                *out += *rng.pick(&[
                    "// a comment #include <x>\n",
                    "/* #endif */\n",
                    "\n",
                    "  \t\n",
                    "// é 👩‍🚀\r\n",
                ])
            }
            8 if rng.one_in(16) => *out += &String::from_utf8_lossy(&directive(rng)),
            _ => *out += &format!("const K{}: f32 = 1.0;\n", rng.below(10_000)),
        }
    }
}

/// A material whose code is mostly preprocessor lines, reaching files that include each other.
fn composer_case(_: &Corpus, rng: &mut Rng) -> Case {
    let mut code = String::new();
    composer_code(rng, 0, 0, &mut code);
    code += "fn surface(m: ptr<function, MaterialInputs>) { (*m).roughness = 0.5; }\n";
    composer_code(rng, 0, 0, &mut code);
    let inline = rng.one_in(2);
    let fragment = if inline {
        format!("fragment: {}", ron_string(rng, &code))
    } else {
        "fragment_file: \"main.wgsl\"".to_owned()
    };
    let ron = format!(
        "Material(\n    name: \"Composer\",\n    parameters: [(name: \"k\", type: Float), (name: \"t\", type: Texture2d)],\n    {fragment},\n)\n"
    );
    let mut case = Case::new("composer.ron", ron.into_bytes());
    if !inline {
        case.files.push(("main.wgsl".into(), code.into_bytes()));
    }
    for i in 0..4 {
        let mut text = format!("// inc{i}.wgsl\n");
        composer_code(rng, 3, i + 1, &mut text);
        case.files.push((format!("inc{i}.wgsl"), text.into_bytes()));
    }
    case.files.extend(files_beside());
    case.files
        .push(("project/ripples.wgsl".into(), b"fn ripples(p: vec2<f32>) -> f32 { return p.x; }\n".to_vec()));
    case.instanced = instanced(rng);
    case
}

/// The character a location points at (`None` past the end of its line).
fn char_at(text: &str, line: u32, column: u32) -> Option<char> {
    let line = text.split('\n').nth(line as usize - 1)?;
    line.trim_end_matches('\r').chars().nth(column as usize - 1)
}

/// `compose_material` directly: its errors are located, and where it succeeds every byte of
/// the composed text maps back to the same character in the file it came from.
fn run_composer(case: &Case, dir: &Path) -> Outcome {
    let ron = dir.join(case.main());
    let loaded = match read_material(&ron) {
        Ok(m) => m,
        Err(errors) => return check_errors(&errors),
    };
    let layout = MaterialLayout::new(&loaded.desc)
        .map_err(|e| Failure { kind: "layout refused".into(), detail: e })?;
    let options = options(case, dir);
    let slots = match (options.instanced, options.material_storage) {
        (false, _) => 0,
        (true, true) => layout.slot_stride().map_or(0, |_| STORAGE_SLOTS),
        (true, false) => layout.array_len(options.material_array_bytes),
    };
    let variant = Variant::ALL[case.files[0].1.len() % 3];
    let composed =
        match compose_material(&loaded, &layout, variant, &options.include_dirs, options.instanced, slots) {
            Ok(c) => c,
            Err(e) => return check_error(&e).map(|k| vec![k]),
        };
    let text = composed.text();
    let mut files: BTreeMap<PathBuf, Option<String>> = BTreeMap::new();
    let mut read = |path: &Path| -> Option<String> {
        let p = path.to_string_lossy();
        if let Some(name) = p.strip_prefix("<f3d>/") {
            return library::file(name).map(str::to_owned);
        }
        files
            .entry(path.to_owned())
            .or_insert_with(|| String::from_utf8(std::fs::read(path).ok()?).ok())
            .clone()
    };
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let at_offset = offset;
        offset += line.len();
        let Some(at) = composed.location(at_offset, 1) else { continue };
        let mismatch = |what: &str| Failure {
            kind: format!("composed source map {what}"),
            detail: format!("composed line {line:?} maps to {at} ({:?})", at.line_text),
        };
        let source = read(&at.path).ok_or_else(|| mismatch("names an unreadable file"))?;
        let Some(c) = char_at(&source, at.line, at.column) else {
            if line.trim().is_empty() {
                continue;
            }
            return Err(mismatch("points past a line's end"));
        };
        let first = line.chars().next().unwrap_or('\n');
        // Inline code maps a decoded escape to its backslash.
        if c != first && c != '\\' {
            return Err(mismatch("points at another character"));
        }
    }
    let mut kinds = Vec::new();
    if let Err(e) = compile_material(&loaded, variant, &options) {
        kinds.push(check_error(&e)?);
    }
    Ok(kinds)
}

#[test]
fn fuzz_include_composer() {
    fuzz(Target {
        name: "include_composer",
        make: composer_case,
        run: run_composer,
        seconds: 4.0,
        cases: 1500,
    });
}

// ---- ShaderMaterial: complete fragment shaders, WGSL and GLSL

const WGSL_SHADER: &str = "struct Tint { color: vec4<f32>, gain: f32 }
@group(1) @binding(0) var<uniform> tint: Tint;
@group(1) @binding(1) var albedo: texture_2d<f32>;
@group(1) @binding(2) var albedo_sampler: sampler;
@fragment
fn fs(@location(2) uv: vec2<f32>) -> @location(0) vec4<f32> {
    let c = textureSample(albedo, albedo_sampler, uv);
    return tint.color * c * tint.gain;
}
";

const GLSL_SHADER: &str = "#version 450
layout(location = 2) in vec2 uv;
layout(location = 0) out vec4 color;
layout(set = 1, binding = 0) uniform Block { vec4 tint; float gain; mat4 m; };
layout(set = 1, binding = 1) uniform sampler2D albedo;
layout(set = 1, binding = 3) uniform samplerCube sky;
void main() {
    vec4 c = texture(albedo, uv) + texture(sky, vec3(uv, 1.0));
    for (int i = 0; i < 4; i++) { c *= gain; }
    color = c * tint;
}
";

fn shader_case(corpus: &Corpus, rng: &mut Rng) -> Case {
    let (name, mut bytes) = match rng.below(3) {
        0 => ("shader.wgsl", WGSL_SHADER.as_bytes().to_vec()),
        1 => ("shader.frag", GLSL_SHADER.as_bytes().to_vec()),
        _ => ("shader.wgsl", rng.pick(library::FILES).1.as_bytes().to_vec()),
    };
    for _ in 0..=rng.below(4) {
        mutate(rng, corpus, &mut bytes);
        bytes.truncate(MAX_FILE_SIZE as usize + 1);
    }
    Case::new(name, bytes)
}

fn run_shader(case: &Case, dir: &Path) -> Outcome {
    match ShaderMaterial::from_path(&dir.join(case.main())) {
        Ok(m) => {
            let _ = m.bindings();
            let _ = m.uniform_blocks();
            Ok(Vec::new())
        }
        Err(e) => check_error(&e).map(|k| vec![k]),
    }
}

#[test]
fn fuzz_shader_materials() {
    fuzz(Target { name: "shader_materials", make: shader_case, run: run_shader, seconds: 4.0, cases: 1500 });
}

// ---- regressions: inputs the fuzzers found

/// Parses `ron` as a material at `/fuzz/regression.ron` and compiles every variant, plain and
/// instanced with a material array: every error.
fn errors_of(ron: &str) -> Vec<MaterialError> {
    let path = Path::new("/fuzz/regression.ron");
    let material = match parse_material(path, ron.as_bytes()) {
        Ok(m) => m,
        Err(errors) => return errors,
    };
    let instanced =
        CompileOptions { instanced: true, material_array_bytes: 64 << 10, ..CompileOptions::default() };
    [CompileOptions::default(), instanced]
        .iter()
        .flat_map(|options| Variant::ALL.map(|v| compile_material(&material, v, options).err()))
        .flatten()
        .collect()
}

fn diagnostics(errors: &[MaterialError]) -> String {
    errors.iter().map(MaterialError::diagnostic).collect()
}

/// A fresh folder holding `files`.
fn regression_folder(test: &str, files: &[(&str, &[u8])]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("f3d_fuzz_regression_{}_{test}", std::process::id()));
    let case = Case {
        files: files.iter().map(|(n, b)| ((*n).to_owned(), b.to_vec())).collect(),
        instanced: None,
        expect_ok: false,
    };
    case.write(&dir).unwrap();
    dir
}

/// The name is free text in a line comment of the composed module. A NEL (found by
/// `fuzz_generated_materials`), CR, VT or U+2028 in it ended the comment there, and the rest
/// of the name became code that naga refused, blamed on the material's fragment.
#[test]
fn regression_material_name_with_a_wgsl_line_break() {
    for name in ["nel\u{85}fn broken(", "cr\r fn broken(", "vt\u{b}fn broken(", "ls\u{2028}fn broken("] {
        let ron = format!(
            "Material(name: \"{name}\", fragment: \"fn surface(m: ptr<function, MaterialInputs>) {{}}\")"
        );
        let errors = errors_of(&ron);
        assert!(errors.is_empty(), "{name:?}: {}", diagnostics(&errors));
    }
}

/// A `fragment_file` that cannot be reached (a name longer than the OS allows, found by
/// `fuzz_mutated_materials`; a path through a file; a folder) was an `Io` error at line 1 of
/// the path that could not be reached, rather than at the `fragment_file` that names it.
#[test]
fn regression_unreachable_fragment_file_is_reported_where_it_is_named() {
    for file in [format!("{}.wgsl", "a".repeat(300)), "m.ron/x.wgsl".into(), ".".into()] {
        let ron = format!("Material(\n    name: \"M\",\n    fragment_file: \"{file}\",\n)\n");
        let dir = regression_folder("unreachable", &[("m.ron", ron.as_bytes())]);
        let errors = read_material(&dir.join("m.ron")).unwrap_err();
        let [e @ MaterialError::Io { at, .. }] = errors.as_slice() else {
            panic!("{}", diagnostics(&errors))
        };
        assert_eq!((at.path.as_path(), at.line, at.column), (dir.join("m.ron").as_path(), 3, 20), "{file}");
        check_error(e).unwrap();
    }
}

/// Names the engine library declares without a reserved prefix (`BRDF_PI`, `F3dFragment`,
/// `F3dPositionOnly`, found by `fuzz_generated_materials`) passed the checks, and naga then
/// reported a redefinition inside the library.
#[test]
fn regression_library_names_are_reserved() {
    for (list, name, ty) in [
        ("parameters", "BRDF_PI", "Texture2d"),
        ("attributes", "F3dFragment", "Float"),
        ("varyings", "F3dPositionOnly", "Vec2"),
        ("varyings", "SkyboxOutput", "Float"),
        ("parameters", "TONEMAP_ACES", "TextureCube"),
    ] {
        let ron = format!(
            "Material(\n    name: \"M\",\n    {list}: [(name: \"{name}\", type: {ty})],\n    fragment: \"fn surface(m: ptr<function, MaterialInputs>) {{}}\",\n)"
        );
        let errors = errors_of(&ron);
        assert!(
            matches!(errors.as_slice(), [MaterialError::Reserved { at, .. }] if at.line == 3),
            "{name}: {}",
            diagnostics(&errors)
        );
    }
}

/// WGSL's predeclared enumerants (`uniform`, `function`, found by `fuzz_generated_materials`)
/// named a texture or a varying, which shadowed them for the whole module: the library's
/// `var<uniform>` and the material's own `ptr<function, ...>` stopped parsing.
#[test]
fn regression_predeclared_enumerants_are_refused() {
    for name in ["uniform", "function", "private", "read_write", "rgba8unorm"] {
        let ron = format!(
            "Material(\n    name: \"M\",\n    varyings: [(name: \"{name}\", type: Float)],\n    fragment: \"fn surface(m: ptr<function, MaterialInputs>) {{}}\",\n)"
        );
        let errors = errors_of(&ron);
        assert!(
            matches!(errors.as_slice(), [MaterialError::Keyword { at, .. }] if at.line == 3),
            "{name}: {}",
            diagnostics(&errors)
        );
    }
}

/// An attribute or varying called `in` or `out` (found by `fuzz_generated_materials`) clashed
/// with the parameters of the generated copy functions (`in = in.custom_in;`), and naga's
/// error was blamed on the material's fragment.
#[test]
fn regression_varyings_called_in_and_out() {
    let ron = r#"Material(
    name: "M",
    attributes: [(name: "in", type: Float)],
    varyings: [(name: "out", type: Vec2)],
    parameters: [(name: "k", type: Float)],
    vertex: "fn vertex(v: ptr<function, VertexInputs>) { out = vec2<f32>(in, material_params.k); }",
    fragment: "fn surface(m: ptr<function, MaterialInputs>) { (*m).roughness = out.x; }",
)"#;
    let errors = errors_of(ron);
    assert!(errors.is_empty(), "{}", diagnostics(&errors));
}

/// A file ending in a CR and then a byte that is not UTF-8 (found by `fuzz_shader_materials`)
/// was located one column past the end of its line: the line's text leaves the CR out, its
/// column counted it.
#[test]
fn regression_not_utf8_after_a_carriage_return() {
    let errors = parse_material(Path::new("cr.ron"), b"Material(\r\xd5").unwrap_err();
    let at = errors[0].location().unwrap();
    assert_eq!((at.line, at.column, at.line_text.as_str()), (1, 10, "Material("));
}

/// The fuzzers found library names one at a time (`texture_2d` and `texture_cube` too, by
/// `fuzz_generated_materials` in a long run); this tries them all. Every identifier the engine
/// library's WGSL contains, as a texture and as a varying, is either refused by the checks at
/// its name or compiles.
#[test]
fn every_library_identifier_is_refused_or_compiles_as_a_name() {
    let mut names: Vec<String> = library::FILES
        .iter()
        .flat_map(|(_, text)| tokenize(text.as_bytes()))
        .filter(|t| t[0].is_ascii_alphabetic() || t[0] == b'_')
        .filter_map(|t| String::from_utf8(t).ok())
        .filter(|t| !t.contains('.'))
        .collect();
    names.sort();
    names.dedup();
    let mut failures = String::new();
    for name in &names {
        for declaration in [
            format!("parameters: [(name: \"{name}\", type: Texture2d)]"),
            format!("varyings: [(name: \"{name}\", type: Vec4)]"),
        ] {
            let ron = format!(
                "Material(\n    name: \"M\",\n    {declaration},\n    fragment: \"fn surface(m: ptr<function, MaterialInputs>) {{}}\",\n)"
            );
            let material = match parse_material(Path::new("sweep.ron"), ron.as_bytes()) {
                Ok(m) => m,
                Err(errors) if errors.iter().all(|e| e.location().is_some_and(|at| at.line == 3)) => continue,
                Err(errors) => {
                    failures += &diagnostics(&errors);
                    continue;
                }
            };
            if let Err(e) = compile_material(&material, Variant::Color, &CompileOptions::default()) {
                failures += &format!("`{name}` passed the checks, then: {}", e.diagnostic());
            }
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

/// 100,000 prefix operators in a GLSL shader (found by `fuzz_shader_materials` in a long run)
/// overflowed the stack in naga's GLSL parser and aborted the process; so did the same depth of
/// `!`, of `a+a+...`, of `v.x.x...`, of `else if` and of constants naming each other, in WGSL
/// and so in a material's code. They are now refused before naga, where they are.
#[test]
fn regression_deep_nesting_is_refused_before_naga() {
    let glsl = format!(
        "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() {{\n    c = vec4({}1.0);\n}}\n",
        "-".repeat(100_000)
    );
    let e = ShaderMaterial::from_glsl("deep.frag", &glsl).unwrap_err();
    assert!(matches!(&e, MaterialError::TooMany { at, .. } if at.line == 4), "{}", e.diagnostic());

    let consts: String = (0..20_000).map(|i| format!("const c{i} = c{} + 1.0;\n", i + 1)).collect();
    for (shape, line) in [
        (format!("    (*m).roughness = f32({}true);", "!".repeat(20_000)), 3),
        (format!("    (*m).roughness = 1.0{};", " + 1.0".repeat(20_000)), 3),
        (format!("    (*m).roughness = world_normal(){}.x;", ".xyz".repeat(20_000)), 3),
        (format!("    {}{{}}", "if true {} else ".repeat(20_000)), 3),
        (format!("}}\n{consts}const c20000 = 1.0;\nfn unused() {{"), 1),
    ] {
        let ron = format!(
            "Material(\n    name: \"Deep\",\n    fragment: r#\"fn surface(m: ptr<function, MaterialInputs>) {{\n{shape}\n}}\"#,\n)"
        );
        let errors = errors_of(&ron);
        let at = errors.first().and_then(MaterialError::location).map(|at| at.line);
        assert!(
            matches!(errors.as_slice(), [MaterialError::TooMany { .. }, ..]) && at >= Some(line),
            "{}",
            diagnostics(&errors)
        );
    }
}

/// GLSL macros that double at each step (`#define A1 A0 + A0`, …, or a function-like
/// `F(a) a+a` used nested) asked naga's preprocessor for millions of tokens from a few lines,
/// and its parser for as many levels: the process aborted on a stack overflow. Each use is now
/// counted before naga and refused past `MAX_MACRO_EXPANSION` tokens at the line that uses it;
/// a use just inside the limit and ordinary macros still compile.
#[test]
fn regression_macro_expansion_is_bounded_before_naga() {
    use f3d_materials::nesting::MAX_MACRO_EXPANSION;
    let shader = |defines: String, value: &str| {
        format!(
            "#version 450\n{defines}layout(location = 0) out vec4 o;\nvoid main() {{\n    float x = 1.0;\n    o = vec4({value});\n}}\n"
        )
    };
    let doubling = |steps: usize| -> String {
        (1..=steps).map(|i| format!("#define A{i} A{} + A{}\n", i - 1, i - 1)).collect()
    };
    let nested = (0..22).fold("x".to_owned(), |e, _| format!("F({e})"));
    let chain: String =
        (1..=22).map(|i| format!("#define F{i}(a) F{}(a) + F{}(a)\n", i - 1, i - 1)).collect();
    let bombs = [
        ("object-like", shader(format!("#define A0 x\n{}", doubling(22)), "A22"), 8_388_607),
        ("function-like, nested", shader("#define F(a) a+a\n".into(), &nested), 8_388_607),
        ("function-like, chained", shader(format!("#define F0(a) a+a\n{chain}"), "F22(x)"), 16_777_215),
        ("inside the limit twice", shader(format!("#define A0 x\n{}", doubling(9)), "A9 + A9"), 0),
    ];
    for (what, glsl, count) in bombs {
        match ShaderMaterial::from_glsl("bomb.frag", &glsl) {
            Err(MaterialError::TooMany { at, count: c, limit, .. }) if count > 0 => {
                let line = glsl.lines().position(|l| l.contains("o = vec4(")).map(|l| l + 1);
                assert_eq!((Some(at.line as usize), c, limit), (line, count, MAX_MACRO_EXPANSION), "{what}");
            }
            Ok(_) if count == 0 => {}
            other => panic!("{what}: {:?}", other.map(|_| ()).map_err(|e| e.diagnostic())),
        }
    }
    let ordinary = "#version 450\n#define ONE 1.0\n#define MIX(a, b) mix(a, b, 0.5)\n\
                    layout(location = 0) out vec4 o;\nvoid main() { o = vec4(MIX(ONE, 0.0)); }\n";
    ShaderMaterial::from_glsl("ordinary.frag", ordinary).expect("ordinary macros compile");
}
