//! HAL enums and descriptors → wgpu's. Pure functions, no device.

use f3d_hal::{
    AddressMode, BlendComponent, BlendFactor, BlendOperation, BlendState, Color, ColorWrites,
    CompareFunction, CullMode, DepthBias, FilterMode, FrontFace, IndexFormat, LoadOp, PolygonMode,
    PrimitiveState, PrimitiveTopology, StencilFaceState, StencilOperation, StencilState, StoreOp,
    TextureDimension, TextureFormat, TextureUsages, VertexFormat, VertexStepMode,
};

/// The wgpu format of a HAL format; `None` for formats wgpu does not have (none today, but the
/// HAL's list is open).
pub(crate) fn format(format: TextureFormat) -> Option<wgpu::TextureFormat> {
    use TextureFormat as F;
    use wgpu::TextureFormat as W;
    Some(match format {
        F::R8Unorm => W::R8Unorm,
        F::Rg8Unorm => W::Rg8Unorm,
        F::Rgba8Unorm => W::Rgba8Unorm,
        F::Rgba8UnormSrgb => W::Rgba8UnormSrgb,
        F::Bgra8Unorm => W::Bgra8Unorm,
        F::Bgra8UnormSrgb => W::Bgra8UnormSrgb,
        F::Rgb10a2Unorm => W::Rgb10a2Unorm,
        F::R16Float => W::R16Float,
        F::Rg16Float => W::Rg16Float,
        F::Rgba16Float => W::Rgba16Float,
        F::R32Float => W::R32Float,
        F::Rg32Float => W::Rg32Float,
        F::Rgba32Float => W::Rgba32Float,
        F::R32Uint => W::R32Uint,
        F::R32Sint => W::R32Sint,
        F::Rgba32Uint => W::Rgba32Uint,
        F::Depth16Unorm => W::Depth16Unorm,
        F::Depth24Plus => W::Depth24Plus,
        F::Depth24PlusStencil8 => W::Depth24PlusStencil8,
        F::Depth32Float => W::Depth32Float,
        F::Depth32FloatStencil8 => W::Depth32FloatStencil8,
        F::Bc1RgbaUnorm => W::Bc1RgbaUnorm,
        F::Bc1RgbaUnormSrgb => W::Bc1RgbaUnormSrgb,
        F::Bc3RgbaUnorm => W::Bc3RgbaUnorm,
        F::Bc3RgbaUnormSrgb => W::Bc3RgbaUnormSrgb,
        F::Bc5RgUnorm => W::Bc5RgUnorm,
        F::Bc7RgbaUnorm => W::Bc7RgbaUnorm,
        F::Bc7RgbaUnormSrgb => W::Bc7RgbaUnormSrgb,
        _ => return None,
    })
}

/// The texture usages wgpu needs for HAL `usage`.
pub(crate) fn texture_usages(usage: TextureUsages) -> wgpu::TextureUsages {
    let mut out = wgpu::TextureUsages::empty();
    if usage.contains(TextureUsages::SAMPLED) {
        out |= wgpu::TextureUsages::TEXTURE_BINDING;
    }
    if usage.contains(TextureUsages::RENDER_ATTACHMENT) {
        out |= wgpu::TextureUsages::RENDER_ATTACHMENT;
    }
    if usage.contains(TextureUsages::COPY_SRC) {
        out |= wgpu::TextureUsages::COPY_SRC;
    }
    if usage.contains(TextureUsages::COPY_DST) {
        out |= wgpu::TextureUsages::COPY_DST;
    }
    out
}

/// The view dimension a sampled texture of `dimension` is bound as.
pub(crate) fn view_dimension(dimension: TextureDimension) -> wgpu::TextureViewDimension {
    match dimension {
        TextureDimension::D2 => wgpu::TextureViewDimension::D2,
        TextureDimension::D2Array => wgpu::TextureViewDimension::D2Array,
        TextureDimension::Cube => wgpu::TextureViewDimension::Cube,
    }
}

