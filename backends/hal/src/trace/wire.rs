//! The `.f3dtrace` byte encoding: little-endian primitives, and one [`Wire`] impl per type a
//! trace holds. Every read is bounded by the bytes left, so a damaged file is an error naming
//! its offset, never a panic or an allocation the file did not pay for.

use std::ops::Range;

use super::TraceError;
use crate::{
    AddressMode, BlendComponent, BlendFactor, BlendOperation, BlendState, Color, ColorTargetState,
    ColorWrites, CompareFunction, CullMode, DepthBias, DepthStencilState, FilterMode, FrontFace,
    GeometryDescriptor, GeometryUsages, IndexFormat, LoadOp, PolygonMode, PrimitiveState, PrimitiveTopology,
    QueryKind, ReadbackImage, ResourceState, SamplerDescriptor, ScissorRect, ShaderStage, StencilFaceState,
    StencilOperation, StencilState, StoreOp, TextureDescriptor, TextureDimension, TextureFormat,
    TextureRegion, TextureUsages, VertexAttribute, VertexBufferLayout, VertexFormat, VertexStepMode,
    Viewport,
};

/// Bytes being written.
#[derive(Default)]
pub(crate) struct Writer {
    pub(crate) buf: Vec<u8>,
}

impl Writer {
    pub(crate) fn bytes(&mut self, data: &[u8]) {
        (data.len() as u64).put(self);
        self.buf.extend_from_slice(data);
    }
}

/// Bytes being read: a window of the file, with the file offset of its first byte.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(data: &'a [u8], base: u64) -> Self {
        Self { data, pos: 0, base }
    }

    /// The file offset of the next byte.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    pub(crate) fn left(&self) -> usize {
        self.data.len() - self.pos
    }

    pub(crate) fn error(&self, what: impl Into<String>) -> TraceError {
        TraceError::Format { offset: self.offset(), what: what.into() }
    }

    /// The next byte, and an error naming its offset for a value it does not encode.
    pub(crate) fn tag(&mut self) -> Result<(u8, impl Fn(String) -> TraceError + use<>), TraceError> {
        let offset = self.offset();
        Ok((u8::get(self)?, move |what| TraceError::Format { offset, what }))
    }

    /// The next `n` bytes, or an error saying what was being read.
    pub(crate) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], TraceError> {
        if n > self.left() {
            return Err(self.error(format!("{what} needs {n} bytes, {} left", self.left())));
        }
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], TraceError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    /// A length-prefixed byte string.
    pub(crate) fn bytes(&mut self, what: &str) -> Result<Vec<u8>, TraceError> {
        let len = u64::get(self)?;
        let len = usize::try_from(len).map_err(|_| self.error(format!("{what} of {len} bytes")))?;
        Ok(self.take(len, what)?.to_vec())
    }

    /// A count of items each at least one byte long, so a count past the bytes left is
    /// refused before anything is allocated for it.
    pub(crate) fn count(&mut self, what: &str) -> Result<usize, TraceError> {
        let n = u32::get(self)? as usize;
        if n > self.left() {
            return Err(self.error(format!("{n} {what} cannot fit in the {} bytes left", self.left())));
        }
        Ok(n)
    }

    /// Errors unless every byte was read.
    pub(crate) fn finish(&self, what: &str) -> Result<(), TraceError> {
        match self.left() {
            0 => Ok(()),
            n => Err(self.error(format!("{n} unread bytes at the end of {what}"))),
        }
    }
}

/// A value with a trace encoding.
pub(crate) trait Wire: Sized {
    fn put(&self, w: &mut Writer);
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError>;
}

macro_rules! wire_number {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            fn put(&self, w: &mut Writer) {
                w.buf.extend_from_slice(&self.to_le_bytes());
            }
            fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
                Ok(<$t>::from_le_bytes(r.array(stringify!($t))?))
            }
        }
    )*};
}
wire_number!(u8, u16, u32, u64, i32, f32, f64);

impl Wire for bool {
    fn put(&self, w: &mut Writer) {
        u8::from(*self).put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        match r.tag()? {
            (0, _) => Ok(false),
            (1, _) => Ok(true),
            (n, bad) => Err(bad(format!("a bool is 0 or 1, not {n}"))),
        }
    }
}

