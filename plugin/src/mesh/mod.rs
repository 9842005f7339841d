//! Meshes are bevy_mesh's [`Mesh`], named by its
//! [`Mesh3d`](bevy_mesh::Mesh3d) component and built from Bevy's primitives (`Cuboid`,
//! `Sphere`, `Plane3d`, `Torus`, `Cylinder`, ...) or by hand. The render world takes each one
//! as a [`MeshData`]: the engine's attributes (position, normal, uv0, tangent, colour;
//! everything but positions optional: missing ones take the library's fallbacks, and tangents
//! are generated when the mesh has normals and uvs but none) and every other attribute as a
//! custom attribute named by its [`MeshVertexAttribute`](bevy_mesh::MeshVertexAttribute)'s
//! `name`, matched to the `attributes:` a `.ron` material declares (the ocean's `phase`).
//! Indices are `u32` triangles, counter-clockwise seen from the front; a mesh of another
//! topology, or one whose data is broken, is reported once and draws nothing.

use bevy_mesh::{Indices, Mesh, PrimitiveTopology, VertexAttributeValues};

/// A per-vertex attribute beyond the engine's own, read by materials that declare it.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomAttribute {
    /// The name a material's `attributes:` entry uses.
    pub name: String,
    /// Floats per vertex, 1 to 4.
    pub components: u32,
    /// `components` floats per vertex, vertex after vertex.
    pub data: Vec<f32>,
}

/// Triangle-list vertex data, as the render world draws it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshData {
    /// Object-space positions (required).
    pub positions: Vec<[f32; 3]>,
    /// Unit normals, one per position, or empty (then +Z).
    pub normals: Vec<[f32; 3]>,
    /// Texture coordinates, or empty (then 0).
    pub uvs: Vec<[f32; 2]>,
    /// Tangents with the bitangent sign in `w`, or empty (then +X).
    pub tangents: Vec<[f32; 4]>,
    /// Linear vertex colours, or empty (then white).
    pub colors: Vec<[f32; 4]>,
    /// Triangle indices; empty means the vertices in order.
    pub indices: Vec<u32>,
    /// Custom attributes.
    pub attributes: Vec<CustomAttribute>,
}

/// Why a mesh cannot be drawn.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MeshError {
    /// The mesh has no vertices.
    #[error("the mesh has no vertices")]
    Empty,
    /// An attribute's length differs from the number of positions.
    #[error("attribute `{attribute}` has {len} entries for {vertices} vertices")]
    AttributeLength {
        /// The attribute.
        attribute: String,
        /// Its length (in vertices).
        len: usize,
        /// The number of positions.
        vertices: usize,
    },
    /// A custom attribute has a component count other than 1 to 4.
    #[error("custom attribute `{attribute}` has {components} components (1 to 4 allowed)")]
    Components {
        /// The attribute.
        attribute: String,
        /// What it said.
        components: u32,
    },
    /// An index points past the last vertex.
    #[error("index {index} is past the last of {vertices} vertices")]
    IndexOutOfRange {
        /// The index.
        index: u32,
        /// The number of vertices.
        vertices: usize,
    },
    /// The mesh is not a triangle list.
    #[error("the mesh is a {0:?}; f3d draws triangle lists")]
    Topology(PrimitiveTopology),
    /// An attribute has a vertex format f3d does not read.
    #[error("attribute `{attribute}` has the format {format}, which f3d does not read")]
    Format {
        /// The attribute.
        attribute: String,
        /// Its format.
        format: String,
    },
    /// The mesh's data lives only in the render world of another renderer.
    #[error("the mesh has no data in the main world")]
    NoData,
    /// The index count is not a multiple of three.
    #[error("{count} indices do not make whole triangles")]
    PartialTriangle {
        /// The index count.
        count: usize,
    },
}

/// Bytes per vertex of the engine attributes, interleaved: position, normal, uv0, tangent,
/// colour (all `f32`).
pub const ENGINE_VERTEX_STRIDE: u32 = 64;