pub(crate) fn address_mode(mode: AddressMode) -> wgpu::AddressMode {
    match mode {
        AddressMode::ClampToEdge => wgpu::AddressMode::ClampToEdge,
        AddressMode::Repeat => wgpu::AddressMode::Repeat,
        AddressMode::MirrorRepeat => wgpu::AddressMode::MirrorRepeat,
    }
}

pub(crate) fn filter(mode: FilterMode) -> wgpu::FilterMode {
    match mode {
        FilterMode::Nearest => wgpu::FilterMode::Nearest,
        FilterMode::Linear => wgpu::FilterMode::Linear,
    }
}

pub(crate) fn mipmap_filter(mode: FilterMode) -> wgpu::MipmapFilterMode {
    match mode {
        FilterMode::Nearest => wgpu::MipmapFilterMode::Nearest,
        FilterMode::Linear => wgpu::MipmapFilterMode::Linear,
    }
}

pub(crate) fn compare(f: CompareFunction) -> wgpu::CompareFunction {
    match f {
        CompareFunction::Never => wgpu::CompareFunction::Never,
        CompareFunction::Less => wgpu::CompareFunction::Less,
        CompareFunction::Equal => wgpu::CompareFunction::Equal,
        CompareFunction::LessEqual => wgpu::CompareFunction::LessEqual,
        CompareFunction::Greater => wgpu::CompareFunction::Greater,
        CompareFunction::NotEqual => wgpu::CompareFunction::NotEqual,
        CompareFunction::GreaterEqual => wgpu::CompareFunction::GreaterEqual,
        CompareFunction::Always => wgpu::CompareFunction::Always,
    }
}

pub(crate) fn vertex_format(f: VertexFormat) -> Option<wgpu::VertexFormat> {
    use wgpu::VertexFormat as W;
    Some(match f {
        VertexFormat::Float32 => W::Float32,
        VertexFormat::Float32x2 => W::Float32x2,
        VertexFormat::Float32x3 => W::Float32x3,
        VertexFormat::Float32x4 => W::Float32x4,
        VertexFormat::Uint32 => W::Uint32,
        VertexFormat::Uint32x2 => W::Uint32x2,
        VertexFormat::Uint32x4 => W::Uint32x4,
        VertexFormat::Sint32 => W::Sint32,
        VertexFormat::Sint32x4 => W::Sint32x4,
        VertexFormat::Unorm8x4 => W::Unorm8x4,
        VertexFormat::Unorm16x2 => W::Unorm16x2,
        VertexFormat::Snorm8x4 => W::Snorm8x4,
        VertexFormat::Float16x2 => W::Float16x2,
        VertexFormat::Float16x4 => W::Float16x4,
        _ => return None,
    })
}

pub(crate) fn step_mode(mode: VertexStepMode) -> wgpu::VertexStepMode {
    match mode {
        VertexStepMode::Vertex => wgpu::VertexStepMode::Vertex,
        VertexStepMode::Instance => wgpu::VertexStepMode::Instance,
    }
}

pub(crate) fn index_format(f: IndexFormat) -> wgpu::IndexFormat {
    match f {
        IndexFormat::Uint16 => wgpu::IndexFormat::Uint16,
        IndexFormat::Uint32 => wgpu::IndexFormat::Uint32,
    }
}

pub(crate) fn primitive(p: &PrimitiveState) -> wgpu::PrimitiveState {
    wgpu::PrimitiveState {
        topology: match p.topology {
            PrimitiveTopology::PointList => wgpu::PrimitiveTopology::PointList,
            PrimitiveTopology::LineList => wgpu::PrimitiveTopology::LineList,
            PrimitiveTopology::LineStrip => wgpu::PrimitiveTopology::LineStrip,
            PrimitiveTopology::TriangleList => wgpu::PrimitiveTopology::TriangleList,
            PrimitiveTopology::TriangleStrip => wgpu::PrimitiveTopology::TriangleStrip,
        },
        strip_index_format: None,
        front_face: match p.front_face {
            FrontFace::Ccw => wgpu::FrontFace::Ccw,
            FrontFace::Cw => wgpu::FrontFace::Cw,
        },
        cull_mode: match p.cull_mode {
            CullMode::None => None,
            CullMode::Front => Some(wgpu::Face::Front),
            CullMode::Back => Some(wgpu::Face::Back),
        },
        unclipped_depth: p.unclipped_depth,
        polygon_mode: match p.polygon_mode {
            PolygonMode::Fill => wgpu::PolygonMode::Fill,
            PolygonMode::Line => wgpu::PolygonMode::Line,
        },
        conservative: false,
    }
}

