//! Running a pass at submit: clears, the vertex stage and geometry for every draw, then the
//! rasteriser over bands of the attachments with the fragment stage and output merger.

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
use crate::geometry::{GeometryState, Interp, ShadedVertices, decode_attribute, emit, read_indices};
use crate::pass::{Bound, DrawKind, Recorded, RecordedDraw, SoftPass};
use crate::pipeline::SoftPipeline;
use crate::raster::output::{ColorOps, ColorRows, DepthRows, DepthStencilOps};
use crate::raster::triangle::{LANE_XF, LANE_YF, PlaneEq};
use crate::raster::{BAND_ROWS, BandTargets, BlockShader, Prim, PrimList, rasterize};
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

    // Clears.
    for (a, att) in desc.color_attachments.iter().zip(colors.iter_mut()) {
        if let LoadOp::Clear(c) = a.load {
            att.guard.main.fill(att.level, att.layer, &encode_clear_color(att.format, c.to_array()));
        }
    }
    if let (Some(d), Some(att)) = (&desc.depth_stencil_attachment, depth.as_mut()) {
        if let LoadOp::Clear(z) = d.depth_load {
            att.guard.main.fill(att.level, att.layer, &z.to_le_bytes());
        }
        if let (LoadOp::Clear(s), Some(stencil)) = (d.stencil_load, att.guard.stencil.as_mut()) {
            stencil.fill(att.level, att.layer, &[s as u8]);
        }
    }

    // Geometry for every draw, in order.
    let (width, height) = pass.size;
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

    // Rasterise band by band.
    let counters: Vec<AtomicU64> = occlusion_sets.iter().map(|_| AtomicU64::new(0)).collect();
    if !prims.prims.is_empty() {
        let bands = split_bands(&mut colors, depth.as_mut(), height);
        let shader = PassShader { draws: &draws, counters: &counters };
        rasterize(&prims, bands, &shader, device.threads > 1);
    }
    for ((set, index), counter) in occlusion_sets.iter().zip(&counters) {
        let q = backend::query_set_payload::<SoftQuerySet>(device.owner(), set, "end_occlusion_query")?;
        q.values.lock().unwrap_or_else(|e| e.into_inner())[*index as usize] +=
            counter.load(Ordering::Relaxed);
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
    let color_ops = (0..colors.len())
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
    let occlusion = d.occlusion.as_ref().map(|(set, index)| {
        occlusion_sets.push((set.clone(), *index));
        occlusion_sets.len() - 1
    });
    Ok(DrawCtx {
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

/// Splits every attachment's plane into bands of rows.
fn split_bands<'a>(
    colors: &'a mut [Attached<'_>],
    depth: Option<&'a mut Attached<'_>>,
    height: u32,
) -> Vec<(u32, BandTargets<'a>)> {
    let band_count = height.div_ceil(BAND_ROWS) as usize;
    let mut bands: Vec<(u32, BandTargets<'a>)> = (0..band_count)
        .map(|b| (b as u32 * BAND_ROWS, BandTargets { colors: Vec::new(), depth: None }))
        .collect();
    for att in colors.iter_mut() {
        let pitch = att.guard.main.row_pitch(att.level);
        let format = att.format;
        let plane = att.guard.main.plane_mut(att.level, att.layer);
        let mut chunks = plane.chunks_mut(pitch * BAND_ROWS as usize);
        for (y0, band) in bands.iter_mut() {
            band.colors.push(chunks.next().map(|bytes| ColorRows { bytes, pitch, format, y0: *y0 }));
        }
    }
    if let Some(att) = depth {
        let pitch = att.guard.main.row_pitch(att.level) / 4;
        let store = &mut *att.guard;
        let mut depth_chunks =
            store.main.plane_mut(att.level, att.layer).chunks_mut(pitch * 4 * BAND_ROWS as usize);
        let mut stencil_chunks = store
            .stencil
            .as_mut()
            .map(|s| s.plane_mut(att.level, att.layer).chunks_mut(pitch * BAND_ROWS as usize));
        for (y0, band) in bands.iter_mut() {
            let stencil = stencil_chunks.as_mut().and_then(Iterator::next);
            band.depth = depth_chunks.next().map(|depth| DepthRows { depth, stencil, pitch, y0: *y0 });
        }
    }
    bands
}

struct PassShader<'a, 'b> {
    draws: &'a [DrawCtx<'b>],
    counters: &'a [AtomicU64],
}

impl<'a, 'b> BlockShader for PassShader<'a, 'b> {
    type Scratch = Vec<(*const Program, Executor<'b>)>;

    fn scratch(&self) -> Self::Scratch {
        Vec::new()
    }

    fn shade(
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
        // Planes are evaluated as base + a·x + b·y over the block's lane offsets, in loops
        // the compiler vectorises.
        let (ox, oy) = (bx as f32 + 0.5, by as f32 + 0.5);
        let eval = |plane: &PlaneEq, out: &mut Lanes| {
            let base = plane.a * ox + plane.b * oy + plane.c;
            for l in 0..LANES {
                out[l] = base + plane.a * LANE_XF[l] + plane.b * LANE_YF[l];
            }
        };
        // Only what this draw reads: 1/w for perspective varyings and the position builtin,
        // depth for the tests and the position builtin.
        let mut inv_w = [0.0f32; LANES];
        let mut w = [0.0f32; LANES];
        if pipeline.needs_w {
            eval(&prim.inv_w, &mut inv_w);
            for l in 0..LANES {
                w[l] = 1.0 / inv_w[l];
            }
        }
        let mut z = [0.0f32; LANES];
        if d.depth.is_some() || pipeline.fs_position.is_some() {
            eval(&prim.z, &mut z);
        }
        if let Some((lo, hi)) = d.depth_clamp {
            z.iter_mut().for_each(|v| *v = v.clamp(lo.min(hi), hi.max(lo)));
        }
        if d.depth16 {
            z.iter_mut().for_each(|v| *v = (v.clamp(0.0, 1.0) * 65535.0).round() / 65535.0);
        }
        let mut mask = mask;
        let early = pipeline.early_tests || pipeline.fs.is_none();
        if early && let (Some(ops), Some(rows)) = (&d.depth, band.depth.as_mut()) {
            mask = ops.test_and_write(rows, bx, by, mask, &z, prim.front_facing);
        }
        if mask == 0 {
            return;
        }
        if let (Some(fs), Some(bindings)) = (&pipeline.fs, &d.fs_bindings) {
            let key = std::sync::Arc::as_ptr(fs);
            let exec = match scratch.iter().position(|(k, _)| *k == key) {
                Some(i) => &mut scratch[i].1,
                None => {
                    scratch.push((key, Executor::new(fs)));
                    &mut scratch.last_mut().expect("just pushed").1
                }
            };
            let mut component = 0usize;
            for link in &pipeline.varyings {
                let regs = exec.input_mut(link.fs_input);
                for c in 0..link.components {
                    let plane = prims.planes[prim.first_plane as usize + component + c];
                    let perspective = pipeline.interp[component + c] == Interp::Perspective;
                    if let Some(reg) = regs.get_mut(c) {
                        eval(&plane, reg);
                        if perspective {
                            for l in 0..LANES {
                                reg[l] *= w[l];
                            }
                        }
                    }
                }
                component += link.components;
            }
            if let Some(slot) = pipeline.fs_position {
                let regs = exec.input_mut(slot);
                let centres: [Lanes; 2] =
                    [std::array::from_fn(|l| ox + LANE_XF[l]), std::array::from_fn(|l| oy + LANE_YF[l])];
                let values: [&Lanes; 4] = [&centres[0], &centres[1], &z, &inv_w];
                for (c, reg) in regs.iter_mut().enumerate() {
                    *reg = *values[c];
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
            exec.run(bindings, mask);
            mask &= !exec.discarded();
            if !early {
                if let Some(slot) = pipeline.frag_depth
                    && let Some(reg) = exec.output(slot).first()
                {
                    z = *reg;
                }
                if let (Some(ops), Some(rows)) = (&d.depth, band.depth.as_mut()) {
                    mask = ops.test_and_write(rows, bx, by, mask, &z, prim.front_facing);
                }
            }
            if mask == 0 {
                return;
            }
            for out in &pipeline.outputs {
                let (Some(Some(ops)), Some(Some(rows))) =
                    (d.colors.get(out.target), band.colors.get_mut(out.target))
                else {
                    continue;
                };
                if ops.write_mask == ColorWrites::empty() {
                    continue;
                }
                let regs = exec.output(out.slot);
                let mut color = [[0.0f32; LANES], [0.0; LANES], [0.0; LANES], [1.0; LANES]];
                for (c, channel) in color.iter_mut().enumerate().take(out.components.min(regs.len())) {
                    *channel = regs[c];
                }
                ops.write(rows, bx, by, mask, &color);
            }
        }
        if let Some(counter) = d.occlusion.and_then(|i| self.counters.get(i)) {
            counter.fetch_add(u64::from(mask.count_ones()), Ordering::Relaxed);
        }
    }
}
