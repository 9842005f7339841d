//! Replaying: every recorded call, re-issued on another device.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::Arc;

use super::{Trace, TraceCall, TraceCommand, TraceError, TraceId, TracePass, TraceView};
use crate::{
    AttachmentView, BindingSlot, ColorAttachment, ComputePipelineDescriptor, DepthStencilAttachment,
    DeviceError, GeometryBuffer, GraphicsDevice, PipelineDescriptor, PipelineHandle, QuerySetHandle,
    ReadbackImage, RenderPassDescriptor, SamplerHandle, ShaderDescriptor, ShaderHandle, TextureHandle,
    TextureTransition, ValidatedModule,
};

/// One readback of a replayed trace.
#[derive(Clone, Debug)]
pub struct Replayed {
    /// The readback's record index.
    pub record: usize,
    /// The texture's label.
    pub texture: String,
    /// What the recording device read back, if the app waited for it.
    pub recorded: Option<ReadbackImage>,
    /// What the replay device reads back.
    pub replayed: ReadbackImage,
}

enum Made {
    Module(Arc<ValidatedModule>),
    Texture(TextureHandle),
    Geometry(GeometryBuffer),
    Sampler(SamplerHandle),
    Shader(ShaderHandle),
    Pipeline(PipelineHandle),
    QuerySet(QuerySetHandle),
}

impl Made {
    fn kind(&self) -> &'static str {
        match self {
            Self::Module(_) => "a shader module",
            Self::Texture(_) => "a texture",
            Self::Geometry(_) => "a geometry buffer",
            Self::Sampler(_) => "a sampler",
            Self::Shader(_) => "a shader",
            Self::Pipeline(_) => "a pipeline",
            Self::QuerySet(_) => "a query set",
        }
    }
}

/// What a replay has made so far, by trace id.
struct Replay<'a> {
    device: &'a dyn GraphicsDevice,
    made: HashMap<TraceId, Made>,
    record: usize,
    call: &'static str,
}

macro_rules! lookup {
    ($($fn:ident: $variant:ident -> $t:ty, $what:literal;)*) => {$(
        fn $fn(&self, id: TraceId) -> Result<$t, TraceError> {
            match self.made.get(&id) {
                Some(Made::$variant(h)) => Ok(h.clone()),
                Some(other) => Err(self.invalid(format!("id {id} is {}, not {}", other.kind(), $what))),
                None => Err(self.invalid(format!("id {id} was never made"))),
            }
        }
    )*};
}

