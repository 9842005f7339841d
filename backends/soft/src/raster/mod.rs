//! The rasteriser: clipping, triangle setup, coverage in 8×8 blocks, and the output merger,
//! driven band by band over the attachments.
//!
//! ```text
//!  draws ──vertex stage──▶ clip ──▶ setup ──▶ Prim list (pass order)
//!                                                  │ binned by band (32 rows)
//!                                                  ▼
//!        band 0 │ band 1 │ ...   in parallel (rayon), each band owns its rows of every
//!                                attachment and walks its prims in pass order:
//!                                block coverage → BlockShader (interpolate, shade, test, write)
//! ```
//!
//! Every band sees its primitives in submission order and no two bands share a pixel, so the
//! output is the same whatever the number of threads.

pub(crate) mod clip;
pub(crate) mod output;
pub(crate) mod srgb;
pub(crate) mod triangle;

use rayon::prelude::*;

use output::{ColorRows, DepthRows};
use triangle::{BLOCK, Coverage, PlaneEq, rect_mask};

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

/// One band's rows of every attachment.
pub(crate) struct BandTargets<'a> {
    pub(crate) colors: Vec<Option<ColorRows<'a>>>,
    pub(crate) depth: Option<DepthRows<'a>>,
}

/// Shades covered blocks: implemented by the draw executor, which knows the pipelines.
pub(crate) trait BlockShader: Sync {
    /// Per-thread state (the shader executors' registers), made once per band.
    type Scratch;

    /// Fresh scratch state.
    fn scratch(&self) -> Self::Scratch;

    /// Shades the `mask` lanes of the block at (`bx`, `by`) of `prim` and writes the results
    /// into `band`.
    #[allow(clippy::too_many_arguments)]
    fn shade(
        &self,
        scratch: &mut Self::Scratch,
        prims: &PrimList,
        prim: &Prim,
        bx: u32,
        by: u32,
        mask: u64,
        band: &mut BandTargets<'_>,
    );
}

/// Rasterises every primitive of `prims` into the bands, in parallel when `parallel`.
pub(crate) fn rasterize<S: BlockShader>(
    prims: &PrimList,
    bands: Vec<(u32, BandTargets<'_>)>,
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
    let run = |scratch: &mut S::Scratch, ((y0, mut band), bin): ((u32, BandTargets<'_>), Vec<u32>)| {
        for &i in &bin {
            rasterize_prim(prims, &prims.prims[i as usize], y0, &mut band, shader, scratch);
        }
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

fn rasterize_prim<S: BlockShader>(
    prims: &PrimList,
    p: &Prim,
    y0: u32,
    band: &mut BandTargets<'_>,
    shader: &S,
    scratch: &mut S::Scratch,
) {
    let c = &p.coverage;
    let y_start = (c.min_y.max(y0 as i32) as u32) / BLOCK * BLOCK;
    let y_end = (c.max_y as u32).min(y0 + BAND_ROWS - 1);
    let x_start = c.min_x.max(0) as u32 / BLOCK * BLOCK;
    let x_end = c.max_x.max(0) as u32;
    let [sx0, sy0, sx1, sy1] = p.scissor;
    let mut by = y_start;
    while by <= y_end {
        let mut bx = x_start;
        while bx <= x_end {
            let mut mask = c.block_mask(bx as i32, by as i32);
            if mask != 0 {
                let (bxi, byi) = (bx as i32, by as i32);
                let inside =
                    bxi >= sx0 && byi >= sy0 && bxi + BLOCK as i32 <= sx1 && byi + BLOCK as i32 <= sy1;
                if !inside {
                    let local = |v: i32, o: i32| (v - o).clamp(0, BLOCK as i32) as u32;
                    mask &= rect_mask(local(sx0, bxi), local(sy0, byi), local(sx1, bxi), local(sy1, byi));
                }
                if mask != 0 {
                    shader.shade(scratch, prims, p, bx, by, mask, band);
                }
            }
            bx += BLOCK;
        }
        by += BLOCK;
    }
}