fn stencil_op(op: StencilOperation) -> wgpu::StencilOperation {
    match op {
        StencilOperation::Keep => wgpu::StencilOperation::Keep,
        StencilOperation::Zero => wgpu::StencilOperation::Zero,
        StencilOperation::Replace => wgpu::StencilOperation::Replace,
        StencilOperation::Invert => wgpu::StencilOperation::Invert,
        StencilOperation::IncrementClamp => wgpu::StencilOperation::IncrementClamp,
        StencilOperation::DecrementClamp => wgpu::StencilOperation::DecrementClamp,
        StencilOperation::IncrementWrap => wgpu::StencilOperation::IncrementWrap,
        StencilOperation::DecrementWrap => wgpu::StencilOperation::DecrementWrap,
    }
}

fn stencil_face(f: &StencilFaceState) -> wgpu::StencilFaceState {
    wgpu::StencilFaceState {
        compare: compare(f.compare),
        fail_op: stencil_op(f.fail_op),
        depth_fail_op: stencil_op(f.depth_fail_op),
        pass_op: stencil_op(f.pass_op),
    }
}

pub(crate) fn stencil(s: &StencilState) -> wgpu::StencilState {
    wgpu::StencilState {
        front: stencil_face(&s.front),
        back: stencil_face(&s.back),
        read_mask: s.read_mask.into(),
        write_mask: s.write_mask.into(),
    }
}

pub(crate) fn depth_bias(b: &DepthBias) -> wgpu::DepthBiasState {
    wgpu::DepthBiasState { constant: b.constant, slope_scale: b.slope_scale, clamp: b.clamp }
}

fn blend_factor(f: BlendFactor) -> wgpu::BlendFactor {
    match f {
        BlendFactor::Zero => wgpu::BlendFactor::Zero,
        BlendFactor::One => wgpu::BlendFactor::One,
        BlendFactor::Src => wgpu::BlendFactor::Src,
        BlendFactor::OneMinusSrc => wgpu::BlendFactor::OneMinusSrc,
        BlendFactor::SrcAlpha => wgpu::BlendFactor::SrcAlpha,
        BlendFactor::OneMinusSrcAlpha => wgpu::BlendFactor::OneMinusSrcAlpha,
        BlendFactor::Dst => wgpu::BlendFactor::Dst,
        BlendFactor::OneMinusDst => wgpu::BlendFactor::OneMinusDst,
        BlendFactor::DstAlpha => wgpu::BlendFactor::DstAlpha,
        BlendFactor::OneMinusDstAlpha => wgpu::BlendFactor::OneMinusDstAlpha,
        BlendFactor::SrcAlphaSaturated => wgpu::BlendFactor::SrcAlphaSaturated,
        BlendFactor::Constant => wgpu::BlendFactor::Constant,
        BlendFactor::OneMinusConstant => wgpu::BlendFactor::OneMinusConstant,
    }
}

