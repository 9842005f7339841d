//! The geometry stage: vertex fetch from the pipeline's layouts, primitive assembly for every
//! topology, clipping, the viewport transform, and triangle setup into the pass's
//! [`PrimList`]. Lines and points become thin quads and wireframe triangles become their
//! edges, so the rasteriser only ever sees triangles.

use f3d_hal::{
    CullMode, FrontFace, IndexFormat, PolygonMode, PrimitiveTopology, VertexBufferLayout, VertexFormat,
    VertexStepMode, Viewport, f16_to_f32,
};

use crate::raster::clip::{ClipPlanes, ClipVertex};
use crate::raster::triangle::{Fit, ScreenVertex, setup};
use crate::raster::{Prim, PrimList};

/// Decodes attribute `format` at `bytes` into up to four lanes of f32 (integers as bits).
pub(crate) fn decode_attribute(format: VertexFormat, b: &[u8], out: &mut [f32; 4]) {
    let u32_at = |i: usize| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
    let f32_at = |i: usize| f32::from_bits(u32_at(i));
    *out = [0.0, 0.0, 0.0, 1.0];
    match format {
        VertexFormat::Float32 => out[0] = f32_at(0),
        VertexFormat::Float32x2 => (0..2).for_each(|i| out[i] = f32_at(i)),
        VertexFormat::Float32x3 => (0..3).for_each(|i| out[i] = f32_at(i)),
        VertexFormat::Float32x4 => (0..4).for_each(|i| out[i] = f32_at(i)),
        VertexFormat::Uint32 | VertexFormat::Sint32 => out[0] = f32::from_bits(u32_at(0)),
        VertexFormat::Uint32x2 => (0..2).for_each(|i| out[i] = f32::from_bits(u32_at(i))),
        VertexFormat::Uint32x4 | VertexFormat::Sint32x4 => {
            (0..4).for_each(|i| out[i] = f32::from_bits(u32_at(i)))
        }
        VertexFormat::Unorm8x4 => (0..4).for_each(|i| out[i] = f32::from(b[i]) / 255.0),
        VertexFormat::Snorm8x4 => (0..4).for_each(|i| out[i] = (f32::from(b[i] as i8) / 127.0).max(-1.0)),
        VertexFormat::Unorm16x2 => {
            (0..2).for_each(|i| out[i] = f32::from(u16::from_le_bytes([b[2 * i], b[2 * i + 1]])) / 65535.0)
        }
        VertexFormat::Float16x2 => {
            (0..2).for_each(|i| out[i] = f16_to_f32(u16::from_le_bytes([b[2 * i], b[2 * i + 1]])))
        }
        VertexFormat::Float16x4 => {
            (0..4).for_each(|i| out[i] = f16_to_f32(u16::from_le_bytes([b[2 * i], b[2 * i + 1]])))
        }
        _ => {}
    }
}

/// Where vertex attribute `location` comes from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AttributeSource {
    pub(crate) slot: usize,
    pub(crate) format: VertexFormat,
    pub(crate) offset: u32,
    pub(crate) stride: u32,
    pub(crate) per_instance: bool,
}

/// The attribute sources of a pipeline's layouts, by location.
pub(crate) fn attribute_sources(layouts: &[VertexBufferLayout]) -> Vec<(u32, AttributeSource)> {
    layouts
        .iter()
        .enumerate()
        .flat_map(|(slot, l)| {
            l.attributes.iter().map(move |a| {
                (
                    a.location,
                    AttributeSource {
                        slot,
                        format: a.format,
                        offset: a.offset,
                        stride: l.stride,
                        per_instance: l.step_mode == VertexStepMode::Instance,
                    },
                )
            })
        })
        .collect()
}

/// Reads `count` indices of `format` starting at byte `offset`, plus `base_vertex`.
pub(crate) fn read_indices(
    bytes: &[u8],
    format: IndexFormat,
    offset: u64,
    window: std::ops::Range<u32>,
    base_vertex: i32,
) -> Vec<u32> {
    let size = format.size() as usize;
    window
        .map(|i| {
            let at = offset as usize + i as usize * size;
            let raw = match format {
                IndexFormat::Uint16 => u32::from(u16::from_le_bytes([bytes[at], bytes[at + 1]])),
                IndexFormat::Uint32 => {
                    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
                }
            };
            (raw as i64 + i64::from(base_vertex)).clamp(0, i64::from(u32::MAX)) as u32
        })
        .collect()
}

