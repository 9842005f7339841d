//! Render pipelines: shaders plus fixed-function state.

use crate::{CompareFunction, ShaderHandle, TextureFormat, VertexBufferLayout};

/// How vertices form primitives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PrimitiveTopology {
    /// Each vertex a point.
    PointList,
    /// Each pair of vertices a line.
    LineList,
    /// Each vertex after the first extends a line.
    LineStrip,
    /// Each three vertices a triangle.
    #[default]
    TriangleList,
    /// Each vertex after the second makes a triangle with the two before it.
    TriangleStrip,
}

impl PrimitiveTopology {
    /// Every topology.
    pub const ALL: [PrimitiveTopology; 5] =
        [Self::PointList, Self::LineList, Self::LineStrip, Self::TriangleList, Self::TriangleStrip];
}

/// Which winding is the front.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum FrontFace {
    /// Counter-clockwise in framebuffer space with y up (clip space), the WebGPU default.
    #[default]
    Ccw,
    /// Clockwise.
    Cw,
}

/// Which faces are culled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CullMode {
    /// None.
    #[default]
    None,
    /// Front faces.
    Front,
    /// Back faces.
    Back,
}

/// How triangles are filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PolygonMode {
    /// Filled.
    #[default]
    Fill,
    /// Edges only (needs [`WIREFRAME`](crate::DeviceFeature::WIREFRAME)).
    Line,
}

/// Primitive assembly and rasterisation state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct PrimitiveState {
    /// Points, lines or triangles.
    pub topology: PrimitiveTopology,
    /// The front winding.
    pub front_face: FrontFace,
    /// What is culled.
    pub cull_mode: CullMode,
    /// Fill or wireframe.
    pub polygon_mode: PolygonMode,
    /// Clamp depth instead of clipping against near and far (needs
    /// [`DEPTH_CLIP_CONTROL`](crate::DeviceFeature::DEPTH_CLIP_CONTROL)).
    pub unclipped_depth: bool,
}

/// What a stencil test does to the stored value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum StencilOperation {
    /// Keep it.
    #[default]
    Keep,
    /// Set it to zero.
    Zero,
    /// Replace it with the reference.
    Replace,
    /// Flip its bits.
    Invert,
    /// Add one, saturating.
    IncrementClamp,
    /// Subtract one, saturating.
    DecrementClamp,
    /// Add one, wrapping.
    IncrementWrap,
    /// Subtract one, wrapping.
    DecrementWrap,
}

impl StencilOperation {
    /// Every operation.
    pub const ALL: [StencilOperation; 8] = [
        Self::Keep,
        Self::Zero,
        Self::Replace,
        Self::Invert,
        Self::IncrementClamp,
        Self::DecrementClamp,
        Self::IncrementWrap,
        Self::DecrementWrap,
    ];

    /// The reference arithmetic: the new stored value (before the write mask).
    pub fn apply(self, stored: u8, reference: u8) -> u8 {
        match self {
            Self::Keep => stored,
            Self::Zero => 0,
            Self::Replace => reference,
            Self::Invert => !stored,
            Self::IncrementClamp => stored.saturating_add(1),
            Self::DecrementClamp => stored.saturating_sub(1),
            Self::IncrementWrap => stored.wrapping_add(1),
            Self::DecrementWrap => stored.wrapping_sub(1),
        }
    }
}

/// The stencil test for one face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StencilFaceState {
    /// Compares `reference & read_mask` with `stored & read_mask`.
    pub compare: CompareFunction,
    /// When the stencil test fails.
    pub fail_op: StencilOperation,
    /// When stencil passes and depth fails.
    pub depth_fail_op: StencilOperation,
    /// When both pass.
    pub pass_op: StencilOperation,
}

impl Default for StencilFaceState {
    fn default() -> Self {
        Self {
            compare: CompareFunction::Always,
            fail_op: StencilOperation::Keep,
            depth_fail_op: StencilOperation::Keep,
            pass_op: StencilOperation::Keep,
        }
    }
}

/// Stencil state for both faces (needs [`STENCIL`](crate::DeviceFeature::STENCIL) when it
/// does anything).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StencilState {
    /// Front faces (and points and lines).
    pub front: StencilFaceState,
    /// Back faces.
    pub back: StencilFaceState,
    /// Bits compared.
    pub read_mask: u8,
    /// Bits written.
    pub write_mask: u8,
}

