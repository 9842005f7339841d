//! Block kernels: the per-block work of the rasteriser (plane evaluation, the early depth
//! test, colour packing and stores) in loops shaped for SIMD. Like the shader executor's
//! steps (`run.rs` of `f3d_soft_exec`) they are written once and compiled twice: for the
//! baseline CPU and, inside the rasteriser's AVX2 entry point, with AVX2 and fused
//! multiply-adds (`FMA`).
//!
//! A block's 64 lanes come in 2x2 quads ([`LANE_X`], [`LANE_Y`]); attachments are row-major.
//! Masks therefore exist in two orders: a *lane mask* has bit `l` for lane `l`, a *row mask*
//! bit `y * 8 + x` for pixel (x, y) of the block; [`to_rows`] and [`to_lanes`] convert with
//! two bit-field swaps each. Values that meet memory (depth, packed colour) are computed or
//! put into row order, so each block row is eight consecutive values: one 256-bit load or
//! store on the AVX2 path.

use f3d_hal::CompareFunction;

use super::srgb::SrgbEncoder;
use super::triangle::{LANE_X, LANE_XF, LANE_Y, LANE_YF, PlaneEq};
use crate::exec::Lanes;

/// The lane of pixel (x, y) of a block: `LANE_OF[y * 8 + x]`.
pub(crate) const LANE_OF: [usize; 64] = {
    let mut t = [0usize; 64];
    let mut lane = 0;
    while lane < 64 {
        t[(LANE_Y[lane] * 8 + LANE_X[lane]) as usize] = lane;
        lane += 1;
    }
    t
};

/// Pixel x and y of row-order index `i`, as floats.
const ROW_XF: [f32; 64] = row_table(true);
const ROW_YF: [f32; 64] = row_table(false);

const fn row_table(x: bool) -> [f32; 64] {
    let mut t = [0.0f32; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = if x { (i % 8) as f32 } else { (i / 8) as f32 };
        i += 1;
    }
    t
}

/// Exchanges the bits of `m` whose positions differ only in index bits `j` < `k` (position
/// bit `j` set and `k` clear ⇄ `j` clear and `k` set): a permutation of the bits that swaps
/// two bits of every position's index.
#[inline(always)]
const fn swap_index_bits(m: u64, j: u32, k: u32) -> u64 {
    let shift = (1u32 << k) - (1u32 << j);
    let mut select = 0u64;
    let mut p = 0;
    while p < 64 {
        if p >> j & 1 == 1 && p >> k & 1 == 0 {
            select |= 1 << p;
        }
        p += 1;
    }
    let t = ((m >> shift) ^ m) & select;
    m ^ t ^ (t << shift)
}

/// A lane mask as a row mask. A lane's index bits are (quad y: 2, quad x: 2, dy, dx) and its
/// pixel's row index bits (quad y: 2, dy, quad x: 2, dx): two swaps move dy past quad x.
#[inline(always)]
pub(crate) const fn to_rows(lanes: u64) -> u64 {
    swap_index_bits(swap_index_bits(lanes, 1, 2), 2, 3)
}

/// A row mask as a lane mask (the inverse of [`to_rows`]).
#[inline(always)]
pub(crate) const fn to_lanes(rows: u64) -> u64 {
    swap_index_bits(swap_index_bits(rows, 2, 3), 1, 2)
}

/// `plane` at pixel offset (`x`, `y`) from the block origin whose value is `base`. The one
/// formula both orders use, so a pixel gets the same value whichever order computes it.
#[inline(always)]
fn at<const FMA: bool>(p: &PlaneEq, base: f32, x: f32, y: f32) -> f32 {
    if FMA { p.b.mul_add(y, p.a.mul_add(x, base)) } else { base + p.a * x + p.b * y }
}

/// The plane's value at the block's first pixel centre (`ox`, `oy`).
#[inline(always)]
fn origin(p: &PlaneEq, ox: f32, oy: f32) -> f32 {
    p.a * ox + p.b * oy + p.c
}