/// The primitives of `count` vertices (positions in the draw's vertex list) of `topology`,
/// each as its vertices in order, the provoking vertex first for flat interpolation.
pub(crate) fn assemble(topology: PrimitiveTopology, count: usize) -> Vec<Vec<usize>> {
    match topology {
        PrimitiveTopology::PointList => (0..count).map(|i| vec![i]).collect(),
        PrimitiveTopology::LineList => (0..count / 2).map(|i| vec![2 * i, 2 * i + 1]).collect(),
        PrimitiveTopology::LineStrip => (1..count).map(|i| vec![i - 1, i]).collect(),
        PrimitiveTopology::TriangleList => {
            (0..count / 3).map(|i| vec![3 * i, 3 * i + 1, 3 * i + 2]).collect()
        }
        // Odd triangles swap their last two vertices so every triangle keeps the strip's
        // winding; the first vertex stays the provoking one (Vulkan's order).
        PrimitiveTopology::TriangleStrip => (2..count)
            .map(|i| if (i - 2) % 2 == 0 { vec![i - 2, i - 1, i] } else { vec![i - 2, i, i - 1] })
            .collect(),
    }
}

/// How varyings of a primitive are interpolated, per component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Interp {
    Perspective,
    Linear,
    Flat,
}

/// The state the geometry stage needs from a draw.
pub(crate) struct GeometryState<'a> {
    pub(crate) viewport: Viewport,
    pub(crate) scissor: [i32; 4],
    pub(crate) cull: CullMode,
    pub(crate) front: FrontFace,
    pub(crate) polygon_mode: PolygonMode,
    pub(crate) topology: PrimitiveTopology,
    pub(crate) unclipped_depth: bool,
    pub(crate) depth_bias: f3d_hal::DepthBias,
    /// Smallest depth step of the depth format (bias units).
    pub(crate) depth_unit: f32,
    /// Interpolation of each varying component the fragment stage reads.
    pub(crate) interp: &'a [Interp],
    pub(crate) draw: u32,
}

/// Vertices after the vertex stage: clip position and the varying components the fragment
/// stage reads, `stride` floats per vertex.
pub(crate) struct ShadedVertices {
    pub(crate) data: Vec<f32>,
    pub(crate) stride: usize,
}

impl ShadedVertices {
    fn clip_vertex(&self, i: usize) -> ClipVertex {
        let v = &self.data[i * self.stride..(i + 1) * self.stride];
        ClipVertex { pos: [v[0], v[1], v[2], v[3]], attrs: v[4..].to_vec() }
    }
}

fn to_screen(v: &ClipVertex, vp: &Viewport) -> ScreenVertex {
    let inv_w = 1.0 / v.pos[3];
    let (x, y, z) = (v.pos[0] * inv_w, v.pos[1] * inv_w, v.pos[2] * inv_w);
    ScreenVertex {
        x: vp.x + (x + 1.0) * 0.5 * vp.width,
        y: vp.y + (1.0 - y) * 0.5 * vp.height,
        z: vp.min_depth + z * (vp.max_depth - vp.min_depth),
        inv_w,
    }
}

/// Runs assembly, clipping and setup for one draw's shaded vertices (in primitive order)
/// and appends the primitives to `out`. `first_index` numbers the primitives.
pub(crate) fn emit(
    state: &GeometryState<'_>,
    vertices: &ShadedVertices,
    count: usize,
    out: &mut PrimList,
    first_index: &mut u32,
) {
    let guard = (1u32 << 20) as f32 / (state.viewport.width.max(state.viewport.height) * 0.5).max(1.0);
    let planes = ClipPlanes::new(state.unclipped_depth, guard);
    for prim in assemble(state.topology, count) {
        let index = *first_index;
        *first_index += 1;
        let vs: Vec<ClipVertex> = prim.iter().map(|&i| vertices.clip_vertex(i)).collect();
        match vs.len() {
            3 => triangle(state, &planes, vs, index, out),
            2 => line(state, &planes, &vs[0], &vs[1], vs[0].attrs.clone(), index, out),
            _ => point(state, &vs[0], index, out),
        }
    }
}

