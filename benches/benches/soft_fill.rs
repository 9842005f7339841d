//! Soft-rasteriser fill rate at 1280x720: (a) flat colour, (b) four perspective varyings
//! with a depth test, (c) Blinn-Phong with a trilinear-sampled mipmapped texture, each on one
//! thread and on every core. Each iteration draws four full-screen quads in one pass, so the
//! clear is amortised; throughput is pixels shaded per second.
//!
//! `cargo bench -p f3d_benches --bench soft_fill`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use f3d_backend_soft::SoftDevice;
use f3d_benches::soft_fill::{H, QUADS, W, frame, scene};

fn fill(c: &mut Criterion) {
    for (threads, device) in
        [("1 thread", SoftDevice::single_threaded("fill")), ("all cores", SoftDevice::new("fill"))]
    {
        let s = scene(std::sync::Arc::new(device));
        let mut group = c.benchmark_group(format!("soft_fill/{threads}"));
        group.throughput(Throughput::Elements(u64::from(W * H * QUADS)));
        group.sample_size(20);
        group.bench_function("a_flat", |b| b.iter(|| frame(black_box(&s), &s.flat, false)));
        group.bench_function("b_four_varyings_depth", |b| b.iter(|| frame(black_box(&s), &s.four, true)));
        group.bench_function("c_blinn_phong_texture", |b| b.iter(|| frame(black_box(&s), &s.lit, false)));
        group.finish();
    }
}

criterion_group!(benches, fill);
criterion_main!(benches);
