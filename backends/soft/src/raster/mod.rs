//! The rasteriser: clipping, triangle setup, coverage in 8×8 blocks, and the output merger,
//! driven band by band over the attachments.
//!
//! ```text
//!  draws ──vertex stage──▶ clip ──▶ setup ──▶ Prim list (pass order)
//!                                                  │ binned by band (32 rows)
//!                                                  ▼
//!        band 0 │ band 1 │ ...   in parallel (rayon), each band owns its rows of every
//!                                attachment, clears them (the pass's load ops) and walks
//!                                its prims in pass order:
//!                                block coverage → BlockShader (interpolate, shade, test, write)
//! ```
//!
//! Every band sees its primitives in submission order and no two bands share a pixel, so the
//! output is the same whatever the number of threads.
//!
//! **Multisampling** (4×): a multisampled attachment holds its samples as four whole images
//! one after another (sample-major), so each sample is an ordinary single-sampled plane and
//! a band holds one [`BandTargets`] per sample. Coverage is computed at each sample's
//! position ([`triangle::SAMPLE_OFFSETS`]); a block with any covered sample is shaded once
//! per pixel, at the pixel centre, and depth, stencil and colour are tested and written per
//! sample ([`BlockShader::shade_samples`]). The pass resolves each sample image's average
//! into the resolve target at its end.

pub(crate) mod block;
pub(crate) mod clip;
pub(crate) mod output;
pub(crate) mod srgb;
pub(crate) mod triangle;

use rayon::prelude::*;

use output::{ColorRows, DepthRows};
use triangle::{BLOCK, Coverage, PlaneEq, SAMPLE_OFFSETS, rect_mask};

/// Rows per band: the unit of parallel work.
pub(crate) const BAND_ROWS: u32 = 32;

/// A primitive ready to rasterise: coverage and the planes that interpolate across it.
#[derive(Clone, Debug)]
pub(crate) struct Prim {
    pub(crate) coverage: Coverage,
    pub(crate) front_facing: bool,
    /// Depth after the viewport transform (bias included).
    pub(crate) z: PlaneEq,
    /// 1 / clip w.
    pub(crate) inv_w: PlaneEq,
    /// The primitive's varying planes: `planes[first..first + count]`.
    pub(crate) first_plane: u32,
    /// Which draw of the pass it belongs to.
    pub(crate) draw: u32,
    /// Its index within its draw (`@builtin(primitive_index)`).
    pub(crate) index: u32,
    /// The draw's scissor, clipped to the target: x0, y0, x1, y1 (exclusive).
    pub(crate) scissor: [i32; 4],
}

/// Every primitive of a pass, in submission order, and their varying planes.
#[derive(Default)]
pub(crate) struct PrimList {
    pub(crate) prims: Vec<Prim>,
    pub(crate) planes: Vec<PlaneEq>,
}

impl PrimList {
    /// Appends `other`'s primitives after these, their plane indices moved along.
    pub(crate) fn append(&mut self, other: PrimList) {
        let offset = self.planes.len() as u32;
        self.planes.extend(other.planes);
        self.prims.extend(other.prims.into_iter().map(|mut p| {
            p.first_plane += offset;
            p
        }));
    }
}

/// One band's rows of every attachment.
pub(crate) struct BandTargets<'a> {
    pub(crate) colors: Vec<Option<ColorRows<'a>>>,
    pub(crate) depth: Option<DepthRows<'a>>,
}

/// The pass's clears, done band by band by the thread that then draws the band, so the
/// rows are cleared in parallel and are still in cache when drawn.
#[derive(Default)]
pub(crate) struct Clears {
    /// Per colour attachment, the encoded clear texel.
    pub(crate) colors: Vec<Option<Vec<u8>>>,
    /// The depth clear value.
    pub(crate) depth: Option<f32>,
    /// The stencil clear value.
    pub(crate) stencil: Option<u8>,
}

