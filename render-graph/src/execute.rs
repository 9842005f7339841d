//! Running a compiled graph on a device.
//!
//! ```text
//!  pool ── slots ──▶ physical textures ─┐
//!  imported handles ────────────────────┤
//!                                       ▼
//!  for each live pass, in order:   render: begin_render_pass(attachments, transitions)
//!                                          closure(&mut PassContext) ── submit (executor only)
//!                                  copy:   device.copy_texture
//!                                  device: closure(&mut DeviceContext)
//! ```
//!
//! A render pass closure gets `&mut dyn PassEncoder`: it records, and cannot submit, since
//! `submit` lives on `CommandEncoder`, which only the executor holds.

use f3d_hal::{
    AttachmentView, ColorAttachment, DepthStencilAttachment, DeviceError, DeviceFeature, GraphicsDevice,
    LoadOp, PassEncoder, RenderPassDescriptor, TextureHandle, TextureRegion, TextureTransition,
};

use crate::builder::{Callback, Origin, PassKind, ResourceNode};
use crate::compile::order::{NONE, pass_accesses};
use crate::resource::{Access, AccessKind};
use crate::{CompiledGraph, GraphError, PassError, TextureId, TransientPool};

/// The physical textures a pass declared, looked up by handle.
struct Declared<'a> {
    pass: &'a str,
    accesses: &'a [Access],
    physical: &'a [Option<TextureHandle>],
    resources: &'a [ResourceNode],
}

impl<'a> Declared<'a> {
    fn texture(&self, texture: TextureId) -> Result<&'a TextureHandle, GraphError> {
        let declared = self.accesses.iter().any(|a| a.resource == texture.index);
        match self.physical.get(texture.index as usize) {
            Some(Some(handle)) if declared => Ok(handle),
            _ => Err(GraphError::Undeclared {
                pass: self.pass.to_owned(),
                resource: self
                    .resources
                    .get(texture.index as usize)
                    .map_or_else(|| format!("#{}", texture.index), |r| r.name.to_string()),
            }),
        }
    }
}

/// What a render pass closure records with.
///
/// The encoder records and cannot submit — only the executor, holding the
/// `CommandEncoder`, does:
///
/// ```compile_fail
/// fn record(ctx: &mut f3d_render_graph::PassContext<'_>) {
///     use f3d_hal::CommandEncoder;
///     ctx.encoder.submit(); // `dyn PassEncoder` has no `submit`
/// }
/// ```
pub struct PassContext<'a> {
    /// The pass's encoder, begun on its attachments. It records; only the executor submits.
    pub encoder: &'a mut dyn PassEncoder,
    /// The device, for objects the pass makes for itself.
    pub device: &'a dyn GraphicsDevice,
    declared: Declared<'a>,
}

impl PassContext<'_> {
    /// The physical texture behind `texture`, which this pass must have declared (any
    /// version). Transients may share it with other transients of this frame.
    pub fn texture(&self, texture: TextureId) -> Result<&TextureHandle, GraphError> {
        self.declared.texture(texture)
    }

    /// The pass's name.
    pub fn pass_name(&self) -> &str {
        self.declared.pass
    }
}

/// What a device pass closure works with: the device and the textures it declared.
pub struct DeviceContext<'a> {
    /// The device.
    pub device: &'a dyn GraphicsDevice,
    declared: Declared<'a>,
}

impl DeviceContext<'_> {
    /// The physical texture behind `texture`, which this pass must have declared.
    pub fn texture(&self, texture: TextureId) -> Result<&TextureHandle, GraphError> {
        self.declared.texture(texture)
    }

    /// The pass's name.
    pub fn pass_name(&self) -> &str {
        self.declared.pass
    }
}

/// What an execution leaves for the caller: the physical textures of outputs marked with
/// `mark_output`, valid until the pool hands them to a later execution.
#[derive(Debug)]
pub struct ExecutedGraph {
    outputs: Vec<(u32, TextureHandle)>,
    passes_run: usize,
}

