//! Running a pass at submit: the vertex stage and geometry for every draw, then the
//! rasteriser over bands of the attachments, which clears each band and draws into it with
//! the fragment stage and output merger. The fragment side interpolates only the varying
//! components the fragment stage reads, and a fragment stage that reads nothing is run once
//! per draw.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{RwLockReadGuard, RwLockWriteGuard};

use f3d_hal::backend;
use f3d_hal::{
    ColorWrites, DeviceError, GeometryBuffer, GraphicsDevice, LoadOp, ScissorRect, TextureFormat,
    TextureHandle, encode_clear_color,
};

use crate::device::SoftDevice;
use crate::exec::{Bindings, Executor, LANES, Lanes, Program, Resource, TextureView, bool_lanes};
use crate::geometry::{GeometryState, ShadedVertices, decode_attribute, emit, read_indices};
use crate::pass::{Bound, DrawKind, Recorded, RecordedDraw, SoftPass};
use crate::pipeline::{SoftPipeline, TargetOutput};
use crate::raster::block::{self, LaneOrigins, block_span, to_lanes, to_rows};
use crate::raster::output::{
    ColorOps, ColorRows, DepthRows, DepthStencilOps, resolve, rgba8_layout, write_texel,
};
use crate::raster::srgb::SrgbEncoder;
use crate::raster::triangle::PlaneEq;
use crate::raster::triangle::{LANE_XF, LANE_YF, SAMPLE_OFFSETS_F};
use crate::raster::{
    BAND_ROWS, BandTargets, BlockShader, Clears, Prim, PrimList, QUADS, quad_mask, rasterize,
};
use crate::texture::{SoftGeometry, SoftQuerySet, TexelStore};

fn refused(reason: String) -> DeviceError {
    DeviceError::Refused { operation: "submit", reason }
}

struct Attached<'a> {
    guard: RwLockWriteGuard<'a, TexelStore>,
    level: u32,
    layer: u32,
    format: TextureFormat,
}

