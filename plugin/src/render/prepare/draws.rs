//! The frame's draw lists: instance buffers uploaded for batches that changed, pipelines
//! resolved per batch and pass, opaque batches sorted front to back, translucent instances
//! back to front. Ends by beginning the frame's graph with the view's textures.

use std::collections::HashMap;
use std::sync::Arc;

use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use f3d_hal::{
    CompareFunction, CullMode, DeviceFeature, GeometryDescriptor, GeometryUsages, GraphicsDevice,
    ResourceState, TextureDimension, TextureFormat, TextureUsages,
};
use f3d_materials::Variant;
use f3d_render_graph::{RenderGraph, TextureDesc};

use super::pipelines::RenderState;
use super::view::pack_view;
use super::{
    BoundArray, BoundMaterial, DrawItem, PipelineCache, PreparedFrame, RenderImages, RenderMaterials,
    RenderMeshes, ViewResources,
};
use crate::camera::Msaa;
use crate::render::extract::{ExtractedCamera, ExtractedEnvironment, ExtractedFrame, ExtractedLights};
use crate::render::graph::{FrameGraph, ViewGraph};
use crate::render::instances::{
    INSTANCE_STRIDE, InstanceBatch, NO_TABLE, RenderInstances, SLOT_STRIDE, rows_as_bytes,
};
use crate::render::prepare::materials::{MaterialShader, TextureSource};
use crate::resources::{DepthPrepass, RenderDevice, StandardPasses};

/// The depth format of the view.
pub const DEPTH_FORMAT: TextureFormat = TextureFormat::Depth32Float;

/// Samples per pixel the view draws with: 4 when its [`Msaa`] asks for more than one and the
/// device can multisample the scene's formats, else 1 (each fallback logged once).
fn view_samples(device: &dyn GraphicsDevice, msaa: Msaa, hdr: TextureFormat) -> u32 {
    if msaa == Msaa::Off {
        return 1;
    }
    let backend = device.backend_id();
    let can = device.features().has(DeviceFeature::MSAA)
        && device.texture_format_support(hdr).multisample
        && device.texture_format_support(DEPTH_FORMAT).multisample;
    if !can {
        bevy_log::warn_once!(
            "the {backend} device cannot multisample the scene ({hdr} and {DEPTH_FORMAT}): \
             a camera's {msaa:?} draws without MSAA"
        );
        return 1;
    }
    if msaa != Msaa::Sample4 {
        bevy_log::warn_once!(
            "a camera asks for {msaa:?}: f3d multisamples with 4 samples, the count its HAL offers"
        );
    }
    4
}

/// Uploads a batch's material slots when they changed (the whole buffer: they change only
/// when instances come, go or change material).
fn upload_slots(device: &dyn GraphicsDevice, batch: &mut InstanceBatch) {
    batch.slots_dirty = false;
    let len = batch.slots.len();
    if len == 0 {
        return;
    }
    let bytes: Vec<u8> = batch.slots.iter().flat_map(|s| s.to_le_bytes()).collect();
    match &batch.slot_buffer {
        Some((buffer, capacity)) if *capacity >= len => {
            if let Err(e) = device.write_geometry(buffer, 0, &bytes) {
                bevy_log::error!("material slot upload failed: {e}");
            }
        }
        _ => {
            let capacity = len.next_power_of_two();
            let mut padded = bytes;
            padded.resize(capacity * SLOT_STRIDE as usize, 0);
            let desc = GeometryDescriptor {
                label: "f3d material slots".into(),
                size: padded.len() as u64,
                usage: GeometryUsages::VERTEX,
            };
            batch.slot_buffer = match device.create_geometry(&desc, Some(&padded)) {
                Ok(b) => Some((b, capacity)),
                Err(e) => {
                    bevy_log::error!("material slot buffer of {capacity} instances refused: {e}");
                    None
                }
            };
        }
    }
}

