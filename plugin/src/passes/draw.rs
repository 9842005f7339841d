//! Recording draw lists: what every mesh pass does with its [`DrawItem`]s.

use f3d_hal::{DeviceError, DeviceFeature, IndexFormat, PassEncoder, TextureHandle};

use crate::render::prepare::{BoundArray, DrawItem, GpuPipeline, PreparedFrame};

/// The graph textures a mesh pass may bind besides the view's own.
#[derive(Default, Clone, Copy)]
pub struct SceneTextures<'a> {
    /// The shadow map (else the 1×1 fallback is bound).
    pub shadow_map: Option<&'a TextureHandle>,
    /// The opaque scene's colour snapshot.
    pub scene_color: Option<&'a TextureHandle>,
    /// The opaque scene's depth.
    pub scene_depth: Option<&'a TextureHandle>,
}

/// Binds group 0 (view, lights, shadow map, environment, BRDF LUT, scene inputs) as far as
/// `pipeline` declares it.
pub fn bind_view(
    encoder: &mut dyn PassEncoder,
    pipeline: &GpuPipeline,
    frame: &PreparedFrame,
    scene: SceneTextures<'_>,
) {
    let s = &pipeline.slots;
    let b = &frame.bindings;
    if let Some(slot) = s.view {
        encoder.bind_uniform_block_at(slot, &frame.view_block);
    }
    if let Some(slot) = s.lights {
        encoder.bind_uniform_block_at(slot, &frame.lights_block);
    }
    let pairs = [
        (s.shadow_map, Some(scene.shadow_map.unwrap_or(&b.no_shadow_map)), &b.shadow_sampler),
        (s.environment, Some(&b.environment), &b.environment_sampler),
        (s.brdf_lut, Some(&b.brdf_lut), &b.brdf_lut_sampler),
        // A frame without scene colour or depth gives inert values: black, the far plane.
        (s.scene_color, Some(scene.scene_color.unwrap_or(&b.no_scene_color)), &b.scene_sampler),
    ];
    for (slots, texture, sampler) in pairs {
        if let (Some((t, sm)), Some(texture)) = (slots, texture) {
            encoder.bind_texture_at(t, texture);
            if let Some(sm) = sm {
                encoder.bind_sampler_at(sm, sampler);
            }
        }
    }
    if let Some(slot) = s.scene_depth {
        encoder.bind_texture_at(slot, scene.scene_depth.unwrap_or(&b.no_shadow_map));
    }
}

/// Records `items`: one instanced indexed draw per item (one draw per instance on a device
/// without instancing). Binding is skipped where consecutive items share it.
pub fn draw_items(
    encoder: &mut dyn PassEncoder,
    instancing: bool,
    frame: &PreparedFrame,
    items: &[DrawItem],
    scene: SceneTextures<'_>,
) -> Result<(), DeviceError> {
    let mut last_pipeline: Option<*const GpuPipeline> = None;
    let mut last_material: Option<*const crate::render::prepare::BoundMaterial> = None;
    for item in items {
        let pipeline = item.pipeline.as_ref();
        if last_pipeline != Some(pipeline as *const _) {
            encoder.set_pipeline(&pipeline.handle)?;
            bind_view(encoder, pipeline, frame, scene);
            last_pipeline = Some(pipeline as *const _);
            last_material = None;
        }
        let material = item.material.as_ref();
        if last_material != Some(material as *const _) {
            if let Some(slot) = pipeline.slots.material_params {
                match &material.array {
                    BoundArray::Uniform(block) => encoder.bind_uniform_block_at(slot, block.as_slice()),
                    BoundArray::Storage(buffer) => encoder.bind_storage_buffer_at(slot, buffer),
                };
            }
            for (name, slot) in &pipeline.slots.blocks {
                if let Some((_, bytes)) = material.blocks.iter().find(|(n, _)| n == name) {
                    encoder.bind_uniform_block_at(*slot, bytes.as_slice());
                }
            }
            for (name, t, s) in &pipeline.slots.textures {
                if let Some((_, texture)) = material.textures.iter().find(|(n, _)| **n == **name) {
                    encoder.bind_texture_at(*t, texture);
                    if let Some(s) = s {
                        encoder.bind_sampler_at(*s, &frame.bindings.material_sampler);
                    }
                }
            }
            last_material = Some(material as *const _);
        }
        encoder.set_vertex_buffer(0, &item.mesh.vertices, 0)?;
        encoder.set_vertex_buffer(1, &item.instances, 0)?;
        let mut next = 2;
        if pipeline.material_array {
            let Some(slots) = &item.slots else { continue };
            encoder.set_vertex_buffer(next, slots, 0)?;
            next += 1;
        }
        if let Some(custom) = &item.custom {
            encoder.set_vertex_buffer(next, custom, 0)?;
        }
        encoder.set_index_buffer(&item.mesh.indices, IndexFormat::Uint32, 0)?;
        if instancing || item.instance_range.len() <= 1 {
            encoder.draw_indexed(0..item.mesh.index_count, 0, item.instance_range.clone())?;
        } else {
            for i in item.instance_range.clone() {
                encoder.draw_indexed(0..item.mesh.index_count, 0, i..i + 1)?;
            }
        }
    }
    Ok(())
}

/// Whether `device` draws several instances in one call.
pub fn has_instancing(device: &dyn f3d_hal::GraphicsDevice) -> bool {
    device.features().has(DeviceFeature::INSTANCING)
}
