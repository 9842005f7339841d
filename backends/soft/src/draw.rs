//! Running a pass at submit: the vertex stage and geometry for every draw, then the
//! rasteriser over bands of the attachments, which clears each band and draws into it with
//! the fragment side ([`crate::shade`]): it interpolates only the varying components the
//! fragment stage reads, and a fragment stage that reads nothing is run once per draw.

use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{RwLockReadGuard, RwLockWriteGuard};

use f3d_hal::backend;
use f3d_hal::{
    DeviceError, GeometryBuffer, GraphicsDevice, LoadOp, ScissorRect, TextureFormat, TextureHandle,
    encode_clear_color,
};

use crate::device::SoftDevice;
use crate::exec::{Bindings, Executor, LANES, Program, Resource, TextureView};
use crate::geometry::{GeometryState, ShadedVertices, assemble, decode_attribute, emit, read_indices};
use crate::pass::{Bound, DrawKind, Recorded, RecordedDraw, SoftPass};
use crate::pipeline::SoftPipeline;
use crate::raster::output::{ColorOps, ColorRows, DepthRows, DepthStencilOps, resolve};
use crate::raster::{BAND_ROWS, BandTargets, Clears, PrimList, rasterize};
use crate::shade::{DrawCtx, PassShader, shade_constant};
use crate::texture::{SoftGeometry, SoftQuerySet, TexelStore};

fn refused(reason: String) -> DeviceError {
    DeviceError::Refused { operation: "submit", reason }
}

pub(crate) struct Attached<'a> {
    guard: RwLockWriteGuard<'a, TexelStore>,
    level: u32,
    layer: u32,
    pub(crate) format: TextureFormat,
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
                    &bytes_of,
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
                        Parallel { threads: device.threads, pool: device.pool.as_deref() },
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
        match &device.pool {
            Some(pool) => pool.install(|| rasterize(&prims, bands, &clears, &shader, true)),
            None => rasterize(&prims, bands, &clears, &shader, device.threads > 1),
        }
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
            for b in d.bindings.iter().flatten() {
                if let Bound::Storage(g) = b {
                    add(g)?;
                }
            }
        }
    }
    Ok(out)
}

fn resources<'a>(
    program: &Program,
    slots: &[f3d_hal::BindingSlot],
    draw: &'a RecordedDraw,
    bytes_of: &dyn Fn(&GeometryBuffer) -> Result<&'a [u8], DeviceError>,
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
            Some(Bound::Storage(g)) => bytes_of(g).map(Resource::StorageBuffer),
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
    bytes_of: &dyn Fn(&GeometryBuffer) -> Result<&'a [u8], DeviceError>,
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
            let res = resources(fs, &pipeline.fs_slots, d, bytes_of, arena, views)?;
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
    parallel: Parallel<'_>,
) -> Result<(), DeviceError> {
    let pipeline = ctx.pipeline;
    let desc =
        d.pipeline.descriptor().render.as_ref().ok_or_else(|| refused("not a render pipeline".into()))?;
    let res = resources(&pipeline.vs, &pipeline.vs_slots, d, bytes_of, arena, views)?;
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
        // Shades, assembles, clips and sets up `instances`, numbering their primitives from
        // `first`, into `out`.
        // Each draw-order vertex's row among the distinct ones.
        let rows: Vec<usize> = inv.vertices.iter().map(|v| unique.binary_search(v).unwrap_or(0)).collect();
        // Instances shaded together fill the executor's lanes (a cube's 24 vertices alone
        // would leave 40 of 64 idle).
        let per_batch = (LANES / unique.len().max(1)).max(1);
        // A large mesh drawn once (or a few times) has its vertices shaded on every thread.
        let split_vertices = parallel.threads > 1 && unique.len() >= PARALLEL_VERTICES;
        let geometry = |exec: &mut Executor<'_>, instances: &[u32], mut first: u32, out: &mut PrimList| {
            for group in instances.chunks(per_batch) {
                let shaded = if split_vertices && group.len() == 1 {
                    shade_vertices_on_threads(pipeline, &vs_bindings, &buffers, &unique, group[0], parallel)
                } else {
                    shade_vertices(pipeline, exec, &vs_bindings, &buffers, &unique, group)
                };
                let stride = shaded.stride;
                for k in 0..group.len() {
                    let base = k * unique.len();
                    let mut data = Vec::with_capacity(rows.len() * stride);
                    for &i in &rows {
                        data.extend_from_slice(&shaded.data[(base + i) * stride..(base + i + 1) * stride]);
                    }
                    let ordered = ShadedVertices { data, stride };
                    emit(&state, &ordered, inv.vertices.len(), out, &mut first);
                }
            }
        };
        let instances: Vec<u32> = inv.instances.clone().collect();
        let per_instance = assemble(state.topology, inv.vertices.len()).len() as u32;
        if parallel.threads > 1 && instances.len() >= PARALLEL_INSTANCES {
            // Instances in chunks on every thread, each chunk's primitives appended in
            // instance order: the same list, in the same order, as one thread makes.
            let chunk = instances.len().div_ceil(parallel.threads * 4).max(PARALLEL_INSTANCES / 2);
            let run = || -> Vec<PrimList> {
                instances
                    .par_chunks(chunk)
                    .enumerate()
                    .map(|(k, ids)| {
                        let mut exec = Executor::new(&pipeline.vs);
                        let mut out = PrimList::default();
                        let first = first_index.wrapping_add((k * chunk) as u32 * per_instance);
                        geometry(&mut exec, ids, first, &mut out);
                        out
                    })
                    .collect()
            };
            let lists = match parallel.pool {
                Some(pool) => pool.install(run),
                None => run(),
            };
            for list in lists {
                prims.append(list);
            }
            first_index = first_index.wrapping_add(instances.len() as u32 * per_instance);
        } else {
            geometry(&mut exec, &instances, first_index, prims);
            first_index = first_index.wrapping_add(instances.len() as u32 * per_instance);
        }
    }
    Ok(())
}