fn upload_instances(device: &dyn GraphicsDevice, batch: &mut InstanceBatch) {
    let len = batch.transforms.len();
    if len == 0 {
        batch.dirty = None;
        batch.resized = false;
        return;
    }
    let fits = batch.buffer.as_ref().is_some_and(|(_, cap)| *cap >= len);
    if !fits {
        let capacity = len.next_power_of_two();
        let mut bytes = rows_as_bytes(&batch.transforms).to_vec();
        bytes.resize(capacity * INSTANCE_STRIDE as usize, 0);
        let desc = GeometryDescriptor {
            label: "f3d instances".into(),
            size: bytes.len() as u64,
            usage: GeometryUsages::VERTEX,
        };
        match device.create_geometry(&desc, Some(&bytes)) {
            Ok(b) => batch.buffer = Some((b, capacity)),
            Err(e) => {
                bevy_log::error!("instance buffer of {capacity} instances refused: {e}");
                batch.buffer = None;
            }
        }
    } else if let (Some(range), Some((buffer, _))) = (batch.dirty.clone(), &batch.buffer) {
        let bytes = rows_as_bytes(&batch.transforms[range.start..range.end.min(len)]);
        if let Err(e) = device.write_geometry(buffer, (range.start * INSTANCE_STRIDE as usize) as u64, bytes)
        {
            bevy_log::error!("instance upload failed: {e}");
        }
    }
    batch.dirty = None;
    batch.resized = false;
}

/// Logs (once per material and parameter) an image bound to a texture parameter of the other
/// dimension; the parameter then draws white. `found` is `None` while the image is loading.
fn wrong_dimension(
    found: Option<&f3d_hal::TextureHandle>,
    material: &super::materials::GpuMaterial,
    parameter: &str,
    wanted: &str,
) {
    static REPORTED: std::sync::Mutex<Vec<(String, String)>> = std::sync::Mutex::new(Vec::new());
    let Some(texture) = found else { return };
    let key = (material.shader.loaded.desc.name.clone(), parameter.to_owned());
    let mut reported = REPORTED.lock().unwrap_or_else(|e| e.into_inner());
    if !reported.contains(&key) {
        bevy_log::error!(
            "material `{}`: parameter `{parameter}` is a {wanted}, but the image bound to it is a {:?} \
             texture; it draws white until a matching image is bound",
            key.0,
            texture.descriptor().dimension
        );
        reported.push(key);
    }
}

fn translation(batch: &InstanceBatch, slot: usize) -> Vec3 {
    let r = &batch.transforms[slot];
    Vec3::new(r[3], r[7], r[11])
}