impl Default for StencilState {
    fn default() -> Self {
        Self {
            front: StencilFaceState::default(),
            back: StencilFaceState::default(),
            read_mask: 0xff,
            write_mask: 0xff,
        }
    }
}

impl StencilState {
    /// Whether the state tests or writes anything.
    pub fn is_enabled(&self) -> bool {
        let face = |f: &StencilFaceState| {
            f.compare != CompareFunction::Always
                || f.fail_op != StencilOperation::Keep
                || f.depth_fail_op != StencilOperation::Keep
                || f.pass_op != StencilOperation::Keep
        };
        face(&self.front) || face(&self.back)
    }
}

/// Depth bias added before the depth test.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct DepthBias {
    /// Constant bias in units of the format's smallest step.
    pub constant: i32,
    /// Bias scaled by the primitive's depth slope.
    pub slope_scale: f32,
    /// The largest bias applied (0 means no clamp).
    pub clamp: f32,
}

/// Depth and stencil testing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthStencilState {
    /// The attachment's format.
    pub format: TextureFormat,
    /// Whether passing fragments write depth.
    pub depth_write_enabled: bool,
    /// The depth test.
    pub depth_compare: CompareFunction,
    /// The stencil test.
    pub stencil: StencilState,
    /// Depth bias.
    pub bias: DepthBias,
}

impl DepthStencilState {
    /// A depth test with `compare` and depth writes, no stencil.
    pub fn depth(format: TextureFormat, compare: CompareFunction, write: bool) -> Self {
        Self {
            format,
            depth_write_enabled: write,
            depth_compare: compare,
            stencil: StencilState::default(),
            bias: DepthBias::default(),
        }
    }
}

/// A blend factor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlendFactor {
    /// 0.
    Zero,
    /// 1.
    One,
    /// The source colour.
    Src,
    /// 1 − source.
    OneMinusSrc,
    /// The source alpha.
    SrcAlpha,
    /// 1 − source alpha.
    OneMinusSrcAlpha,
    /// The destination colour.
    Dst,
    /// 1 − destination.
    OneMinusDst,
    /// The destination alpha.
    DstAlpha,
    /// 1 − destination alpha.
    OneMinusDstAlpha,
    /// min(source alpha, 1 − destination alpha); 1 for alpha.
    SrcAlphaSaturated,
    /// The blend constant (needs [`BLEND_CONSTANT`](crate::DeviceFeature::BLEND_CONSTANT)).
    Constant,
    /// 1 − the blend constant (needs [`BLEND_CONSTANT`](crate::DeviceFeature::BLEND_CONSTANT)).
    OneMinusConstant,
}

impl BlendFactor {
    /// Every factor.
    pub const ALL: [BlendFactor; 13] = [
        Self::Zero,
        Self::One,
        Self::Src,
        Self::OneMinusSrc,
        Self::SrcAlpha,
        Self::OneMinusSrcAlpha,
        Self::Dst,
        Self::OneMinusDst,
        Self::DstAlpha,
        Self::OneMinusDstAlpha,
        Self::SrcAlphaSaturated,
        Self::Constant,
        Self::OneMinusConstant,
    ];

    /// Whether the factor reads the blend constant.
    pub fn uses_constant(self) -> bool {
        matches!(self, Self::Constant | Self::OneMinusConstant)
    }

    /// The reference arithmetic for one channel: `channel` is 0–2 for colour, 3 for alpha.
    pub fn value(self, src: [f32; 4], dst: [f32; 4], constant: [f32; 4], channel: usize) -> f32 {
        match self {
            Self::Zero => 0.0,
            Self::One => 1.0,
            Self::Src => src[channel],
            Self::OneMinusSrc => 1.0 - src[channel],
            Self::SrcAlpha => src[3],
            Self::OneMinusSrcAlpha => 1.0 - src[3],
            Self::Dst => dst[channel],
            Self::OneMinusDst => 1.0 - dst[channel],
            Self::DstAlpha => dst[3],
            Self::OneMinusDstAlpha => 1.0 - dst[3],
            Self::SrcAlphaSaturated => {
                if channel == 3 {
                    1.0
                } else {
                    src[3].min(1.0 - dst[3])
                }
            }
            Self::Constant => constant[channel],
            Self::OneMinusConstant => 1.0 - constant[channel],
        }
    }
}