impl ExecutedGraph {
    /// The physical texture holding an output transient's last version.
    pub fn texture(&self, texture: TextureId) -> Option<&TextureHandle> {
        self.outputs.iter().find(|(r, _)| *r == texture.index).map(|(_, t)| t)
    }

    /// How many passes ran.
    pub fn passes_run(&self) -> usize {
        self.passes_run
    }
}

fn pass_error(pass: &str, source: impl Into<PassError>) -> GraphError {
    GraphError::Pass { pass: pass.to_owned(), source: source.into() }
}

impl CompiledGraph {
    /// Runs the live passes in order on `device`, with transients from `pool`.
    ///
    /// Each render pass begins on a fresh encoder with its attachments and transitions, its
    /// closure records, and the executor submits; copy passes go through
    /// `GraphicsDevice::copy_texture`. A device without `COPY_TEXTURE` is refused before
    /// anything runs, naming the first copy pass. The first failure stops execution and is
    /// returned naming its pass. The caller begins the frame (`begin_frame`) and reads back.
    pub fn execute(
        mut self,
        device: &dyn GraphicsDevice,
        pool: &mut TransientPool,
    ) -> Result<ExecutedGraph, GraphError> {
        let passes = &self.graph.passes;
        let copy =
            self.liveness.schedule.iter().map(|&p| &passes[p as usize]).find(|p| p.kind == PassKind::Copy);
        if let Some(pass) = copy
            && !device.features().has(DeviceFeature::COPY_TEXTURE)
        {
            let refusal = DeviceError::Unsupported {
                feature: DeviceFeature::COPY_TEXTURE,
                backend: device.backend_id(),
            };
            return Err(pass_error(&pass.name, refusal));
        }
        pool.begin_execution();
        let result = self.run(device, pool);
        pool.end_execution();
        result
    }

    fn physical(
        &self,
        device: &dyn GraphicsDevice,
        pool: &mut TransientPool,
    ) -> Result<Vec<Option<TextureHandle>>, GraphError> {
        let resources = &self.graph.resources;
        let mut slots = Vec::with_capacity(self.alias.slots.len());
        for slot in &self.alias.slots {
            let name = &resources[slot.first_resource as usize].name;
            let texture = pool
                .acquire(device, slot.key, slot.usage, name)
                .map_err(|source| GraphError::Allocation { resource: name.to_string(), source })?;
            slots.push(texture);
        }
        Ok(resources
            .iter()
            .zip(&self.alias.slot_of)
            .map(|(r, &slot)| match &r.origin {
                Origin::Imported { handle, .. } => Some(handle.clone()),
                Origin::Transient(_) if slot != NONE => Some(slots[slot as usize].clone()),
                Origin::Transient(_) => None,
            })
            .collect())
    }

    fn run(
        &mut self,
        device: &dyn GraphicsDevice,
        pool: &mut TransientPool,
    ) -> Result<ExecutedGraph, GraphError> {
        let physical = self.physical(device, pool)?;
        let mut callbacks = self.take_callbacks();
        for (pos, &p) in self.liveness.schedule.iter().enumerate() {
            let pass = &self.graph.passes[p as usize];
            let declared = Declared {
                pass: &pass.name,
                accesses: pass_accesses(&self.graph, p as usize),
                physical: &physical,
                resources: &self.graph.resources,
            };
            let callback = std::mem::replace(&mut callbacks[p as usize], Callback::None);
            match (pass.kind, callback) {
                (PassKind::Render, Callback::Render(record)) => {
                    let desc = self.render_pass(p as usize, pos, &physical);
                    let mut encoder =
                        device.begin_render_pass(&desc).map_err(|e| pass_error(&pass.name, e))?;
                    let mut ctx = PassContext { encoder: &mut *encoder, device, declared };
                    record(&mut ctx).map_err(|e| pass_error(&pass.name, e))?;
                    encoder.submit().map_err(|e| pass_error(&pass.name, e))?;
                }
                (PassKind::Copy, _) => copy(device, &declared)?,
                (PassKind::Device, Callback::Device(run)) => {
                    run(&mut DeviceContext { device, declared }).map_err(|e| pass_error(&pass.name, e))?;
                }
                // Each kind of pass is created with its kind of callback (builder.rs).
                _ => unreachable!("pass {} has a callback of another kind", pass.name),
            }
        }
        let outputs = self
            .graph
            .resources
            .iter()
            .enumerate()
            .filter(|(_, r)| r.output && !r.is_imported())
            .filter_map(|(i, _)| Some((i as u32, physical[i].clone()?)))
            .collect();
        Ok(ExecutedGraph { outputs, passes_run: self.liveness.schedule.len() })
    }