impl BandTargets<'_> {
    /// Clears this band's rows of every attachment `clears` names.
    fn clear(&mut self, clears: &Clears) {
        for (rows, texel) in self.colors.iter_mut().zip(&clears.colors) {
            if let (Some(rows), Some(texel)) = (rows, texel) {
                fill(rows.bytes, texel);
            }
        }
        if let Some(rows) = &mut self.depth {
            if let Some(z) = clears.depth {
                fill(rows.depth, &z.to_le_bytes());
            }
            if let (Some(stencil), Some(s)) = (rows.stencil.as_deref_mut(), clears.stencil) {
                stencil.fill(s);
            }
        }
    }
}

/// Fills `bytes` with copies of `texel` (a whole number of texels).
pub(crate) fn fill(bytes: &mut [u8], texel: &[u8]) {
    let n = texel.len();
    if n == 0 {
        return;
    }
    if texel.iter().all(|&b| b == texel[0]) {
        bytes.fill(texel[0]);
    } else if 64 % n == 0 {
        // 64 bytes of the pattern at a time: two 256-bit stores.
        let pattern: [u8; 64] = std::array::from_fn(|i| texel[i % n]);
        let mut chunks = bytes.chunks_exact_mut(64);
        for c in &mut chunks {
            c.copy_from_slice(&pattern);
        }
        let rest = chunks.into_remainder();
        let len = rest.len();
        rest.copy_from_slice(&pattern[..len]);
    } else {
        for t in bytes.chunks_exact_mut(n) {
            t.copy_from_slice(texel);
        }
    }
}

/// Shades covered blocks: implemented by the draw executor, which knows the pipelines.
pub(crate) trait BlockShader: Sync {
    /// Per-thread state (the shader executors' registers), made once per band.
    type Scratch;

    /// Fresh scratch state.
    fn scratch(&self) -> Self::Scratch;

    /// Shades the `mask` lanes of the block at (`bx`, `by`) of `prim` and writes the results
    /// into `band`. `FMA`: compiled inside the rasteriser's AVX2 and FMA entry point (see
    /// `block.rs`); implementations inline everything they can into it.
    #[allow(clippy::too_many_arguments)]
    fn shade<const FMA: bool>(
        &self,
        scratch: &mut Self::Scratch,
        prims: &PrimList,
        prim: &Prim,
        bx: u32,
        by: u32,
        mask: u64,
        band: &mut BandTargets<'_>,
    );

    /// Whether the blocks of `prim` may be shaded packed ([`BlockShader::shade_packed`]):
    /// its draw runs a fragment program per fragment.
    fn packs(&self, prim: &Prim) -> bool;

    /// Shades the blocks of `prim` in `blocks` — (x, y, lane mask) each, together at most
    /// [`QUADS`] quads with a covered lane — as one batch: their covered quads are packed
    /// into the batch's lanes (a quad stays whole, so derivatives are the same), shaded
    /// once, and written back block by block. Every pixel ends as [`BlockShader::shade`]
    /// would leave it.
    fn shade_packed<const FMA: bool>(
        &self,
        scratch: &mut Self::Scratch,
        prims: &PrimList,
        prim: &Prim,
        blocks: &[(u32, u32, u64)],
        band: &mut BandTargets<'_>,
    );

