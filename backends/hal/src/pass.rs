//! Render passes: what they draw into, how they start, and the encoders that record them.

use std::num::NonZeroU32;
use std::ops::Range;

use crate::{
    BackendId, BindingLayout, BindingSlot, DeviceError, DeviceFeature, GeometryBuffer, IndexFormat,
    PipelineHandle, QuerySetHandle, SamplerHandle, TextureHandle,
};

/// A colour as four `f64` channels (wide enough to clear integer targets exactly).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Color {
    /// Red.
    pub r: f64,
    /// Green.
    pub g: f64,
    /// Blue.
    pub b: f64,
    /// Alpha.
    pub a: f64,
}

impl Color {
    /// Transparent black.
    pub const TRANSPARENT: Self = Self::new(0.0, 0.0, 0.0, 0.0);
    /// Opaque black.
    pub const BLACK: Self = Self::new(0.0, 0.0, 0.0, 1.0);
    /// Opaque white.
    pub const WHITE: Self = Self::new(1.0, 1.0, 1.0, 1.0);
    /// Opaque red.
    pub const RED: Self = Self::new(1.0, 0.0, 0.0, 1.0);
    /// Opaque green.
    pub const GREEN: Self = Self::new(0.0, 1.0, 0.0, 1.0);
    /// Opaque blue.
    pub const BLUE: Self = Self::new(0.0, 0.0, 1.0, 1.0);

    /// A colour from its channels.
    pub const fn new(r: f64, g: f64, b: f64, a: f64) -> Self {
        Self { r, g, b, a }
    }

    /// The channels as an array.
    pub fn to_array(self) -> [f64; 4] {
        [self.r, self.g, self.b, self.a]
    }
}

/// How an attachment starts a pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoadOp<T> {
    /// Cleared to the value: the whole attachment, whatever scissor the pass later sets.
    Clear(T),
    /// Keeps what earlier passes left.
    Load,
}

/// What happens to an attachment's contents at the end of a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StoreOp {
    /// Kept for later passes and readback.
    #[default]
    Store,
    /// May be thrown away (transient attachments).
    Discard,
}

/// One subresource of a texture used as an attachment: a mip level of one layer.
#[derive(Clone, Debug)]
pub struct AttachmentView {
    /// The texture.
    pub texture: TextureHandle,
    /// The mip level drawn into; the pass's viewport covers this level, not level 0.
    pub mip_level: u32,
    /// The array layer (cube face) drawn into.
    pub layer: u32,
}

impl AttachmentView {
    /// Level 0 of layer 0.
    pub fn new(texture: &TextureHandle) -> Self {
        Self { texture: texture.clone(), mip_level: 0, layer: 0 }
    }

    /// Another level and layer of the same texture.
    pub fn at(texture: &TextureHandle, mip_level: u32, layer: u32) -> Self {
        Self { texture: texture.clone(), mip_level, layer }
    }

    /// Width and height of the viewed level.
    pub fn size(&self) -> (u32, u32) {
        self.texture.descriptor().level_size(self.mip_level)
    }
}

/// A colour attachment.
#[derive(Clone, Debug)]
pub struct ColorAttachment {
    /// Where colour goes.
    pub view: AttachmentView,
    /// Where a multisampled attachment resolves to, at the end of the pass.
    pub resolve_target: Option<AttachmentView>,
    /// How it starts.
    pub load: LoadOp<Color>,
    /// How it ends.
    pub store: StoreOp,
}

impl ColorAttachment {
    /// Cleared to `color` and stored.
    pub fn clear(texture: &TextureHandle, color: Color) -> Self {
        Self {
            view: AttachmentView::new(texture),
            resolve_target: None,
            load: LoadOp::Clear(color),
            store: StoreOp::Store,
        }
    }

    /// Loaded and stored.
    pub fn load(texture: &TextureHandle) -> Self {
        Self {
            view: AttachmentView::new(texture),
            resolve_target: None,
            load: LoadOp::Load,
            store: StoreOp::Store,
        }
    }
}

/// A depth (and stencil) attachment.
#[derive(Clone, Debug)]
pub struct DepthStencilAttachment {
    /// The depth texture.
    pub view: AttachmentView,
    /// How depth starts.
    pub depth_load: LoadOp<f32>,
    /// How depth ends.
    pub depth_store: StoreOp,
    /// How stencil starts (ignored without a stencil aspect).
    pub stencil_load: LoadOp<u32>,
    /// How stencil ends.
    pub stencil_store: StoreOp,
}

