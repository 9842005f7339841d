//! HAL enums → Vulkan enums. Pure functions, no device: what each HAL word means in Vulkan.

use ash::vk;
use f3d_hal::{
    AddressMode, BlendFactor, BlendOperation, ColorWrites, CompareFunction, CullMode, FilterMode, FrontFace,
    IndexFormat, PolygonMode, PresentMode, PrimitiveTopology, StencilOperation, TextureDimension,
    TextureFormat, VertexFormat, VertexStepMode,
};

/// The Vulkan formats a HAL format may be stored in, best first. Depth formats with "at least"
/// precision have two: the device keeps the first it can render depth into.
pub(crate) fn format_candidates(format: TextureFormat) -> &'static [vk::Format] {
    use TextureFormat as F;
    match format {
        F::R8Unorm => &[vk::Format::R8_UNORM],
        F::Rg8Unorm => &[vk::Format::R8G8_UNORM],
        F::Rgba8Unorm => &[vk::Format::R8G8B8A8_UNORM],
        F::Rgba8UnormSrgb => &[vk::Format::R8G8B8A8_SRGB],
        F::Bgra8Unorm => &[vk::Format::B8G8R8A8_UNORM],
        F::Bgra8UnormSrgb => &[vk::Format::B8G8R8A8_SRGB],
        // Vulkan's A2B10G10R10 packs red in the low bits, as the HAL's readback rule reads it.
        F::Rgb10a2Unorm => &[vk::Format::A2B10G10R10_UNORM_PACK32],
        F::R16Float => &[vk::Format::R16_SFLOAT],
        F::Rg16Float => &[vk::Format::R16G16_SFLOAT],
        F::Rgba16Float => &[vk::Format::R16G16B16A16_SFLOAT],
        F::R32Float => &[vk::Format::R32_SFLOAT],
        F::Rg32Float => &[vk::Format::R32G32_SFLOAT],
        F::Rgba32Float => &[vk::Format::R32G32B32A32_SFLOAT],
        F::R32Uint => &[vk::Format::R32_UINT],
        F::R32Sint => &[vk::Format::R32_SINT],
        F::Rgba32Uint => &[vk::Format::R32G32B32A32_UINT],
        F::Depth16Unorm => &[vk::Format::D16_UNORM],
        F::Depth24Plus => &[vk::Format::D32_SFLOAT, vk::Format::X8_D24_UNORM_PACK32],
        F::Depth24PlusStencil8 => &[vk::Format::D24_UNORM_S8_UINT, vk::Format::D32_SFLOAT_S8_UINT],
        F::Depth32Float => &[vk::Format::D32_SFLOAT],
        F::Depth32FloatStencil8 => &[vk::Format::D32_SFLOAT_S8_UINT],
        F::Bc1RgbaUnorm => &[vk::Format::BC1_RGBA_UNORM_BLOCK],
        F::Bc1RgbaUnormSrgb => &[vk::Format::BC1_RGBA_SRGB_BLOCK],
        F::Bc3RgbaUnorm => &[vk::Format::BC3_UNORM_BLOCK],
        F::Bc3RgbaUnormSrgb => &[vk::Format::BC3_SRGB_BLOCK],
        F::Bc5RgUnorm => &[vk::Format::BC5_UNORM_BLOCK],
        F::Bc7RgbaUnorm => &[vk::Format::BC7_UNORM_BLOCK],
        F::Bc7RgbaUnormSrgb => &[vk::Format::BC7_SRGB_BLOCK],
        _ => &[],
    }
}

/// Every aspect of a format.
pub(crate) fn aspects(format: TextureFormat) -> vk::ImageAspectFlags {
    if format.has_stencil() {
        vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
    } else if format.has_depth() {
        vk::ImageAspectFlags::DEPTH
    } else {
        vk::ImageAspectFlags::COLOR
    }
}

/// The aspect shaders sample: depth only for depth formats.
pub(crate) fn sampled_aspect(format: TextureFormat) -> vk::ImageAspectFlags {
    if format.has_depth() { vk::ImageAspectFlags::DEPTH } else { vk::ImageAspectFlags::COLOR }
}

pub(crate) fn view_type(dimension: TextureDimension) -> vk::ImageViewType {
    match dimension {
        TextureDimension::D2 => vk::ImageViewType::TYPE_2D,
        TextureDimension::D2Array => vk::ImageViewType::TYPE_2D_ARRAY,
        TextureDimension::Cube => vk::ImageViewType::CUBE,
    }
}

pub(crate) fn samples(count: u32) -> vk::SampleCountFlags {
    match count {
        4 => vk::SampleCountFlags::TYPE_4,
        _ => vk::SampleCountFlags::TYPE_1,
    }
}

