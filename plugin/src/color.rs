//! Colour helpers: f3d's colours are linear RGBA `[f32; 4]`.

/// A linear colour from sRGB-encoded components in 0–1 (what colour pickers show).
pub fn srgb(r: f32, g: f32, b: f32) -> [f32; 4] {
    let d = |v: f32| f3d_hal::srgb_to_linear(f64::from(v)) as f32;
    [d(r), d(g), d(b), 1.0]
}

/// A linear colour from sRGB-encoded 8-bit components (`0xRRGGBB`).
pub fn srgb_hex(rgb: u32) -> [f32; 4] {
    let c = |shift: u32| ((rgb >> shift) & 0xff) as f32 / 255.0;
    srgb(c(16), c(8), c(0))
}
