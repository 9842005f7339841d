//! glTF primitives as bevy [`Mesh`]es, with f3d's own accessor reader: every accessor is
//! checked against its buffer view and buffer (offsets, stride, count, component type)
//! before a byte is read, so a malformed file is an error rather than a panic.

use std::collections::BTreeSet;

use bevy_asset::RenderAssetUsages;
use bevy_math::Vec3;
use bevy_mesh::{Indices, Mesh, PrimitiveTopology};
use gltf::Semantic;
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::Mode;

use super::GltfBounds;
use super::loader::{GltfLoadError, Source, view_bytes};

/// The most elements an accessor without a buffer view may have (its data is zeros and sparse
/// values, so no buffer bounds it).
const MAX_UNBACKED_ELEMENTS: usize = 1 << 24;

/// A primitive as f3d draws it.
pub(crate) struct BuiltPrimitive {
    pub mesh: Mesh,
    pub bounds: GltfBounds,
}

/// The primitive's mesh, or `None` (noted in `skipped`) for points and lines.
pub(crate) fn primitive_mesh(
    source: &Source<'_>,
    mesh: &gltf::Mesh<'_>,
    p: &gltf::Primitive<'_>,
    skipped: &mut BTreeSet<String>,
) -> Result<Option<BuiltPrimitive>, GltfLoadError> {
    let mode = p.mode();
    if !matches!(mode, Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan) {
        skipped.insert(format!("{mode:?} primitives"));
        return Ok(None);
    }
    if p.morph_targets().next().is_some() {
        skipped.insert("morph targets".to_owned());
    }
    let Some(position_accessor) = p.get(&Semantic::Positions) else {
        // Nothing to draw; the spec allows it.
        return Ok(None);
    };
    let positions = read_vectors::<3>(source, &position_accessor)?;
    let count = positions.len();
    let attribute = |semantic: Semantic| -> Result<Option<gltf::Accessor<'_>>, GltfLoadError> {
        let Some(a) = p.get(&semantic) else { return Ok(None) };
        if a.count() != count {
            return Err(accessor_error(
                source,
                &a,
                format!("{semantic:?} has {} elements, POSITION {count}", a.count()),
            ));
        }
        Ok(Some(a))
    };
    let normals = attribute(Semantic::Normals)?.map(|a| read_vectors::<3>(source, &a)).transpose()?;
    let uv0 = attribute(Semantic::TexCoords(0))?.map(|a| read_vectors::<2>(source, &a)).transpose()?;
    let uv1 = attribute(Semantic::TexCoords(1))?.map(|a| read_vectors::<2>(source, &a)).transpose()?;
    let tangents = attribute(Semantic::Tangents)?.map(|a| read_vectors::<4>(source, &a)).transpose()?;
    let colors = match attribute(Semantic::Colors(0))? {
        Some(a) if a.dimensions() == Dimensions::Vec3 => Some(
            read_vectors::<3>(source, &a)?.into_iter().map(|[r, g, b]| [r, g, b, 1.0]).collect::<Vec<_>>(),
        ),
        Some(a) => Some(read_vectors::<4>(source, &a)?),
        None => None,
    };

    let mut indices = match p.indices() {
        Some(a) => read_indices(source, &a)?,
        None => (0..count as u32).collect(),
    };
    if let Some(&index) = indices.iter().find(|&&i| i as usize >= count) {
        return Err(GltfLoadError::IndexOutOfRange {
            path: source.path.to_owned(),
            mesh: mesh.index(),
            primitive: p.index(),
            index,
            vertices: count,
        });
    }
    indices = match mode {
        Mode::TriangleStrip => strip_to_list(&indices),
        Mode::TriangleFan => fan_to_list(&indices),
        _ => indices,
    };
    if !indices.len().is_multiple_of(3) {
        let what = p.indices().unwrap_or(position_accessor);
        return Err(accessor_error(
            source,
            &what,
            format!("{} vertices of triangles is not a multiple of 3", indices.len()),
        ));
    }

    let bounds = positions.iter().fold(
        GltfBounds { min: Vec3::splat(f32::INFINITY), max: Vec3::splat(f32::NEG_INFINITY) },
        |b, &p| GltfBounds { min: b.min.min(Vec3::from(p)), max: b.max.max(Vec3::from(p)) },
    );
    let mut out = Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::default());
    out.insert_attribute(Mesh::ATTRIBUTE_POSITION, positions);
    if let Some(n) = normals.clone() {
        out.insert_attribute(Mesh::ATTRIBUTE_NORMAL, n);
    }
    if let Some(uv) = uv0 {
        out.insert_attribute(Mesh::ATTRIBUTE_UV_0, uv);
    }
    if let Some(uv) = uv1 {
        out.insert_attribute(Mesh::ATTRIBUTE_UV_1, uv);
    }
    if let Some(t) = tangents {
        out.insert_attribute(Mesh::ATTRIBUTE_TANGENT, t);
    }
    if let Some(c) = colors {
        out.insert_attribute(Mesh::ATTRIBUTE_COLOR, c);
    }
    out.insert_indices(Indices::U32(indices));
    if normals.is_none() {
        // The spec asks for flat normals: one vertex per corner. The indices were checked
        // above, so de-indexing cannot go out of range.
        out.duplicate_vertices();
        out.compute_flat_normals();
    }
    let bounds = if count == 0 { GltfBounds { min: Vec3::ZERO, max: Vec3::ZERO } } else { bounds };
    Ok(Some(BuiltPrimitive { mesh: out, bounds }))
}