fn triangle(
    state: &GeometryState<'_>,
    planes: &ClipPlanes,
    vs: Vec<ClipVertex>,
    index: u32,
    out: &mut PrimList,
) {
    let refs: Vec<&ClipVertex> = vs.iter().collect();
    if planes.all_outside_one(&refs) {
        return;
    }
    let flat = vs[0].attrs.clone();
    let polygon = if planes.all_inside(&refs) { vs } else { planes.clip_polygon(vs) };
    if polygon.len() < 3 {
        return;
    }
    // Facing is decided once for the whole (planar) polygon, from its first fan triangle with
    // area, so clipping never flips it.
    let screen: Vec<ScreenVertex> = polygon.iter().map(|v| to_screen(v, &state.viewport)).collect();
    if state.polygon_mode == PolygonMode::Line {
        let Some(front) = facing(&screen, state.front) else { return };
        if culled(state.cull, front) {
            return;
        }
        for i in 0..polygon.len() {
            let (a, b) = (&polygon[i], &polygon[(i + 1) % polygon.len()]);
            line(state, planes, a, b, flat.clone(), index, out);
        }
        return;
    }
    for i in 1..polygon.len() - 1 {
        let tri = [&polygon[0], &polygon[i], &polygon[i + 1]];
        let sv = [screen[0], screen[i], screen[i + 1]];
        let Some(s) = setup(sv, state.scissor, state.front == FrontFace::Ccw) else { continue };
        if culled(state.cull, s.front_facing) {
            continue;
        }
        push(
            state,
            out,
            s.coverage,
            s.front_facing,
            &s.fit,
            sv,
            tri.map(|v| v.attrs.as_slice()),
            &flat,
            index,
            true,
        );
    }
}

fn facing(screen: &[ScreenVertex], front: FrontFace) -> Option<bool> {
    for i in 1..screen.len() - 1 {
        let (a, b, c) = (screen[0], screen[i], screen[i + 1]);
        let area = (b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y);
        if area != 0.0 {
            return Some((area < 0.0) == (front == FrontFace::Ccw));
        }
    }
    None
}

fn culled(cull: CullMode, front_facing: bool) -> bool {
    match cull {
        CullMode::None => false,
        CullMode::Front => front_facing,
        CullMode::Back => !front_facing,
    }
}

#[allow(clippy::too_many_arguments)]
fn push(
    state: &GeometryState<'_>,
    out: &mut PrimList,
    coverage: crate::raster::triangle::Coverage,
    front_facing: bool,
    fit: &Fit,
    sv: [ScreenVertex; 3],
    attrs: [&[f32]; 3],
    flat: &[f32],
    index: u32,
    slope_bias: bool,
) {
    let mut z = fit.plane([sv[0].z, sv[1].z, sv[2].z]);
    let bias = state.depth_bias;
    if bias.constant != 0 || bias.slope_scale != 0.0 {
        let slope = if slope_bias { z.a.abs().max(z.b.abs()) } else { 0.0 };
        let mut offset = bias.constant as f32 * state.depth_unit + bias.slope_scale * slope;
        if bias.clamp > 0.0 {
            offset = offset.min(bias.clamp);
        } else if bias.clamp < 0.0 {
            offset = offset.max(bias.clamp);
        }
        z.c += offset;
    }
    let inv_w = fit.plane([sv[0].inv_w, sv[1].inv_w, sv[2].inv_w]);
    let first_plane = out.planes.len() as u32;
    for (c, mode) in state.interp.iter().enumerate() {
        let plane = match mode {
            Interp::Perspective => {
                fit.plane([attrs[0][c] * sv[0].inv_w, attrs[1][c] * sv[1].inv_w, attrs[2][c] * sv[2].inv_w])
            }
            Interp::Linear => fit.plane([attrs[0][c], attrs[1][c], attrs[2][c]]),
            Interp::Flat => crate::raster::triangle::PlaneEq { a: 0.0, b: 0.0, c: flat[c] },
        };
        out.planes.push(plane);
    }
    out.prims.push(Prim {
        coverage,
        front_facing,
        z,
        inv_w,
        first_plane,
        draw: state.draw,
        index,
        scissor: state.scissor,
    });
}

