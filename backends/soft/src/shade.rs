//! The fragment side of a pass: each band's blocks of pixels shaded a batch of lanes at a
//! time — early depth and stencil tests, the fragment stage's inputs interpolated, the
//! executor run, colour written through the output merger — and fragment stages that give
//! every fragment the same values shaded once per draw.

use std::sync::atomic::{AtomicU64, Ordering};

use f3d_hal::ColorWrites;

use crate::exec::{Bindings, Executor, LANES, Lanes, Program, bool_lanes};
use crate::pipeline::{SoftPipeline, TargetOutput};
use crate::raster::block::{self, LaneOrigins, block_span, to_lanes, to_rows};
use crate::raster::output::{ColorOps, DepthStencilOps, rgba8_layout, write_texel};
use crate::raster::srgb::SrgbEncoder;
use crate::raster::triangle::PlaneEq;
use crate::raster::triangle::{LANE_XF, LANE_YF, SAMPLE_OFFSETS_F};
use crate::raster::{BandTargets, BlockShader, Prim, PrimList, QUADS, quad_mask};

use crate::draw::Attached;

/// What the fragment side of one draw needs.
pub(crate) struct DrawCtx<'a> {
    pub(crate) pipeline: &'a SoftPipeline,
    pub(crate) fs_bindings: Option<Bindings<'a>>,
    pub(crate) colors: Vec<Option<ColorOps<'a>>>,
    pub(crate) depth: Option<DepthStencilOps>,
    pub(crate) depth_clamp: Option<(f32, f32)>,
    pub(crate) depth16: bool,
    pub(crate) occlusion: Option<usize>,
    /// The outputs of a fragment stage that gives every fragment the same values
    /// ([`SoftPipeline::constant_outputs`]), shaded once for the draw.
    pub(crate) constant: Option<Vec<ConstantOutput>>,
}

/// One output of a draw shaded once ([`DrawCtx::constant`]).
pub(crate) struct ConstantOutput {
    /// The colour target it goes to.
    pub(crate) target: usize,
    /// The value in every lane, for the general write path.
    pub(crate) color: [Lanes; 4],
    /// The value encoded as the target's texel, when the draw replaces whole 8-bit RGBA or
    /// BGRA texels of it: a covered block is then a fill.
    pub(crate) texel: Option<u32>,
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
pub(crate) fn shade_constant(
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

pub(crate) struct PassShader<'a, 'b> {
    pub(crate) draws: &'a [DrawCtx<'b>],
    pub(crate) counters: &'a [AtomicU64],
    /// Whether sparse blocks are packed ([`SoftDevice::without_quad_packing`]).
    pub(crate) pack: bool,
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