/// Triangle strip to list, alternating the winding so every triangle faces the same way.
fn strip_to_list(strip: &[u32]) -> Vec<u32> {
    strip
        .windows(3)
        .enumerate()
        .flat_map(|(i, w)| if i % 2 == 0 { [w[0], w[1], w[2]] } else { [w[1], w[0], w[2]] })
        .collect()
}

/// Triangle fan to list.
fn fan_to_list(fan: &[u32]) -> Vec<u32> {
    let Some((&first, rest)) = fan.split_first() else { return Vec::new() };
    rest.windows(2).flat_map(|w| [first, w[0], w[1]]).collect()
}

fn accessor_error(source: &Source<'_>, a: &gltf::Accessor<'_>, reason: String) -> GltfLoadError {
    GltfLoadError::Accessor { path: source.path.to_owned(), accessor: a.index(), reason }
}

fn component_size(t: DataType) -> usize {
    match t {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

/// One component as f32: floats as they are, normalized integers mapped to [0, 1] or [-1, 1]
/// as glTF defines, other integers by value.
fn component(t: DataType, normalized: bool, b: &[u8]) -> f32 {
    let byte = |i: usize| b.get(i).copied().unwrap_or(0);
    let (b2, b4) = ([byte(0), byte(1)], [byte(0), byte(1), byte(2), byte(3)]);
    match (t, normalized) {
        (DataType::F32, _) => f32::from_le_bytes(b4),
        (DataType::U8, true) => f32::from(byte(0)) / 255.0,
        (DataType::U8, false) => f32::from(byte(0)),
        (DataType::I8, true) => (f32::from(byte(0) as i8) / 127.0).max(-1.0),
        (DataType::I8, false) => f32::from(byte(0) as i8),
        (DataType::U16, true) => f32::from(u16::from_le_bytes(b2)) / 65535.0,
        (DataType::U16, false) => f32::from(u16::from_le_bytes(b2)),
        (DataType::I16, true) => (f32::from(i16::from_le_bytes(b2)) / 32767.0).max(-1.0),
        (DataType::I16, false) => f32::from(i16::from_le_bytes(b2)),
        (DataType::U32, _) => u32::from_le_bytes(b4) as f32,
    }
}

/// The bytes of `count` elements of `element` bytes each, `stride` apart, from `offset` of
/// the view, checked to lie inside it.
fn element_bytes<'a>(
    source: &'a Source<'_>,
    view: &gltf::buffer::View<'_>,
    offset: usize,
    count: usize,
    element: usize,
    stride: usize,
) -> Result<&'a [u8], String> {
    let data = view_bytes(source, view)?;
    if count == 0 {
        return Ok(&[]);
    }
    let end = (count - 1)
        .checked_mul(stride)
        .and_then(|n| n.checked_add(element))
        .and_then(|n| n.checked_add(offset))
        .ok_or("its byte range overflows")?;
    data.get(offset..end).ok_or_else(|| {
        format!(
            "bytes {offset}..{end} are out of range of buffer view {} ({} bytes)",
            view.index(),
            data.len()
        )
    })
}