impl MeshData {
    /// The mesh as f3d draws it: engine attributes by Bevy's attribute ids, every other
    /// attribute a custom one named as its `MeshVertexAttribute`.
    pub fn from_bevy(mesh: &Mesh) -> Result<Self, MeshError> {
        let topology = mesh.primitive_topology();
        if topology != PrimitiveTopology::TriangleList {
            return Err(MeshError::Topology(topology));
        }
        let attributes = mesh.try_attributes().map_err(|_| MeshError::NoData)?;
        let mut out = Self::default();
        for (attribute, values) in attributes {
            let name = attribute.name;
            let Some((components, data)) = floats(values) else {
                return Err(MeshError::Format {
                    attribute: name.into(),
                    format: format!("{:?}", attribute.format),
                });
            };
            let id = attribute.id;
            let fixed = |n: usize| -> Result<Vec<f32>, MeshError> {
                if components as usize == n {
                    Ok(data.clone())
                } else {
                    Err(MeshError::Format {
                        attribute: name.into(),
                        format: format!("{:?} ({n} components expected)", attribute.format),
                    })
                }
            };
            if id == Mesh::ATTRIBUTE_POSITION.id {
                out.positions = fixed(3)?.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
            } else if id == Mesh::ATTRIBUTE_NORMAL.id {
                out.normals = fixed(3)?.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
            } else if id == Mesh::ATTRIBUTE_UV_0.id {
                out.uvs = fixed(2)?.chunks_exact(2).map(|c| [c[0], c[1]]).collect();
            } else if id == Mesh::ATTRIBUTE_TANGENT.id {
                out.tangents = fixed(4)?.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
            } else if id == Mesh::ATTRIBUTE_COLOR.id {
                // Bevy's vertex colours are linear; three components mean opaque.
                out.colors = match components {
                    3 => data.chunks_exact(3).map(|c| [c[0], c[1], c[2], 1.0]).collect(),
                    _ => fixed(4)?.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect(),
                };
            } else {
                out.attributes.push(CustomAttribute { name: name.into(), components, data });
            }
        }
        out.indices = match mesh.try_indices_option().map_err(|_| MeshError::NoData)? {
            Some(Indices::U16(i)) => i.iter().map(|&i| u32::from(i)).collect(),
            Some(Indices::U32(i)) => i.clone(),
            None => Vec::new(),
        };
        out.validate()?;
        if out.tangents.is_empty() {
            out.generate_tangents();
        }
        Ok(out)
    }

    /// Adds (or replaces) a custom attribute.
    pub fn with_attribute(mut self, name: impl Into<String>, components: u32, data: Vec<f32>) -> Self {
        let name = name.into();
        self.attributes.retain(|a| a.name != name);
        self.attributes.push(CustomAttribute { name, components, data });
        self
    }

    /// The same mesh with every vertex colour set to `color` (linear).
    pub fn with_color(mut self, color: [f32; 4]) -> Self {
        self.colors = vec![color; self.positions.len()];
        self
    }

    /// The custom attribute called `name`.
    pub fn attribute(&self, name: &str) -> Option<&CustomAttribute> {
        self.attributes.iter().find(|a| a.name == name)
    }

    /// The vertex count.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// The number of indices drawn.
    pub fn index_count(&self) -> usize {
        if self.indices.is_empty() { self.positions.len() } else { self.indices.len() }
    }

    /// Checks everything drawing relies on.
    pub fn validate(&self) -> Result<(), MeshError> {
        let n = self.positions.len();
        if n == 0 {
            return Err(MeshError::Empty);
        }
        let check = |name: &str, len: usize| {
            if len != 0 && len != n {
                Err(MeshError::AttributeLength { attribute: name.into(), len, vertices: n })
            } else {
                Ok(())
            }
        };
        check("normal", self.normals.len())?;
        check("uv0", self.uvs.len())?;
        check("tangent", self.tangents.len())?;
        check("color", self.colors.len())?;
        for a in &self.attributes {
            if !(1..=4).contains(&a.components) {
                return Err(MeshError::Components { attribute: a.name.clone(), components: a.components });
            }
            if a.data.len() != n * a.components as usize {
                return Err(MeshError::AttributeLength {
                    attribute: a.name.clone(),
                    len: a.data.len() / a.components as usize,
                    vertices: n,
                });
            }
        }
        if !self.index_count().is_multiple_of(3) {
            return Err(MeshError::PartialTriangle { count: self.index_count() });
        }
        if let Some(&index) = self.indices.iter().find(|&&i| i as usize >= n) {
            return Err(MeshError::IndexOutOfRange { index, vertices: n });
        }
        Ok(())
    }

