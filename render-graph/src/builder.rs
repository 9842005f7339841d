//! Declaring a frame: virtual textures, imported textures, and passes with their reads and
//! writes.
//!
//! Everything here only records. Nothing is ordered, checked against other passes or
//! allocated until [`RenderGraph::compile`]; errors a single call can already see (a handle
//! from another graph, one texture used two ways in one pass) are kept and reported by
//! `compile`, so the builder API stays free of `Result`s.

use std::borrow::Cow;
use std::sync::{Mutex, PoisonError};

use f3d_hal::{Color, LoadOp, ResourceState, TextureHandle};

use crate::GraphError;
use crate::execute::{DeviceContext, PassContext};
use crate::resource::{Access, AccessKind, PassId, TextureDesc, TextureId};

/// What a pass closure returns: errors propagate as [`GraphError::Pass`] naming the pass.
pub type PassResult = Result<(), PassError>;

/// Any error a pass closure (or the device under it) can fail with.
pub type PassError = Box<dyn std::error::Error + Send + Sync + 'static>;

pub(crate) type RenderFn = Box<dyn FnOnce(&mut PassContext<'_>) -> PassResult + Send + 'static>;
pub(crate) type DeviceFn = Box<dyn FnOnce(&mut DeviceContext<'_>) -> PassResult + Send + 'static>;

/// Where a virtual texture's memory comes from.
pub(crate) enum Origin {
    /// Made for this frame from the transient pool.
    Transient(TextureDesc),
    /// Made by the caller; `state` is what earlier work left it in.
    Imported { handle: TextureHandle, state: ResourceState },
}

pub(crate) struct ResourceNode {
    pub(crate) name: Cow<'static, str>,
    pub(crate) origin: Origin,
    /// Its last version is wanted after the graph (imported textures are, always).
    pub(crate) output: bool,
    /// The highest version any write produced.
    pub(crate) last_version: u32,
}

impl ResourceNode {
    pub(crate) fn is_imported(&self) -> bool {
        matches!(self.origin, Origin::Imported { .. })
    }
}

/// What kind of work a pass is, which decides how the executor runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PassKind {
    /// A render pass: attachments, and a closure recording into a `PassEncoder`.
    Render,
    /// A copy of level 0 of one texture into another, run by the graph.
    Copy,
    /// A closure calling the device directly (uploads, readbacks, dispatches).
    Device,
}

impl PassKind {
    /// The kind's name in dumps.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Render => "render",
            Self::Copy => "copy",
            Self::Device => "device",
        }
    }
}

pub(crate) struct PassNode {
    pub(crate) name: Cow<'static, str>,
    pub(crate) kind: PassKind,
    pub(crate) keep_alive: bool,
    /// Range into [`RenderGraph::accesses`].
    pub(crate) first_access: u32,
    pub(crate) access_count: u32,
}

impl RenderGraph {
    /// Takes every pass's callback out of the graph, in pass order.
    pub(crate) fn take_callbacks(&mut self) -> Vec<Callback> {
        std::mem::take(&mut self.callbacks)
            .into_iter()
            .map(|c| c.into_inner().unwrap_or_else(PoisonError::into_inner))
            .collect()
    }
}

pub(crate) enum Callback {
    Render(RenderFn),
    Device(DeviceFn),
    None,
}

/// The frame's passes and resources, as declared. Build one per frame, then
/// [`compile`](Self::compile) it.
#[derive(Default)]
pub struct RenderGraph {
    pub(crate) resources: Vec<ResourceNode>,
    pub(crate) passes: Vec<PassNode>,
    pub(crate) accesses: Vec<Access>,
    /// Per pass. The `Mutex` is never locked (callbacks are reached only through `&mut` or by
    /// value); it is there so the graph is `Sync` with `Send`-only closures, as an ECS
    /// resource must be.
    pub(crate) callbacks: Vec<Mutex<Callback>>,
    /// The first misuse a single call could see; reported by `compile`.
    pub(crate) build_error: Option<GraphError>,
}