/// Runs a recorded pass.
pub(crate) fn execute_pass(pass: SoftPass<'_>) -> Result<(), DeviceError> {
    let device = pass.device;
    let _queue = device.queue();
    let desc = &pass.desc;

    // Every texture sampled by some draw, once.
    let mut sampled: Vec<&TextureHandle> = Vec::new();
    for cmd in &pass.commands {
        if let Recorded::Draw(d) = cmd {
            for b in d.bindings.iter().flatten() {
                if let Bound::Texture(t) = b
                    && !sampled.iter().any(|s| s.same(t))
                {
                    sampled.push(t);
                }
            }
        }
    }
    let mut attachments: Vec<&TextureHandle> =
        desc.color_attachments.iter().map(|a| &a.view.texture).collect();
    attachments.extend(desc.depth_stencil_attachment.iter().map(|d| &d.view.texture));
    for (i, a) in attachments.iter().enumerate() {
        if attachments[..i].iter().any(|b| b.same(a)) {
            return Err(refused(format!("{} is attached twice to pass {}", a.label(), desc.label)));
        }
        if sampled.iter().any(|s| s.same(a)) {
            return Err(refused(format!(
                "{} is both an attachment and sampled in pass {}",
                a.label(),
                desc.label
            )));
        }
    }

    // Lock: attachments for writing, sampled textures for reading (the queue lock makes the
    // order irrelevant: no other operation holds a texture lock while waiting for another).
    let mut colors: Vec<Attached<'_>> = Vec::new();
    for a in &desc.color_attachments {
        let t = device.texture(&a.view.texture, "submit")?;
        colors.push(Attached {
            guard: t.store.write().unwrap_or_else(|e| e.into_inner()),
            level: a.view.mip_level,
            layer: a.view.layer,
            format: a.view.texture.descriptor().format,
        });
    }
    let mut depth = match &desc.depth_stencil_attachment {
        Some(d) => {
            let t = device.texture(&d.view.texture, "submit")?;
            Some(Attached {
                guard: t.store.write().unwrap_or_else(|e| e.into_inner()),
                level: d.view.mip_level,
                layer: d.view.layer,
                format: d.view.texture.descriptor().format,
            })
        }
        None => None,
    };
    let sampled_guards: Vec<(&TextureHandle, RwLockReadGuard<'_, TexelStore>)> = sampled
        .iter()
        .map(|t| Ok((*t, device.texture(t, "submit")?.store.read().unwrap_or_else(|e| e.into_inner()))))
        .collect::<Result<_, DeviceError>>()?;
    let plane_lists: Vec<Vec<&[u8]>> =
        sampled_guards.iter().map(|(_, g)| g.main.planes().iter().map(Vec::as_slice).collect()).collect();
    let views: Vec<(&TextureHandle, TextureView<'_>)> = sampled_guards
        .iter()
        .zip(&plane_lists)
        .map(|((t, _), planes)| {
            let d = t.descriptor();
            (
                *t,
                TextureView {
                    format: d.format,
                    dimension: d.dimension,
                    width: d.width,
                    height: d.height,
                    mip_levels: d.mip_level_count,
                    layers: d.array_layers,
                    planes: planes.as_slice(),
                },
            )
        })
        .collect();

    // Clears: band by band by the raster threads (in parallel, and the rows are still in
    // cache when drawn), except for a plane the bands do not cover whole (a larger
    // attachment), which is cleared here. A multisampled plane is `samples` images one
    // after another, each banded alike.
    let (width, height) = pass.size;
    let samples = pass_samples(desc);
    let banded_rows = height.div_ceil(BAND_ROWS) as usize * BAND_ROWS as usize;
    let covered = |planes: &f3d_hal::backend::HostPlanes, level: u32, layer: u32| {
        planes.plane(level, layer).len() / samples <= planes.row_pitch(level) * banded_rows
    };
    let mut clears = Clears::default();
    for (a, att) in desc.color_attachments.iter().zip(colors.iter_mut()) {
        let mut texel = None;
        if let LoadOp::Clear(c) = a.load {
            let t = encode_clear_color(att.format, c.to_array());
            if covered(&att.guard.main, att.level, att.layer) {
                texel = Some(t);
            } else {
                att.guard.main.fill(att.level, att.layer, &t);
            }
        }
        clears.colors.push(texel);
    }
    if let (Some(d), Some(att)) = (&desc.depth_stencil_attachment, depth.as_mut()) {
        if let LoadOp::Clear(z) = d.depth_load {
            if covered(&att.guard.main, att.level, att.layer) {
                clears.depth = Some(z);
            } else {
                att.guard.main.fill(att.level, att.layer, &z.to_le_bytes());
            }
        }
        if let (LoadOp::Clear(s), Some(stencil)) = (d.stencil_load, att.guard.stencil.as_mut()) {
            if covered(stencil, att.level, att.layer) {
                clears.stencil = Some(s as u8);
            } else {
                stencil.fill(att.level, att.layer, &[s as u8]);
            }
        }
    }
    let any_clear =
        clears.colors.iter().any(Option::is_some) || clears.depth.is_some() || clears.stencil.is_some();

    // Geometry for every draw, in order.
    let geometry_guards: HashMap<*const SoftGeometry, RwLockReadGuard<'_, Vec<u8>>> =
        geometry_reads(device, &pass)?;
    let bytes_of = |g: &GeometryBuffer| -> Result<&[u8], DeviceError> {
        let payload = device.geometry(g, "submit")?;
        Ok(geometry_guards.get(&(payload as *const SoftGeometry)).map_or(&[][..], |g| g.as_slice()))
    };
    let mut prims = PrimList::default();
    let mut draws: Vec<DrawCtx<'_>> = Vec::new();
    let mut occlusion_sets: Vec<(f3d_hal::QuerySetHandle, u32)> = Vec::new();
    for cmd in &pass.commands {
        match cmd {
            Recorded::Draw(d) => {
                // A draw whose resources the executor cannot take is refused (reported once),
                // and the rest of the pass goes on.
                let prepared = prepare_draw(
                    device,
                    d,
                    &pass.arena,
                    &views,
                    &colors,
                    depth.as_ref(),
                    &mut occlusion_sets,
                )
                .and_then(|ctx| {
                    let draw_index = draws.len() as u32;
                    run_geometry(
                        d,
                        &ctx,
                        draw_index,
                        (width, height),
                        &bytes_of,
                        &pass.arena,
                        &views,
                        &mut prims,
                    )?;
                    Ok(ctx)
                });
                match prepared {
                    Ok(ctx) => draws.push(ctx),
                    Err(e @ DeviceError::Refused { .. }) => device.refuse(&d.pipeline, e.to_string()),
                    Err(e) => return Err(e),
                }
            }
            Recorded::Timestamp(set, index) => {
                let q = backend::query_set_payload::<SoftQuerySet>(device.owner(), set, "write_timestamp")?;
                q.values.lock().unwrap_or_else(|e| e.into_inner())[*index as usize] = device.now_ns();
            }
            Recorded::BeginOcclusion(set, index) => {
                let q =
                    backend::query_set_payload::<SoftQuerySet>(device.owner(), set, "begin_occlusion_query")?;
                q.values.lock().unwrap_or_else(|e| e.into_inner())[*index as usize] = 0;
            }
        }
    }

    // Clear and rasterise band by band.
    let counters: Vec<AtomicU64> = occlusion_sets.iter().map(|_| AtomicU64::new(0)).collect();
    if !prims.prims.is_empty() || any_clear {
        let bands = split_bands(&mut colors, depth.as_mut(), height, samples);
        let shader = PassShader { draws: &draws, counters: &counters, pack: device.pack_quads };
        rasterize(&prims, bands, &clears, &shader, device.threads > 1);
    }
    resolve_attachments(device, desc, &colors, samples)?;
    for ((set, index), counter) in occlusion_sets.iter().zip(&counters) {
        let q = backend::query_set_payload::<SoftQuerySet>(device.owner(), set, "end_occlusion_query")?;
        q.values.lock().unwrap_or_else(|e| e.into_inner())[*index as usize] +=
            counter.load(Ordering::Relaxed);
    }
    Ok(())
}

/// Samples per pixel of the pass's attachments (the HAL checked they agree).
fn pass_samples(desc: &f3d_hal::RenderPassDescriptor) -> usize {
    let first = desc
        .color_attachments
        .iter()
        .map(|a| &a.view)
        .chain(desc.depth_stencil_attachment.iter().map(|d| &d.view))
        .next();
    first.map_or(1, |v| v.texture.descriptor().sample_count.max(1) as usize)
}

/// Resolves every multisampled colour attachment with a resolve target: each texel of the
/// target becomes the average of the attachment's samples.
fn resolve_attachments(
    device: &SoftDevice,
    desc: &f3d_hal::RenderPassDescriptor,
    colors: &[Attached<'_>],
    samples: usize,
) -> Result<(), DeviceError> {
    for (a, att) in desc.color_attachments.iter().zip(colors) {
        let Some(target) = &a.resolve_target else { continue };
        let t = device.texture(&target.texture, "submit")?;
        let mut store = t.store.write().unwrap_or_else(|e| e.into_inner());
        let pitch = store.main.row_pitch(target.mip_level);
        let src = att.guard.main.plane(att.level, att.layer);
        let dst = store.main.plane_mut(target.mip_level, target.layer);
        if dst.len() * samples != src.len() || att.guard.main.row_pitch(att.level) != pitch {
            return Err(refused(format!(
                "{} does not match the size of {}, which it resolves",
                target.texture.label(),
                a.view.texture.label()
            )));
        }
        resolve(att.format, src, samples, dst, pitch, &device.srgb);
    }
    Ok(())
}

/// Read locks on every geometry buffer the pass's draws read.
fn geometry_reads<'a>(
    device: &'a SoftDevice,
    pass: &'a SoftPass<'_>,
) -> Result<HashMap<*const SoftGeometry, RwLockReadGuard<'a, Vec<u8>>>, DeviceError> {
    let mut out = HashMap::new();
    let mut add = |g: &'a GeometryBuffer| -> Result<(), DeviceError> {
        let p = device.geometry(g, "submit")?;
        if let std::collections::hash_map::Entry::Vacant(e) = out.entry(p as *const SoftGeometry) {
            e.insert(p.bytes.read().unwrap_or_else(|e| e.into_inner()));
        }
        Ok(())
    };
    for cmd in &pass.commands {
        if let Recorded::Draw(d) = cmd {
            for (g, _) in d.vertex_buffers.iter().flatten() {
                add(g)?;
            }
            if let Some((g, _, _)) = &d.index_buffer {
                add(g)?;
            }
            if let DrawKind::Indirect { buffer, .. } = &d.kind {
                add(buffer)?;
            }
        }
    }
    Ok(out)
}

