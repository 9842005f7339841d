//! Material hot reload, save → new frame (DESIGN §5 "Hot reload"; target ≤ 50 ms), on the
//! soft backend, for the water material (lit, scene colour and depth, the noise library) and
//! the toon material (unlit, one texture).
//!
//! The scene is `f3d watch`'s preview (`f3d_examples::material_preview`: the material on a
//! sphere on a shadowed ground plane under the procedural sky with IBL) at 256×256.
//!
//! Timed, per iteration: `MaterialStore::request_reload` (as if the file had been saved, with
//! the watcher's debounce left out), then `App::update` until the update whose frame draws the
//! new version (its `MaterialEvent::Reloaded` arrives; the swap happens in that frame's
//! extraction, so that frame is drawn with it). That covers re-reading the `.ron`,
//! re-composing, naga parse and validation, the backend compile, rebuilding the material's
//! pipelines and drawing one frame. `frame_only` is the same update with no reload, to show
//! what of the figure is the frame itself.
//!
//! Run: `cargo bench -p f3d_benches --bench hot_reload`

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group};
use f3d::f3d_hal::BackendId;
use f3d::prelude::*;
use f3d_examples::{Preview, PreviewEvent, PreviewSettings};

const SIZE: (u32, u32) = (256, 256);

/// A preview of `file` (in `examples/assets/materials`) on soft, after its first load.
fn preview(file: &str) -> Preview {
    let path = f3d_examples::assets_dir().join("materials").join(file);
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
    preview
}

/// The timed part: a reload request, then frames until the one drawing the new version.
fn reload_to_frame(preview: &mut Preview) {
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
    for (name, file) in [("water", "water.ron"), ("toon", "toon.ron")] {
        let mut p = preview(file);
        group.bench_function(BenchmarkId::new("save_to_frame_soft_256", name), |b| {
            b.iter(|| reload_to_frame(&mut p));
        });
        group.bench_function(BenchmarkId::new("frame_only_soft_256", name), |b| {
            b.iter(|| p.step());
        });
    }
    group.finish();
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