/// Evaluates `plane` at the 64 lane centres of the block whose first pixel centre is
/// (`ox`, `oy`), in lane order.
#[inline(always)]
pub(crate) fn plane_lanes<const FMA: bool>(p: &PlaneEq, ox: f32, oy: f32, out: &mut Lanes) {
    let base = origin(p, ox, oy);
    for l in 0..64 {
        out[l] = at::<FMA>(p, base, LANE_XF[l], LANE_YF[l]);
    }
}

/// [`plane_lanes`] times `w` per lane: a perspective-correct varying from its plane over
/// 1/w.
#[inline(always)]
pub(crate) fn plane_lanes_times<const FMA: bool>(p: &PlaneEq, ox: f32, oy: f32, w: &Lanes, out: &mut Lanes) {
    let base = origin(p, ox, oy);
    for l in 0..64 {
        out[l] = at::<FMA>(p, base, LANE_XF[l], LANE_YF[l]) * w[l];
    }
}

/// Where the lanes of a packed batch lie: lane `l` is the pixel at offset (`x[l]`, `y[l]`)
/// from the first pixel centre (`ox[l]`, `oy[l]`) of its own block. A batch packed from the
/// quads of several blocks ([`crate::raster::BlockShader::shade_packed`]) evaluates planes per
/// lane with the same formula as [`plane_lanes`], so each pixel gets the value it would get
/// shaded with its own block.
pub(crate) struct LaneOrigins {
    pub(crate) ox: Lanes,
    pub(crate) oy: Lanes,
    pub(crate) x: Lanes,
    pub(crate) y: Lanes,
}

/// [`plane_lanes`] for the lanes of a packed batch.
#[inline(always)]
pub(crate) fn plane_packed<const FMA: bool>(p: &PlaneEq, lanes: &LaneOrigins, out: &mut Lanes) {
    for (l, o) in out.iter_mut().enumerate() {
        *o = at::<FMA>(p, origin(p, lanes.ox[l], lanes.oy[l]), lanes.x[l], lanes.y[l]);
    }
}

/// [`plane_lanes_times`] for the lanes of a packed batch.
#[inline(always)]
pub(crate) fn plane_packed_times<const FMA: bool>(
    p: &PlaneEq,
    lanes: &LaneOrigins,
    w: &Lanes,
    out: &mut Lanes,
) {
    for (l, o) in out.iter_mut().enumerate() {
        *o = at::<FMA>(p, origin(p, lanes.ox[l], lanes.oy[l]), lanes.x[l], lanes.y[l]) * w[l];
    }
}

/// Evaluates `plane` over the block in row order (`out[y * 8 + x]`).
#[inline(always)]
pub(crate) fn plane_rows<const FMA: bool>(p: &PlaneEq, ox: f32, oy: f32, out: &mut [f32; 64]) {
    let base = origin(p, ox, oy);
    for i in 0..64 {
        out[i] = at::<FMA>(p, base, ROW_XF[i], ROW_YF[i]);
    }
}

/// Where a block lies in a band's plane: the byte offset of its first texel and the bytes
/// per row, for a block of 8 texels of `texel` bytes per row that lies wholly inside both
/// the row and the slice of `len` bytes. `None` otherwise (the caller takes its per-lane
/// path).
#[inline(always)]
pub(crate) fn block_span(len: usize, pitch: usize, texel: usize, bx: u32, row0: u32) -> Option<usize> {
    let x = bx as usize * texel;
    let start = row0 as usize * pitch + x;
    (x + 8 * texel <= pitch && start + 7 * pitch + 8 * texel <= len).then_some(start)
}

/// One row of eight texels of `N` bytes... as an array reference (the caller checked the span).
#[inline(always)]
fn row_bytes<const N: usize>(bytes: &mut [u8], at: usize) -> Option<&mut [u8; N]> {
    bytes.get_mut(at..at + N).and_then(|s| s.try_into().ok())
}