/// What the fragment side of one draw needs.
struct DrawCtx<'a> {
    pipeline: &'a SoftPipeline,
    fs_bindings: Option<Bindings<'a>>,
    colors: Vec<Option<ColorOps<'a>>>,
    depth: Option<DepthStencilOps>,
    depth_clamp: Option<(f32, f32)>,
    depth16: bool,
    occlusion: Option<usize>,
    /// The outputs of a fragment stage that gives every fragment the same values
    /// ([`SoftPipeline::constant_outputs`]), shaded once for the draw.
    constant: Option<Vec<ConstantOutput>>,
}

/// One output of a draw shaded once ([`DrawCtx::constant`]).
struct ConstantOutput {
    /// The colour target it goes to.
    target: usize,
    /// The value in every lane, for the general write path.
    color: [Lanes; 4],
    /// The value encoded as the target's texel, when the draw replaces whole 8-bit RGBA or
    /// BGRA texels of it: a covered block is then a fill.
    texel: Option<u32>,
}

impl DrawCtx<'_> {
    /// Fragment depths as the tests see them: clamped when the pipeline leaves depth
    /// unclipped, rounded to 16 bits for a 16-bit attachment. Per value, so it serves lane
    /// and row order alike.
    #[inline(always)]
    fn adjust_depth(&self, z: &mut [f32; LANES]) {
        if let Some((lo, hi)) = self.depth_clamp {
            z.iter_mut().for_each(|v| *v = v.clamp(lo.min(hi), hi.max(lo)));
        }
        if self.depth16 {
            z.iter_mut().for_each(|v| *v = (v.clamp(0.0, 1.0) * 65535.0).round() / 65535.0);
        }
    }
}