impl DepthStencilAttachment {
    /// Depth cleared to `depth`, stencil cleared to 0, both stored.
    pub fn clear(texture: &TextureHandle, depth: f32) -> Self {
        Self {
            view: AttachmentView::new(texture),
            depth_load: LoadOp::Clear(depth),
            depth_store: StoreOp::Store,
            stencil_load: LoadOp::Clear(0),
            stencil_store: StoreOp::Store,
        }
    }
}

/// The state a texture is in for an operation: the barrier vocabulary.
///
/// The render graph computes transitions between these; the [`RenderPassDescriptor`]
/// carries them; explicit APIs (Vulkan) act on them and backends with implicit
/// synchronisation (wgpu, soft, null) may ignore them. So no backend depends on the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ResourceState {
    /// Contents undefined (freshly allocated or about to be cleared).
    Undefined,
    /// Written as a colour attachment.
    ColorAttachment,
    /// Written as a depth-stencil attachment.
    DepthStencilAttachment,
    /// Read as a depth attachment (depth test without writes) and maybe sampled.
    DepthStencilReadOnly,
    /// Sampled by shaders.
    ShaderRead,
    /// The source of a copy or readback.
    CopySource,
    /// The destination of a copy or upload.
    CopyDestination,
    /// Handed to a presenter.
    Present,
}

/// A state change a pass needs before it runs.
#[derive(Clone, Debug)]
pub struct TextureTransition {
    /// The texture.
    pub texture: TextureHandle,
    /// The state earlier work left it in.
    pub before: ResourceState,
    /// The state this pass needs.
    pub after: ResourceState,
}

/// How to begin a render pass.
#[derive(Clone, Debug, Default)]
pub struct RenderPassDescriptor {
    /// A name for logs, errors and GPU debuggers.
    pub label: String,
    /// Colour attachments, in `@location` order; at most `max_color_attachments`.
    pub color_attachments: Vec<ColorAttachment>,
    /// The depth-stencil attachment.
    pub depth_stencil_attachment: Option<DepthStencilAttachment>,
    /// Views rendered at once (needs [`MULTIVIEW`](crate::DeviceFeature::MULTIVIEW)).
    pub multiview: Option<NonZeroU32>,
    /// Transitions to make before the pass (from the render graph's barrier plan).
    pub transitions: Vec<TextureTransition>,
}

impl RenderPassDescriptor {
    /// A pass with one colour attachment.
    pub fn color(label: impl Into<String>, attachment: ColorAttachment) -> Self {
        Self { label: label.into(), color_attachments: vec![attachment], ..Self::default() }
    }

    /// The size of the pass's attachments (of the first one; they must agree).
    pub fn size(&self) -> Option<(u32, u32)> {
        self.color_attachments
            .first()
            .map(|a| a.view.size())
            .or_else(|| self.depth_stencil_attachment.as_ref().map(|d| d.view.size()))
    }
}

/// The part of an attachment draws land in, in pixels of the attachment's level, with y down
/// from the top row; and the depth range they map to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// Left edge.
    pub x: f32,
    /// Top edge.
    pub y: f32,
    /// Width.
    pub width: f32,
    /// Height.
    pub height: f32,
    /// Depth that clip-space near maps to.
    pub min_depth: f32,
    /// Depth that clip-space far maps to.
    pub max_depth: f32,
}

impl Viewport {
    /// The whole of a `width`×`height` attachment, depth 0 to 1: what every pass starts with.
    pub fn full(width: u32, height: u32) -> Self {
        Self { x: 0.0, y: 0.0, width: width as f32, height: height as f32, min_depth: 0.0, max_depth: 1.0 }
    }
}

/// A rectangle outside which nothing is drawn, in pixels, y down from the top row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScissorRect {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// What a query set counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueryKind {
    /// Nanosecond timestamps (needs [`TIMESTAMP_QUERY`](crate::DeviceFeature::TIMESTAMP_QUERY)).
    Timestamp,
    /// Samples passing depth and stencil (needs
    /// [`OCCLUSION_QUERY`](crate::DeviceFeature::OCCLUSION_QUERY)).
    Occlusion,
}