fn blend_component(c: &BlendComponent) -> wgpu::BlendComponent {
    // WebGPU requires Min and Max to use factors One, One; the HAL ignores factors for them.
    let minmax = matches!(c.operation, BlendOperation::Min | BlendOperation::Max);
    wgpu::BlendComponent {
        src_factor: if minmax { wgpu::BlendFactor::One } else { blend_factor(c.src_factor) },
        dst_factor: if minmax { wgpu::BlendFactor::One } else { blend_factor(c.dst_factor) },
        operation: match c.operation {
            BlendOperation::Add => wgpu::BlendOperation::Add,
            BlendOperation::Subtract => wgpu::BlendOperation::Subtract,
            BlendOperation::ReverseSubtract => wgpu::BlendOperation::ReverseSubtract,
            BlendOperation::Min => wgpu::BlendOperation::Min,
            BlendOperation::Max => wgpu::BlendOperation::Max,
        },
    }
}

pub(crate) fn blend(b: &BlendState) -> wgpu::BlendState {
    wgpu::BlendState { color: blend_component(&b.color), alpha: blend_component(&b.alpha) }
}

pub(crate) fn color_writes(w: ColorWrites) -> wgpu::ColorWrites {
    let mut out = wgpu::ColorWrites::empty();
    for (hal, api) in [
        (ColorWrites::RED, wgpu::ColorWrites::RED),
        (ColorWrites::GREEN, wgpu::ColorWrites::GREEN),
        (ColorWrites::BLUE, wgpu::ColorWrites::BLUE),
        (ColorWrites::ALPHA, wgpu::ColorWrites::ALPHA),
    ] {
        if w.contains(hal) {
            out |= api;
        }
    }
    out
}

pub(crate) fn color(c: Color) -> wgpu::Color {
    wgpu::Color { r: c.r, g: c.g, b: c.b, a: c.a }
}

/// A clear colour moved onto the exact code the HAL's rule stores, so the driver's own
/// rounding cannot fall on the other side of a tie (NVIDIA clears 0.5 to 127 in RGBA8).
pub(crate) fn clear_color(format: f3d_hal::TextureFormat, c: Color) -> wgpu::Color {
    let [r, g, b, a] = f3d_hal::exact_clear_color(format, c.to_array());
    wgpu::Color { r, g, b, a }
}

pub(crate) fn store(op: StoreOp) -> wgpu::StoreOp {
    match op {
        StoreOp::Store => wgpu::StoreOp::Store,
        StoreOp::Discard => wgpu::StoreOp::Discard,
    }
}

pub(crate) fn load<T: Copy, U>(op: LoadOp<T>, map: impl FnOnce(T) -> U) -> wgpu::LoadOp<U> {
    match op {
        LoadOp::Clear(v) => wgpu::LoadOp::Clear(map(v)),
        LoadOp::Load => wgpu::LoadOp::Load,
    }
}

pub(crate) fn power_preference(p: f3d_hal::PowerPreference) -> wgpu::PowerPreference {
    match p {
        f3d_hal::PowerPreference::None => wgpu::PowerPreference::None,
        f3d_hal::PowerPreference::LowPower => wgpu::PowerPreference::LowPower,
        f3d_hal::PowerPreference::HighPerformance => wgpu::PowerPreference::HighPerformance,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hal_format_has_a_wgpu_twin_with_the_same_block() {
        for &f in TextureFormat::ALL {
            let w = format(f).unwrap_or_else(|| panic!("{f} has no wgpu format"));
            let facts = f.facts();
            assert_eq!(w.block_dimensions(), facts.block_size, "{f}");
            assert_eq!(w.is_srgb(), facts.srgb, "{f}");
            assert_eq!(w.has_depth_aspect(), f.has_depth(), "{f}");
            assert_eq!(w.has_stencil_aspect(), f.has_stencil(), "{f}");
            if f.is_color() {
                assert_eq!(w.block_copy_size(None), Some(facts.block_bytes), "{f}");
            }
        }
    }

    #[test]
    fn min_and_max_blends_use_factor_one() {
        let c = BlendComponent {
            src_factor: BlendFactor::SrcAlpha,
            dst_factor: BlendFactor::Zero,
            operation: BlendOperation::Max,
        };
        let b = blend_component(&c);
        assert_eq!((b.src_factor, b.dst_factor), (wgpu::BlendFactor::One, wgpu::BlendFactor::One));
    }
}
