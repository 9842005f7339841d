//! The graph's vocabulary: texture and pass handles, transient descriptions, and
//! the ways a pass can touch a texture.

use std::fmt;

use f3d_hal::{Color, LoadOp, ResourceState, TextureDimension, TextureFormat, TextureUsages};

/// One version of a virtual texture.
///
/// `Copy` and cheap; it names a texture *and* the version of its contents. Reading takes the
/// version to read; writing takes the version written over and hands back the next one, so
/// read-after-write order is carried by the handles themselves rather than by the order in
/// which systems happened to add passes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TextureId {
    pub(crate) index: u32,
    pub(crate) version: u32,
}

impl TextureId {
    /// The version of the contents this handle names: 0 before any pass wrote it.
    pub fn version(self) -> u32 {
        self.version
    }

    /// Whether both handles name the same texture (whatever their versions).
    pub fn same_texture(self, other: TextureId) -> bool {
        self.index == other.index
    }
}

impl fmt::Debug for TextureId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TextureId(#{} v{})", self.index, self.version)
    }
}

/// A pass of one graph, in the order passes were added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PassId(pub(crate) u32);

/// How big a transient texture is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TextureSize {
    /// Width and height in texels.
    Absolute(u32, u32),
    /// A fraction (or multiple) of the output size given to [`RenderGraph::compile`](crate::RenderGraph::compile), rounded
    /// to the nearest texel (halves up: half of 1281 is 641), at least one texel.
    Relative {
        /// Factor applied to the output's width and height (0.5 is half resolution).
        scale: f32,
    },
}

/// How to make a transient texture. Usage flags are not part of it: the graph derives them
/// from the way passes use the texture.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureDesc {
    /// Absolute or relative to the output.
    pub size: TextureSize,
    /// The texel format.
    pub format: TextureFormat,
    /// Mip levels (passes attach level 0).
    pub mip_level_count: u32,
    /// Array layers.
    pub array_layers: u32,
    /// Samples per texel.
    pub sample_count: u32,
    /// 2D, array or cube.
    pub dimension: TextureDimension,
}

impl TextureDesc {
    /// A single-level 2D texture of `size`.
    pub fn new(size: TextureSize, format: TextureFormat) -> Self {
        Self {
            size,
            format,
            mip_level_count: 1,
            array_layers: 1,
            sample_count: 1,
            dimension: TextureDimension::D2,
        }
    }

    /// A `width`×`height` texture of `format`.
    pub fn absolute(width: u32, height: u32, format: TextureFormat) -> Self {
        Self::new(TextureSize::Absolute(width, height), format)
    }

    /// A texture `scale` times the output size.
    pub fn relative(scale: f32, format: TextureFormat) -> Self {
        Self::new(TextureSize::Relative { scale }, format)
    }

    /// A `width`×`height` depth texture ([`TextureFormat::Depth32Float`], which every backend
    /// renders and none needs the stencil feature for).
    pub fn depth(width: u32, height: u32) -> Self {
        Self::absolute(width, height, TextureFormat::Depth32Float)
    }
}

/// How one pass touches one texture.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum AccessKind {
    /// Sampled by shaders.
    Sampled,
    /// Depth attachment without depth writes; `sampled` when the pass samples it too.
    DepthRead { sampled: bool },
    /// Source of a copy or readback.
    CopySource,
    /// Colour attachment, written.
    ColorWrite(LoadOp<Color>),
    /// Depth attachment, written.
    DepthWrite(LoadOp<f32>),
    /// Destination of a copy or upload (every texel of level 0 is overwritten).
    CopyDestination,
    /// Resolve target of the multisampled colour attachment declared just before it in the
    /// same pass (every texel is overwritten when the pass ends).
    ResolveWrite,
}

impl AccessKind {
    pub(crate) fn is_write(self) -> bool {
        matches!(self, Self::ColorWrite(_) | Self::DepthWrite(_) | Self::CopyDestination | Self::ResolveWrite)
    }

    /// Whether a write keeps what the version before it held.
    pub(crate) fn loads(self) -> bool {
        matches!(self, Self::ColorWrite(LoadOp::Load) | Self::DepthWrite(LoadOp::Load))
    }

    pub(crate) fn state(self) -> ResourceState {
        match self {
            Self::Sampled => ResourceState::ShaderRead,
            Self::DepthRead { .. } => ResourceState::DepthStencilReadOnly,
            Self::CopySource => ResourceState::CopySource,
            Self::ColorWrite(_) | Self::ResolveWrite => ResourceState::ColorAttachment,
            Self::DepthWrite(_) => ResourceState::DepthStencilAttachment,
            Self::CopyDestination => ResourceState::CopyDestination,
        }
    }

    pub(crate) fn usage(self) -> TextureUsages {
        match self {
            Self::Sampled => TextureUsages::SAMPLED,
            Self::DepthRead { sampled: false } => TextureUsages::RENDER_ATTACHMENT,
            Self::DepthRead { sampled: true } => TextureUsages::RENDER_ATTACHMENT | TextureUsages::SAMPLED,
            Self::CopySource => TextureUsages::COPY_SRC,
            Self::ColorWrite(_) | Self::DepthWrite(_) | Self::ResolveWrite => {
                TextureUsages::RENDER_ATTACHMENT
            }
            Self::CopyDestination => TextureUsages::COPY_DST,
        }
    }

    /// The word dumps and errors use.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Sampled => "sample",
            Self::DepthRead { sampled: false } => "depth-read",
            Self::DepthRead { sampled: true } => "depth-read+sample",
            Self::CopySource => "copy-src",
            Self::ColorWrite(_) => "color",
            Self::DepthWrite(_) => "depth",
            Self::CopyDestination => "copy-dst",
            Self::ResolveWrite => "resolve",
        }
    }
}

/// One declared use: `version` is the version read, or for a write the version written over
/// (the write produces `version + 1`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Access {
    pub(crate) resource: u32,
    pub(crate) version: u32,
    pub(crate) kind: AccessKind,
}