    /// The descriptor for the render pass `p` at schedule position `pos`.
    fn render_pass(&self, p: usize, pos: usize, physical: &[Option<TextureHandle>]) -> RenderPassDescriptor {
        let pass = &self.graph.passes[p];
        // Every texture a live pass touches has a lifetime and therefore a physical texture.
        let texture = |r: u32| physical[r as usize].as_ref().expect("live passes' textures are allocated");
        let mut desc =
            RenderPassDescriptor { label: pass.name.to_string(), ..RenderPassDescriptor::default() };
        for (i, a) in pass_accesses(&self.graph, p).iter().enumerate() {
            let store = self.liveness.store[pass.first_access as usize + i];
            let view = || AttachmentView::new(texture(a.resource));
            match a.kind {
                AccessKind::ColorWrite(load) => {
                    desc.color_attachments.push(ColorAttachment {
                        view: view(),
                        resolve_target: None,
                        load,
                        store,
                    });
                }
                AccessKind::DepthWrite(depth_load) => {
                    let stencil_load = match depth_load {
                        LoadOp::Clear(_) => LoadOp::Clear(0),
                        LoadOp::Load => LoadOp::Load,
                    };
                    desc.depth_stencil_attachment = Some(DepthStencilAttachment {
                        view: view(),
                        depth_load,
                        depth_store: store,
                        stencil_load,
                        stencil_store: store,
                    });
                }
                AccessKind::DepthRead { .. } => {
                    desc.depth_stencil_attachment = Some(DepthStencilAttachment {
                        view: view(),
                        depth_load: LoadOp::Load,
                        depth_store: f3d_hal::StoreOp::Store,
                        stencil_load: LoadOp::Load,
                        stencil_store: f3d_hal::StoreOp::Store,
                    });
                }
                // Declared right after its multisampled attachment
                // (`RenderPassBuilder::write_color_resolved`).
                AccessKind::ResolveWrite => {
                    if let Some(attachment) = desc.color_attachments.last_mut() {
                        attachment.resolve_target = Some(view());
                    }
                }
                AccessKind::Sampled | AccessKind::CopySource | AccessKind::CopyDestination => {}
            }
        }
        desc.transitions = self
            .barriers
            .at(pos)
            .iter()
            .map(|t| TextureTransition {
                texture: texture(t.texture.index).clone(),
                before: t.before,
                after: t.after,
            })
            .collect();
        desc
    }
}

/// Runs a copy pass: level 0 of the source into level 0 of the destination.
fn copy(device: &dyn GraphicsDevice, declared: &Declared<'_>) -> Result<(), GraphError> {
    let find = |kind: AccessKind| declared.accesses.iter().find(|a| a.kind == kind);
    // A copy pass is built with exactly one source and one destination (RenderGraph::add_copy_pass).
    let (Some(src), Some(dst)) = (find(AccessKind::CopySource), find(AccessKind::CopyDestination)) else {
        unreachable!("copy pass {} lacks a source or destination", declared.pass)
    };
    let src = declared.texture(TextureId { index: src.resource, version: src.version })?;
    let dst = declared.texture(TextureId { index: dst.resource, version: dst.version })?;
    let region = TextureRegion::full(src.descriptor());
    device.copy_texture(src, region, dst, region).map_err(|e| pass_error(declared.pass, e))
}