impl QueryKind {
    /// The feature the kind needs.
    pub fn feature(self) -> DeviceFeature {
        match self {
            Self::Timestamp => DeviceFeature::TIMESTAMP_QUERY,
            Self::Occlusion => DeviceFeature::OCCLUSION_QUERY,
        }
    }
}

fn unsupported(backend: BackendId, feature: DeviceFeature) -> DeviceError {
    DeviceError::Unsupported { feature, backend }
}

/// Records one render pass. Handed to pass contributors (render graph closures), which can
/// record but not submit.
///
/// A pass starts clean: the viewport covers the whole attachment level, no scissor, stencil
/// reference 0, no pipeline and no bindings; nothing is inherited from the pass before.
/// `set_pipeline` forgets every binding, even when it sets the same pipeline again.
pub trait PassEncoder {
    /// The backend recording (for refusals).
    fn backend(&self) -> BackendId;

    /// Sets the pipeline for the following draws and forgets every binding.
    fn set_pipeline(&mut self, pipeline: &PipelineHandle) -> Result<(), DeviceError>;

    /// The binding table of the current pipeline, if one is set.
    fn pipeline_bindings(&self) -> Option<&BindingLayout>;

    /// Sets the viewport (pixels of the attachment level, y down).
    fn set_viewport(&mut self, viewport: Viewport) -> Result<(), DeviceError>;

    /// Sets the scissor; `None` removes it.
    fn set_scissor(&mut self, rect: Option<ScissorRect>) -> Result<(), DeviceError>;

    /// Sets the stencil reference value.
    fn set_stencil_reference(&mut self, reference: u32) -> Result<(), DeviceError>;

    /// Sets the blend constant (needs [`BLEND_CONSTANT`](DeviceFeature::BLEND_CONSTANT)).
    fn set_blend_constant(&mut self, color: Color) -> Result<(), DeviceError> {
        let _ = color;
        Err(unsupported(self.backend(), DeviceFeature::BLEND_CONSTANT))
    }

    /// Reads vertex buffer `slot` of the pipeline's layout from `buffer` at `offset`.
    fn set_vertex_buffer(
        &mut self,
        slot: u32,
        buffer: &GeometryBuffer,
        offset: u64,
    ) -> Result<(), DeviceError>;

    /// Reads indices of `format` from `buffer`, starting at byte `offset`.
    fn set_index_buffer(
        &mut self,
        buffer: &GeometryBuffer,
        format: IndexFormat,
        offset: u64,
    ) -> Result<(), DeviceError>;

    /// Binds `bytes` to the uniform block at `slot`. False (and nothing bound) when the slot
    /// is not a uniform block of the current pipeline or `bytes` is shorter than the block.
    fn bind_uniform_block_at(&mut self, slot: BindingSlot, bytes: &[u8]) -> bool;

    /// Binds `texture` to the texture at `slot`. False when the slot is not a texture of the
    /// current pipeline or the texture cannot be bound there.
    fn bind_texture_at(&mut self, slot: BindingSlot, texture: &TextureHandle) -> bool;

    /// Binds `sampler` to the sampler at `slot`. False when the slot is not a sampler.
    fn bind_sampler_at(&mut self, slot: BindingSlot, sampler: &SamplerHandle) -> bool;

    /// Binds `buffer` whole to the read-only storage buffer at `slot` (needs
    /// [`STORAGE_BUFFERS`](DeviceFeature::STORAGE_BUFFERS)). False (and nothing bound) when the
    /// slot is not a read-only storage buffer of the current pipeline, the buffer was not made
    /// with [`STORAGE`](crate::GeometryUsages::STORAGE), or the device lacks the feature.
    /// Shaders read the buffer as it is when the pass executes: writes made with
    /// `write_geometry` before the pass is submitted are seen, as for vertex buffers.
    fn bind_storage_buffer_at(&mut self, slot: BindingSlot, buffer: &crate::GeometryBuffer) -> bool;

    /// Binds `buffer` to the read-only storage buffer named `name`. False when the current
    /// pipeline's stages do not declare it (or as [`bind_storage_buffer_at`](Self::bind_storage_buffer_at)).
    fn bind_storage_buffer(&mut self, name: &str, buffer: &crate::GeometryBuffer) -> bool {
        match self.pipeline_bindings().and_then(|l| l.slot(name)) {
            Some(slot) => self.bind_storage_buffer_at(slot, buffer),
            None => false,
        }
    }