/// Every element's `N` components (sparse substitution applied).
fn read_vectors<const N: usize>(
    source: &Source<'_>,
    a: &gltf::Accessor<'_>,
) -> Result<Vec<[f32; N]>, GltfLoadError> {
    let err = |reason: String| accessor_error(source, a, reason);
    let dims = a.dimensions().multiplicity();
    if dims != N {
        return Err(err(format!("{:?} where {N} components are expected", a.dimensions())));
    }
    let t = a.data_type();
    let size = component_size(t);
    let element = size * N;
    let count = a.count();
    let decode = |bytes: &[u8]| -> [f32; N] {
        std::array::from_fn(|c| component(t, a.normalized(), bytes.get(c * size..).unwrap_or(&[])))
    };
    let mut out = match a.view() {
        Some(view) => {
            let stride = view.stride().unwrap_or(element);
            if stride < element {
                return Err(err(format!("byteStride {stride} is less than its {element}-byte elements")));
            }
            let bytes = element_bytes(source, &view, a.offset(), count, element, stride).map_err(err)?;
            (0..count).map(|i| decode(bytes.get(i * stride..).unwrap_or(&[]))).collect()
        }
        // Zeros (then the sparse values): the count is not bounded by any buffer, so it is
        // bounded here before anything is allocated.
        None if count > MAX_UNBACKED_ELEMENTS => {
            return Err(err(format!(
                "{count} elements without a buffer view (at most {MAX_UNBACKED_ELEMENTS})"
            )));
        }
        None => vec![[0.0; N]; count],
    };
    if let Some(sparse) = a.sparse() {
        let n = sparse.count();
        let targets = sparse_indices(source, &sparse.indices(), n).map_err(err)?;
        let values =
            element_bytes(source, &sparse.values().view(), sparse.values().offset(), n, element, element)
                .map_err(err)?;
        for (k, &target) in targets.iter().enumerate() {
            let slot = out
                .get_mut(target as usize)
                .ok_or_else(|| err(format!("sparse index {target} is out of range of {count} elements")))?;
            *slot = decode(values.get(k * element..).unwrap_or(&[]));
        }
    }
    Ok(out)
}

fn sparse_indices(
    source: &Source<'_>,
    indices: &gltf::accessor::sparse::Indices<'_>,
    n: usize,
) -> Result<Vec<u32>, String> {
    use gltf::accessor::sparse::IndexType;
    let size = match indices.index_type() {
        IndexType::U8 => 1,
        IndexType::U16 => 2,
        IndexType::U32 => 4,
    };
    let t = match indices.index_type() {
        IndexType::U8 => DataType::U8,
        IndexType::U16 => DataType::U16,
        IndexType::U32 => DataType::U32,
    };
    let bytes = element_bytes(source, &indices.view(), indices.offset(), n, size, size)?;
    Ok(bytes.chunks_exact(size).map(|c| unsigned(t, c)).collect())
}

fn unsigned(t: DataType, b: &[u8]) -> u32 {
    let byte = |i: usize| b.get(i).copied().unwrap_or(0);
    match t {
        DataType::U16 => u32::from(u16::from_le_bytes([byte(0), byte(1)])),
        DataType::U32 => u32::from_le_bytes([byte(0), byte(1), byte(2), byte(3)]),
        _ => u32::from(byte(0)),
    }
}

/// A primitive's indices (unsigned scalars of 1, 2 or 4 bytes).
fn read_indices(source: &Source<'_>, a: &gltf::Accessor<'_>) -> Result<Vec<u32>, GltfLoadError> {
    let err = |reason: String| accessor_error(source, a, reason);
    let t = a.data_type();
    if a.dimensions() != Dimensions::Scalar || !matches!(t, DataType::U8 | DataType::U16 | DataType::U32) {
        return Err(err(format!("indices of {:?} {t:?}; unsigned scalars are expected", a.dimensions())));
    }
    if a.sparse().is_some() {
        return Err(err("sparse indices are not read".into()));
    }
    let size = component_size(t);
    let view = a.view().ok_or_else(|| err("indices without a buffer view".into()))?;
    let stride = view.stride().unwrap_or(size);
    if stride < size {
        return Err(err(format!("byteStride {stride} is less than its {size}-byte indices")));
    }
    let bytes = element_bytes(source, &view, a.offset(), a.count(), size, stride).map_err(err)?;
    Ok((0..a.count()).map(|i| unsigned(t, bytes.get(i * stride..).unwrap_or(&[]))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_and_fans_become_lists() {
        assert_eq!(strip_to_list(&[0, 1, 2, 3]), vec![0, 1, 2, 2, 1, 3]);
        assert_eq!(fan_to_list(&[0, 1, 2, 3]), vec![0, 1, 2, 0, 2, 3]);
        assert!(fan_to_list(&[]).is_empty());
    }

    #[test]
    fn normalized_components_map_to_unit_range() {
        assert_eq!(component(DataType::U8, true, &[255]), 1.0);
        assert_eq!(component(DataType::I8, true, &[0x80]), -1.0);
        assert_eq!(component(DataType::U16, true, &[0xFF, 0xFF]), 1.0);
        assert_eq!(component(DataType::F32, false, &1.5f32.to_le_bytes()), 1.5);
    }
}