/// The depth test (no stencil) on the `rows` pixels of a block whose depths start at byte
/// `start` of `depth` (one little-endian f32 per texel, `pitch` bytes per row), with the
/// fragment depths `z` in row order; writes passing depths when `write`. Returns the row mask
/// of pixels that passed.
#[inline(always)]
pub(crate) fn depth_rows(
    depth: &mut [u8],
    start: usize,
    pitch: usize,
    z: &[f32; 64],
    rows: u64,
    compare: CompareFunction,
    write: bool,
) -> u64 {
    use CompareFunction as C;
    match compare {
        C::Never => 0,
        C::Always => depth_rows_with(depth, start, pitch, z, rows, write, |_, _| true),
        C::Less => depth_rows_with(depth, start, pitch, z, rows, write, |a, b| a < b),
        C::LessEqual => depth_rows_with(depth, start, pitch, z, rows, write, |a, b| a <= b),
        C::Equal => depth_rows_with(depth, start, pitch, z, rows, write, |a, b| a == b),
        C::Greater => depth_rows_with(depth, start, pitch, z, rows, write, |a, b| a > b),
        C::GreaterEqual => depth_rows_with(depth, start, pitch, z, rows, write, |a, b| a >= b),
        C::NotEqual => depth_rows_with(depth, start, pitch, z, rows, write, |a, b| a != b),
    }
}