/// Instances of one draw from which its geometry is shaded and set up on every thread.
const PARALLEL_INSTANCES: usize = 32;

/// Distinct vertices of one instance from which they are shaded on every thread.
const PARALLEL_VERTICES: usize = 1024;

/// [`shade_vertices`] for one instance, its vertices in chunks on every thread, the rows
/// put back in order.
fn shade_vertices_on_threads(
    pipeline: &SoftPipeline,
    bindings: &Bindings<'_>,
    buffers: &[Option<(&[u8], u64)>],
    ids: &[u32],
    instance: u32,
    parallel: Parallel<'_>,
) -> ShadedVertices {
    let chunk = (ids.len().div_ceil(parallel.threads * 2)).next_multiple_of(LANES).max(4 * LANES);
    let run = || -> Vec<ShadedVertices> {
        ids.par_chunks(chunk)
            .map(|part| {
                let mut exec = Executor::new(&pipeline.vs);
                shade_vertices(pipeline, &mut exec, bindings, buffers, part, &[instance])
            })
            .collect()
    };
    let parts = match parallel.pool {
        Some(pool) => pool.install(run),
        None => run(),
    };
    let stride = 4 + pipeline.interp.len();
    let mut data = Vec::with_capacity(ids.len() * stride);
    for part in parts {
        data.extend_from_slice(&part.data);
    }
    ShadedVertices { data, stride }
}

/// The threads a pass may use for its geometry.
#[derive(Clone, Copy)]
struct Parallel<'a> {
    threads: usize,
    pool: Option<&'a rayon::ThreadPool>,
}

/// Runs the vertex stage over `ids` of each of `instances` (rows instance by instance: row
/// `k * ids.len() + i` is vertex `ids[i]` of instance `instances[k]`), 64 to a batch.
fn shade_vertices(
    pipeline: &SoftPipeline,
    exec: &mut Executor<'_>,
    bindings: &Bindings<'_>,
    buffers: &[Option<(&[u8], u64)>],
    ids: &[u32],
    instances: &[u32],
) -> ShadedVertices {
    let stride = 4 + pipeline.interp.len();
    let pairs: Vec<(u32, u32)> =
        instances.iter().flat_map(|&instance| ids.iter().map(move |&id| (id, instance))).collect();
    let mut data = vec![0.0f32; pairs.len() * stride];
    let mut attr = [0.0f32; 4];
    for (batch, chunk) in pairs.chunks(LANES).enumerate() {
        for input in &pipeline.attributes {
            let src = input.source;
            let size = src.format.size() as usize;
            let regs = exec.input_mut(input.slot);
            for (lane, &(id, instance)) in chunk.iter().enumerate() {
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
            for (lane, &(id, _)) in chunk.iter().enumerate() {
                reg[lane] = f32::from_bits(id);
            }
        }
        if let Some(slot) = pipeline.instance_index
            && let Some(reg) = exec.input_mut(slot).first_mut()
        {
            for (lane, &(_, instance)) in chunk.iter().enumerate() {
                reg[lane] = f32::from_bits(instance);
            }
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