    /// Shades the block at (`bx`, `by`) of `prim` on a multisampled target: `masks[s]` are
    /// the lanes whose sample `s` the primitive covers, `samples[s]` the band's rows of
    /// sample `s` of every attachment. The fragment stage runs once per pixel with a covered
    /// sample; depth, stencil and colour are tested and written per sample.
    #[allow(clippy::too_many_arguments)]
    fn shade_samples<const FMA: bool>(
        &self,
        scratch: &mut Self::Scratch,
        prims: &PrimList,
        prim: &Prim,
        bx: u32,
        by: u32,
        masks: [u64; 4],
        samples: &mut [BandTargets<'_>],
    );
}

/// The 2x2 quads of a batch (a block, or a packed batch).
pub(crate) const QUADS: u32 = 16;

/// A block with at most this many covered quads is packed with its primitive's other sparse
/// blocks (small triangles cover a few quads of each of several blocks: shading each block
/// would run a whole batch for a handful of pixels).
const PACK_QUADS: u32 = 12;

/// The quads of lane mask `mask` with at least one lane set, as bit `4q` for quad `q` (so
/// `count_ones` counts them and `trailing_zeros / 4` walks them).
#[inline(always)]
pub(crate) const fn quad_mask(mask: u64) -> u64 {
    let m = mask | (mask >> 1);
    (m | (m >> 2)) & 0x1111_1111_1111_1111
}

/// Blocks of one primitive waiting to be shaded packed.
struct Pending {
    blocks: [(u32, u32, u64); QUADS as usize],
    len: usize,
    quads: u32,
}

impl Pending {
    /// Shades what is pending (one block alone the plain way) and empties it.
    #[inline(always)]
    fn flush<S: BlockShader, const FMA: bool>(
        &mut self,
        shader: &S,
        scratch: &mut S::Scratch,
        prims: &PrimList,
        p: &Prim,
        band: &mut BandTargets<'_>,
    ) {
        match &self.blocks[..self.len] {
            [] => {}
            &[(bx, by, mask)] => shader.shade::<FMA>(scratch, prims, p, bx, by, mask, band),
            blocks => shader.shade_packed::<FMA>(scratch, prims, p, blocks, band),
        }
        self.len = 0;
        self.quads = 0;
    }
}

/// Rasterises every primitive of `prims` into the bands, in parallel when `parallel`,
/// after clearing each band as `clears` says. Each band holds its rows of every sample
/// (one [`BandTargets`] per sample: 1, or 4 for a multisampled pass).
pub(crate) fn rasterize<S: BlockShader>(
    prims: &PrimList,
    bands: Vec<(u32, Vec<BandTargets<'_>>)>,
    clears: &Clears,
    shader: &S,
    parallel: bool,
) {
    // Bin once: which prims touch each band, in order.
    let mut bins: Vec<Vec<u32>> = vec![Vec::new(); bands.len()];
    for (i, p) in prims.prims.iter().enumerate() {
        let first = (p.coverage.min_y.max(0) as u32 / BAND_ROWS) as usize;
        let last = (p.coverage.max_y.max(0) as u32 / BAND_ROWS) as usize;
        for bin in bins.iter_mut().take(last + 1).skip(first) {
            bin.push(i as u32);
        }
    }
    let work: Vec<_> = bands.into_iter().zip(bins).collect();
    let avx2 = crate::exec::detect_avx2();
    let run = |scratch: &mut S::Scratch, ((y0, mut band), bin): ((u32, Vec<BandTargets<'_>>), Vec<u32>)| {
        for sample in &mut band {
            sample.clear(clears);
        }
        // Single-sampled and multisampled bands have entry points of their own, so the
        // multisampled walk does not weigh on the inlining of the common one.
        match band.as_mut_slice() {
            [single] => {
                #[cfg(target_arch = "x86_64")]
                if avx2 {
                    // SAFETY: `band_avx2` only needs the CPU to support AVX2 and FMA, which
                    // `detect_avx2` found on this machine.
                    unsafe { band_avx2(prims, &bin, y0, single, shader, scratch) };
                    return;
                }
                rasterize_band::<S, false>(prims, &bin, y0, single, shader, scratch);
            }
            samples => {
                #[cfg(target_arch = "x86_64")]
                if avx2 {
                    // SAFETY: as above.
                    unsafe { band_samples_avx2(prims, &bin, y0, samples, shader, scratch) };
                    return;
                }
                rasterize_band_samples::<S, false>(prims, &bin, y0, samples, shader, scratch);
            }
        }
        let _ = avx2;
    };
    if parallel {
        work.into_par_iter().for_each_init(|| shader.scratch(), run);
    } else {
        let mut scratch = shader.scratch();
        for item in work {
            run(&mut scratch, item);
        }
    }
}

/// One band with AVX2 and FMA: the same code as [`rasterize_band`], with every block kernel
/// and the shader's block function inlined into it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn band_avx2<S: BlockShader>(
    prims: &PrimList,
    bin: &[u32],
    y0: u32,
    band: &mut BandTargets<'_>,
    shader: &S,
    scratch: &mut S::Scratch,
) {
    rasterize_band::<S, true>(prims, bin, y0, band, shader, scratch);
}

/// [`band_avx2`] for a multisampled band: [`rasterize_band_samples`] with AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn band_samples_avx2<S: BlockShader>(
    prims: &PrimList,
    bin: &[u32],
    y0: u32,
    samples: &mut [BandTargets<'_>],
    shader: &S,
    scratch: &mut S::Scratch,
) {
    rasterize_band_samples::<S, true>(prims, bin, y0, samples, shader, scratch);
}

/// Draws the primitives `bin` (indices into `prims`, in pass order) into one band.
#[inline(always)]
fn rasterize_band<S: BlockShader, const FMA: bool>(
    prims: &PrimList,
    bin: &[u32],
    y0: u32,
    band: &mut BandTargets<'_>,
    shader: &S,
    scratch: &mut S::Scratch,
) {
    for &i in bin {
        if let Some(p) = prims.prims.get(i as usize) {
            rasterize_prim::<S, FMA>(prims, p, y0, band, shader, scratch);
        }
    }
}

/// [`rasterize_band`] for a multisampled band: one [`BandTargets`] per sample.
#[inline(always)]
fn rasterize_band_samples<S: BlockShader, const FMA: bool>(
    prims: &PrimList,
    bin: &[u32],
    y0: u32,
    samples: &mut [BandTargets<'_>],
    shader: &S,
    scratch: &mut S::Scratch,
) {
    for &i in bin {
        if let Some(p) = prims.prims.get(i as usize) {
            rasterize_prim_samples::<S, FMA>(prims, p, y0, samples, shader, scratch);
        }
    }
}

/// Every block (x, y) of `p`'s pixel bounds inside the band starting at row `y0`, row by
/// row. (An iterator, not a function taking a closure: the callers' loop bodies hold the
/// shading, which must stay inside the AVX2 entry point they are inlined into, and a closure
/// is a function of its own that LLVM may leave out of line, compiled without AVX2. A plain
/// counter rather than `step_by`/`flat_map`, whose per-block cost showed in the flat-fill
/// bench.)
#[inline(always)]
fn blocks(p: &Prim, y0: u32) -> Blocks {
    let c = &p.coverage;
    let y = (c.min_y.max(y0 as i32) as u32) / BLOCK * BLOCK;
    let y_end = (c.max_y as u32).min(y0 + BAND_ROWS - 1);
    let x_start = c.min_x.max(0) as u32 / BLOCK * BLOCK;
    let x_end = c.max_x.max(0) as u32;
    Blocks { x: x_start, y, x_start, x_end, y_end, done: y > y_end || x_start > x_end }
}

/// The walk of [`blocks`].
struct Blocks {
    x: u32,
    y: u32,
    x_start: u32,
    x_end: u32,
    y_end: u32,
    done: bool,
}

impl Iterator for Blocks {
    type Item = (u32, u32);

    #[inline(always)]
    fn next(&mut self) -> Option<(u32, u32)> {
        if self.done {
            return None;
        }
        let block = (self.x, self.y);
        self.x += BLOCK;
        if self.x > self.x_end {
            self.x = self.x_start;
            self.y += BLOCK;
            self.done = self.y > self.y_end;
        }
        Some(block)
    }
}

/// The lanes of block (`bx`, `by`) inside `p`'s scissor: all of them for a block wholly
/// inside it (the common case, without looking at lanes).
#[inline(always)]
fn scissor_lanes(p: &Prim, bx: u32, by: u32) -> u64 {
    let [sx0, sy0, sx1, sy1] = p.scissor;
    let (bxi, byi) = (bx as i32, by as i32);
    if bxi >= sx0 && byi >= sy0 && bxi + BLOCK as i32 <= sx1 && byi + BLOCK as i32 <= sy1 {
        return u64::MAX;
    }
    let local = |v: i32, o: i32| (v - o).clamp(0, BLOCK as i32) as u32;
    rect_mask(local(sx0, bxi), local(sy0, byi), local(sx1, bxi), local(sy1, byi))
}

/// The blocks of one primitive inside a band of a multisampled pass, each shaded with its
/// coverage at every sample position (no packing: a block is shaded whole).
#[inline(always)]
fn rasterize_prim_samples<S: BlockShader, const FMA: bool>(
    prims: &PrimList,
    p: &Prim,
    y0: u32,
    samples: &mut [BandTargets<'_>],
    shader: &S,
    scratch: &mut S::Scratch,
) {
    for (bx, by) in blocks(p, y0) {
        let masks = SAMPLE_OFFSETS.map(|offset| p.coverage.block_mask_at(bx as i32, by as i32, offset));
        if masks.iter().all(|&m| m == 0) {
            continue;
        }
        let inside = scissor_lanes(p, bx, by);
        let masks = masks.map(|m| m & inside);
        if masks.iter().any(|&m| m != 0) {
            shader.shade_samples::<FMA>(scratch, prims, p, bx, by, masks, samples);
        }
    }
}

/// Walks the blocks of one primitive inside a band and shades the covered ones: blocks with
/// more than [`PACK_QUADS`] covered quads alone, the others gathered and shaded packed, as
/// many at a time as fit [`QUADS`] quads. Blocks of one primitive never overlap, so the
/// order they are shaded in does not matter; everything pending is shaded before the next
/// primitive, which keeps primitive order.
#[inline(always)]
fn rasterize_prim<S: BlockShader, const FMA: bool>(
    prims: &PrimList,
    p: &Prim,
    y0: u32,
    band: &mut BandTargets<'_>,
    shader: &S,
    scratch: &mut S::Scratch,
) {
    let packs = shader.packs(p);
    let mut pending = Pending { blocks: [(0, 0, 0); QUADS as usize], len: 0, quads: 0 };
    for (bx, by) in blocks(p, y0) {
        let mut mask = p.coverage.block_mask(bx as i32, by as i32);
        if mask == 0 {
            continue;
        }
        mask &= scissor_lanes(p, bx, by);
        let quads = if packs && mask != 0 { quad_mask(mask).count_ones() } else { QUADS };
        if quads <= PACK_QUADS {
            if pending.quads + quads > QUADS {
                pending.flush::<S, FMA>(shader, scratch, prims, p, band);
            }
            pending.blocks[pending.len] = (bx, by, mask);
            pending.len += 1;
            pending.quads += quads;
        } else if mask != 0 {
            shader.shade::<FMA>(scratch, prims, p, bx, by, mask, band);
        }
    }
    pending.flush::<S, FMA>(shader, scratch, prims, p, band);
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::triangle::{ScreenVertex, setup};
    use super::*;

    /// What a shader was asked to shade: `None` for a plain block, `Some(n)` for a packed
    /// batch of `n` blocks; with every (block x, block y, lane mask).
    type Call = (Option<usize>, Vec<(u32, u32, u64)>);

    /// Records the calls; packs when `packs`.
    struct Recorder {
        packs: bool,
        calls: Mutex<Vec<Call>>,
    }

    impl BlockShader for Recorder {
        type Scratch = ();

        fn scratch(&self) {}

        fn shade<const FMA: bool>(
            &self,
            _: &mut (),
            _: &PrimList,
            _: &Prim,
            bx: u32,
            by: u32,
            mask: u64,
            _: &mut BandTargets<'_>,
        ) {
            self.calls.lock().unwrap().push((None, vec![(bx, by, mask)]));
        }

        fn packs(&self, _: &Prim) -> bool {
            self.packs
        }

        fn shade_packed<const FMA: bool>(
            &self,
            _: &mut (),
            _: &PrimList,
            _: &Prim,
            blocks: &[(u32, u32, u64)],
            _: &mut BandTargets<'_>,
        ) {
            self.calls.lock().unwrap().push((Some(blocks.len()), blocks.to_vec()));
        }

        fn shade_samples<const FMA: bool>(
            &self,
            _: &mut (),
            _: &PrimList,
            _: &Prim,
            _: u32,
            _: u32,
            _: [u64; 4],
            _: &mut [BandTargets<'_>],
        ) {
            unreachable!("single-sampled bands only")
        }
    }

    fn triangle(v: [(f32, f32); 3]) -> PrimList {
        let sv = v.map(|(x, y)| ScreenVertex { x, y, z: 0.5, inv_w: 1.0 });
        let scissor = [0, 0, 32, 32];
        let s = setup(sv, scissor, true).or_else(|| setup(sv, scissor, false)).expect("a triangle with area");
        let plane = PlaneEq { a: 0.0, b: 0.0, c: 0.0 };
        let prim = Prim {
            coverage: s.coverage,
            front_facing: s.front_facing,
            z: plane,
            inv_w: plane,
            first_plane: 0,
            draw: 0,
            index: 0,
            scissor,
        };
        PrimList { prims: vec![prim], planes: Vec::new() }
    }

    fn calls(prims: &PrimList, packs: bool) -> Vec<Call> {
        let shader = Recorder { packs, calls: Mutex::new(Vec::new()) };
        let band = BandTargets { colors: Vec::new(), depth: None };
        rasterize(prims, vec![(0, vec![band])], &Clears::default(), &shader, false);
        shader.calls.into_inner().unwrap()
    }

    /// Every covered lane of every block, as the coverage gives it.
    fn coverage(prims: &PrimList) -> Vec<(u32, u32, u64)> {
        let c = &prims.prims[0].coverage;
        let mut out = Vec::new();
        for by in (0..32).step_by(8) {
            for bx in (0..32).step_by(8) {
                let m = c.block_mask(bx, by);
                if m != 0 {
                    out.push((bx as u32, by as u32, m));
                }
            }
        }
        out.sort();
        out
    }

    fn shaded(calls: &[Call]) -> Vec<(u32, u32, u64)> {
        let mut out: Vec<_> = calls.iter().flat_map(|(_, b)| b.iter().copied()).collect();
        out.sort();
        out
    }

    #[test]
    fn quad_masks_mark_quads_with_a_lane() {
        assert_eq!(quad_mask(0), 0);
        assert_eq!(quad_mask(0b1000), 1);
        assert_eq!(quad_mask(0b1_0000), 1 << 4);
        assert_eq!(quad_mask(0b0110_0000), 1 << 4);
        assert_eq!(quad_mask(1 << 63), 1 << 60);
        assert_eq!(quad_mask(u64::MAX), 0x1111_1111_1111_1111);
        assert_eq!(quad_mask(u64::MAX).count_ones(), QUADS);
    }

    #[test]
    fn a_small_triangle_across_four_blocks_is_one_packed_batch() {
        // Around the corner where four blocks meet: a few quads of each.
        let prims = triangle([(5.0, 5.0), (12.0, 6.0), (6.0, 12.0)]);
        let covered = coverage(&prims);
        assert_eq!(covered.len(), 4, "the triangle touches four blocks");
        let packed = calls(&prims, true);
        assert_eq!(packed.len(), 1, "{packed:?}");
        assert_eq!(packed[0].0, Some(4));
        assert_eq!(shaded(&packed), covered, "every covered lane once, in its own block");
        // Without packing: one call per block, the same lanes.
        let plain = calls(&prims, false);
        assert!(plain.iter().all(|(kind, _)| kind.is_none()));
        assert_eq!(shaded(&plain), covered);
    }

    #[test]
    fn full_blocks_are_shaded_alone_and_sparse_ones_packed() {
        // A wide, flat triangle: its first blocks are full, those under its long edge sparse.
        let prims = triangle([(0.0, 0.0), (32.0, 0.0), (0.0, 10.0)]);
        let covered = coverage(&prims);
        let calls = calls(&prims, true);
        assert_eq!(shaded(&calls), covered, "every covered lane once");
        for (kind, blocks) in &calls {
            let quads: u32 = blocks.iter().map(|b| quad_mask(b.2).count_ones()).sum();
            match kind {
                None => {
                    assert_eq!(blocks.len(), 1);
                }
                Some(n) => {
                    assert!(*n >= 2, "a packed batch holds at least two blocks");
                    assert!(quads <= QUADS, "{quads} quads in one batch");
                    assert!(blocks.iter().all(|b| quad_mask(b.2).count_ones() <= PACK_QUADS));
                }
            }
        }
        assert!(calls.iter().any(|c| c.0.is_none() && c.1[0].2 == u64::MAX), "full blocks alone");
        assert!(calls.iter().any(|c| c.0.is_some()), "the diagonal's sparse blocks packed");
    }
}