    /// Binds `bytes` to the uniform block named `name` (variable or block type name). False
    /// when the current pipeline's stages do not declare it.
    fn bind_uniform_block(&mut self, name: &str, bytes: &[u8]) -> bool {
        match self.pipeline_bindings().and_then(|l| l.slot(name)) {
            Some(slot) => self.bind_uniform_block_at(slot, bytes),
            None => false,
        }
    }

    /// Binds `texture` to the texture named `name`, and `sampler` to its sampler (`<name>_sampler`,
    /// or the pipeline's only sampler). False when the pipeline does not declare `name`.
    fn bind_texture(&mut self, name: &str, texture: &TextureHandle, sampler: &SamplerHandle) -> bool {
        let Some(layout) = self.pipeline_bindings() else { return false };
        let (Some(tex_slot), sampler_slot) = (layout.slot(name), layout.sampler_for(name)) else {
            return false;
        };
        if !self.bind_texture_at(tex_slot, texture) {
            return false;
        }
        match sampler_slot {
            Some(slot) => self.bind_sampler_at(slot, sampler),
            None => true,
        }
    }

    /// Draws `vertices` of `instances` (more than one instance needs
    /// [`INSTANCING`](DeviceFeature::INSTANCING)).
    fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) -> Result<(), DeviceError>;

    /// Draws the index window `indices` of the bound index buffer, adding `base_vertex` to
    /// each index. A window past the end of the buffer is refused.
    fn draw_indexed(
        &mut self,
        indices: Range<u32>,
        base_vertex: i32,
        instances: Range<u32>,
    ) -> Result<(), DeviceError>;

    /// Draws with arguments read from `buffer` at `offset` (needs
    /// [`INDIRECT_DRAW`](DeviceFeature::INDIRECT_DRAW)): four `u32`s, vertex count, instance
    /// count, first vertex, first instance.
    fn draw_indirect(&mut self, buffer: &GeometryBuffer, offset: u64) -> Result<(), DeviceError> {
        let _ = (buffer, offset);
        Err(unsupported(self.backend(), DeviceFeature::INDIRECT_DRAW))
    }

    /// `count` indirect draws with arguments packed back to back (needs
    /// [`MULTI_DRAW_INDIRECT`](DeviceFeature::MULTI_DRAW_INDIRECT)).
    fn multi_draw_indirect(
        &mut self,
        buffer: &GeometryBuffer,
        offset: u64,
        count: u32,
    ) -> Result<(), DeviceError> {
        let _ = (buffer, offset, count);
        Err(unsupported(self.backend(), DeviceFeature::MULTI_DRAW_INDIRECT))
    }

    /// Writes a timestamp into query `index` (needs
    /// [`TIMESTAMP_QUERY`](DeviceFeature::TIMESTAMP_QUERY)).
    fn write_timestamp(&mut self, set: &QuerySetHandle, index: u32) -> Result<(), DeviceError> {
        let _ = (set, index);
        Err(unsupported(self.backend(), DeviceFeature::TIMESTAMP_QUERY))
    }

    /// Starts counting samples into query `index` (needs
    /// [`OCCLUSION_QUERY`](DeviceFeature::OCCLUSION_QUERY)).
    fn begin_occlusion_query(&mut self, set: &QuerySetHandle, index: u32) -> Result<(), DeviceError> {
        let _ = (set, index);
        Err(unsupported(self.backend(), DeviceFeature::OCCLUSION_QUERY))
    }

    /// Stops the running occlusion query.
    fn end_occlusion_query(&mut self) -> Result<(), DeviceError> {
        Err(unsupported(self.backend(), DeviceFeature::OCCLUSION_QUERY))
    }
}

/// A pass that can also be submitted. Only the code that began the pass holds one; it hands
/// contributors `&mut dyn PassEncoder`. `submit` consumes the encoder, so a pass cannot be
/// submitted twice or recorded into after submission: the type system holds that rule.
///
/// ```compile_fail
/// fn twice(encoder: Box<dyn f3d_hal::CommandEncoder + '_>) {
///     encoder.submit().unwrap();
///     encoder.submit().unwrap(); // use of moved value
/// }
/// ```
pub trait CommandEncoder: PassEncoder {
    /// Ends the pass and submits it; its effects are visible to every later operation.
    fn submit(self: Box<Self>) -> Result<(), DeviceError>;
}
