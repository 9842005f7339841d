//! What checks share: making, clearing and reading textures, and judging refusals.

use f3d_hal::{
    Color, ColorAttachment, DeviceError, DeviceFeature, GraphicsDevice, ReadbackImage, RenderPassDescriptor,
    TextureDescriptor, TextureFormat, TextureHandle, TextureRegion, f32_to_f16,
};

use crate::{CheckResult, Context, Verdict};

/// An 8-bit RGBA texture usable for everything.
pub(crate) fn rgba8(device: &dyn GraphicsDevice, w: u32, h: u32) -> Result<TextureHandle, Verdict> {
    device
        .create_texture(&TextureDescriptor::new_2d("conformance target", w, h, TextureFormat::Rgba8Unorm))
        .ctx("create_texture")
}

/// Clears level `level` of layer `layer` of `texture` to `color` in a pass of its own.
pub(crate) fn clear_at(
    device: &dyn GraphicsDevice,
    texture: &TextureHandle,
    level: u32,
    layer: u32,
    color: Color,
) -> CheckResult {
    let mut attachment = ColorAttachment::clear(texture, color);
    attachment.view.mip_level = level;
    attachment.view.layer = layer;
    let pass = device
        .begin_render_pass(&RenderPassDescriptor::color("clear", attachment))
        .ctx("begin_render_pass")?;
    pass.submit().ctx("submit")
}

/// Clears level 0, layer 0.
pub(crate) fn clear(device: &dyn GraphicsDevice, texture: &TextureHandle, color: Color) -> CheckResult {
    clear_at(device, texture, 0, 0, color)
}

/// Reads back all of level `level` of layer `layer`.
pub(crate) fn read_at(
    device: &dyn GraphicsDevice,
    texture: &TextureHandle,
    level: u32,
    layer: u32,
) -> Result<ReadbackImage, Verdict> {
    let region = TextureRegion::level(texture.descriptor(), level, layer);
    let image = device.readback(texture, region).ctx("readback")?.wait().ctx("readback wait")?;
    crate::ensure!(
        (image.width, image.height) == (region.width, region.height),
        "readback of {}x{} came back {}x{}",
        region.width,
        region.height,
        image.width,
        image.height
    );
    Ok(image)
}

/// Reads back level 0, layer 0.
pub(crate) fn read(device: &dyn GraphicsDevice, texture: &TextureHandle) -> Result<ReadbackImage, Verdict> {
    read_at(device, texture, 0, 0)
}

/// Fails unless every texel of an RGBA8 image equals `expected`.
pub(crate) fn expect_uniform(image: &ReadbackImage, expected: [u8; 4], what: &str) -> CheckResult {
    for y in 0..image.height {
        for x in 0..image.width {
            let got = image.rgba8(x, y);
            crate::ensure!(got == expected, "{what}: texel ({x}, {y}) is {got:?}, expected {expected:?}");
        }
    }
    Ok(())
}

/// The RGBA8 bytes a clear of `c` leaves in a linear 8-bit texture, by hand.
pub(crate) fn unorm8(c: Color) -> [u8; 4] {
    let q = |v: f64| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    [q(c.r), q(c.g), q(c.b), q(c.a)]
}

/// Judges a refusal that must name `feature`.
pub(crate) fn expect_unsupported<T>(
    device: &dyn GraphicsDevice,
    result: Result<T, DeviceError>,
    feature: DeviceFeature,
    what: &str,
) -> CheckResult {
    match result {
        Err(DeviceError::Unsupported { feature: named, backend }) if named == feature => {
            crate::ensure!(
                backend == device.backend_id(),
                "{what} was refused as {feature} by backend {backend}, but the device is {}",
                device.backend_id()
            );
            Ok(())
        }
        Err(DeviceError::Unsupported { feature: named, .. }) => Err(Verdict::Failed(format!(
            "{what} was refused naming {named}, but the feature it needs is {feature}"
        ))),
        Err(other) => Err(Verdict::Failed(format!(
            "{what} must be refused as Unsupported({feature}) since the device does not report it; got: {other}"
        ))),
        Ok(_) => {
            Err(Verdict::Failed(format!("{what} succeeded although the device does not report {feature}")))
        }
    }
}

/// Deterministic pseudo-random numbers for patterns (xorshift; no dependency, same everywhere).
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub(crate) fn next_u32(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

/// `w`×`h` texels of `format` that survive any copy exactly: any bytes for normalised and
/// integer formats, representable non-NaN values for float formats.
pub(crate) fn pattern(format: TextureFormat, w: u32, h: u32, seed: u64) -> Vec<u8> {
    use TextureFormat as F;
    let mut rng = Rng::new(seed);
    let texels = (w * h) as usize;
    let mut value = || (rng.next_u32() % 2001) as f32 / 8.0 - 125.0;
    match format {
        F::R16Float | F::Rg16Float | F::Rgba16Float => {
            let n = texels * format.facts().components as usize;
            (0..n).flat_map(|_| f32_to_f16(value()).to_le_bytes()).collect()
        }
        F::R32Float | F::Rg32Float | F::Rgba32Float => {
            let n = texels * format.facts().components as usize;
            (0..n).flat_map(|_| value().to_le_bytes()).collect()
        }
        _ => {
            let n = format.image_bytes(w, h) as usize;
            let mut rng = Rng::new(seed ^ 0xabcd);
            (0..n).map(|_| rng.next_u32() as u8).collect()
        }
    }
}
