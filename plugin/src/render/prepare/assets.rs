//! Meshes and images uploaded when they change.

use std::collections::HashMap;
use std::sync::Arc;

use bevy_ecs::prelude::*;
use f3d_hal::{
    GeometryBuffer, GeometryDescriptor, GeometryUsages, GraphicsDevice, TextureDescriptor, TextureFormat,
    TextureHandle, TextureRegion, TextureUsages, VertexFormat,
};
use f3d_materials::ParamType;

use crate::image::{ImageData, ImageFormat};
use crate::mesh::MeshData;
use crate::render::extract::ExtractedAssets;
use crate::resources::RenderDevice;

/// A mesh on the device.
pub struct GpuMesh {
    /// The engine attributes, interleaved.
    pub vertices: GeometryBuffer,
    /// `u32` indices.
    pub indices: GeometryBuffer,
    /// How many indices.
    pub index_count: u32,
    /// Radius of a sphere around the origin holding every vertex.
    pub radius: f32,
    /// The CPU copy (custom attributes are laid out per material from it).
    pub mesh: Arc<MeshData>,
}

/// (mesh slot, the material's custom attributes).
type CustomKey = (u32, Vec<(String, ParamType)>);

/// Meshes on the device, by asset slot.
#[derive(Resource, Default)]
pub struct RenderMeshes {
    slots: Vec<Option<Arc<GpuMesh>>>,
    /// Custom-attribute buffers by (mesh slot, attribute signature).
    custom: HashMap<CustomKey, Option<GeometryBuffer>>,
}

impl RenderMeshes {
    /// The mesh in slot `index`.
    pub fn get(&self, index: u32) -> Option<&Arc<GpuMesh>> {
        self.slots.get(index as usize).and_then(Option::as_ref)
    }

    /// The custom attributes `attributes` of mesh `index`, laid out for locations 8, 9, ...
    /// (attributes the mesh lacks read zero).
    pub(crate) fn custom_buffer(
        &mut self,
        device: &dyn GraphicsDevice,
        index: u32,
        attributes: &[(String, ParamType)],
    ) -> Option<GeometryBuffer> {
        let key = (index, attributes.to_vec());
        if let Some(b) = self.custom.get(&key) {
            return b.clone();
        }
        let mesh = self.get(index)?.mesh.clone();
        let n = mesh.vertex_count();
        let mut bytes = Vec::with_capacity(n * attributes.len() * 16);
        for v in 0..n {
            for (name, ty) in attributes {
                let comps = custom_components(*ty);
                let src = mesh.attribute(name);
                for c in 0..comps {
                    let value = src
                        .filter(|a| c < a.components as usize)
                        .and_then(|a| a.data.get(v * a.components as usize + c))
                        .copied()
                        .unwrap_or(0.0);
                    match ty {
                        ParamType::Int => bytes.extend_from_slice(&(value as i32).to_le_bytes()),
                        _ => bytes.extend_from_slice(&value.to_le_bytes()),
                    }
                }
            }
        }
        let buffer = if bytes.is_empty() {
            None
        } else {
            let desc = GeometryDescriptor::new("f3d custom attributes", bytes.len() as u64);
            device.create_geometry(&desc, Some(&bytes)).ok()
        };
        self.custom.insert(key, buffer.clone());
        buffer
    }
}

/// Components of a custom attribute's type.
pub(crate) fn custom_components(ty: ParamType) -> usize {
    match ty {
        ParamType::Vec2 => 2,
        ParamType::Vec3 => 3,
        ParamType::Vec4 => 4,
        _ => 1,
    }
}

/// The vertex format of a custom attribute's type.
pub(crate) fn custom_format(ty: ParamType) -> VertexFormat {
    match ty {
        ParamType::Int => VertexFormat::Sint32,
        ParamType::Vec2 => VertexFormat::Float32x2,
        ParamType::Vec3 => VertexFormat::Float32x3,
        ParamType::Vec4 => VertexFormat::Float32x4,
        _ => VertexFormat::Float32,
    }
}

/// Images on the device, by asset slot.
#[derive(Resource, Default)]
pub struct RenderImages {
    slots: Vec<Option<TextureHandle>>,
}

impl RenderImages {
    /// The texture of image slot `index`.
    pub fn get(&self, index: u32) -> Option<&TextureHandle> {
        self.slots.get(index as usize).and_then(Option::as_ref)
    }
}

fn put<T>(slots: &mut Vec<Option<T>>, index: u32, value: Option<T>) {
    let i = index as usize;
    if slots.len() <= i {
        slots.resize_with(i + 1, || None);
    }
    slots[i] = value;
}