/// How the weighted source and destination combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BlendOperation {
    /// src·f + dst·g.
    #[default]
    Add,
    /// src·f − dst·g.
    Subtract,
    /// dst·g − src·f.
    ReverseSubtract,
    /// min(src, dst), factors ignored.
    Min,
    /// max(src, dst), factors ignored.
    Max,
}

/// Blending of the colour or the alpha channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlendComponent {
    /// Factor for the source.
    pub src_factor: BlendFactor,
    /// Factor for the destination.
    pub dst_factor: BlendFactor,
    /// The operation.
    pub operation: BlendOperation,
}

impl BlendComponent {
    /// Source replaces destination.
    pub const REPLACE: Self =
        Self { src_factor: BlendFactor::One, dst_factor: BlendFactor::Zero, operation: BlendOperation::Add };
    /// Premultiplied "over".
    pub const OVER: Self = Self {
        src_factor: BlendFactor::One,
        dst_factor: BlendFactor::OneMinusSrcAlpha,
        operation: BlendOperation::Add,
    };

    /// The reference arithmetic for one channel.
    pub fn apply(self, src: [f32; 4], dst: [f32; 4], constant: [f32; 4], channel: usize) -> f32 {
        let s = src[channel] * self.src_factor.value(src, dst, constant, channel);
        let d = dst[channel] * self.dst_factor.value(src, dst, constant, channel);
        match self.operation {
            BlendOperation::Add => s + d,
            BlendOperation::Subtract => s - d,
            BlendOperation::ReverseSubtract => d - s,
            BlendOperation::Min => src[channel].min(dst[channel]),
            BlendOperation::Max => src[channel].max(dst[channel]),
        }
    }
}

/// Blending for one colour target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlendState {
    /// Red, green and blue.
    pub color: BlendComponent,
    /// Alpha.
    pub alpha: BlendComponent,
}

impl BlendState {
    /// Premultiplied alpha "over", f3d's translucent default.
    pub const PREMULTIPLIED_ALPHA: Self = Self { color: BlendComponent::OVER, alpha: BlendComponent::OVER };

    /// Whether any factor reads the blend constant.
    pub fn uses_constant(&self) -> bool {
        [self.color, self.alpha].iter().any(|c| c.src_factor.uses_constant() || c.dst_factor.uses_constant())
    }

    /// The reference arithmetic: the blended value of all four channels (unclamped).
    pub fn apply(&self, src: [f32; 4], dst: [f32; 4], constant: [f32; 4]) -> [f32; 4] {
        let c = |i| self.color.apply(src, dst, constant, i);
        [c(0), c(1), c(2), self.alpha.apply(src, dst, constant, 3)]
    }
}

bitflags::bitflags! {
    /// Which channels a colour target writes.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct ColorWrites: u8 {
        /// Red.
        const RED = 1;
        /// Green.
        const GREEN = 2;
        /// Blue.
        const BLUE = 4;
        /// Alpha.
        const ALPHA = 8;
    }
}

/// One colour target of a pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ColorTargetState {
    /// The attachment's format.
    pub format: TextureFormat,
    /// Blending, or `None` to replace.
    pub blend: Option<BlendState>,
    /// Channels written.
    pub write_mask: ColorWrites,
}

impl ColorTargetState {
    /// Replace every channel of a target of `format`.
    pub fn replace(format: TextureFormat) -> Self {
        Self { format, blend: None, write_mask: ColorWrites::all() }
    }
}

/// How to create a render pipeline.
#[derive(Clone, Debug)]
pub struct PipelineDescriptor {
    /// A name for logs, errors and the refusal list.
    pub label: String,
    /// The vertex shader.
    pub vertex: ShaderHandle,
    /// The fragment shader; `None` for depth-only pipelines.
    pub fragment: Option<ShaderHandle>,
    /// One layout per vertex buffer slot.
    pub vertex_buffers: Vec<VertexBufferLayout>,
    /// Primitive state.
    pub primitive: PrimitiveState,
    /// Depth and stencil, when the pass has a depth attachment.
    pub depth_stencil: Option<DepthStencilState>,
    /// One state per colour attachment, in order.
    pub color_targets: Vec<ColorTargetState>,
    /// Samples per pixel of the attachments (1, or more with MSAA).
    pub sample_count: u32,
    /// Views rendered at once (needs [`MULTIVIEW`](crate::DeviceFeature::MULTIVIEW) when set).
    pub multiview: Option<std::num::NonZeroU32>,
}