pub(crate) fn address_mode(mode: AddressMode) -> vk::SamplerAddressMode {
    match mode {
        AddressMode::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
        AddressMode::Repeat => vk::SamplerAddressMode::REPEAT,
        AddressMode::MirrorRepeat => vk::SamplerAddressMode::MIRRORED_REPEAT,
    }
}

pub(crate) fn filter(mode: FilterMode) -> vk::Filter {
    match mode {
        FilterMode::Nearest => vk::Filter::NEAREST,
        FilterMode::Linear => vk::Filter::LINEAR,
    }
}

pub(crate) fn mipmap_mode(mode: FilterMode) -> vk::SamplerMipmapMode {
    match mode {
        FilterMode::Nearest => vk::SamplerMipmapMode::NEAREST,
        FilterMode::Linear => vk::SamplerMipmapMode::LINEAR,
    }
}

pub(crate) fn compare_op(compare: CompareFunction) -> vk::CompareOp {
    match compare {
        CompareFunction::Never => vk::CompareOp::NEVER,
        CompareFunction::Less => vk::CompareOp::LESS,
        CompareFunction::Equal => vk::CompareOp::EQUAL,
        CompareFunction::LessEqual => vk::CompareOp::LESS_OR_EQUAL,
        CompareFunction::Greater => vk::CompareOp::GREATER,
        CompareFunction::NotEqual => vk::CompareOp::NOT_EQUAL,
        CompareFunction::GreaterEqual => vk::CompareOp::GREATER_OR_EQUAL,
        CompareFunction::Always => vk::CompareOp::ALWAYS,
    }
}

pub(crate) fn stencil_op(op: StencilOperation) -> vk::StencilOp {
    match op {
        StencilOperation::Keep => vk::StencilOp::KEEP,
        StencilOperation::Zero => vk::StencilOp::ZERO,
        StencilOperation::Replace => vk::StencilOp::REPLACE,
        StencilOperation::Invert => vk::StencilOp::INVERT,
        StencilOperation::IncrementClamp => vk::StencilOp::INCREMENT_AND_CLAMP,
        StencilOperation::DecrementClamp => vk::StencilOp::DECREMENT_AND_CLAMP,
        StencilOperation::IncrementWrap => vk::StencilOp::INCREMENT_AND_WRAP,
        StencilOperation::DecrementWrap => vk::StencilOp::DECREMENT_AND_WRAP,
    }
}

pub(crate) fn blend_factor(factor: BlendFactor) -> vk::BlendFactor {
    match factor {
        BlendFactor::Zero => vk::BlendFactor::ZERO,
        BlendFactor::One => vk::BlendFactor::ONE,
        BlendFactor::Src => vk::BlendFactor::SRC_COLOR,
        BlendFactor::OneMinusSrc => vk::BlendFactor::ONE_MINUS_SRC_COLOR,
        BlendFactor::SrcAlpha => vk::BlendFactor::SRC_ALPHA,
        BlendFactor::OneMinusSrcAlpha => vk::BlendFactor::ONE_MINUS_SRC_ALPHA,
        BlendFactor::Dst => vk::BlendFactor::DST_COLOR,
        BlendFactor::OneMinusDst => vk::BlendFactor::ONE_MINUS_DST_COLOR,
        BlendFactor::DstAlpha => vk::BlendFactor::DST_ALPHA,
        BlendFactor::OneMinusDstAlpha => vk::BlendFactor::ONE_MINUS_DST_ALPHA,
        BlendFactor::SrcAlphaSaturated => vk::BlendFactor::SRC_ALPHA_SATURATE,
        BlendFactor::Constant => vk::BlendFactor::CONSTANT_COLOR,
        BlendFactor::OneMinusConstant => vk::BlendFactor::ONE_MINUS_CONSTANT_COLOR,
    }
}

pub(crate) fn blend_op(op: BlendOperation) -> vk::BlendOp {
    match op {
        BlendOperation::Add => vk::BlendOp::ADD,
        BlendOperation::Subtract => vk::BlendOp::SUBTRACT,
        BlendOperation::ReverseSubtract => vk::BlendOp::REVERSE_SUBTRACT,
        BlendOperation::Min => vk::BlendOp::MIN,
        BlendOperation::Max => vk::BlendOp::MAX,
    }
}

pub(crate) fn color_writes(mask: ColorWrites) -> vk::ColorComponentFlags {
    let mut out = vk::ColorComponentFlags::empty();
    if mask.contains(ColorWrites::RED) {
        out |= vk::ColorComponentFlags::R;
    }
    if mask.contains(ColorWrites::GREEN) {
        out |= vk::ColorComponentFlags::G;
    }
    if mask.contains(ColorWrites::BLUE) {
        out |= vk::ColorComponentFlags::B;
    }
    if mask.contains(ColorWrites::ALPHA) {
        out |= vk::ColorComponentFlags::A;
    }
    out
}