impl Wire for String {
    fn put(&self, w: &mut Writer) {
        w.bytes(self.as_bytes());
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        let at = r.offset();
        String::from_utf8(r.bytes("a string")?)
            .map_err(|_| TraceError::Format { offset: at, what: "a string that is not UTF-8".into() })
    }
}

impl<T: Wire> Wire for Option<T> {
    fn put(&self, w: &mut Writer) {
        match self {
            None => 0u8.put(w),
            Some(v) => {
                1u8.put(w);
                v.put(w);
            }
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        match r.tag()? {
            (0, _) => Ok(None),
            (1, _) => Ok(Some(T::get(r)?)),
            (n, bad) => Err(bad(format!("an option tag is 0 or 1, not {n}"))),
        }
    }
}

impl<T: Wire> Wire for Vec<T> {
    fn put(&self, w: &mut Writer) {
        (self.len() as u32).put(w);
        for v in self {
            v.put(w);
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        let n = r.count("list items")?;
        (0..n).map(|_| T::get(r)).collect()
    }
}

impl<T: Wire + Copy + Default, const N: usize> Wire for [T; N] {
    fn put(&self, w: &mut Writer) {
        for v in self {
            v.put(w);
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        let mut out = [T::default(); N];
        for v in &mut out {
            *v = T::get(r)?;
        }
        Ok(out)
    }
}

impl<T: Wire> Wire for Range<T> {
    fn put(&self, w: &mut Writer) {
        self.start.put(w);
        self.end.put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        Ok(T::get(r)?..T::get(r)?)
    }
}

/// Structs, field by field in declaration order.
macro_rules! wire_struct {
    ($($t:ident { $($field:ident),* $(,)? })*) => {$(
        impl Wire for $t {
            fn put(&self, w: &mut Writer) {
                $(self.$field.put(w);)*
            }
            fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
                Ok($t { $($field: Wire::get(r)?,)* })
            }
        }
    )*};
}

/// Field-less enums, as one byte: the variant's position in this list.
macro_rules! wire_enum {
    ($($t:ident [$($variant:ident),* $(,)?])*) => {$(
        impl Wire for $t {
            fn put(&self, w: &mut Writer) {
                // Irrefutable only while the list names every variant: a variant added to
                // the HAL without its place here does not compile.
                let ($($t::$variant)|*) = *self;
                const ALL: &[$t] = &[$($t::$variant),*];
                let i = ALL.iter().position(|v| v == self).unwrap_or_default();
                (i as u8).put(w);
            }
            fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
                const ALL: &[$t] = &[$($t::$variant),*];
                let (i, bad) = r.tag()?;
                ALL.get(usize::from(i)).copied().ok_or_else(|| {
                    bad(format!("{} has {} variants, not a variant {i}", stringify!($t), ALL.len()))
                })
            }
        }
    )*};
}

/// Bit sets, as their bits; unknown bits are an error.
macro_rules! wire_flags {
    ($($t:ident: $bits:ty),*) => {$(
        impl Wire for $t {
            fn put(&self, w: &mut Writer) {
                self.bits().put(w);
            }
            fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
                let at = r.offset();
                let bits = <$bits>::get(r)?;
                $t::from_bits(bits).ok_or_else(|| TraceError::Format {
                    offset: at,
                    what: format!("unknown {} bits {bits:#x}", stringify!($t)),
                })
            }
        }
    )*};
}

wire_flags!(TextureUsages: u32, GeometryUsages: u32, ColorWrites: u8);