/// Runs a fragment stage that reads no input once over all lanes and keeps lane 0 of each
/// output (every lane holds the same value: nothing differs between them).
fn shade_constant(
    pipeline: &SoftPipeline,
    fs: &Program,
    bindings: &Bindings<'_>,
    color_ops: &[Option<ColorOps<'_>>],
    colors: &[Attached<'_>],
    srgb: &SrgbEncoder,
) -> Vec<ConstantOutput> {
    let mut exec = Executor::new(fs);
    exec.run(bindings, u64::MAX);
    pipeline
        .outputs
        .iter()
        .map(|out| {
            let regs = exec.output(out.slot);
            let mut value = [0.0, 0.0, 0.0, 1.0];
            for (c, v) in value.iter_mut().enumerate().take(out.components.min(regs.len())) {
                *v = regs[c][0];
            }
            let texel = match (color_ops.get(out.target), colors.get(out.target)) {
                (Some(Some(ops)), Some(att)) if ops.replaces() && rgba8_layout(att.format).is_some() => {
                    let mut t = [0u8; 4];
                    write_texel(att.format, &mut t, value, ColorWrites::all(), srgb);
                    Some(u32::from_le_bytes(t))
                }
                _ => None,
            };
            ConstantOutput { target: out.target, color: value.map(|v| [v; LANES]), texel }
        })
        .collect()
}

fn resources<'a>(
    program: &Program,
    slots: &[f3d_hal::BindingSlot],
    draw: &'a RecordedDraw,
    arena: &'a [u8],
    views: &[(&TextureHandle, TextureView<'a>)],
) -> Result<Vec<Resource<'a>>, DeviceError> {
    let label = draw.pipeline.label();
    slots
        .iter()
        .map(|slot| match draw.bindings.get(slot.0 as usize).and_then(Option::as_ref) {
            Some(Bound::Uniform(range)) => Ok(Resource::UniformBlock(&arena[range.clone()])),
            Some(Bound::Texture(t)) => views
                .iter()
                .find(|(h, _)| h.same(t))
                .map(|(_, v)| Resource::Texture(*v))
                .ok_or_else(|| refused(format!("{} of {label} was not locked", t.label()))),
            Some(Bound::Sampler(s)) => Ok(Resource::Sampler(s.descriptor())),
            None => Err(refused(format!(
                "binding {} of {label} ({}) is not bound",
                slot.0,
                program.entry_point()
            ))),
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn prepare_draw<'a>(
    device: &'a SoftDevice,
    d: &'a RecordedDraw,
    arena: &'a [u8],
    views: &[(&TextureHandle, TextureView<'a>)],
    colors: &[Attached<'_>],
    depth: Option<&Attached<'_>>,
    occlusion_sets: &mut Vec<(f3d_hal::QuerySetHandle, u32)>,
) -> Result<DrawCtx<'a>, DeviceError> {
    let pipeline = backend::pipeline_payload::<SoftPipeline>(device.owner(), &d.pipeline, "submit")?;
    let desc = d
        .pipeline
        .descriptor()
        .render
        .as_ref()
        .ok_or_else(|| refused(format!("{} is not a render pipeline", d.pipeline.label())))?;
    let fs_bindings = match &pipeline.fs {
        Some(fs) => {
            let res = resources(fs, &pipeline.fs_slots, d, arena, views)?;
            Some(fs.bind(&res).map_err(|e| refused(e.to_string()))?)
        }
        None => None,
    };
    let color_ops: Vec<Option<ColorOps<'a>>> = (0..colors.len())
        .map(|i| {
            desc.color_targets.get(i).map(|t| ColorOps {
                blend: t.blend,
                write_mask: t.write_mask,
                constant: d.blend_constant,
                srgb: &device.srgb,
            })
        })
        .collect();
    let depth_ops = match (&desc.depth_stencil, depth) {
        (Some(state), Some(_)) => {
            Some(DepthStencilOps { state: *state, reference: d.stencil_reference as u8 })
        }
        _ => None,
    };
    let constant = match (&pipeline.fs, &fs_bindings) {
        (Some(fs), Some(bindings)) if pipeline.constant_outputs => {
            Some(shade_constant(pipeline, fs, bindings, &color_ops, colors, &device.srgb))
        }
        _ => None,
    };
    let occlusion = d.occlusion.as_ref().map(|(set, index)| {
        occlusion_sets.push((set.clone(), *index));
        occlusion_sets.len() - 1
    });
    Ok(DrawCtx {
        constant,
        pipeline,
        fs_bindings,
        colors: color_ops,
        depth: depth_ops,
        depth_clamp: desc.primitive.unclipped_depth.then_some((d.viewport.min_depth, d.viewport.max_depth)),
        depth16: depth.is_some_and(|a| a.format == TextureFormat::Depth16Unorm),
        occlusion,
    })
}

/// One indirect (or direct) draw's vertex range and instances.
struct Invocation {
    vertices: Vec<u32>,
    instances: std::ops::Range<u32>,
}

fn invocations<'a>(
    d: &RecordedDraw,
    bytes_of: &dyn Fn(&GeometryBuffer) -> Result<&'a [u8], DeviceError>,
) -> Result<Vec<Invocation>, DeviceError> {
    Ok(match &d.kind {
        DrawKind::Direct { vertices, instances } => {
            vec![Invocation { vertices: vertices.clone().collect(), instances: instances.clone() }]
        }
        DrawKind::Indexed { indices, base_vertex, instances } => {
            let Some((buffer, format, offset)) = &d.index_buffer else {
                return Err(refused("no index buffer".into()));
            };
            let bytes = bytes_of(buffer)?;
            vec![Invocation {
                vertices: read_indices(bytes, *format, *offset, indices.clone(), *base_vertex),
                instances: instances.clone(),
            }]
        }
        DrawKind::Indirect { buffer, offset, count } => {
            let bytes = bytes_of(buffer)?;
            (0..*count as usize)
                .map(|i| {
                    let at = *offset as usize + 16 * i;
                    let word = |k: usize| {
                        u32::from_le_bytes([
                            bytes[at + 4 * k],
                            bytes[at + 4 * k + 1],
                            bytes[at + 4 * k + 2],
                            bytes[at + 4 * k + 3],
                        ])
                    };
                    let (count, instances, first, first_instance) = (word(0), word(1), word(2), word(3));
                    Invocation {
                        vertices: (first..first.saturating_add(count.min(1 << 24))).collect(),
                        instances: first_instance..first_instance.saturating_add(instances.min(1 << 16)),
                    }
                })
                .collect()
        }
    })
}

#[allow(clippy::too_many_arguments)]
fn run_geometry<'a>(
    d: &'a RecordedDraw,
    ctx: &DrawCtx<'a>,
    draw_index: u32,
    (width, height): (u32, u32),
    bytes_of: &dyn Fn(&GeometryBuffer) -> Result<&'a [u8], DeviceError>,
    arena: &'a [u8],
    views: &[(&TextureHandle, TextureView<'a>)],
    prims: &mut PrimList,
) -> Result<(), DeviceError> {
    let pipeline = ctx.pipeline;
    let desc =
        d.pipeline.descriptor().render.as_ref().ok_or_else(|| refused("not a render pipeline".into()))?;
    let res = resources(&pipeline.vs, &pipeline.vs_slots, d, arena, views)?;
    let vs_bindings = pipeline.vs.bind(&res).map_err(|e| refused(e.to_string()))?;
    let scissor = match d.scissor {
        Some(ScissorRect { x, y, width: w, height: h }) => {
            [x as i32, y as i32, (x + w) as i32, (y + h) as i32]
        }
        None => [0, 0, width as i32, height as i32],
    };
    let buffers: Vec<Option<(&[u8], u64)>> = d
        .vertex_buffers
        .iter()
        .map(|b| b.as_ref().map(|(g, off)| bytes_of(g).map(|bytes| (bytes, *off))).transpose())
        .collect::<Result<_, _>>()?;
    let state = GeometryState {
        viewport: d.viewport,
        scissor,
        cull: desc.primitive.cull_mode,
        front: desc.primitive.front_face,
        polygon_mode: desc.primitive.polygon_mode,
        topology: desc.primitive.topology,
        unclipped_depth: desc.primitive.unclipped_depth,
        depth_bias: desc.depth_stencil.map(|s| s.bias).unwrap_or_default(),
        depth_unit: if ctx.depth16 { 1.0 / 65535.0 } else { 1.0 / 16_777_216.0 },
        interp: &pipeline.interp,
        draw: draw_index,
    };
    let mut exec = Executor::new(&pipeline.vs);
    let mut first_index = 0u32;
    for inv in invocations(d, bytes_of)? {
        // Shade each distinct vertex once, then lay them out in draw order.
        let mut unique = inv.vertices.clone();
        unique.sort_unstable();
        unique.dedup();
        for instance in inv.instances.clone() {
            let shaded = shade_vertices(pipeline, &mut exec, &vs_bindings, &buffers, &unique, instance);
            let stride = shaded.stride;
            let mut data = Vec::with_capacity(inv.vertices.len() * stride);
            for v in &inv.vertices {
                let i = unique.binary_search(v).unwrap_or(0);
                data.extend_from_slice(&shaded.data[i * stride..(i + 1) * stride]);
            }
            let ordered = ShadedVertices { data, stride };
            emit(&state, &ordered, inv.vertices.len(), prims, &mut first_index);
        }
    }
    Ok(())
}

/// Runs the vertex stage over `ids` in batches of 64 for one instance.
fn shade_vertices(
    pipeline: &SoftPipeline,
    exec: &mut Executor<'_>,
    bindings: &Bindings<'_>,
    buffers: &[Option<(&[u8], u64)>],
    ids: &[u32],
    instance: u32,
) -> ShadedVertices {
    let stride = 4 + pipeline.interp.len();
    let mut data = vec![0.0f32; ids.len() * stride];
    let mut attr = [0.0f32; 4];
    for (batch, chunk) in ids.chunks(LANES).enumerate() {
        for input in &pipeline.attributes {
            let src = input.source;
            let size = src.format.size() as usize;
            let regs = exec.input_mut(input.slot);
            for (lane, &id) in chunk.iter().enumerate() {
                let element = if src.per_instance { instance } else { id };
                let bytes = buffers.get(src.slot).copied().flatten().and_then(|(bytes, offset)| {
                    let at = offset as usize + element as usize * src.stride as usize + src.offset as usize;
                    bytes.get(at..at + size)
                });
                match bytes {
                    Some(b) => decode_attribute(src.format, b, &mut attr),
                    // Out of bounds reads return zeros, as robust buffer access does.
                    None => attr = [0.0; 4],
                }
                for (c, reg) in regs.iter_mut().enumerate().take(input.components) {
                    reg[lane] = attr[c];
                }
            }
        }
        if let Some(slot) = pipeline.vertex_index
            && let Some(reg) = exec.input_mut(slot).first_mut()
        {
            for (lane, &id) in chunk.iter().enumerate() {
                reg[lane] = f32::from_bits(id);
            }
        }
        if let Some(slot) = pipeline.instance_index
            && let Some(reg) = exec.input_mut(slot).first_mut()
        {
            *reg = [f32::from_bits(instance); LANES];
        }
        let active = if chunk.len() == LANES { u64::MAX } else { (1u64 << chunk.len()) - 1 };
        exec.run(bindings, active);
        let pos = exec.output(pipeline.position_output);
        for lane in 0..chunk.len() {
            let row = &mut data[(batch * LANES + lane) * stride..][..stride];
            for (c, value) in row.iter_mut().take(4).enumerate() {
                *value = pos.get(c).map_or(if c == 3 { 1.0 } else { 0.0 }, |r| r[lane]);
            }
        }
        let mut column = 4;
        for link in &pipeline.varyings {
            let out = exec.output(link.vs_output);
            for c in 0..link.components {
                if let Some(reg) = out.get(c) {
                    for lane in 0..chunk.len() {
                        data[(batch * LANES + lane) * stride + column] = reg[lane];
                    }
                }
                column += 1;
            }
        }
    }
    ShadedVertices { data, stride }
}

/// Splits every attachment's plane into bands of rows: each band holds its rows of each of
/// the `samples` sample images (a multisampled plane holds them one after another).
fn split_bands<'a>(
    colors: &'a mut [Attached<'_>],
    depth: Option<&'a mut Attached<'_>>,
    height: u32,
    samples: usize,
) -> Vec<(u32, Vec<BandTargets<'a>>)> {
    let band_count = height.div_ceil(BAND_ROWS) as usize;
    let mut bands: Vec<(u32, Vec<BandTargets<'a>>)> = (0..band_count)
        .map(|b| {
            let targets = (0..samples).map(|_| BandTargets { colors: Vec::new(), depth: None }).collect();
            (b as u32 * BAND_ROWS, targets)
        })
        .collect();
    let band_rows = BAND_ROWS as usize;
    for att in colors.iter_mut() {
        let pitch = att.guard.main.row_pitch(att.level);
        let format = att.format;
        let plane = att.guard.main.plane_mut(att.level, att.layer);
        let image = plane.len() / samples;
        for (sample, bytes) in plane.chunks_mut(image.max(1)).enumerate().take(samples) {
            let mut chunks = bytes.chunks_mut(pitch * band_rows);
            for (y0, band) in bands.iter_mut() {
                let rows = chunks.next().map(|bytes| ColorRows { bytes, pitch, format, y0: *y0 });
                band[sample].colors.push(rows);
            }
        }
    }
    if let Some(att) = depth {
        let pitch = att.guard.main.row_pitch(att.level) / 4;
        let store = &mut *att.guard;
        let depth_plane = store.main.plane_mut(att.level, att.layer);
        let depth_image = (depth_plane.len() / samples).max(1);
        let mut stencil_images = store.stencil.as_mut().map(|s| {
            let plane = s.plane_mut(att.level, att.layer);
            let image = (plane.len() / samples).max(1);
            plane.chunks_mut(image)
        });
        for (sample, depth) in depth_plane.chunks_mut(depth_image).enumerate().take(samples) {
            let mut depth_chunks = depth.chunks_mut(pitch * 4 * band_rows);
            let mut stencil_chunks =
                stencil_images.as_mut().and_then(Iterator::next).map(|s| s.chunks_mut(pitch * band_rows));
            for (y0, band) in bands.iter_mut() {
                let stencil = stencil_chunks.as_mut().and_then(Iterator::next);
                band[sample].depth =
                    depth_chunks.next().map(|depth| DepthRows { depth, stencil, pitch, y0: *y0 });
            }
        }
    }
    bands
}

struct PassShader<'a, 'b> {
    draws: &'a [DrawCtx<'b>],
    counters: &'a [AtomicU64],
    /// Whether sparse blocks are packed ([`SoftDevice::without_quad_packing`]).
    pack: bool,
}

/// A block's depths in lane order, computed when first needed (the position builtin, a late
/// or a stencil test, a block at the attachment's edge).
struct LaneZ {
    z: Lanes,
    have: bool,
}

impl LaneZ {
    fn new() -> Self {
        Self { z: [0.0; LANES], have: false }
    }

    #[inline(always)]
    fn get<const FMA: bool>(&mut self, d: &DrawCtx<'_>, prim: &Prim, ox: f32, oy: f32) -> &mut Lanes {
        if !self.have {
            block::plane_lanes::<FMA>(&prim.z, ox, oy, &mut self.z);
            d.adjust_depth(&mut self.z);
            self.have = true;
        }
        &mut self.z
    }
}

/// Where a batch's lanes lie: one block, or quads packed from several.
#[derive(Clone, Copy)]
enum Place<'a> {
    Block { ox: f32, oy: f32 },
    Packed(&'a LaneOrigins),
}

impl Place<'_> {
    #[inline(always)]
    fn plane<const FMA: bool>(self, p: &PlaneEq, out: &mut Lanes) {
        match self {
            Place::Block { ox, oy } => block::plane_lanes::<FMA>(p, ox, oy, out),
            Place::Packed(at) => block::plane_packed::<FMA>(p, at, out),
        }
    }

    #[inline(always)]
    fn plane_times<const FMA: bool>(self, p: &PlaneEq, w: &Lanes, out: &mut Lanes) {
        match self {
            Place::Block { ox, oy } => block::plane_lanes_times::<FMA>(p, ox, oy, w, out),
            Place::Packed(at) => block::plane_packed_times::<FMA>(p, at, w, out),
        }
    }

    /// The lanes' pixel centres, x and y.
    #[inline(always)]
    fn centres(self) -> (Lanes, Lanes) {
        match self {
            Place::Block { ox, oy } => {
                (std::array::from_fn(|l| ox + LANE_XF[l]), std::array::from_fn(|l| oy + LANE_YF[l]))
            }
            Place::Packed(at) => {
                (std::array::from_fn(|l| at.ox[l] + at.x[l]), std::array::from_fn(|l| at.oy[l] + at.y[l]))
            }
        }
    }
}

/// The early depth and stencil tests of the `mask` lanes of block (`bx`, `by`): the lanes
/// that pass (all of `mask` when the draw tests late or has no depth attachment).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn early_tests<const FMA: bool>(
    d: &DrawCtx<'_>,
    prim: &Prim,
    bx: u32,
    by: u32,
    mask: u64,
    band: &mut BandTargets<'_>,
    z: &mut LaneZ,
) -> u64 {
    let early = d.pipeline.early_tests || d.pipeline.fs.is_none();
    let (true, Some(ops), Some(rows)) = (early, &d.depth, band.depth.as_mut()) else { return mask };
    let (ox, oy) = (bx as f32 + 0.5, by as f32 + 0.5);
    let stencil_on = ops.state.stencil.is_enabled() && rows.stencil.is_some();
    let pitch = rows.pitch * 4;
    match block_span(rows.depth.len(), pitch, 4, bx, by - rows.y0) {
        // The common case: the depth test alone, on whole rows of the block.
        Some(start) if !stencil_on => {
            let mut zr = [0.0f32; LANES];
            block::plane_rows::<FMA>(&prim.z, ox, oy, &mut zr);
            d.adjust_depth(&mut zr);
            let passed = block::depth_rows(
                rows.depth,
                start,
                pitch,
                &zr,
                to_rows(mask),
                ops.state.depth_compare,
                ops.state.depth_write_enabled,
            );
            to_lanes(passed)
        }
        _ => {
            let z = z.get::<FMA>(d, prim, ox, oy);
            ops.test_and_write(rows, bx, by, mask, z, prim.front_facing)
        }
    }
}

/// Fills the fragment stage's inputs for lanes placed as `place` says: 1/w for perspective
/// varyings and the position builtin's w, the varying components it reads, the builtins.
/// `z`: the lanes' depths, given when the position builtin's z is read.
#[inline(always)]
fn fill_inputs<const FMA: bool>(
    exec: &mut Executor<'_>,
    pipeline: &SoftPipeline,
    prims: &PrimList,
    prim: &Prim,
    place: Place<'_>,
    z: Option<&Lanes>,
) {
    let mut inv_w = [0.0f32; LANES];
    let mut w = [0.0f32; LANES];
    if pipeline.needs_w {
        place.plane::<FMA>(&prim.inv_w, &mut inv_w);
        for l in 0..LANES {
            w[l] = 1.0 / inv_w[l];
        }
    }
    let planes = prims.planes.get(prim.first_plane as usize..).unwrap_or(&[]);
    for read in &pipeline.fs_reads {
        let (Some(plane), Some(reg)) =
            (planes.get(read.plane), exec.input_mut(read.fs_input).get_mut(read.component))
        else {
            continue;
        };
        if read.perspective {
            place.plane_times::<FMA>(plane, &w, reg);
        } else {
            place.plane::<FMA>(plane, reg);
        }
    }
    if let Some(slot) = pipeline.fs_position
        && pipeline.position_reads != 0
    {
        let (x, y) =
            if pipeline.position_reads & 3 != 0 { place.centres() } else { ([0.0; LANES], [0.0; LANES]) };
        let regs = exec.input_mut(slot);
        for (c, reg) in regs.iter_mut().enumerate() {
            match c {
                _ if pipeline.position_reads >> c & 1 == 0 => {}
                0 => *reg = x,
                1 => *reg = y,
                2 => *reg = z.copied().unwrap_or([0.0; LANES]),
                _ => *reg = inv_w,
            }
        }
    }
    if let Some(slot) = pipeline.fs_front_facing
        && let Some(reg) = exec.input_mut(slot).first_mut()
    {
        *reg = bool_lanes(if prim.front_facing { u64::MAX } else { 0 });
    }
    if let Some(slot) = pipeline.fs_primitive_index
        && let Some(reg) = exec.input_mut(slot).first_mut()
    {
        *reg = [f32::from_bits(prim.index); LANES];
    }
    if let Some(slot) = pipeline.fs_sample_index
        && let Some(reg) = exec.input_mut(slot).first_mut()
    {
        *reg = [0.0; LANES];
    }
}

/// The executor of `fs` from this band's scratch, made on first use.
#[inline(always)]
fn executor<'s, 'b>(
    scratch: &'s mut Vec<(*const Program, Executor<'b>)>,
    fs: &'b std::sync::Arc<Program>,
) -> &'s mut Executor<'b> {
    let key = std::sync::Arc::as_ptr(fs);
    let i = match scratch.iter().position(|(k, _)| *k == key) {
        Some(i) => i,
        None => {
            scratch.push((key, Executor::new(fs)));
            scratch.len() - 1
        }
    };
    &mut scratch[i].1
}

/// Writes `color` for the `mask` lanes of block (`bx`, `by`) into colour target `target`,
/// unless the draw writes nothing there.
#[inline(always)]
fn write_color(
    d: &DrawCtx<'_>,
    band: &mut BandTargets<'_>,
    target: usize,
    bx: u32,
    by: u32,
    mask: u64,
    color: [&Lanes; 4],
) {
    let (Some(Some(ops)), Some(Some(rows))) = (d.colors.get(target), band.colors.get_mut(target)) else {
        return;
    };
    if ops.write_mask != ColorWrites::empty() {
        ops.write(rows, bx, by, mask, color);
    }
}

static ZERO_LANES: Lanes = [0.0; LANES];
static ONE_LANES: Lanes = [1.0; LANES];

/// Output `out`'s components as the four channels of a colour (alpha 1 and the rest 0 where
/// the output has fewer).
#[inline(always)]
fn channels<'r>(regs: &'r [Lanes], out: &TargetOutput) -> [&'r Lanes; 4] {
    let n = out.components.min(regs.len());
    std::array::from_fn(|c| match regs.get(c) {
        Some(r) if c < n => r,
        _ if c == 3 => &ONE_LANES,
        _ => &ZERO_LANES,
    })
}