#[inline(always)]
fn depth_rows_with(
    depth: &mut [u8],
    start: usize,
    pitch: usize,
    z: &[f32; 64],
    rows: u64,
    write: bool,
    passes: impl Fn(f32, f32) -> bool,
) -> u64 {
    let mut passed = 0u64;
    for r in 0..8 {
        let bits = (rows >> (8 * r)) as u8;
        if bits == 0 {
            continue;
        }
        let Some(row) = row_bytes::<32>(depth, start + r * pitch) else { continue };
        let mut stored = [0.0f32; 8];
        for x in 0..8 {
            stored[x] = f32::from_le_bytes([row[4 * x], row[4 * x + 1], row[4 * x + 2], row[4 * x + 3]]);
        }
        let zr = &z[8 * r..8 * r + 8];
        // The compare as a bit mask (one vector compare and a move-mask), then the row's
        // coverage; a row that passes whole is stored without reading back.
        let mut m = 0u8;
        for x in 0..8 {
            m |= u8::from(passes(zr[x], stored[x])) << x;
        }
        m &= bits;
        if write && m == 0xff {
            for x in 0..8 {
                row[4 * x..4 * x + 4].copy_from_slice(&zr[x].to_le_bytes());
            }
        } else if write && m != 0 {
            for x in 0..8 {
                let v = if m >> x & 1 == 1 { zr[x] } else { stored[x] };
                row[4 * x..4 * x + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        passed |= u64::from(m) << (8 * r);
    }
    passed
}

/// Stores eight packed texels into a row, keeping the texels whose bit of `bits` is clear.
#[inline(always)]
fn store_row(row: &mut [u8; 32], px: &[u32], bits: u8) {
    if bits == 0xff {
        for x in 0..8 {
            row[4 * x..4 * x + 4].copy_from_slice(&px[x].to_le_bytes());
        }
    } else {
        for x in 0..8 {
            let old = u32::from_le_bytes([row[4 * x], row[4 * x + 1], row[4 * x + 2], row[4 * x + 3]]);
            let v = if bits >> x & 1 == 1 { px[x] } else { old };
            row[4 * x..4 * x + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// Fills the `rows` pixels of a 4-byte-texel block starting at byte `start` with `texel`.
#[inline(always)]
pub(crate) fn fill_rows32(bytes: &mut [u8], start: usize, pitch: usize, rows: u64, texel: u32) {
    let px = [texel; 8];
    for r in 0..8 {
        let bits = (rows >> (8 * r)) as u8;
        if bits == 0 {
            continue;
        }
        if let Some(row) = row_bytes::<32>(bytes, start + r * pitch) {
            store_row(row, &px, bits);
        }
    }
}

/// `v` clamped to `[0, 1]` with NaN sent to 0 (`f32::clamp` keeps NaN), in a form that
/// vectorises.
#[inline(always)]
#[allow(clippy::manual_clamp)]
pub(crate) fn unit(v: f32) -> f32 {
    v.max(0.0).min(1.0)
}

/// Adding 2^23 to a value in [0, 2^23) leaves it rounded to the nearest integer in the low
/// mantissa bits: a float-to-integer conversion that vectorises (`as` does not, here).
const MAGIC: f32 = 8_388_608.0;

/// `unit(v)` scaled to `max` and rounded half up, exactly as the per-texel encoder
/// (`output::write_texel`, `SrgbEncoder::encode`) rounds: `v * max + 0.5`, truncated. (Rounding
/// to nearest even would differ from it on exact halves such as 0.3 × 255, so a block packed
/// here and a texel written at the edge of the target would disagree.) The truncation is a
/// round to nearest less one where that went up, all in vector float operations.
#[inline(always)]
fn quantise(v: f32, max: f32) -> u32 {
    let y = unit(v) * max + 0.5;
    let nearest = (y + MAGIC) - MAGIC;
    let floor = if nearest > y { nearest - 1.0 } else { nearest };
    (floor + MAGIC).to_bits() & 0x7f_ffff
}

/// Packs four channels (lane order) into 8-bit RGBA or BGRA texels and stores the `rows`
/// pixels of the block at byte `start` (4-byte texels, `pitch` bytes per row). Colour
/// channels go through `srgb` when given. Bit-identical to the per-texel encoder.
#[inline(always)]
pub(crate) fn write_rgba8(
    bytes: &mut [u8],
    start: usize,
    pitch: usize,
    rows: u64,
    color: [&Lanes; 4],
    srgb: Option<&SrgbEncoder>,
    bgra: bool,
) {
    let shifts: [u32; 3] = if bgra { [16, 8, 0] } else { [0, 8, 16] };
    let mut lanes = [0u32; 64];
    for l in 0..64 {
        lanes[l] = quantise(color[3][l], 255.0) << 24;
    }
    let mut px = [0u32; 64];
    match srgb {
        Some(encoder) => {
            // The encoder is a table: quantise to its 16-bit index in vector loops, then look
            // up lane by lane, putting the texels in row order on the way.
            let mut index = [[0u32; 64]; 3];
            for c in 0..3 {
                for l in 0..64 {
                    index[c][l] = quantise(color[c][l], 65535.0);
                }
            }
            for i in 0..64 {
                let l = LANE_OF[i];
                px[i] = lanes[l]
                    | u32::from(encoder.encode_index(index[0][l])) << shifts[0]
                    | u32::from(encoder.encode_index(index[1][l])) << shifts[1]
                    | u32::from(encoder.encode_index(index[2][l])) << shifts[2];
            }
        }
        None => {
            for c in 0..3 {
                for l in 0..64 {
                    lanes[l] |= quantise(color[c][l], 255.0) << shifts[c];
                }
            }
            for i in 0..64 {
                px[i] = lanes[LANE_OF[i]];
            }
        }
    }
    for r in 0..8 {
        let bits = (rows >> (8 * r)) as u8;
        if bits == 0 {
            continue;
        }
        if let Some(row) = row_bytes::<32>(bytes, start + r * pitch) {
            store_row(row, &px[8 * r..8 * r + 8], bits);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_orders_convert_both_ways() {
        for lane in 0..64 {
            let row = (LANE_Y[lane] * 8 + LANE_X[lane]) as u64;
            assert_eq!(to_rows(1 << lane), 1 << row, "lane {lane}");
            assert_eq!(to_lanes(1 << row), 1 << lane, "row {row}");
        }
        assert_eq!(to_rows(u64::MAX), u64::MAX);
        assert_eq!(to_lanes(to_rows(0x1234_5678_9abc_def0)), 0x1234_5678_9abc_def0);
    }

    #[test]
    fn both_orders_give_each_pixel_the_same_value() {
        let p = PlaneEq { a: 0.37, b: -1.3, c: 11.0 };
        let (mut lanes, mut rows) = ([0.0; 64], [0.0; 64]);
        plane_lanes::<false>(&p, 16.5, 40.5, &mut lanes);
        plane_rows::<false>(&p, 16.5, 40.5, &mut rows);
        for i in 0..64 {
            assert_eq!(rows[i].to_bits(), lanes[LANE_OF[i]].to_bits());
        }
    }

    #[test]
    fn depth_rows_test_and_write_only_covered_passing_pixels() {
        let stored: Vec<f32> = (0..64).map(|i| (i % 7) as f32 * 0.125).collect();
        let z: [f32; 64] = std::array::from_fn(|i| (i % 5) as f32 * 0.2);
        for (rows, write) in [(u64::MAX, true), (0x00ff_f0f0_0000_ff81, true), (0x1234_5678_9abc_def0, false)]
        {
            let mut bytes: Vec<u8> = stored.iter().flat_map(|v| v.to_le_bytes()).collect();
            let passed = depth_rows(&mut bytes, 0, 32, &z, rows, CompareFunction::Less, write);
            for i in 0..64 {
                let pass = rows >> i & 1 == 1 && z[i] < stored[i];
                assert_eq!(passed >> i & 1 == 1, pass, "pixel {i}");
                let now = f32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
                assert_eq!(now, if pass && write { z[i] } else { stored[i] }, "pixel {i}");
            }
        }
    }

    #[test]
    fn packing_matches_the_texel_encoder() {
        let encoder = SrgbEncoder::new();
        let mut color: [Lanes; 4] = std::array::from_fn(|c| {
            std::array::from_fn(|l| (l as f32 * 0.019 + c as f32 * 0.3) % 1.2 - 0.05)
        });
        // Exact halves after scaling (0.3 × 255 = 76.5 in f32): both encoders round them up.
        color[0][5] = 0.3;
        color[3][6] = 0.3;
        color[1][7] = 0.5;
        for (srgb, bgra) in [(true, false), (false, false), (true, true), (false, true)] {
            let mut bytes = vec![7u8; 32 * 8];
            let rows = 0xffff_0f0f_00ff_fff0u64;
            write_rgba8(
                &mut bytes,
                0,
                32,
                rows,
                [&color[0], &color[1], &color[2], &color[3]],
                srgb.then_some(&encoder),
                bgra,
            );
            let format = match (srgb, bgra) {
                (false, false) => f3d_hal::TextureFormat::Rgba8Unorm,
                (true, false) => f3d_hal::TextureFormat::Rgba8UnormSrgb,
                (false, true) => f3d_hal::TextureFormat::Bgra8Unorm,
                (true, true) => f3d_hal::TextureFormat::Bgra8UnormSrgb,
            };
            for i in 0..64 {
                let texel = &bytes[(i / 8) * 32 + (i % 8) * 4..][..4];
                if rows >> i & 1 == 0 {
                    assert_eq!(texel, [7; 4]);
                    continue;
                }
                let l = LANE_OF[i];
                let mut want = [0u8; 4];
                let c = [color[0][l], color[1][l], color[2][l], color[3][l]];
                super::super::output::write_texel(
                    format,
                    &mut want,
                    c,
                    f3d_hal::ColorWrites::all(),
                    &encoder,
                );
                assert_eq!(texel, want, "pixel {i} {format}");
            }
        }
    }
}