impl Replay<'_> {
    fn invalid(&self, what: String) -> TraceError {
        TraceError::Invalid { record: self.record, call: self.call, what }
    }

    fn checked<T>(&self, result: Result<T, DeviceError>) -> Result<T, TraceError> {
        result.map_err(|error| TraceError::Replay { record: self.record, call: self.call, error })
    }

    fn make(&mut self, id: TraceId, made: Made) -> Result<(), TraceError> {
        if self.made.insert(id, made).is_some() {
            return Err(self.invalid(format!("id {id} is made twice")));
        }
        Ok(())
    }

    lookup! {
        module: Module -> Arc<ValidatedModule>, "a shader module";
        texture: Texture -> TextureHandle, "a texture";
        geometry: Geometry -> GeometryBuffer, "a geometry buffer";
        sampler: Sampler -> SamplerHandle, "a sampler";
        shader: Shader -> ShaderHandle, "a shader";
        pipeline: Pipeline -> PipelineHandle, "a pipeline";
        query_set: QuerySet -> QuerySetHandle, "a query set";
    }

    fn view(&self, view: &TraceView) -> Result<AttachmentView, TraceError> {
        Ok(AttachmentView {
            texture: self.texture(view.texture)?,
            mip_level: view.mip_level,
            layer: view.layer,
        })
    }

    fn call(&mut self, call: &TraceCall, out: &mut Vec<Replayed>) -> Result<(), TraceError> {
        let device = self.device;
        match call {
            TraceCall::Module { id, wgsl } => {
                let module = naga::front::wgsl::parse_str(wgsl)
                    .map_err(|e| self.invalid(format!("the WGSL does not parse: {}", e.message())))?;
                let module = ValidatedModule::new(module)
                    .map_err(|e| self.invalid(format!("the module does not validate: {e}")))?;
                self.make(*id, Made::Module(Arc::new(module)))?;
            }
            TraceCall::CreateTexture { id, desc } => {
                let t = self.checked(device.create_texture(desc))?;
                self.make(*id, Made::Texture(t))?;
            }
            TraceCall::WriteTexture { texture, region, data } => {
                let t = self.texture(*texture)?;
                self.checked(device.write_texture(&t, *region, data))?;
            }
            TraceCall::CreateGeometry { id, desc, data } => {
                let b = self.checked(device.create_geometry(desc, data.as_deref()))?;
                self.make(*id, Made::Geometry(b))?;
            }
            TraceCall::WriteGeometry { buffer, offset, data } => {
                let b = self.geometry(*buffer)?;
                self.checked(device.write_geometry(&b, *offset, data))?;
            }
            TraceCall::CreateSampler { id, desc } => {
                let s = self.checked(device.create_sampler(desc))?;
                self.make(*id, Made::Sampler(s))?;
            }
            TraceCall::CreateShader { id, label, module, stage, entry_point } => {
                let module = self.module(*module)?;
                if module.entry_point_index(*stage, entry_point).is_none() {
                    return Err(self.invalid(format!("the module has no {stage} entry point {entry_point}")));
                }
                let desc = ShaderDescriptor {
                    label: label.clone(),
                    module,
                    stage: *stage,
                    entry_point: entry_point.clone(),
                };
                let s = self.checked(device.create_shader(&desc))?;
                self.make(*id, Made::Shader(s))?;
            }
            TraceCall::CreatePipeline { id, desc } => {
                let multiview = match desc.multiview {
                    None => None,
                    Some(n) => {
                        Some(NonZeroU32::new(n).ok_or_else(|| self.invalid("multiview of 0 views".into()))?)
                    }
                };
                let pipeline = PipelineDescriptor {
                    label: desc.label.clone(),
                    vertex: self.shader(desc.vertex)?,
                    fragment: desc.fragment.map(|f| self.shader(f)).transpose()?,
                    vertex_buffers: desc.vertex_buffers.clone(),
                    primitive: desc.primitive,
                    depth_stencil: desc.depth_stencil,
                    color_targets: desc.color_targets.clone(),
                    sample_count: desc.sample_count,
                    multiview,
                };
                let p = self.checked(device.create_pipeline(&pipeline))?;
                self.make(*id, Made::Pipeline(p))?;
            }
            TraceCall::CreateComputePipeline { id, label, shader } => {
                let desc = ComputePipelineDescriptor { label: label.clone(), shader: self.shader(*shader)? };
                let p = self.checked(device.create_compute_pipeline(&desc))?;
                self.make(*id, Made::Pipeline(p))?;
            }
            TraceCall::CreateQuerySet { id, label, kind, count } => {
                let q = self.checked(device.create_query_set(label, *kind, *count))?;
                self.make(*id, Made::QuerySet(q))?;
            }
            TraceCall::BeginFrame => self.checked(device.begin_frame())?,
            TraceCall::Pass(pass) => self.pass(pass)?,
            TraceCall::CopyTexture { src, src_region, dst, dst_region } => {
                let (src, dst) = (self.texture(*src)?, self.texture(*dst)?);
                self.checked(device.copy_texture(&src, *src_region, &dst, *dst_region))?;
            }
            TraceCall::Dispatch { pipeline, uniforms, storage, groups } => {
                let pipeline = self.pipeline(*pipeline)?;
                let buffers: Vec<(&str, GeometryBuffer)> = storage
                    .iter()
                    .map(|(n, id)| Ok((n.as_str(), self.geometry(*id)?)))
                    .collect::<Result<_, _>>()?;
                let uniforms: Vec<(&str, &[u8])> =
                    uniforms.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
                let storage: Vec<(&str, &GeometryBuffer)> = buffers.iter().map(|(n, b)| (*n, b)).collect();
                self.checked(device.dispatch(&pipeline, &uniforms, &storage, *groups))?;
            }
            TraceCall::Readback { texture, region, recorded } => {
                let t = self.texture(*texture)?;
                let pending = self.checked(device.readback(&t, *region))?;
                let replayed = self.checked(pending.wait())?;
                out.push(Replayed {
                    record: self.record,
                    texture: t.label(),
                    recorded: recorded.clone(),
                    replayed,
                });
            }
        }
        Ok(())
    }

    fn pass(&mut self, pass: &TracePass) -> Result<(), TraceError> {
        let desc = RenderPassDescriptor {
            label: pass.label.clone(),
            color_attachments: pass
                .color_attachments
                .iter()
                .map(|a| {
                    Ok(ColorAttachment {
                        view: self.view(&a.view)?,
                        resolve_target: a.resolve_target.as_ref().map(|v| self.view(v)).transpose()?,
                        load: a.load,
                        store: a.store,
                    })
                })
                .collect::<Result<_, TraceError>>()?,
            depth_stencil_attachment: pass
                .depth_stencil_attachment
                .as_ref()
                .map(|d| {
                    Ok::<_, TraceError>(DepthStencilAttachment {
                        view: self.view(&d.view)?,
                        depth_load: d.depth_load,
                        depth_store: d.depth_store,
                        stencil_load: d.stencil_load,
                        stencil_store: d.stencil_store,
                    })
                })
                .transpose()?,
            multiview: pass.multiview.and_then(NonZeroU32::new),
            transitions: pass
                .transitions
                .iter()
                .map(|t| {
                    Ok(TextureTransition {
                        texture: self.texture(t.texture)?,
                        before: t.before,
                        after: t.after,
                    })
                })
                .collect::<Result<_, TraceError>>()?,
        };
        let device = self.device;
        let mut encoder = self.checked(device.begin_render_pass(&desc))?;
        for (n, command) in pass.commands.iter().enumerate() {
            let refused = |what: &str| {
                self.invalid(format!("pass {}: command {n} ({what}) was refused on replay", pass.label))
            };
            let during = |error: DeviceError| TraceError::Invalid {
                record: self.record,
                call: self.call,
                what: format!("pass {}: command {n}: {error}", pass.label),
            };
            match command {
                TraceCommand::SetPipeline(p) => encoder.set_pipeline(&self.pipeline(*p)?).map_err(during)?,
                TraceCommand::SetViewport(v) => encoder.set_viewport(*v).map_err(during)?,
                TraceCommand::SetScissor(s) => encoder.set_scissor(*s).map_err(during)?,
                TraceCommand::SetStencilReference(v) => encoder.set_stencil_reference(*v).map_err(during)?,
                TraceCommand::SetBlendConstant(c) => encoder.set_blend_constant(*c).map_err(during)?,
                TraceCommand::SetVertexBuffer { slot, buffer, offset } => {
                    encoder.set_vertex_buffer(*slot, &self.geometry(*buffer)?, *offset).map_err(during)?
                }
                TraceCommand::SetIndexBuffer { buffer, format, offset } => {
                    encoder.set_index_buffer(&self.geometry(*buffer)?, *format, *offset).map_err(during)?
                }
                TraceCommand::BindUniform { slot, bytes } => {
                    if !encoder.bind_uniform_block_at(BindingSlot(*slot), bytes) {
                        return Err(refused("bind_uniform_block_at"));
                    }
                }
                TraceCommand::BindTexture { slot, texture } => {
                    if !encoder.bind_texture_at(BindingSlot(*slot), &self.texture(*texture)?) {
                        return Err(refused("bind_texture_at"));
                    }
                }
                TraceCommand::BindStorage { slot, buffer } => {
                    if !encoder.bind_storage_buffer_at(BindingSlot(*slot), &self.geometry(*buffer)?) {
                        return Err(refused("bind_storage_buffer_at"));
                    }
                }
                TraceCommand::BindSampler { slot, sampler } => {
                    if !encoder.bind_sampler_at(BindingSlot(*slot), &self.sampler(*sampler)?) {
                        return Err(refused("bind_sampler_at"));
                    }
                }
                TraceCommand::Draw { vertices, instances } => {
                    encoder.draw(vertices.clone(), instances.clone()).map_err(during)?
                }
                TraceCommand::DrawIndexed { indices, base_vertex, instances } => {
                    encoder.draw_indexed(indices.clone(), *base_vertex, instances.clone()).map_err(during)?
                }
                TraceCommand::DrawIndirect { buffer, offset } => {
                    encoder.draw_indirect(&self.geometry(*buffer)?, *offset).map_err(during)?
                }
                TraceCommand::MultiDrawIndirect { buffer, offset, count } => {
                    encoder.multi_draw_indirect(&self.geometry(*buffer)?, *offset, *count).map_err(during)?
                }
                TraceCommand::WriteTimestamp { set, index } => {
                    encoder.write_timestamp(&self.query_set(*set)?, *index).map_err(during)?
                }
                TraceCommand::BeginOcclusion { set, index } => {
                    encoder.begin_occlusion_query(&self.query_set(*set)?, *index).map_err(during)?
                }
                TraceCommand::EndOcclusion => encoder.end_occlusion_query().map_err(during)?,
            }
        }
        self.checked(encoder.submit())
    }
}

impl Trace {
    /// Re-issues every call on `device`, in order, and returns each readback as the replay
    /// device reads it, next to what the recording device read. Stops at the first call the
    /// device refuses, naming the record.
    pub fn replay(&self, device: &dyn GraphicsDevice) -> Result<Vec<Replayed>, TraceError> {
        let mut replay = Replay { device, made: HashMap::new(), record: 0, call: "" };
        let mut out = Vec::new();
        for (record, call) in self.calls.iter().enumerate() {
            replay.record = record;
            replay.call = call.name();
            replay.call(call, &mut out)?;
        }
        Ok(out)
    }
}