impl PassShader<'_, '_> {
    fn count(&self, d: &DrawCtx<'_>, mask: u64) {
        self.count_samples(d, mask.count_ones());
    }

    /// Adds `samples` that passed to the draw's occlusion query, if it has one.
    fn count_samples(&self, d: &DrawCtx<'_>, samples: u32) {
        if let Some(counter) = d.occlusion.and_then(|i| self.counters.get(i)) {
            counter.fetch_add(u64::from(samples), Ordering::Relaxed);
        }
    }
}

impl<'a, 'b> BlockShader for PassShader<'a, 'b> {
    type Scratch = Vec<(*const Program, Executor<'b>)>;

    fn scratch(&self) -> Self::Scratch {
        Vec::new()
    }

    #[inline(always)]
    fn shade<const FMA: bool>(
        &self,
        scratch: &mut Self::Scratch,
        prims: &PrimList,
        prim: &Prim,
        bx: u32,
        by: u32,
        mask: u64,
        band: &mut BandTargets<'_>,
    ) {
        let Some(d) = self.draws.get(prim.draw as usize) else { return };
        let pipeline = d.pipeline;
        let (ox, oy) = (bx as f32 + 0.5, by as f32 + 0.5);
        let mut z = LaneZ::new();
        let mut mask = early_tests::<FMA>(d, prim, bx, by, mask, band, &mut z);
        if mask == 0 {
            return;
        }
        if let Some(constant) = &d.constant {
            for out in constant {
                let fill = match (out.texel, d.colors.get(out.target), band.colors.get_mut(out.target)) {
                    (Some(texel), Some(Some(ops)), Some(Some(rows)))
                        if ops.write_mask != ColorWrites::empty() =>
                    {
                        block_span(rows.bytes.len(), rows.pitch, 4, bx, by - rows.y0).map(|start| {
                            block::fill_rows32(rows.bytes, start, rows.pitch, to_rows(mask), texel);
                        })
                    }
                    _ => None,
                };
                if fill.is_none() {
                    write_color(d, band, out.target, bx, by, mask, out.color.each_ref());
                }
            }
        } else if let (Some(fs), Some(bindings)) = (&pipeline.fs, &d.fs_bindings) {
            let exec = executor(scratch, fs);
            let zl = (pipeline.position_reads & 4 != 0).then(|| &*z.get::<FMA>(d, prim, ox, oy));
            fill_inputs::<FMA>(exec, pipeline, prims, prim, Place::Block { ox, oy }, zl);
            exec.run(bindings, mask);
            mask &= !exec.discarded();
            let early = pipeline.early_tests;
            if !early && let (Some(ops), Some(rows)) = (&d.depth, band.depth.as_mut()) {
                let z = z.get::<FMA>(d, prim, ox, oy);
                if let Some(slot) = pipeline.frag_depth
                    && let Some(reg) = exec.output(slot).first()
                {
                    *z = *reg;
                }
                mask = ops.test_and_write(rows, bx, by, mask, z, prim.front_facing);
            }
            if mask == 0 {
                return;
            }
            for out in &pipeline.outputs {
                write_color(d, band, out.target, bx, by, mask, channels(exec.output(out.slot), out));
            }
        }
        self.count(d, mask);
    }

    fn packs(&self, prim: &Prim) -> bool {
        self.pack
            && self
                .draws
                .get(prim.draw as usize)
                .is_some_and(|d| d.constant.is_none() && d.pipeline.fs.is_some() && d.fs_bindings.is_some())
    }

    #[inline(always)]
    fn shade_packed<const FMA: bool>(
        &self,
        scratch: &mut Self::Scratch,
        prims: &PrimList,
        prim: &Prim,
        blocks: &[(u32, u32, u64)],
        band: &mut BandTargets<'_>,
    ) {
        let Some(d) = self.draws.get(prim.draw as usize) else { return };
        let pipeline = d.pipeline;
        let (Some(fs), Some(bindings)) = (&pipeline.fs, &d.fs_bindings) else { return };
        // Early tests block by block, then each covered quad to the next free quad of the
        // batch: `from[s]` is the block and quad that batch quad `s` came from.
        let mut from = [(0usize, 0usize); QUADS as usize];
        let mut at = LaneOrigins { ox: [0.0; LANES], oy: [0.0; LANES], x: [0.0; LANES], y: [0.0; LANES] };
        let mut packed = 0u64;
        let mut n = 0;
        for (j, &(bx, by, mask)) in blocks.iter().enumerate() {
            let mut z = LaneZ::new();
            let m = early_tests::<FMA>(d, prim, bx, by, mask, band, &mut z);
            let mut quads = quad_mask(m);
            while quads != 0 && n < QUADS as usize {
                let q = quads.trailing_zeros() as usize / 4;
                quads &= quads - 1;
                from[n] = (j, q);
                for k in 0..4 {
                    let (src, dst) = (4 * q + k, 4 * n + k);
                    at.ox[dst] = bx as f32 + 0.5;
                    at.oy[dst] = by as f32 + 0.5;
                    at.x[dst] = LANE_XF[src];
                    at.y[dst] = LANE_YF[src];
                }
                packed |= (m >> (4 * q) & 0xF) << (4 * n);
                n += 1;
            }
        }
        if packed == 0 {
            return;
        }
        // Unused batch quads repeat the first one: their lanes compute but never land.
        for l in 4 * n..LANES {
            at.ox[l] = at.ox[l % 4];
            at.oy[l] = at.oy[l % 4];
            at.x[l] = at.x[l % 4];
            at.y[l] = at.y[l % 4];
        }
        let mut z_packed = [0.0f32; LANES];
        if pipeline.position_reads & 4 != 0 {
            block::plane_packed::<FMA>(&prim.z, &at, &mut z_packed);
            d.adjust_depth(&mut z_packed);
        }
        let exec = executor(scratch, fs);
        fill_inputs::<FMA>(
            exec,
            pipeline,
            prims,
            prim,
            Place::Packed(&at),
            (pipeline.position_reads & 4 != 0).then_some(&z_packed),
        );
        exec.run(bindings, packed);
        let kept = packed & !exec.discarded();
        // Back to each block's own lanes.
        let unpack = |j: usize, src: &Lanes, dst: &mut Lanes| {
            for (s, &(b, q)) in from.iter().enumerate().take(n) {
                if b == j {
                    dst[4 * q..4 * q + 4].copy_from_slice(&src[4 * s..4 * s + 4]);
                }
            }
        };
        for (j, &(bx, by, _)) in blocks.iter().enumerate() {
            let mut mask = 0u64;
            for (s, &(b, q)) in from.iter().enumerate().take(n) {
                if b == j {
                    mask |= (kept >> (4 * s) & 0xF) << (4 * q);
                }
            }
            if mask == 0 {
                continue;
            }
            if !pipeline.early_tests
                && let (Some(ops), Some(rows)) = (&d.depth, band.depth.as_mut())
            {
                let mut z = LaneZ::new();
                let z = z.get::<FMA>(d, prim, bx as f32 + 0.5, by as f32 + 0.5);
                if let Some(slot) = pipeline.frag_depth
                    && let Some(reg) = exec.output(slot).first()
                {
                    unpack(j, reg, z);
                }
                mask = ops.test_and_write(rows, bx, by, mask, z, prim.front_facing);
                if mask == 0 {
                    continue;
                }
            }
            for out in &pipeline.outputs {
                let regs = exec.output(out.slot);
                let mut color = [[0.0f32; LANES]; 4];
                for (c, reg) in regs.iter().enumerate().take(4) {
                    unpack(j, reg, &mut color[c]);
                }
                write_color(d, band, out.target, bx, by, mask, channels(&color[..regs.len().min(4)], out));
            }
            self.count(d, mask);
        }
    }

    #[inline(always)]
    fn shade_samples<const FMA: bool>(
        &self,
        scratch: &mut Self::Scratch,
        prims: &PrimList,
        prim: &Prim,
        bx: u32,
        by: u32,
        masks: [u64; 4],
        samples: &mut [BandTargets<'_>],
    ) {
        let Some(d) = self.draws.get(prim.draw as usize) else { return };
        let pipeline = d.pipeline;
        let (ox, oy) = (bx as f32 + 0.5, by as f32 + 0.5);
        // Each sample's depth, at its own position.
        let mut zs = [[0.0f32; LANES]; 4];
        if d.depth.is_some() {
            for (z, (dx, dy)) in zs.iter_mut().zip(SAMPLE_OFFSETS_F) {
                block::plane_lanes::<FMA>(&prim.z, ox + dx, oy + dy, z);
                d.adjust_depth(z);
            }
        }
        let mut passed = masks;
        let early = pipeline.early_tests || pipeline.fs.is_none();
        if early && let Some(ops) = &d.depth {
            for ((pass, band), z) in passed.iter_mut().zip(samples.iter_mut()).zip(&zs) {
                if let Some(rows) = band.depth.as_mut() {
                    *pass = ops.test_and_write(rows, bx, by, *pass, z, prim.front_facing);
                }
            }
        }
        let any = passed.iter().fold(0, |a, m| a | m);
        if any == 0 {
            return;
        }
        if let Some(constant) = &d.constant {
            for out in constant {
                for (band, &mask) in samples.iter_mut().zip(&passed) {
                    write_color(d, band, out.target, bx, by, mask, out.color.each_ref());
                }
            }
        } else if let (Some(fs), Some(bindings)) = (&pipeline.fs, &d.fs_bindings) {
            let exec = executor(scratch, fs);
            let mut centre = LaneZ::new();
            let zc = (pipeline.position_reads & 4 != 0).then(|| &*centre.get::<FMA>(d, prim, ox, oy));
            fill_inputs::<FMA>(exec, pipeline, prims, prim, Place::Block { ox, oy }, zc);
            exec.run(bindings, any);
            let kept = !exec.discarded();
            for pass in &mut passed {
                *pass &= kept;
            }
            if !early && let Some(ops) = &d.depth {
                let frag_depth = pipeline.frag_depth.and_then(|slot| exec.output(slot).first());
                for ((pass, band), z) in passed.iter_mut().zip(samples.iter_mut()).zip(&mut zs) {
                    if let Some(reg) = frag_depth {
                        *z = *reg;
                    }
                    if let Some(rows) = band.depth.as_mut() {
                        *pass = ops.test_and_write(rows, bx, by, *pass, z, prim.front_facing);
                    }
                }
            }
            for out in &pipeline.outputs {
                for (band, &mask) in samples.iter_mut().zip(&passed) {
                    if mask != 0 {
                        write_color(d, band, out.target, bx, by, mask, channels(exec.output(out.slot), out));
                    }
                }
            }
        }
        self.count_samples(d, passed.iter().map(|m| m.count_ones()).sum());
    }
}
