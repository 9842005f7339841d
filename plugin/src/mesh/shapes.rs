//! Built-in shapes, with normals, uvs and tangents, counter-clockwise from outside.

use std::collections::HashMap;
use std::f32::consts::{PI, TAU};

use super::Mesh;

/// A cube of edge `size` centred on the origin; each face has its own vertices and uvs.
pub fn cube(size: f32) -> Mesh {
    let h = size * 0.5;
    // (normal, u axis, v axis): u × v = normal, so corners in (u, v) order wind CCW.
    let faces: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
        ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
        ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        ([0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    ];
    let mut mesh = Mesh::default();
    for (n, u, v) in faces {
        let base = mesh.positions.len() as u32;
        for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let p = [
                (n[0] + u[0] * su + v[0] * sv) * h,
                (n[1] + u[1] * su + v[1] * sv) * h,
                (n[2] + u[2] * su + v[2] * sv) * h,
            ];
            mesh.positions.push(p);
            mesh.normals.push(n);
            mesh.uvs.push([(su + 1.0) * 0.5, (1.0 - sv) * 0.5]);
            mesh.tangents.push([u[0], u[1], u[2], 1.0]);
        }
        mesh.indices.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    mesh
}

/// A UV sphere of `radius` with `sectors` around and `stacks` from pole to pole.
pub fn uv_sphere(radius: f32, sectors: u32, stacks: u32) -> Mesh {
    let (sectors, stacks) = (sectors.max(3), stacks.max(2));
    let mut mesh = Mesh::default();
    for i in 0..=stacks {
        let v = i as f32 / stacks as f32;
        let theta = v * PI;
        let (st, ct) = theta.sin_cos();
        for j in 0..=sectors {
            let u = j as f32 / sectors as f32;
            let phi = u * TAU;
            let (sp, cp) = phi.sin_cos();
            let n = [st * cp, ct, -st * sp];
            mesh.positions.push([n[0] * radius, n[1] * radius, n[2] * radius]);
            mesh.normals.push(n);
            mesh.uvs.push([u, v]);
            mesh.tangents.push([-sp, 0.0, -cp, 1.0]);
        }
    }
    let row = sectors + 1;
    for i in 0..stacks {
        for j in 0..sectors {
            let a = i * row + j;
            let b = a + row;
            if i != 0 {
                mesh.indices.extend([a, b, a + 1]);
            }
            if i != stacks - 1 {
                mesh.indices.extend([a + 1, b, b + 1]);
            }
        }
    }
    mesh
}

/// An icosphere of `radius`: an icosahedron subdivided `subdivisions` times (at most 6).
pub fn ico_sphere(radius: f32, subdivisions: u32) -> Mesh {
    let t = (1.0 + 5f32.sqrt()) / 2.0;
    let mut points: Vec<[f32; 3]> = vec![
        [-1.0, t, 0.0],
        [1.0, t, 0.0],
        [-1.0, -t, 0.0],
        [1.0, -t, 0.0],
        [0.0, -1.0, t],
        [0.0, 1.0, t],
        [0.0, -1.0, -t],
        [0.0, 1.0, -t],
        [t, 0.0, -1.0],
        [t, 0.0, 1.0],
        [-t, 0.0, -1.0],
        [-t, 0.0, 1.0],
    ];
    let mut faces: Vec<[u32; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..subdivisions.min(6) {
        let mut midpoints: HashMap<(u32, u32), u32> = HashMap::new();
        let mut mid = |a: u32, b: u32, points: &mut Vec<[f32; 3]>| {
            let key = (a.min(b), a.max(b));
            *midpoints.entry(key).or_insert_with(|| {
                let (p, q) = (points[a as usize], points[b as usize]);
                points.push([(p[0] + q[0]) * 0.5, (p[1] + q[1]) * 0.5, (p[2] + q[2]) * 0.5]);
                (points.len() - 1) as u32
            })
        };
        let mut next = Vec::with_capacity(faces.len() * 4);
        for [a, b, c] in faces {
            let ab = mid(a, b, &mut points);
            let bc = mid(b, c, &mut points);
            let ca = mid(c, a, &mut points);
            next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        faces = next;
    }
    let mut mesh = Mesh::default();
    for p in points {
        let len = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        let n = [p[0] / len, p[1] / len, p[2] / len];
        mesh.positions.push([n[0] * radius, n[1] * radius, n[2] * radius]);
        mesh.normals.push(n);
        let u = 0.5 + n[2].atan2(n[0]) / TAU;
        let v = 0.5 - n[1].asin() / PI;
        mesh.uvs.push([u, v]);
        let tangent = [-n[2], 0.0, n[0]];
        let tl = (tangent[0] * tangent[0] + tangent[2] * tangent[2]).sqrt();
        mesh.tangents.push(if tl > 1e-6 {
            [tangent[0] / tl, 0.0, tangent[2] / tl, 1.0]
        } else {
            [1.0, 0.0, 0.0, 1.0]
        });
    }
    mesh.indices = faces.into_iter().flatten().collect();
    mesh
}

/// A plane of `size`×`size` in XZ facing +Y, split into `subdivisions`² quads (for vertex
/// animation); uvs run 0 to 1 across it.
pub fn plane(size: f32, subdivisions: u32) -> Mesh {
    let cells = subdivisions.max(1);
    let mut mesh = Mesh::default();
    for i in 0..=cells {
        for j in 0..=cells {
            let (u, v) = (j as f32 / cells as f32, i as f32 / cells as f32);
            mesh.positions.push([(u - 0.5) * size, 0.0, (v - 0.5) * size]);
            mesh.normals.push([0.0, 1.0, 0.0]);
            mesh.uvs.push([u, v]);
            mesh.tangents.push([1.0, 0.0, 0.0, 1.0]);
        }
    }
    let row = cells + 1;
    for i in 0..cells {
        for j in 0..cells {
            let a = i * row + j;
            let b = a + row;
            mesh.indices.extend([a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    mesh
}

/// A torus around the Y axis: `major` radius to the tube's centre, `minor` the tube's.
pub fn torus(major: f32, minor: f32, major_segments: u32, minor_segments: u32) -> Mesh {
    let (ms, ns) = (major_segments.max(3), minor_segments.max(3));
    let mut mesh = Mesh::default();
    for i in 0..=ms {
        let u = i as f32 / ms as f32;
        let (sa, ca) = (u * TAU).sin_cos();
        for j in 0..=ns {
            let v = j as f32 / ns as f32;
            let (sb, cb) = (v * TAU).sin_cos();
            let n = [ca * cb, sb, -sa * cb];
            let r = major + minor * cb;
            mesh.positions.push([ca * r, minor * sb, -sa * r]);
            mesh.normals.push(n);
            mesh.uvs.push([u, v]);
            mesh.tangents.push([-sa, 0.0, -ca, 1.0]);
        }
    }
    let row = ns + 1;
    for i in 0..ms {
        for j in 0..ns {
            let a = i * row + j;
            let b = a + row;
            mesh.indices.extend([a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    mesh
}

/// A closed cylinder around the Y axis, centred on the origin.
pub fn cylinder(radius: f32, height: f32, segments: u32) -> Mesh {
    let s = segments.max(3);
    let h = height * 0.5;
    let mut mesh = Mesh::default();
    for i in 0..=s {
        let u = i as f32 / s as f32;
        let (sn, cs) = (u * TAU).sin_cos();
        for (y, v) in [(-h, 1.0), (h, 0.0)] {
            mesh.positions.push([cs * radius, y, -sn * radius]);
            mesh.normals.push([cs, 0.0, -sn]);
            mesh.uvs.push([u, v]);
            mesh.tangents.push([-sn, 0.0, -cs, 1.0]);
        }
    }
    for i in 0..s {
        let a = i * 2;
        mesh.indices.extend([a, a + 2, a + 1, a + 1, a + 2, a + 3]);
    }
    for (y, ny) in [(h, 1.0f32), (-h, -1.0)] {
        let centre = mesh.positions.len() as u32;
        mesh.positions.push([0.0, y, 0.0]);
        mesh.normals.push([0.0, ny, 0.0]);
        mesh.uvs.push([0.5, 0.5]);
        mesh.tangents.push([1.0, 0.0, 0.0, 1.0]);
        for i in 0..=s {
            let (sn, cs) = (i as f32 / s as f32 * TAU).sin_cos();
            mesh.positions.push([cs * radius, y, -sn * radius]);
            mesh.normals.push([0.0, ny, 0.0]);
            mesh.uvs.push([0.5 + cs * 0.5, 0.5 + sn * 0.5]);
            mesh.tangents.push([1.0, 0.0, 0.0, 1.0]);
        }
        for i in 0..s {
            let (a, b) = (centre + 1 + i, centre + 2 + i);
            if ny > 0.0 {
                mesh.indices.extend([centre, a, b]);
            } else {
                mesh.indices.extend([centre, b, a]);
            }
        }
    }
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every triangle faces away from the centre (CCW seen from outside): its geometric
    /// normal agrees with the vertex normals.
    fn wound_outward(mesh: &Mesh) {
        mesh.validate().unwrap();
        for t in mesh.indices.chunks_exact(3) {
            let [a, b, c] = [t[0] as usize, t[1] as usize, t[2] as usize];
            let (p0, p1, p2) = (mesh.positions[a], mesh.positions[b], mesh.positions[c]);
            let e1 = [p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]];
            let e2 = [p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]];
            let g =
                [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
            let n = mesh.normals[a];
            let area = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
            if area < 1e-7 {
                continue;
            }
            assert!(g[0] * n[0] + g[1] * n[1] + g[2] * n[2] > 0.0, "triangle {t:?} winds inward");
        }
    }

    #[test]
    fn shapes_wind_outward() {
        wound_outward(&cube(1.0));
        wound_outward(&uv_sphere(1.0, 16, 8));
        wound_outward(&ico_sphere(1.0, 2));
        wound_outward(&plane(2.0, 3));
        wound_outward(&torus(1.0, 0.3, 12, 8));
        wound_outward(&cylinder(0.5, 1.0, 12));
    }

    #[test]
    fn tangents_are_unit_and_perpendicular() {
        let mut m = uv_sphere(1.0, 8, 4);
        m.tangents.clear();
        m.generate_tangents();
        for (t, n) in m.tangents.iter().zip(&m.normals) {
            let len = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
            assert!((len - 1.0).abs() < 1e-3);
            assert!((t[0] * n[0] + t[1] * n[1] + t[2] * n[2]).abs() < 1e-3);
        }
    }
}