wire_enum! {
    TextureDimension [D2, D2Array, Cube]
    AddressMode [ClampToEdge, Repeat, MirrorRepeat]
    FilterMode [Nearest, Linear]
    CompareFunction [Never, Less, Equal, LessEqual, Greater, NotEqual, GreaterEqual, Always]
    PrimitiveTopology [PointList, LineList, LineStrip, TriangleList, TriangleStrip]
    FrontFace [Ccw, Cw]
    CullMode [None, Front, Back]
    PolygonMode [Fill, Line]
    StencilOperation [Keep, Zero, Replace, Invert, IncrementClamp, DecrementClamp, IncrementWrap, DecrementWrap]
    BlendFactor [
        Zero, One, Src, OneMinusSrc, SrcAlpha, OneMinusSrcAlpha, Dst, OneMinusDst, DstAlpha,
        OneMinusDstAlpha, SrcAlphaSaturated, Constant, OneMinusConstant,
    ]
    BlendOperation [Add, Subtract, ReverseSubtract, Min, Max]
    VertexStepMode [Vertex, Instance]
    IndexFormat [Uint16, Uint32]
    StoreOp [Store, Discard]
    ResourceState [
        Undefined, ColorAttachment, DepthStencilAttachment, DepthStencilReadOnly, ShaderRead,
        CopySource, CopyDestination, Present,
    ]
    QueryKind [Timestamp, Occlusion]
    ShaderStage [Vertex, Fragment, Compute]
    VertexFormat [
        Float32, Float32x2, Float32x3, Float32x4, Uint32, Uint32x2, Uint32x4, Sint32, Sint32x4,
        Unorm8x4, Unorm16x2, Snorm8x4, Float16x2, Float16x4,
    ]
}

/// Formats by name, so adding a format never renumbers a trace's.
impl Wire for TextureFormat {
    fn put(&self, w: &mut Writer) {
        self.name().to_owned().put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        let at = r.offset();
        let name = String::get(r)?;
        TextureFormat::ALL
            .iter()
            .copied()
            .find(|f| f.name() == name)
            .ok_or(TraceError::Format { offset: at, what: format!("unknown texture format {name:?}") })
    }
}

impl<T: Wire> Wire for LoadOp<T> {
    fn put(&self, w: &mut Writer) {
        match self {
            LoadOp::Load => 0u8.put(w),
            LoadOp::Clear(v) => {
                1u8.put(w);
                v.put(w);
            }
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        match r.tag()? {
            (0, _) => Ok(LoadOp::Load),
            (1, _) => Ok(LoadOp::Clear(T::get(r)?)),
            (n, bad) => Err(bad(format!("a load op is 0 (load) or 1 (clear), not {n}"))),
        }
    }
}

wire_struct! {
    TextureDescriptor { label, width, height, array_layers, mip_level_count, sample_count, dimension, format, usage }
    TextureRegion { mip_level, layer, x, y, width, height }
    GeometryDescriptor { label, size, usage }
    SamplerDescriptor {
        label, address_mode, mag_filter, min_filter, mipmap_filter, lod_min_clamp, lod_max_clamp,
        compare, max_anisotropy,
    }
    VertexAttribute { location, format, offset }
    VertexBufferLayout { stride, step_mode, attributes }
    PrimitiveState { topology, front_face, cull_mode, polygon_mode, unclipped_depth }
    StencilFaceState { compare, fail_op, depth_fail_op, pass_op }
    StencilState { front, back, read_mask, write_mask }
    DepthBias { constant, slope_scale, clamp }
    DepthStencilState { format, depth_write_enabled, depth_compare, stencil, bias }
    BlendComponent { src_factor, dst_factor, operation }
    BlendState { color, alpha }
    ColorTargetState { format, blend, write_mask }
    Color { r, g, b, a }
    Viewport { x, y, width, height, min_depth, max_depth }
    ScissorRect { x, y, width, height }
}

impl Wire for ReadbackImage {
    fn put(&self, w: &mut Writer) {
        self.width.put(w);
        self.height.put(w);
        self.format.put(w);
        w.bytes(&self.data);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        let (width, height, format) = (u32::get(r)?, u32::get(r)?, TextureFormat::get(r)?);
        let at = r.offset();
        let data = r.bytes("readback pixels")?;
        if data.len() as u64 != format.image_bytes(width, height) {
            return Err(TraceError::Format {
                offset: at,
                what: format!(
                    "a {width}x{height} {format} readback holds {} bytes, not {}",
                    format.image_bytes(width, height),
                    data.len()
                ),
            });
        }
        Ok(ReadbackImage { width, height, format, data })
    }
}