/// Prepares the frame: instance uploads, uniforms, draw lists; begins the graph.
#[allow(clippy::too_many_arguments)]
pub fn prepare_frame(
    device: Res<RenderDevice>,
    frame: Res<ExtractedFrame>,
    camera: Res<ExtractedCamera>,
    lights: Res<ExtractedLights>,
    environment: Res<ExtractedEnvironment>,
    passes: Res<StandardPasses>,
    mut instances: ResMut<RenderInstances>,
    mut meshes: ResMut<RenderMeshes>,
    images: Res<RenderImages>,
    mut materials: ResMut<RenderMaterials>,
    mut pipelines: ResMut<PipelineCache>,
    mut view_res: ResMut<ViewResources>,
    mut graph: ResMut<FrameGraph>,
) {
    let device = device.0.as_ref();
    materials.tables.upload(device);
    for batch in instances.batches.iter_mut() {
        if batch.key.table == NO_TABLE {
            continue;
        }
        if batch.dirty.is_some() || batch.resized {
            upload_instances(device, batch);
        }
        if batch.slots_dirty {
            upload_slots(device, batch);
        }
    }
    let Some(camera) = camera.0.as_ref() else {
        *graph = FrameGraph::default();
        return;
    };
    let size = camera.size;
    let size = (size.0.clamp(1, 8192), size.1.clamp(1, 8192));
    let env = environment.environment.as_ref();
    let uniforms = pack_view(
        &view_res,
        &frame,
        camera,
        &lights,
        env.map_or(1.0, |e| e.intensity) * lights.exposure,
        size,
    );
    let hdr = device.hdr_color_format();
    let samples = view_samples(device, camera.msaa, hdr);
    let forward = -camera.world_from_view.z_axis.truncate().normalize_or_zero();
    let cam = uniforms.camera_position;
    let shadow_map_size = if passes.shadow { uniforms.shadow_map_size } else { None };

    let mut bound: HashMap<u32, Arc<BoundMaterial>> = HashMap::new();
    let mut opaque: Vec<(f32, DrawItem)> = Vec::new();
    let mut translucent: Vec<(f32, DrawItem)> = Vec::new();
    let mut shadow = Vec::new();
    let mut depth_prepass = Vec::new();
    let (mut needs_scene_color, mut needs_scene_depth) = (false, false);
    let reads_depth = instances.batches.iter().any(|b| {
        !b.entities.is_empty()
            && materials.tables.get(b.key.table).is_some_and(|t| t.material.needs_scene_depth)
    });
    // Multisampled, the prepass draws the single-sampled scene depth materials sample (see
    // `Msaa`), so it runs exactly when one does.
    let want_prepass = match passes.depth_prepass {
        _ if samples > 1 => reads_depth,
        DepthPrepass::Always => true,
        DepthPrepass::Never => false,
        DepthPrepass::Auto => reads_depth,
    };

    // The variants the loop below asks pipelines for and that have none yet (a new or
    // reloaded material), compiled side by side first: the same choice as the loop's, per
    // batch. In a steady frame the list is empty and nothing is allocated.
    let wanted: Vec<(&MaterialShader, Variant)> = instances
        .batches
        .iter()
        .filter(|b| !b.entities.is_empty())
        .filter_map(|b| Some((b.key.casts_shadows, &materials.tables.get(b.key.table)?.material)))
        .flat_map(|(casts_shadows, m)| {
            let opaque = !m.is_translucent();
            [
                (true, Variant::Color),
                (opaque && want_prepass, Variant::DepthOnly),
                (opaque && shadow_map_size.is_some() && casts_shadows, Variant::Shadow),
            ]
            .into_iter()
            .filter(|&(drawn, v)| drawn && !pipelines.has_variant(m.shader.id, v))
            .map(move |(_, v)| (&*m.shader, v))
        })
        .collect();
    pipelines.precompile(device, &wanted);

    for batch in &instances.batches {
        if batch.entities.is_empty() {
            continue;
        }
        let (Some(mesh), Some(table), Some((buffer, _))) = (
            meshes.get(batch.key.mesh).cloned(),
            materials.tables.get(batch.key.table),
            batch.buffer.clone(),
        ) else {
            continue;
        };
        let array = match table.storage() {
            Some(buffer) => BoundArray::Storage(buffer.clone()),
            // A storage table whose buffer the device refused (logged) cannot draw.
            None if table.is_storage() => continue,
            None => BoundArray::Uniform(table.block.clone()),
        };
        let material = table.material.clone();
        let slots = batch.slot_buffer.as_ref().map(|(b, _)| b.clone());
        let bound_material = bound
            .entry(batch.key.table)
            .or_insert_with(|| {
                let textures = material
                    .textures
                    .iter()
                    .filter_map(|(name, source)| {
                        let t = match source {
                            TextureSource::Image(i) => match images.get(*i) {
                                Some(t) if t.descriptor().dimension == TextureDimension::D2 => {
                                    Some(t.clone())
                                }
                                found => {
                                    wrong_dimension(found, &material, name, "Texture2d");
                                    view_res.texel(device, [255; 4])
                                }
                            },
                            TextureSource::CubeImage(i) => match images.get(*i) {
                                Some(t) if t.descriptor().dimension == TextureDimension::Cube => {
                                    Some(t.clone())
                                }
                                found => {
                                    wrong_dimension(found, &material, name, "TextureCube");
                                    view_res.cube_texel(device, [255; 4])
                                }
                            },
                            TextureSource::Texel(t) => view_res.texel(device, *t),
                            TextureSource::CubeTexel(t) => view_res.cube_texel(device, *t),
                        }?;
                        Some((name.clone(), t))
                    })
                    .collect();
                Arc::new(BoundMaterial { array, textures, blocks: material.blocks.clone() })
            })
            .clone();
        let shader = &material.shader;
        let attributes = shader.attributes();
        let custom = if attributes.is_empty() {
            None
        } else {
            meshes.custom_buffer(device, batch.key.mesh, &attributes)
        };
        if !attributes.is_empty() && custom.is_none() {
            continue;
        }
        let desc = &shader.loaded.desc;
        let depth_state = desc.depth_state();
        let cull = desc.culling.to_hal();
        let item = |pipeline, range| DrawItem {
            pipeline,
            mesh: mesh.clone(),
            material: bound_material.clone(),
            instances: buffer.clone(),
            instance_range: range,
            slots: slots.clone(),
            custom: custom.clone(),
        };
        let count = batch.entities.len() as u32;
        if material.is_translucent() {
            needs_scene_color |= material.needs_scene_color;
            needs_scene_depth |= material.needs_scene_depth;
            let state = RenderState {
                color: Some((hdr, desc.blending.blend_state())),
                depth: Some((DEPTH_FORMAT, depth_state.write, depth_state.compare.to_hal())),
                cull,
                samples,
            };
            let Some(p) = pipelines.material(device, shader, Variant::Color, state) else { continue };
            for slot in 0..batch.entities.len() {
                let d = (translation(batch, slot) - cam).dot(forward);
                translucent.push((d, item(p.clone(), slot as u32..slot as u32 + 1)));
            }
            continue;
        }
        let state = RenderState {
            color: Some((hdr, None)),
            depth: Some((DEPTH_FORMAT, depth_state.write, depth_state.compare.to_hal())),
            cull,
            samples,
        };
        let Some(p) = pipelines.material(device, shader, Variant::Color, state) else { continue };
        let d = (translation(batch, 0) - cam).dot(forward) - mesh.radius;
        opaque.push((d, item(p, 0..count)));
        if want_prepass {
            // Single-sampled when the view is not: it then draws the scene-depth copy.
            let state = RenderState {
                color: None,
                depth: Some((DEPTH_FORMAT, true, CompareFunction::LessEqual)),
                cull,
                samples: 1,
            };
            if let Some(p) = pipelines.material(device, shader, Variant::DepthOnly, state) {
                depth_prepass.push(item(p, 0..count));
            }
        }
        if shadow_map_size.is_some() && batch.key.casts_shadows {
            let state = RenderState {
                color: None,
                depth: Some((DEPTH_FORMAT, true, CompareFunction::LessEqual)),
                cull: CullMode::None,
                samples: 1,
            };
            if let Some(p) = pipelines.material(device, shader, Variant::Shadow, state) {
                shadow.push(item(p, 0..count));
            }
        }
    }
    opaque.sort_by(|a, b| a.0.total_cmp(&b.0));
    translucent.sort_by(|a, b| b.0.total_cmp(&a.0));

    let skybox = match env {
        Some(e) if e.skybox && passes.skybox && view_res.has_environment => {
            let module = view_res.skybox_module.clone();
            pipelines.library(device, &module, ("vs_skybox", "fs_skybox"), hdr, Some(DEPTH_FORMAT), samples)
        }
        _ => None,
    };
    // A camera drawing into an image draws into that image's texture (so later cameras'
    // materials sample it); one that is not a render target is drawn offscreen instead.
    let output = match camera.target_image.and_then(|i| images.get(i)) {
        Some(t) if t.descriptor().usage.contains(TextureUsages::RENDER_ATTACHMENT) => Some(t.clone()),
        _ => view_res.output(device, size),
    };
    let size = output.as_ref().map_or(size, |t| (t.descriptor().width, t.descriptor().height));
    let tonemap = output.as_ref().and_then(|out| {
        let module = view_res.tonemap_module.clone();
        let format = out.descriptor().format;
        let p = pipelines.library(device, &module, ("vs_fullscreen", "fs_tonemap"), format, None, 1)?;
        let mut w = super::uniforms::BlockWriter::new(&view_res.tonemap_layout);
        // Lights and the environment were exposed during extraction.
        w.f32("exposure", 1.0)
            .u32("curve", camera.tonemapping.shader_value())
            .u32("encode_srgb", u32::from(!format.facts().srgb));
        Some((p, w.finish()))
    });
    let prepared = Arc::new(PreparedFrame {
        size,
        hdr_format: hdr,
        samples,
        view_block: uniforms.view,
        lights_block: uniforms.lights,
        bindings: view_res.bindings.clone(),
        shadow,
        shadow_map_size,
        depth_prepass,
        opaque: opaque.into_iter().map(|(_, i)| i).collect(),
        translucent: translucent.into_iter().map(|(_, i)| i).collect(),
        skybox,
        tonemap,
        needs_scene_color,
        needs_scene_depth,
        clear_color: camera.clear_color,
        depth_copy: view_res.depth_copy.clone(),
    });

    let Some(output) = output else {
        *graph = FrameGraph::default();
        return;
    };
    let mut g = RenderGraph::with_capacity(12, 8);
    let output_id = g.import_texture("output", output.clone(), ResourceState::Undefined);
    let scene = |format| TextureDesc { sample_count: samples, ..TextureDesc::relative(1.0, format) };
    let hdr_id = g.create_texture("scene_color", scene(hdr));
    let depth_id = g.create_texture("depth", scene(DEPTH_FORMAT));
    let shadow_id = shadow_map_size.map(|s| g.create_texture("shadow_map", TextureDesc::depth(s, s)));
    graph.graph = g;
    graph.view = Some(ViewGraph {
        size,
        frame: prepared,
        samples,
        hdr: hdr_id,
        hdr_written: false,
        hdr_resolved: None,
        depth: depth_id,
        depth_written: false,
        shadow_map: shadow_id,
        shadow_map_written: false,
        scene_color: None,
        scene_depth: None,
        output: output_id,
        output_texture: output,
    });
}
