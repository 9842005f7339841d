//! Homogeneous clipping of primitives in clip space, before the divide by w.
//!
//! Triangles are clipped against the near plane (z ≥ 0), the far plane (z ≤ w) — unless depth
//! clipping is off — and, only when a vertex lies outside it, a guard band in x and y wide
//! enough that every coordinate that reaches the fixed-point rasteriser fits. Everything
//! inside the guard band but outside the viewport is left to the scissor-clamped bounding box,
//! which is cheaper than clipping.

/// A vertex in clip space with its varyings.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ClipVertex {
    pub(crate) pos: [f32; 4],
    pub(crate) attrs: Vec<f32>,
}

/// A clip plane: the vertex is inside when `dot(plane, pos) >= 0`.
type Plane = [f32; 4];

fn distance(plane: &Plane, v: &ClipVertex) -> f32 {
    plane[0] * v.pos[0] + plane[1] * v.pos[1] + plane[2] * v.pos[2] + plane[3] * v.pos[3]
}

fn lerp_vertex(a: &ClipVertex, b: &ClipVertex, t: f32) -> ClipVertex {
    let mix = |x: f32, y: f32| x + (y - x) * t;
    ClipVertex {
        pos: [
            mix(a.pos[0], b.pos[0]),
            mix(a.pos[1], b.pos[1]),
            mix(a.pos[2], b.pos[2]),
            mix(a.pos[3], b.pos[3]),
        ],
        attrs: a.attrs.iter().zip(&b.attrs).map(|(&x, &y)| mix(x, y)).collect(),
    }
}

/// The planes a primitive is clipped against.
pub(crate) struct ClipPlanes {
    planes: Vec<Plane>,
}

/// Smallest w a vertex may have: keeps the divide by w finite.
const W_EPSILON: f32 = 1e-6;

impl ClipPlanes {
    /// Near and far (unless `unclipped_depth`), w > 0, and an x/y guard band of `guard`
    /// times w (in NDC units).
    pub(crate) fn new(unclipped_depth: bool, guard: f32) -> Self {
        let mut planes: Vec<Plane> = vec![[0.0, 0.0, 0.0, 1.0]];
        if !unclipped_depth {
            planes.push([0.0, 0.0, 1.0, 0.0]);
            planes.push([0.0, 0.0, -1.0, 1.0]);
        }
        planes.extend([
            [1.0, 0.0, 0.0, guard],
            [-1.0, 0.0, 0.0, guard],
            [0.0, 1.0, 0.0, guard],
            [0.0, -1.0, 0.0, guard],
        ]);
        Self { planes }
    }

    /// Whether every vertex is inside every plane (the common case: nothing to do).
    pub(crate) fn all_inside(&self, vertices: &[&ClipVertex]) -> bool {
        vertices.iter().all(|v| v.pos[3] > W_EPSILON && self.planes.iter().all(|p| distance(p, v) >= 0.0))
    }

    /// Whether every vertex is outside one plane (the primitive is invisible).
    pub(crate) fn all_outside_one(&self, vertices: &[&ClipVertex]) -> bool {
        self.planes.iter().any(|p| vertices.iter().all(|v| distance(p, v) < 0.0))
    }

    /// Clips a convex polygon (in order); returns the clipped polygon, maybe empty.
    pub(crate) fn clip_polygon(&self, polygon: Vec<ClipVertex>) -> Vec<ClipVertex> {
        let mut current = polygon;
        for (i, plane) in self.planes.iter().enumerate() {
            if current.is_empty() {
                break;
            }
            // The w plane keeps w strictly positive.
            let offset = if i == 0 { -W_EPSILON } else { 0.0 };
            let mut out = Vec::with_capacity(current.len() + 2);
            for j in 0..current.len() {
                let a = &current[j];
                let b = &current[(j + 1) % current.len()];
                let (da, db) = (distance(plane, a) + offset, distance(plane, b) + offset);
                if da >= 0.0 {
                    out.push(a.clone());
                }
                if (da >= 0.0) != (db >= 0.0) {
                    // Always from the inside vertex towards the outside one: the neighbour
                    // sharing this edge walks it the other way round, and must get the same
                    // point bit for bit, or a crack opens along the seam.
                    out.push(if da >= 0.0 {
                        lerp_vertex(a, b, da / (da - db))
                    } else {
                        lerp_vertex(b, a, db / (db - da))
                    });
                }
            }
            current = out;
        }
        if current.len() < 3 { Vec::new() } else { current }
    }

