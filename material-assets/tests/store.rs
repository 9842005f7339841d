//! The material store without a renderer: loads, dependencies, reloads on file events, a
//! failure reported once with the last good version kept, a first load that failed loading
//! when fixed. Each test works in its own temporary folder and waits on the watcher with a
//! bounded timeout.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use f3d_materials::format::DefaultValue;
use f3d_materials::{
    CompileOptions, MaterialError, MaterialSourceId, MaterialStore, SoftCompiler, StoreEvent, Variant,
    WatchSettings,
};

const TIMEOUT: Duration = Duration::from_secs(10);

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("f3d_store_{name}_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
    fn write(&self, file: &str, text: &str) -> PathBuf {
        let p = self.0.join(file);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn store() -> MaterialStore {
    MaterialStore::new(
        CompileOptions { instanced: true, ..CompileOptions::default() },
        Some(Arc::new(SoftCompiler)),
        WatchSettings { watch: true, debounce: Duration::from_millis(20) },
    )
}

fn ron(color: &str) -> String {
    format!(
        "Material(name: \"Flat\", shading_model: Unlit, parameters: [(name: \"color\", type: Vec4, default: {color})], fragment_file: \"flat.wgsl\")"
    )
}

const FLAT: &str = "#include \"helpers.wgsl\"\nfn surface(m: ptr<function, MaterialInputs>) { (*m).base_color = helper(material_params.color); }\n";
const HELPERS: &str = "fn helper(c: vec4<f32>) -> vec4<f32> { return c; }\n";

/// Polls until an event arrives (bounded).
fn next(store: &mut MaterialStore) -> StoreEvent {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(e) = store.poll().into_iter().next() {
            return e;
        }
        assert!(Instant::now() < deadline, "no store event within {TIMEOUT:?}");
        store.wait(Duration::from_millis(50));
    }
}

/// The first parameter's default, as numbers: `[1.0, 0.0, 0.0, 1.0]`.
fn default_of(store: &MaterialStore, id: MaterialSourceId) -> String {
    let v = store.get(id).expect("a good version");
    match &v.loaded.desc.parameters[0].default {
        Some(DefaultValue::List(items)) => {
            let n: Vec<String> = items
                .iter()
                .map(|i| match i {
                    DefaultValue::Float(f) => format!("{f:?}"),
                    other => format!("{other:?}"),
                })
                .collect();
            format!("[{}]", n.join(", "))
        }
        other => format!("{other:?}"),
    }
}

#[test]
fn loads_lists_dependencies_and_reloads_an_include() {
    let dir = Dir::new("deps");
    let ron_path = dir.write("flat.ron", &ron("[1.0, 0.0, 0.0, 1.0]"));
    dir.write("flat.wgsl", FLAT);
    dir.write("helpers.wgsl", HELPERS);
    let mut s = store();
    let id = s.load(&ron_path);
    assert!(matches!(s.poll().as_slice(), [StoreEvent::Loaded { name, .. }] if name == "Flat"));
    assert_eq!(s.load(&dir.0.join(".").join("flat.ron")), id, "one source per file");
    let names: Vec<&str> = s.dependencies(id).iter().filter_map(|p| p.file_name()?.to_str()).collect();
    assert_eq!(names, ["flat.ron", "flat.wgsl", "helpers.wgsl"]);
    let first = s.get(id).unwrap().clone();
    assert_eq!(first.generation, 1);
    assert!(first.variant(Variant::Shadow).files.iter().any(|f| f.ends_with("helpers.wgsl")));
    dir.write("helpers.wgsl", "fn helper(c: vec4<f32>) -> vec4<f32> { return c.bgra; }\n");
    assert!(matches!(next(&mut s), StoreEvent::Reloaded { .. }));
    let second = s.get(id).unwrap();
    assert_eq!(second.generation, 2);
    assert!(second.variant(Variant::Color).source.text().contains("c.bgra"));
}

#[test]
fn a_failure_keeps_the_last_good_version_and_is_reported_once() {
    let dir = Dir::new("failure");
    let ron_path = dir.write("flat.ron", &ron("[1.0, 0.0, 0.0, 1.0]"));
    dir.write("flat.wgsl", FLAT);
    dir.write("helpers.wgsl", HELPERS);
    let mut s = store();
    let id = s.load(&ron_path);
    s.poll();
    dir.write("flat.ron", "Material(name: \"Flat\", shading_model: Unlit, fragment_file: \"flat.wgsl\",,)");
    match next(&mut s) {
        StoreEvent::Failed { error: MaterialError::Syntax { at, .. }, .. } => {
            assert_eq!((at.path.as_path(), at.line), (ron_path.as_path(), 1));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.get(id).unwrap().generation, 1, "the last good version stays");
    // The same broken text again: nothing new to say.
    dir.write("flat.ron", "Material(name: \"Flat\", shading_model: Unlit, fragment_file: \"flat.wgsl\",,)");
    s.wait(Duration::from_millis(500));
    std::thread::sleep(Duration::from_millis(50));
    assert!(s.poll().is_empty(), "the same error was reported twice");
    // A deleted dependency is a failure too, and the good save after it recovers.
    dir.write("flat.ron", &ron("[0.0, 1.0, 0.0, 1.0]"));
    assert!(matches!(next(&mut s), StoreEvent::Reloaded { .. }));
    std::fs::remove_file(dir.0.join("helpers.wgsl")).unwrap();
    match next(&mut s) {
        StoreEvent::Failed { error, .. } => {
            assert!(matches!(error, MaterialError::IncludeNotFound { .. }), "{error:?}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(default_of(&s, id), "[0.0, 1.0, 0.0, 1.0]", "the last good version stays");
    dir.write("helpers.wgsl", HELPERS);
    assert!(matches!(next(&mut s), StoreEvent::Reloaded { .. }));
}

#[test]
fn a_first_load_that_failed_loads_when_the_missing_file_appears() {
    let dir = Dir::new("first");
    let ron_path = dir.write("flat.ron", &ron("[1.0, 0.0, 0.0, 1.0]"));
    dir.write("helpers.wgsl", HELPERS);
    let mut s = store();
    let id = s.load(&ron_path);
    match s.poll().as_slice() {
        [StoreEvent::Failed { error: MaterialError::MissingFile { file, .. }, .. }] => {
            assert_eq!(file, "flat.wgsl")
        }
        other => panic!("{other:?}"),
    }
    assert!(s.get(id).is_none());
    dir.write("flat.wgsl", FLAT);
    assert!(matches!(next(&mut s), StoreEvent::Loaded { .. }));
    assert_eq!(s.get(id).unwrap().generation, 1);
}

#[test]
fn a_requested_reload_needs_no_watcher() {
    let dir = Dir::new("request");
    let ron_path = dir.write("flat.ron", &ron("[1.0, 0.0, 0.0, 1.0]"));
    dir.write("flat.wgsl", FLAT);
    dir.write("helpers.wgsl", HELPERS);
    let mut s = MaterialStore::new(
        CompileOptions::default(),
        None,
        WatchSettings { watch: false, ..WatchSettings::default() },
    );
    let id = s.load(&ron_path);
    assert!(!s.is_watching());
    s.poll();
    dir.write("flat.ron", &ron("[0.0, 0.0, 1.0, 1.0]"));
    assert!(s.poll().is_empty(), "not watching");
    s.request_reload(id);
    assert!(matches!(s.poll().as_slice(), [StoreEvent::Reloaded { .. }]));
    assert_eq!(default_of(&s, id), "[0.0, 0.0, 1.0, 1.0]");
}

#[test]
fn a_missing_material_file_never_panics_and_names_the_file() {
    let dir = Dir::new("missing");
    let mut s = store();
    let path = dir.0.join("nothing.ron");
    let id = s.load(&path);
    match s.poll().as_slice() {
        [StoreEvent::Failed { error, path: p, .. }] => {
            assert_eq!(p.as_path(), path.as_path());
            let line = f3d_materials::one_line_error(p, error);
            assert!(line.starts_with(&format!("{}:1:1: cannot read material", path.display())), "{line}");
        }
        other => panic!("{other:?}"),
    }
    assert!(s.get(id).is_none());
}

#[test]
fn a_save_that_changes_nothing_is_not_a_reload() {
    let dir = Dir::new("same");
    let ron_path = dir.write("flat.ron", &ron("[1.0, 0.0, 0.0, 1.0]"));
    dir.write("flat.wgsl", FLAT);
    dir.write("helpers.wgsl", HELPERS);
    let mut s = store();
    let id = s.load(&ron_path);
    assert!(matches!(s.poll().as_slice(), [StoreEvent::Loaded { .. }]));
    // The same bytes again (an editor's re-save, a touched include): nothing new.
    dir.write("helpers.wgsl", HELPERS);
    assert!(s.wait(TIMEOUT), "the watcher saw no save");
    assert!(s.poll().is_empty(), "an unchanged save made a new version");
    assert_eq!(s.get(id).unwrap().generation, 1);
    // Unless asked for.
    s.request_reload(id);
    assert!(matches!(s.poll().as_slice(), [StoreEvent::Reloaded { .. }]));
    assert_eq!(s.get(id).unwrap().generation, 2);
    dir.write("flat.ron", &ron("[0.0, 1.0, 0.0, 1.0]"));
    assert!(matches!(next(&mut s), StoreEvent::Reloaded { .. }));
    assert_eq!(s.get(id).unwrap().generation, 3);
}