pub(crate) fn topology(topology: PrimitiveTopology) -> vk::PrimitiveTopology {
    match topology {
        PrimitiveTopology::PointList => vk::PrimitiveTopology::POINT_LIST,
        PrimitiveTopology::LineList => vk::PrimitiveTopology::LINE_LIST,
        PrimitiveTopology::LineStrip => vk::PrimitiveTopology::LINE_STRIP,
        PrimitiveTopology::TriangleList => vk::PrimitiveTopology::TRIANGLE_LIST,
        PrimitiveTopology::TriangleStrip => vk::PrimitiveTopology::TRIANGLE_STRIP,
    }
}

/// The front winding. Shaders flip clip-space y (naga's `ADJUST_COORDINATE_SPACE`), so what
/// is counter-clockwise in the HAL's y-up clip space is counter-clockwise on screen, which is
/// what Vulkan's `COUNTER_CLOCKWISE` means in its y-down framebuffer.
pub(crate) fn front_face(face: FrontFace) -> vk::FrontFace {
    match face {
        FrontFace::Ccw => vk::FrontFace::COUNTER_CLOCKWISE,
        FrontFace::Cw => vk::FrontFace::CLOCKWISE,
    }
}

pub(crate) fn cull_mode(mode: CullMode) -> vk::CullModeFlags {
    match mode {
        CullMode::None => vk::CullModeFlags::NONE,
        CullMode::Front => vk::CullModeFlags::FRONT,
        CullMode::Back => vk::CullModeFlags::BACK,
    }
}

pub(crate) fn polygon_mode(mode: PolygonMode) -> vk::PolygonMode {
    match mode {
        PolygonMode::Fill => vk::PolygonMode::FILL,
        PolygonMode::Line => vk::PolygonMode::LINE,
    }
}

/// The Vulkan format of a vertex attribute, and the shader scalar kind it feeds.
pub(crate) fn vertex_format(format: VertexFormat) -> Option<(vk::Format, naga::ScalarKind)> {
    use naga::ScalarKind::{Float, Sint, Uint};
    Some(match format {
        VertexFormat::Float32 => (vk::Format::R32_SFLOAT, Float),
        VertexFormat::Float32x2 => (vk::Format::R32G32_SFLOAT, Float),
        VertexFormat::Float32x3 => (vk::Format::R32G32B32_SFLOAT, Float),
        VertexFormat::Float32x4 => (vk::Format::R32G32B32A32_SFLOAT, Float),
        VertexFormat::Uint32 => (vk::Format::R32_UINT, Uint),
        VertexFormat::Uint32x2 => (vk::Format::R32G32_UINT, Uint),
        VertexFormat::Uint32x4 => (vk::Format::R32G32B32A32_UINT, Uint),
        VertexFormat::Sint32 => (vk::Format::R32_SINT, Sint),
        VertexFormat::Sint32x4 => (vk::Format::R32G32B32A32_SINT, Sint),
        VertexFormat::Unorm8x4 => (vk::Format::R8G8B8A8_UNORM, Float),
        VertexFormat::Unorm16x2 => (vk::Format::R16G16_UNORM, Float),
        VertexFormat::Snorm8x4 => (vk::Format::R8G8B8A8_SNORM, Float),
        VertexFormat::Float16x2 => (vk::Format::R16G16_SFLOAT, Float),
        VertexFormat::Float16x4 => (vk::Format::R16G16B16A16_SFLOAT, Float),
        _ => return None,
    })
}

pub(crate) fn step_rate(mode: VertexStepMode) -> vk::VertexInputRate {
    match mode {
        VertexStepMode::Vertex => vk::VertexInputRate::VERTEX,
        VertexStepMode::Instance => vk::VertexInputRate::INSTANCE,
    }
}

pub(crate) fn index_type(format: IndexFormat) -> vk::IndexType {
    match format {
        IndexFormat::Uint16 => vk::IndexType::UINT16,
        IndexFormat::Uint32 => vk::IndexType::UINT32,
    }
}

/// The clear value of a colour attachment of `format`: floats for float and normalised
/// formats, integers (truncated towards zero, clamped to the type) for integer formats.
///
/// Normalised formats get the float of exactly the value the HAL's rule stores
/// ([`f3d_hal::exact_clear_color`], shared with the wgpu backend: round half up, after sRGB
/// encoding for sRGB formats), so that a driver's own conversion cannot land on the other
/// side of a tie (NVIDIA clears 0.5 into an 8-bit channel as 127, the HAL's rule says 128).
pub(crate) fn clear_color(format: TextureFormat, c: f3d_hal::Color) -> vk::ClearColorValue {
    let channels = c.to_array();
    match format.facts().sample_kind {
        f3d_hal::SampleKind::Uint => {
            vk::ClearColorValue { uint32: channels.map(|v| v.clamp(0.0, f64::from(u32::MAX)) as u32) }
        }
        f3d_hal::SampleKind::Sint => vk::ClearColorValue {
            int32: channels.map(|v| v.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32),
        },
        _ => vk::ClearColorValue { float32: f3d_hal::exact_clear_color(format, channels).map(|v| v as f32) },
    }
}

