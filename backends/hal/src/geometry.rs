//! Geometry buffers (vertices, indices, indirect arguments) and vertex layouts.

bitflags::bitflags! {
    /// What a geometry buffer may be used for.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct GeometryUsages: u32 {
        /// Vertex data.
        const VERTEX = 1 << 0;
        /// Index data.
        const INDEX = 1 << 1;
        /// Indirect draw arguments (needs [`INDIRECT_DRAW`](crate::DeviceFeature::INDIRECT_DRAW)).
        const INDIRECT = 1 << 2;
        /// Read and written by shaders (needs
        /// [`STORAGE_BUFFERS`](crate::DeviceFeature::STORAGE_BUFFERS)).
        const STORAGE = 1 << 3;
    }
}

/// How to create a geometry buffer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GeometryDescriptor {
    /// A name for logs and errors.
    pub label: String,
    /// Size in bytes; the initial contents, when given, must have exactly this length.
    pub size: u64,
    /// What the buffer may be used for.
    pub usage: GeometryUsages,
}

impl GeometryDescriptor {
    /// A buffer of `size` bytes usable as vertices and indices.
    pub fn new(label: impl Into<String>, size: u64) -> Self {
        Self { label: label.into(), size, usage: GeometryUsages::VERTEX | GeometryUsages::INDEX }
    }
}

/// The type of one vertex attribute in a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VertexFormat {
    /// One `f32`.
    Float32,
    /// Two `f32`.
    Float32x2,
    /// Three `f32`.
    Float32x3,
    /// Four `f32`.
    Float32x4,
    /// One `u32`.
    Uint32,
    /// Two `u32`.
    Uint32x2,
    /// Four `u32`.
    Uint32x4,
    /// One `i32`.
    Sint32,
    /// Four `i32`.
    Sint32x4,
    /// Four `u8`, normalised to `[0, 1]`.
    Unorm8x4,
    /// Two `u16`, normalised to `[0, 1]`.
    Unorm16x2,
    /// Four `i8`, normalised to `[-1, 1]`.
    Snorm8x4,
    /// Two `f16`.
    Float16x2,
    /// Four `f16`.
    Float16x4,
}

impl VertexFormat {
    /// Every format.
    pub const ALL: &'static [VertexFormat] = &[
        Self::Float32,
        Self::Float32x2,
        Self::Float32x3,
        Self::Float32x4,
        Self::Uint32,
        Self::Uint32x2,
        Self::Uint32x4,
        Self::Sint32,
        Self::Sint32x4,
        Self::Unorm8x4,
        Self::Unorm16x2,
        Self::Snorm8x4,
        Self::Float16x2,
        Self::Float16x4,
    ];

    /// Bytes one attribute takes.
    pub const fn size(self) -> u32 {
        match self {
            Self::Float32 | Self::Uint32 | Self::Sint32 => 4,
            Self::Float32x2 | Self::Uint32x2 => 8,
            Self::Float32x3 => 12,
            Self::Float32x4 | Self::Uint32x4 | Self::Sint32x4 => 16,
            Self::Unorm8x4 | Self::Snorm8x4 | Self::Unorm16x2 | Self::Float16x2 => 4,
            Self::Float16x4 => 8,
        }
    }

    /// Components the shader reads.
    pub const fn components(self) -> u32 {
        match self {
            Self::Float32 | Self::Uint32 | Self::Sint32 => 1,
            Self::Float32x2 | Self::Uint32x2 | Self::Unorm16x2 | Self::Float16x2 => 2,
            Self::Float32x3 => 3,
            _ => 4,
        }
    }
}

/// Whether a buffer advances per vertex or per instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum VertexStepMode {
    /// One element per vertex.
    #[default]
    Vertex,
    /// One element per instance.
    Instance,
}

/// One attribute: where in the element it sits and which shader location reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VertexAttribute {
    /// The shader's `@location`.
    pub location: u32,
    /// Its type in the buffer.
    pub format: VertexFormat,
    /// Byte offset inside one element.
    pub offset: u32,
}

/// The layout of one vertex buffer slot.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VertexBufferLayout {
    /// Bytes from one element to the next.
    pub stride: u32,
    /// Per vertex or per instance.
    pub step_mode: VertexStepMode,
    /// The attributes read from it.
    pub attributes: Vec<VertexAttribute>,
}

/// The type of indices in an index buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexFormat {
    /// 16-bit indices.
    Uint16,
    /// 32-bit indices.
    Uint32,
}

impl IndexFormat {
    /// Bytes per index.
    pub const fn size(self) -> u32 {
        match self {
            Self::Uint16 => 2,
            Self::Uint32 => 4,
        }
    }
}
