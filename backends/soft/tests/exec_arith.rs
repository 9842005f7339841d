//! Arithmetic, builtins, composites and conversions: each shader's outputs against the same
//! arithmetic done in Rust.

mod exec_support;

use exec_support::*;

#[test]
fn float_arithmetic_per_lane() {
    let p = fragment(
        r#"
        @fragment fn fs(@location(0) a: f32, @location(1) b: f32) -> @location(0) vec4<f32> {
            return vec4<f32>(a + b * 2.0, a - b, a / b, a % b);
        }"#,
    );
    let a = lanes(|l| l as f32 * 0.75 - 10.0);
    let b = lanes(|l| (l as f32 - 31.5) * 0.3);
    let ex = run(&p, &[vec![a], vec![b]], &[]);
    for l in 0..64 {
        assert_eq!(out(&ex, 0, 0)[l], a[l] + b[l] * 2.0);
        assert_eq!(out(&ex, 0, 1)[l], a[l] - b[l]);
        assert_eq!(out(&ex, 0, 2)[l], a[l] / b[l]);
        assert_eq!(out(&ex, 0, 3)[l], a[l] - b[l] * (a[l] / b[l]).trunc());
    }
}