    /// The engine attributes interleaved ([`ENGINE_VERTEX_STRIDE`] bytes per vertex), with
    /// fallbacks for missing ones.
    pub fn interleaved_vertices(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.positions.len() * ENGINE_VERTEX_STRIDE as usize);
        for i in 0..self.positions.len() {
            let mut v = [0f32; 16];
            v[0..3].copy_from_slice(&self.positions[i]);
            v[3..6].copy_from_slice(self.normals.get(i).unwrap_or(&[0.0, 0.0, 1.0]));
            v[6..8].copy_from_slice(self.uvs.get(i).unwrap_or(&[0.0, 0.0]));
            v[8..12].copy_from_slice(self.tangents.get(i).unwrap_or(&[1.0, 0.0, 0.0, 1.0]));
            v[12..16].copy_from_slice(self.colors.get(i).unwrap_or(&[1.0; 4]));
            for f in v {
                out.extend_from_slice(&f.to_le_bytes());
            }
        }
        out
    }

    /// The indices as bytes (the vertices in order when the mesh has none).
    pub fn index_bytes(&self) -> Vec<u8> {
        if self.indices.is_empty() {
            (0..self.positions.len() as u32).flat_map(u32::to_le_bytes).collect()
        } else {
            self.indices.iter().flat_map(|i| i.to_le_bytes()).collect()
        }
    }

    /// The radius of a sphere around the object-space origin holding every vertex.
    pub fn bounding_radius(&self) -> f32 {
        self.positions.iter().map(|p| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt()).fold(0.0, f32::max)
    }

    /// Fills tangents from positions, normals and uvs (per-triangle, averaged), for normal
    /// mapping on meshes that came without them.
    pub fn generate_tangents(&mut self) {
        let n = self.positions.len();
        if self.uvs.len() != n || self.normals.len() != n {
            return;
        }
        let mut tan = vec![[0f32; 3]; n];
        let mut bit = vec![[0f32; 3]; n];
        let indices: Vec<u32> =
            if self.indices.is_empty() { (0..n as u32).collect() } else { self.indices.clone() };
        for t in indices.chunks_exact(3) {
            let [a, b, c] = [t[0] as usize, t[1] as usize, t[2] as usize];
            if a >= n || b >= n || c >= n {
                continue;
            }
            let (p0, p1, p2) = (self.positions[a], self.positions[b], self.positions[c]);
            let (w0, w1, w2) = (self.uvs[a], self.uvs[b], self.uvs[c]);
            let e1 = sub(p1, p0);
            let e2 = sub(p2, p0);
            let (du1, dv1, du2, dv2) = (w1[0] - w0[0], w1[1] - w0[1], w2[0] - w0[0], w2[1] - w0[1]);
            let det = du1 * dv2 - du2 * dv1;
            if det.abs() < 1e-12 {
                continue;
            }
            let r = 1.0 / det;
            let t3 = [
                (e1[0] * dv2 - e2[0] * dv1) * r,
                (e1[1] * dv2 - e2[1] * dv1) * r,
                (e1[2] * dv2 - e2[2] * dv1) * r,
            ];
            let b3 = [
                (e2[0] * du1 - e1[0] * du2) * r,
                (e2[1] * du1 - e1[1] * du2) * r,
                (e2[2] * du1 - e1[2] * du2) * r,
            ];
            for v in [a, b, c] {
                tan[v] = add(tan[v], t3);
                bit[v] = add(bit[v], b3);
            }
        }
        self.tangents = (0..n)
            .map(|i| {
                let nrm = self.normals[i];
                let t = sub(tan[i], scale(nrm, dot(nrm, tan[i])));
                let len = dot(t, t).sqrt();
                let t = if len > 1e-12 { scale(t, 1.0 / len) } else { any_perpendicular(nrm) };
                let w = if dot(cross(nrm, t), bit[i]) < 0.0 { -1.0 } else { 1.0 };
                [t[0], t[1], t[2], w]
            })
            .collect();
    }
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn add(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn scale(a: [f32; 3], s: f32) -> [f32; 3] {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
fn any_perpendicular(n: [f32; 3]) -> [f32; 3] {
    let other = if n[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
    let t = sub(other, scale(n, dot(n, other)));
    scale(t, 1.0 / dot(t, t).sqrt().max(1e-12))
}

/// The components and values of an attribute as floats (integers converted, normalised
/// formats scaled); `None` for formats f3d does not read.
fn floats(values: &VertexAttributeValues) -> Option<(u32, Vec<f32>)> {
    use VertexAttributeValues as V;
    let flat = |n: u32, v: Vec<f32>| Some((n, v));
    match values {
        V::Float32(v) => flat(1, v.clone()),
        V::Float32x2(v) => flat(2, v.iter().flatten().copied().collect()),
        V::Float32x3(v) => flat(3, v.iter().flatten().copied().collect()),
        V::Float32x4(v) => flat(4, v.iter().flatten().copied().collect()),
        V::Sint32(v) => flat(1, v.iter().map(|&x| x as f32).collect()),
        V::Sint32x2(v) => flat(2, v.iter().flatten().map(|&x| x as f32).collect()),
        V::Sint32x3(v) => flat(3, v.iter().flatten().map(|&x| x as f32).collect()),
        V::Sint32x4(v) => flat(4, v.iter().flatten().map(|&x| x as f32).collect()),
        V::Uint32(v) => flat(1, v.iter().map(|&x| x as f32).collect()),
        V::Uint32x2(v) => flat(2, v.iter().flatten().map(|&x| x as f32).collect()),
        V::Uint32x3(v) => flat(3, v.iter().flatten().map(|&x| x as f32).collect()),
        V::Uint32x4(v) => flat(4, v.iter().flatten().map(|&x| x as f32).collect()),
        V::Unorm8x4(v) => flat(4, v.iter().flatten().map(|&x| f32::from(x) / 255.0).collect()),
        V::Unorm16x2(v) => flat(2, v.iter().flatten().map(|&x| f32::from(x) / 65535.0).collect()),
        V::Unorm16x4(v) => flat(4, v.iter().flatten().map(|&x| f32::from(x) / 65535.0).collect()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use bevy_asset::RenderAssetUsages;
    use bevy_mesh::{MeshBuilder, MeshVertexAttribute, Meshable, VertexFormat};
    use bevy_shape::Cuboid;

    use super::*;

    #[test]
    fn bad_meshes_are_refused_not_drawn() {
        let mut m = MeshData::from_bevy(&Cuboid::new(1.0, 1.0, 1.0).mesh().build()).unwrap();
        assert_eq!(m.validate(), Ok(()));
        m.indices.push(9999);
        assert!(matches!(m.validate(), Err(MeshError::PartialTriangle { .. })));
        m.indices.extend([0, 0]);
        assert!(matches!(m.validate(), Err(MeshError::IndexOutOfRange { index: 9999, .. })));
        let short =
            MeshData { positions: vec![[0.0; 3]; 3], normals: vec![[0.0; 3]; 2], ..MeshData::default() };
        assert!(matches!(short.validate(), Err(MeshError::AttributeLength { .. })));
        assert_eq!(MeshData::default().validate(), Err(MeshError::Empty));
        let lines = Mesh::new(PrimitiveTopology::LineList, RenderAssetUsages::default())
            .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, vec![[0f32; 3]; 2]);
        assert_eq!(MeshData::from_bevy(&lines), Err(MeshError::Topology(PrimitiveTopology::LineList)));
    }

    /// Bevy's attributes land where the engine reads them; others become custom attributes by
    /// name; tangents are generated.
    #[test]
    fn bevy_meshes_convert() {
        const PHASE: MeshVertexAttribute =
            MeshVertexAttribute::new("phase", 0x5f3d_0001, VertexFormat::Float32);
        let cube = Cuboid::new(2.0, 2.0, 2.0).mesh().build();
        let n = cube.count_vertices();
        let cube = cube.with_inserted_attribute(PHASE, vec![0.5f32; n]);
        let m = MeshData::from_bevy(&cube).unwrap();
        assert_eq!((m.positions.len(), m.normals.len(), m.uvs.len(), m.tangents.len()), (n, n, n, n));
        assert_eq!(m.index_count(), 36);
        assert_eq!(m.attribute("phase").map(|a| (a.components, a.data[0])), Some((1, 0.5)));
        assert!((m.bounding_radius() - 3f32.sqrt()).abs() < 1e-5);
    }

    #[test]
    fn interleaving_fills_fallbacks() {
        let m = MeshData { positions: vec![[1.0, 2.0, 3.0]], ..MeshData::default() };
        let bytes = m.interleaved_vertices();
        assert_eq!(bytes.len(), ENGINE_VERTEX_STRIDE as usize);
        let f = |i: usize| f32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap());
        assert_eq!((f(0), f(5), f(8), f(15)), (1.0, 1.0, 1.0, 1.0));
    }
}