/// A line as a one-pixel-wide quad along its major axis: each column (or row) it crosses
/// gets one fragment, the far end half-open by the fill rule, like Bresenham's lines.
fn line(
    state: &GeometryState<'_>,
    planes: &ClipPlanes,
    a: &ClipVertex,
    b: &ClipVertex,
    flat: Vec<f32>,
    index: u32,
    out: &mut PrimList,
) {
    let Some((a, b)) = planes.clip_line(a, b) else { return };
    let (sa, sb) = (to_screen(&a, &state.viewport), to_screen(&b, &state.viewport));
    let x_major = (sb.x - sa.x).abs() >= (sb.y - sa.y).abs();
    let offset = |s: ScreenVertex, d: f32| {
        if x_major { ScreenVertex { y: s.y + d, ..s } } else { ScreenVertex { x: s.x + d, ..s } }
    };
    let corners = [offset(sa, -0.5), offset(sb, -0.5), offset(sa, 0.5), offset(sb, 0.5)];
    let attrs = [a.attrs.as_slice(), b.attrs.as_slice(), a.attrs.as_slice(), b.attrs.as_slice()];
    for tri in [[0usize, 1, 2], [2, 1, 3]] {
        let sv = tri.map(|i| corners[i]);
        if let Some(s) = setup(sv, state.scissor, true) {
            // Lines and points are front-facing.
            push(state, out, s.coverage, true, &s.fit, sv, tri.map(|i| attrs[i]), &flat, index, false);
        }
    }
}

/// A point as a one-pixel square around its position.
fn point(state: &GeometryState<'_>, v: &ClipVertex, index: u32, out: &mut PrimList) {
    let w = v.pos[3];
    let inside_depth = state.unclipped_depth || (v.pos[2] >= 0.0 && v.pos[2] <= w);
    if w <= 0.0 || !inside_depth {
        return;
    }
    let s = to_screen(v, &state.viewport);
    let corner = |dx: f32, dy: f32| ScreenVertex { x: s.x + dx, y: s.y + dy, ..s };
    let corners = [corner(-0.5, -0.5), corner(0.5, -0.5), corner(-0.5, 0.5), corner(0.5, 0.5)];
    for tri in [[0usize, 1, 2], [2, 1, 3]] {
        let sv = tri.map(|i| corners[i]);
        if let Some(su) = setup(sv, state.scissor, true) {
            let attrs = [v.attrs.as_slice(); 3];
            push(state, out, su.coverage, true, &su.fit, sv, attrs, &v.attrs, index, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_keep_their_winding() {
        assert_eq!(
            assemble(PrimitiveTopology::TriangleStrip, 5),
            vec![vec![0, 1, 2], vec![1, 3, 2], vec![2, 3, 4]]
        );
        assert_eq!(assemble(PrimitiveTopology::LineStrip, 3), vec![vec![0, 1], vec![1, 2]]);
        assert_eq!(assemble(PrimitiveTopology::TriangleList, 7).len(), 2);
    }

    #[test]
    fn attributes_decode() {
        let mut out = [0.0; 4];
        decode_attribute(VertexFormat::Unorm8x4, &[255, 0, 51, 255], &mut out);
        assert_eq!(out, [1.0, 0.0, 0.2, 1.0]);
        decode_attribute(VertexFormat::Float32x2, &[0, 0, 128, 63, 0, 0, 0, 64], &mut out);
        assert_eq!(out, [1.0, 2.0, 0.0, 1.0]);
    }

    #[test]
    fn indices_add_the_base_vertex() {
        let bytes: Vec<u8> = [1u16, 2, 3].iter().flat_map(|i| i.to_le_bytes()).collect();
        assert_eq!(read_indices(&bytes, IndexFormat::Uint16, 2, 0..2, 10), vec![12, 13]);
    }
}