impl RenderGraph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty graph with room for `passes` passes and `textures` textures.
    pub fn with_capacity(passes: usize, textures: usize) -> Self {
        Self {
            resources: Vec::with_capacity(textures),
            passes: Vec::with_capacity(passes),
            accesses: Vec::with_capacity(passes * 3),
            callbacks: Vec::with_capacity(passes),
            build_error: None,
        }
    }

    /// Declares a transient texture: its memory comes from the [`TransientPool`] for this
    /// frame only, and may be shared with other transients whose lifetimes do not overlap.
    /// Until a pass writes it, it has no contents (reading it is an error).
    ///
    /// [`TransientPool`]: crate::TransientPool
    pub fn create_texture(&mut self, name: impl Into<Cow<'static, str>>, desc: TextureDesc) -> TextureId {
        self.add_resource(name.into(), Origin::Transient(desc), false)
    }

    /// Declares a texture made outside the graph (the render target, a history buffer),
    /// currently in `state`. Its contents at version 0 are whatever it holds; its last version
    /// is an output of the graph, so passes writing it are never culled. It is never aliased.
    pub fn import_texture(
        &mut self,
        name: impl Into<Cow<'static, str>>,
        texture: TextureHandle,
        state: ResourceState,
    ) -> TextureId {
        self.add_resource(name.into(), Origin::Imported { handle: texture, state }, true)
    }

    /// Marks a texture's last version as wanted after the graph ran: the passes producing it
    /// survive culling, and the executed graph hands out its physical texture
    /// ([`ExecutedGraph::texture`](crate::ExecutedGraph::texture)).
    pub fn mark_output(&mut self, texture: TextureId) {
        match self.resources.get_mut(texture.index as usize) {
            Some(r) => r.output = true,
            None => self.note_unknown("mark_output", texture),
        }
    }

    /// Adds a render pass. `setup` declares what the pass reads and writes (at least one
    /// attachment) and returns the closure that records it; that closure runs at execute
    /// time, only if the pass survives culling, with a fresh encoder for its attachments.
    ///
    /// ```
    /// # use f3d_render_graph::*;
    /// # use f3d_hal::{Color, LoadOp, TextureFormat};
    /// let mut graph = RenderGraph::new();
    /// let color = graph.create_texture("color", TextureDesc::relative(1.0, TextureFormat::Rgba16Float));
    /// let mut written = color;
    /// graph.add_pass("clear", |pass| {
    ///     written = pass.write_color(color, LoadOp::Clear(Color::BLACK));
    ///     |_ctx: &mut PassContext<'_>| Ok(())
    /// });
    /// assert_eq!(written.version(), 1);
    /// ```
    pub fn add_pass<S, R>(&mut self, name: impl Into<Cow<'static, str>>, setup: S) -> PassId
    where
        S: FnOnce(&mut RenderPassBuilder<'_>) -> R,
        R: FnOnce(&mut PassContext<'_>) -> PassResult + Send + 'static,
    {
        let id = self.begin_pass(name.into(), PassKind::Render);
        let record = setup(&mut RenderPassBuilder { inner: Declarer { graph: self, pass: id.0 } });
        self.callbacks.push(Mutex::new(Callback::Render(Box::new(record))));
        id
    }

    /// Adds a pass that calls the device directly instead of recording a render pass:
    /// uploads ([`DevicePassBuilder::write_copy`]), readbacks
    /// ([`DevicePassBuilder::read_copy`]), anything done for its side effects (mark those
    /// [`keep_alive`](DevicePassBuilder::keep_alive)).
    pub fn add_device_pass<S, R>(&mut self, name: impl Into<Cow<'static, str>>, setup: S) -> PassId
    where
        S: FnOnce(&mut DevicePassBuilder<'_>) -> R,
        R: FnOnce(&mut DeviceContext<'_>) -> PassResult + Send + 'static,
    {
        let id = self.begin_pass(name.into(), PassKind::Device);
        let run = setup(&mut DevicePassBuilder { inner: Declarer { graph: self, pass: id.0 } });
        self.callbacks.push(Mutex::new(Callback::Device(Box::new(run))));
        id
    }

    /// Adds a pass copying level 0 of `source` into `destination` (same size and format, or
    /// its sRGB twin), run through `GraphicsDevice::copy_texture`: the scene-colour snapshot.
    /// Returns the destination's next version. A device without
    /// [`COPY_TEXTURE`](f3d_hal::DeviceFeature::COPY_TEXTURE) refuses it at execute time,
    /// with an error naming this pass.
    pub fn add_copy_pass(
        &mut self,
        name: impl Into<Cow<'static, str>>,
        source: TextureId,
        destination: TextureId,
    ) -> TextureId {
        let id = self.begin_pass(name.into(), PassKind::Copy);
        let mut declare = Declarer { graph: self, pass: id.0 };
        declare.read(source, AccessKind::CopySource);
        let next = declare.write(destination, AccessKind::CopyDestination);
        self.callbacks.push(Mutex::new(Callback::None));
        next
    }

    /// How many passes were added.
    pub fn pass_count(&self) -> usize {
        self.passes.len()
    }

    fn add_resource(&mut self, name: Cow<'static, str>, origin: Origin, output: bool) -> TextureId {
        let index = self.resources.len() as u32;
        self.resources.push(ResourceNode { name, origin, output, last_version: 0 });
        TextureId { index, version: 0 }
    }

    fn begin_pass(&mut self, name: Cow<'static, str>, kind: PassKind) -> PassId {
        let id = PassId(self.passes.len() as u32);
        self.passes.push(PassNode {
            name,
            kind,
            keep_alive: false,
            first_access: self.accesses.len() as u32,
            access_count: 0,
        });
        id
    }

    fn note_unknown(&mut self, by: &str, texture: TextureId) {
        if self.build_error.is_none() {
            self.build_error = Some(GraphError::UnknownResource {
                by: by.to_owned(),
                index: texture.index,
                version: texture.version,
            });
        }
    }

    fn note(&mut self, error: impl FnOnce(&Self) -> GraphError) {
        if self.build_error.is_none() {
            self.build_error = Some(error(self));
        }
    }
}

/// Records one pass's accesses into the graph; shared by the pass builders.
struct Declarer<'g> {
    graph: &'g mut RenderGraph,
    pass: u32,
}

impl Declarer<'_> {
    fn node(&mut self) -> &mut PassNode {
        // `pass` was pushed by `begin_pass` just before this declarer was made.
        &mut self.graph.passes[self.pass as usize]
    }

    /// Checks that `texture` belongs to this graph (index and version exist).
    fn known(&mut self, texture: TextureId) -> bool {
        let ok = self
            .graph
            .resources
            .get(texture.index as usize)
            .is_some_and(|r| texture.version <= r.last_version);
        if !ok {
            let by = format!("pass {}", self.graph.passes[self.pass as usize].name);
            self.graph.note_unknown(&by, texture);
        }
        ok
    }

    /// This pass's earlier access to the same texture, if any.
    fn earlier(&self, texture: TextureId) -> Option<usize> {
        let node = &self.graph.passes[self.pass as usize];
        let range = node.first_access as usize..(node.first_access + node.access_count) as usize;
        range.into_iter().find(|&i| self.graph.accesses[i].resource == texture.index)
    }

    fn conflict(&mut self, texture: TextureId, first: AccessKind, second: AccessKind) {
        let pass = self.pass as usize;
        self.graph.note(|g| GraphError::ConflictingAccess {
            pass: g.passes[pass].name.to_string(),
            resource: g.resources[texture.index as usize].name.to_string(),
            first: first.name(),
            second: second.name(),
        });
    }

    fn push(&mut self, texture: TextureId, kind: AccessKind) {
        self.graph.accesses.push(Access { resource: texture.index, version: texture.version, kind });
        self.node().access_count += 1;
    }

    fn read(&mut self, texture: TextureId, kind: AccessKind) {
        if !self.known(texture) {
            return;
        }
        let Some(i) = self.earlier(texture) else {
            self.push(texture, kind);
            return;
        };
        let earlier = self.graph.accesses[i];
        let merged = match (earlier.kind, kind) {
            _ if earlier.version != texture.version => None,
            (a, b) if a == b => Some(a),
            (AccessKind::Sampled, AccessKind::DepthRead { .. })
            | (AccessKind::DepthRead { .. }, AccessKind::Sampled) => {
                Some(AccessKind::DepthRead { sampled: true })
            }
            (AccessKind::DepthRead { .. }, AccessKind::DepthRead { .. }) => {
                Some(AccessKind::DepthRead { sampled: true })
            }
            _ => None,
        };
        match merged {
            Some(m) => self.graph.accesses[i].kind = m,
            None => self.conflict(texture, earlier.kind, kind),
        }
    }

    fn write(&mut self, texture: TextureId, kind: AccessKind) -> TextureId {
        let next = TextureId { index: texture.index, version: texture.version + 1 };
        if !self.known(texture) {
            return next;
        }
        if let Some(i) = self.earlier(texture) {
            let earlier = self.graph.accesses[i].kind;
            self.conflict(texture, earlier, kind);
            return next;
        }
        if matches!(kind, AccessKind::DepthWrite(_)) {
            self.one_depth_attachment(texture);
        }
        self.push(texture, kind);
        let r = &mut self.graph.resources[texture.index as usize];
        r.last_version = r.last_version.max(next.version);
        next
    }

    fn one_depth_attachment(&mut self, texture: TextureId) {
        let node = &self.graph.passes[self.pass as usize];
        let range = node.first_access as usize..(node.first_access + node.access_count) as usize;
        let other = self.graph.accesses[range].iter().find(|a| {
            matches!(a.kind, AccessKind::DepthWrite(_) | AccessKind::DepthRead { .. })
                && a.resource != texture.index
        });
        if let Some(other) = other.copied() {
            let pass = self.pass as usize;
            self.graph.note(|g| GraphError::TwoDepthAttachments {
                pass: g.passes[pass].name.to_string(),
                first: g.resources[other.resource as usize].name.to_string(),
                second: g.resources[texture.index as usize].name.to_string(),
            });
        }
    }
}

/// Declares what a render pass reads and writes. Handed to [`RenderGraph::add_pass`]'s setup.
pub struct RenderPassBuilder<'g> {
    inner: Declarer<'g>,
}

impl RenderPassBuilder<'_> {
    /// Samples `texture` (this version) in shaders.
    pub fn read_texture(&mut self, texture: TextureId) {
        self.inner.read(texture, AccessKind::Sampled);
    }

    /// Attaches `texture` (this version) as the depth attachment for depth tests without
    /// writes; it keeps its contents and may also be sampled in the same pass.
    pub fn read_depth(&mut self, texture: TextureId) {
        if self.inner.known(texture) {
            self.inner.one_depth_attachment(texture);
        }
        self.inner.read(texture, AccessKind::DepthRead { sampled: false });
    }

    /// Attaches `texture` as a colour attachment (in the order of these calls, which is
    /// `@location` order), starting from `load`. Returns the version the pass leaves. Whether
    /// it is stored is derived: stored when a later pass or the caller reads that version,
    /// discarded otherwise.
    pub fn write_color(&mut self, texture: TextureId, load: LoadOp<Color>) -> TextureId {
        self.inner.write(texture, AccessKind::ColorWrite(load))
    }

    /// Attaches the multisampled `texture` as the next colour attachment, as
    /// [`write_color`](Self::write_color) does, and resolves it into `target` (single-sampled,
    /// of the same format and size) when the pass ends: each texel of `target` becomes the
    /// average of `texture`'s samples. Returns the versions the pass leaves of both; a pass
    /// that only resolves draws nothing and loads `texture`.
    pub fn write_color_resolved(
        &mut self,
        texture: TextureId,
        load: LoadOp<Color>,
        target: TextureId,
    ) -> (TextureId, TextureId) {
        let written = self.inner.write(texture, AccessKind::ColorWrite(load));
        let resolved = self.inner.write(target, AccessKind::ResolveWrite);
        (written, resolved)
    }

    /// Attaches `texture` as the depth(-stencil) attachment, starting from `load` (stencil
    /// is cleared to 0 with a depth clear and kept with a depth load). Returns the next
    /// version; store is derived as for [`write_color`](Self::write_color).
    pub fn write_depth(&mut self, texture: TextureId, load: LoadOp<f32>) -> TextureId {
        self.inner.write(texture, AccessKind::DepthWrite(load))
    }

    /// Keeps the pass even when nothing reads what it writes (side effects, debugging).
    pub fn keep_alive(&mut self) {
        self.inner.node().keep_alive = true;
    }
}

/// Declares what a device pass reads and writes. Handed to [`RenderGraph::add_device_pass`]'s
/// setup.
pub struct DevicePassBuilder<'g> {
    inner: Declarer<'g>,
}

impl DevicePassBuilder<'_> {
    /// Samples `texture` (this version), e.g. in a compute dispatch.
    pub fn read_texture(&mut self, texture: TextureId) {
        self.inner.read(texture, AccessKind::Sampled);
    }

    /// Reads `texture` (this version) as the source of a copy or a readback.
    pub fn read_copy(&mut self, texture: TextureId) {
        self.inner.read(texture, AccessKind::CopySource);
    }

    /// Overwrites `texture` as the destination of copies or uploads covering all of level 0.
    /// Returns the next version.
    pub fn write_copy(&mut self, texture: TextureId) -> TextureId {
        self.inner.write(texture, AccessKind::CopyDestination)
    }

    /// Keeps the pass even when nothing reads what it writes: readbacks and other passes run
    /// for their side effects.
    pub fn keep_alive(&mut self) {
        self.inner.node().keep_alive = true;
    }
}