/// How a multisampled colour attachment resolves: the average for float formats, sample 0
/// for integer ones (the only mode Vulkan guarantees for them).
pub(crate) fn resolve_mode(format: TextureFormat) -> vk::ResolveModeFlags {
    match format.facts().sample_kind {
        f3d_hal::SampleKind::Uint | f3d_hal::SampleKind::Sint => vk::ResolveModeFlags::SAMPLE_ZERO,
        _ => vk::ResolveModeFlags::AVERAGE,
    }
}

/// The scalar kind a fragment output must have to be written into `format`.
pub(crate) fn output_kind(format: TextureFormat) -> naga::ScalarKind {
    match format.facts().sample_kind {
        f3d_hal::SampleKind::Uint => naga::ScalarKind::Uint,
        f3d_hal::SampleKind::Sint => naga::ScalarKind::Sint,
        _ => naga::ScalarKind::Float,
    }
}

/// The Vulkan present mode of a concrete HAL one (the `Auto*` modes are resolved by
/// `f3d_hal::present::choose_present_mode` first; they map to FIFO, which every surface has).
pub(crate) fn present_mode(mode: PresentMode) -> vk::PresentModeKHR {
    match mode {
        PresentMode::Immediate => vk::PresentModeKHR::IMMEDIATE,
        PresentMode::Mailbox => vk::PresentModeKHR::MAILBOX,
        PresentMode::FifoRelaxed => vk::PresentModeKHR::FIFO_RELAXED,
        PresentMode::Fifo | PresentMode::AutoVsync | PresentMode::AutoNoVsync => vk::PresentModeKHR::FIFO,
    }
}

/// The HAL's name for a Vulkan present mode, if it has one (shared-image modes have none).
pub(crate) fn hal_present_mode(mode: vk::PresentModeKHR) -> Option<PresentMode> {
    Some(match mode {
        vk::PresentModeKHR::IMMEDIATE => PresentMode::Immediate,
        vk::PresentModeKHR::MAILBOX => PresentMode::Mailbox,
        vk::PresentModeKHR::FIFO => PresentMode::Fifo,
        vk::PresentModeKHR::FIFO_RELAXED => PresentMode::FifoRelaxed,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn present_modes_round_trip() {
        for mode in
            [PresentMode::Immediate, PresentMode::Mailbox, PresentMode::Fifo, PresentMode::FifoRelaxed]
        {
            assert_eq!(hal_present_mode(present_mode(mode)), Some(mode));
        }
        assert_eq!(hal_present_mode(vk::PresentModeKHR::SHARED_DEMAND_REFRESH), None);
    }

    #[test]
    fn every_format_has_a_vulkan_format() {
        for &f in TextureFormat::ALL {
            assert!(!format_candidates(f).is_empty(), "{f}");
        }
    }

    #[test]
    fn every_vertex_format_converts() {
        for &f in VertexFormat::ALL {
            assert!(vertex_format(f).is_some(), "{f:?}");
        }
    }

    #[test]
    fn integer_clears_are_integers() {
        let v = clear_color(TextureFormat::R32Uint, f3d_hal::Color::new(7.0, 0.0, 0.0, 0.0));
        // SAFETY: the union was written through its `uint32` member just above.
        assert_eq!(unsafe { v.uint32 }[0], 7);
    }

    #[test]
    fn normalized_clears_land_on_the_hal_value() {
        let v = clear_color(TextureFormat::Rgba8Unorm, f3d_hal::Color::new(1.0, 0.0, 0.5, 0.25));
        // SAFETY: written through `float32` by `clear_color` for a normalised format.
        let f = unsafe { v.float32 };
        // 0.5 stores 128 by the HAL's rule: the float is 128/255, far from any tie.
        assert_eq!(f, [1.0, 0.0, 128.0 / 255.0, 64.0 / 255.0]);
        let s = clear_color(TextureFormat::Bgra8UnormSrgb, f3d_hal::Color::new(0.5, 0.2, 0.1, 1.0));
        // SAFETY: as above.
        let s = unsafe { s.float32 };
        let bytes = f3d_hal::encode_clear_color(TextureFormat::Rgba8UnormSrgb, [0.5, 0.2, 0.1, 1.0]);
        for c in 0..3 {
            let back = (f3d_hal::linear_to_srgb(f64::from(s[c])) * 255.0).round() as u8;
            assert_eq!(back, bytes[c], "channel {c}");
        }
    }
}
