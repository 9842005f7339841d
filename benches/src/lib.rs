//! f3d benchmarks: shared helpers for the criterion benches in `benches/`.
