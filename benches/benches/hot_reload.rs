//! Material hot reload, save → new frame (DESIGN §5 "Hot reload"; target ≤ 50 ms), on the
//! soft backend, for the water material (lit, scene colour and depth, the noise library), the
//! toon material (unlit, one texture) and the brass material (lit, an included file).
//!
//! The scene is `f3d watch`'s preview (`f3d_examples::material_preview`: the material on a
//! sphere on a shadowed ground plane under the procedural sky with IBL) at 256×256.
//!
//! Timed, per iteration: an edit saved (the material's fragment code gains a comment line
//! naming the iteration, so its text and composed shader are new and nothing compiled before
//! can be reused — an unchanged file is recognised and costs nothing), then
//! `MaterialStore::request_reload` (as if the watcher had seen the save, its debounce left
//! out), then `App::update` until the update whose frame draws the new version (its `MaterialEvent::Reloaded` arrives; the swap happens in that frame's
//! extraction, so that frame is drawn with it). That covers re-reading the `.ron`,
//! re-composing, naga parse and validation, the backend compile, rebuilding the material's
//! pipelines and drawing one frame. `frame_only` is the same update with no reload, to show
//! what of the figure is the frame itself. The materials are copied to a temporary folder
//! first (they are edited), and the shader cache lives in another one (each edit adds an
//! entry, as a user's does).
//!
//! Run: `cargo bench -p f3d_benches --bench hot_reload`

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group};
use f3d::f3d_hal::BackendId;
use f3d::prelude::*;
use f3d_examples::{Preview, PreviewEvent, PreviewSettings};

const SIZE: (u32, u32) = (256, 256);

/// A copy of `examples/assets/materials` the bench may edit.
fn materials_copy() -> PathBuf {
    let from = f3d_examples::assets_dir().join("materials");
    let to = std::env::temp_dir().join(format!("f3d-hot-reload-{}", std::process::id()));
    std::fs::create_dir_all(&to).expect("a temporary folder");
    for entry in std::fs::read_dir(&from).expect("the example materials") {
        let path = entry.expect("a directory entry").path();
        if path.is_file() {
            std::fs::copy(&path, to.join(path.file_name().expect("a file name"))).expect("copied");
        }
    }
    to
}

/// The file holding a material's fragment code, being edited: its original text and how
/// many edits were saved.
struct Edited {
    path: PathBuf,
    text: String,
    edits: u64,
}

impl Edited {
    /// The fragment code of the material at `material`: inline in the `.ron`, or the `.wgsl`
    /// beside it that `fragment_file` names.
    fn fragment_of(material: &Path) -> Self {
        let text = std::fs::read_to_string(material).expect("the material");
        let path = match text.split("fragment_file: \"").nth(1).and_then(|rest| rest.split('"').next()) {
            Some(file) => material.with_file_name(file),
            None => material.to_owned(),
        };
        Self { text: std::fs::read_to_string(&path).expect("the fragment code"), path, edits: 0 }
    }

    /// Saves the original text with one more comment line at the top of the fragment code.
    fn save_edit(&mut self) {
        self.edits += 1;
        let comment = format!("// edit {}\n", self.edits);
        let marker = "fragment: r#\"\n";
        let edited = if self.path.extension().is_some_and(|e| e == "wgsl") {
            format!("{comment}{}", self.text)
        } else {
            self.text.replacen(marker, &format!("{marker}{comment}"), 1)
        };
        assert_ne!(edited, self.text, "{} has fragment code", self.path.display());
        std::fs::write(&self.path, edited).expect("the edit is saved");
    }
}

/// A preview of `file` (in `dir`) on soft, after its first load.
fn preview(dir: &Path, file: &str) -> (Preview, Edited) {
    let path = dir.join(file);
    let edited = Edited::fragment_of(&path);
    let settings = PreviewSettings {
        size: SIZE,
        backend: BackendChoice::Named(BackendId::from_name("soft")),
        ..PreviewSettings::new(path)
    };
    let mut preview = Preview::start(settings, None).expect("the soft backend opens");
    match preview.next_event(Duration::from_secs(60)) {
        Ok(Some(PreviewEvent::Reloaded { .. })) => {}
        other => panic!("{file} did not load: {other:?}"),
    }
    (preview, edited)
}

/// The timed part: an edit saved, a reload request, then frames until the one drawing the
/// new version.
fn reload_to_frame(preview: &mut Preview, edited: &mut Edited) {
    edited.save_edit();
    assert!(preview.request_reload(), "the material is registered with the store");
    for _ in 0..8 {
        if preview.step().iter().any(|e| matches!(e, MaterialEvent::Reloaded { .. })) {
            return;
        }
    }
    panic!("no reload within 8 frames");
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("hot_reload");
    group.sample_size(20).measurement_time(Duration::from_secs(8));
    let dir = materials_copy();
    for (name, file) in [("water", "water.ron"), ("toon", "toon.ron"), ("brass", "brass.ron")] {
        let (mut p, mut edited) = preview(&dir, file);
        group.bench_function(BenchmarkId::new("save_to_frame_soft_256", name), |b| {
            b.iter(|| reload_to_frame(&mut p, &mut edited));
        });
        group.bench_function(BenchmarkId::new("frame_only_soft_256", name), |b| {
            b.iter(|| p.step());
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);

fn main() {
    // Each edit is a new shader: keep its cache entries out of the user's cache.
    let cache = std::env::temp_dir().join(format!("f3d-hot-reload-cache-{}", std::process::id()));
    // SAFETY: set before any other thread of this process exists.
    unsafe { std::env::set_var("F3D_CACHE_DIR", &cache) };
    benches();
    let _ = std::fs::remove_dir_all(&cache);
    Criterion::default().configure_from_args().final_summary();
}