    /// Clips a line segment; `None` when nothing is left.
    pub(crate) fn clip_line(&self, a: &ClipVertex, b: &ClipVertex) -> Option<(ClipVertex, ClipVertex)> {
        let (mut t0, mut t1) = (0.0f32, 1.0f32);
        for (i, plane) in self.planes.iter().enumerate() {
            let offset = if i == 0 { -W_EPSILON } else { 0.0 };
            let (da, db) = (distance(plane, a) + offset, distance(plane, b) + offset);
            if da < 0.0 && db < 0.0 {
                return None;
            }
            if da < 0.0 {
                t0 = t0.max(da / (da - db));
            } else if db < 0.0 {
                t1 = t1.min(da / (da - db));
            }
        }
        (t0 <= t1).then(|| (lerp_vertex(a, b, t0), lerp_vertex(a, b, t1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32, z: f32, w: f32) -> ClipVertex {
        ClipVertex { pos: [x, y, z, w], attrs: vec![x] }
    }

    #[test]
    fn a_triangle_crossing_near_becomes_a_quad() {
        let planes = ClipPlanes::new(false, 100.0);
        let out =
            planes.clip_polygon(vec![v(0.0, 0.0, -1.0, 1.0), v(1.0, 0.0, 0.5, 1.0), v(0.0, 1.0, 0.5, 1.0)]);
        assert_eq!(out.len(), 4);
        assert!(out.iter().all(|v| v.pos[2] >= -1e-6));
    }

    #[test]
    fn a_shared_edge_is_clipped_to_the_same_points_from_both_sides() {
        // Two triangles of a quad whose diagonal crosses the near plane and the guard band,
        // each walking the diagonal in its own direction.
        let planes = ClipPlanes::new(false, 2.0);
        let (p, q) = (v(-3.7, 0.3, -0.9, 0.7), v(0.9, -1.3, 0.8, 1.1));
        let (r, s) = (v(2.1, 2.9, 0.4, 1.3), v(-0.4, -2.6, 0.3, 0.9));
        let first = planes.clip_polygon(vec![p.clone(), q.clone(), r]);
        let second = planes.clip_polygon(vec![q, p, s]);
        let on_diagonal = |poly: &[ClipVertex]| {
            let mut pts: Vec<[u32; 4]> = poly
                .iter()
                .filter(|v| {
                    // On the line p-q: its x, z, w are the same affine mix as its y.
                    let t = (v.pos[1] - 0.3) / (-1.3 - 0.3);
                    (v.pos[0] - (-3.7 + (0.9 + 3.7) * t)).abs() < 1e-4
                        && (v.pos[3] - (0.7 + 0.4 * t)).abs() < 1e-4
                })
                .map(|v| v.pos.map(f32::to_bits))
                .collect();
            pts.sort();
            pts
        };
        let (a, b) = (on_diagonal(&first), on_diagonal(&second));
        assert_eq!(a.len(), 2, "the diagonal keeps two clipped ends: {first:?}");
        assert_eq!(a, b, "both triangles clip the shared edge to the same points");
    }

    #[test]
    fn unclipped_depth_keeps_far_geometry() {
        let t = [v(0.0, 0.0, 1.5, 1.0), v(1.0, 0.0, 1.5, 1.0), v(0.0, 1.0, 1.5, 1.0)];
        assert!(ClipPlanes::new(false, 100.0).clip_polygon(t.to_vec()).is_empty());
        assert_eq!(ClipPlanes::new(true, 100.0).clip_polygon(t.to_vec()).len(), 3);
    }

    #[test]
    fn lines_clip_to_the_far_plane() {
        let (a, b) =
            ClipPlanes::new(false, 100.0).clip_line(&v(0.0, 0.0, 0.5, 1.0), &v(0.0, 0.0, 1.5, 1.0)).unwrap();
        assert_eq!(a.pos[2], 0.5);
        assert!((b.pos[2] - 1.0).abs() < 1e-6);
    }
}