fn upload_mesh(device: &dyn GraphicsDevice, mesh: MeshData) -> Result<GpuMesh, String> {
    mesh.validate().map_err(|e| e.to_string())?;
    let vertices = mesh.interleaved_vertices();
    let indices = mesh.index_bytes();
    let vdesc = GeometryDescriptor {
        label: "f3d mesh vertices".into(),
        size: vertices.len() as u64,
        usage: GeometryUsages::VERTEX,
    };
    let idesc = GeometryDescriptor {
        label: "f3d mesh indices".into(),
        size: indices.len() as u64,
        usage: GeometryUsages::INDEX,
    };
    Ok(GpuMesh {
        vertices: device.create_geometry(&vdesc, Some(&vertices)).map_err(|e| e.to_string())?,
        indices: device.create_geometry(&idesc, Some(&indices)).map_err(|e| e.to_string())?,
        index_count: mesh.index_count() as u32,
        radius: mesh.bounding_radius(),
        mesh: Arc::new(mesh),
    })
}

/// Uploads a mip-mapped image: a 2D texture, or a cube texture for a cube image (each face
/// with its own mip chain).
pub(crate) fn upload_image(
    device: &dyn GraphicsDevice,
    image: &ImageData,
    label: &str,
) -> Result<TextureHandle, String> {
    if !image.is_valid() {
        return Err(format!("{}x{} image with {} bytes", image.width, image.height, image.data.len()));
    }
    let format = match image.format {
        ImageFormat::Rgba8Srgb => TextureFormat::Rgba8UnormSrgb,
        ImageFormat::Rgba8Linear => TextureFormat::Rgba8Unorm,
    };
    // A camera's target is drawn into level 0 only: a mip chain would keep the upload's
    // (zero) texels in the smaller levels.
    let faces: Vec<Vec<(u32, u32, Vec<u8>)>> = (0..image.layers())
        .map(|layer| {
            let mut chain = image.layer_mip_chain(layer);
            if image.render_target {
                chain.truncate(1);
            }
            chain
        })
        .collect();
    let usage = if image.render_target {
        TextureUsages::SAMPLED
            | TextureUsages::COPY_DST
            | TextureUsages::RENDER_ATTACHMENT
            | TextureUsages::COPY_SRC
    } else {
        TextureUsages::SAMPLED | TextureUsages::COPY_DST
    };
    let levels = faces.first().map_or(1, Vec::len) as u32;
    let desc = if image.cube {
        TextureDescriptor::new_cube(label, image.width, format)
    } else {
        TextureDescriptor::new_2d(label, image.width, image.height, format)
    }
    .with_mips(levels)
    .with_usage(usage);
    let texture = device.create_texture(&desc).map_err(|e| e.to_string())?;
    for (layer, chain) in faces.iter().enumerate() {
        for (level, (_, _, data)) in chain.iter().enumerate() {
            device
                .write_texture(&texture, TextureRegion::level(&desc, level as u32, layer as u32), data)
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(texture)
}

/// Uploads meshes and images that changed; a mesh or image that cannot be uploaded is
/// reported once and draws nothing.
pub fn prepare_assets(
    device: Res<RenderDevice>,
    mut assets: ResMut<ExtractedAssets>,
    mut meshes: ResMut<RenderMeshes>,
    mut images: ResMut<RenderImages>,
) {
    let device = device.0.as_ref();
    for index in assets.removed_meshes.drain(..) {
        put(&mut meshes.slots, index, None);
        meshes.custom.retain(|(m, _), _| *m != index);
    }
    for (index, mesh) in assets.meshes.drain(..) {
        let gpu = match mesh.and_then(|mesh| upload_mesh(device, mesh)) {
            Ok(m) => Some(Arc::new(m)),
            Err(e) => {
                bevy_log::error!("mesh {index} cannot be drawn: {e}");
                None
            }
        };
        put(&mut meshes.slots, index, gpu);
        meshes.custom.retain(|(m, _), _| *m != index);
    }
    for index in assets.removed_images.drain(..) {
        put(&mut images.slots, index, None);
    }
    for (index, image) in assets.images.drain(..) {
        let texture = match image.and_then(|image| upload_image(device, &image, "f3d image")) {
            Ok(t) => Some(t),
            Err(e) => {
                bevy_log::error!("image {index} cannot be used: {e}");
                None
            }
        };
        put(&mut images.slots, index, texture);
    }
}
