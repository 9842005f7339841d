//! The view: camera and light uniforms, the shadow projection, the environment's textures,
//! and the device objects every frame shares (samplers, fallback textures, engine modules).

use std::collections::HashMap;
use std::sync::Arc;

use bevy_ecs::prelude::*;
use bevy_math::{Mat4, Vec3};
use f3d_hal::{
    AddressMode, Color, CompareFunction, DepthStencilAttachment, GraphicsDevice, RenderPassDescriptor,
    SamplerDescriptor, SamplerHandle, TextureDescriptor, TextureFormat, TextureHandle, TextureRegion,
    TextureUsages, ValidatedModule, f32_to_f16,
};
use f3d_materials::Variant;
use f3d_materials::contract::{StageModule, compile_library_module, stage_module};
use f3d_materials::format::ShadingModel;

use super::ViewBindings;
use super::uniforms::{BlockLayoutTable, BlockWriter};
use crate::environment::ibl;
use crate::render::extract::{ExtractedCameraView, ExtractedEnvironment, ExtractedFrame, ExtractedLights};
use crate::resources::RenderDevice;

/// Device objects shared by every frame, made when the render world starts.
#[derive(Resource)]
pub struct ViewResources {
    /// Group 0 textures and samplers.
    pub bindings: ViewBindings,
    /// Whether an environment is uploaded (else `bindings` holds the 1×1 fallbacks).
    pub has_environment: bool,
    /// Mip levels of the uploaded radiance cube.
    pub radiance_mips: u32,
    /// The environment's SH.
    pub sh: [[f32; 3]; 9],
    /// `skybox.wgsl`.
    pub skybox_module: Arc<ValidatedModule>,
    /// `tonemap.wgsl`.
    pub tonemap_module: Arc<ValidatedModule>,
    /// Layout of `view`.
    pub view_layout: BlockLayoutTable,
    /// Layout of `lights`.
    pub lights_layout: BlockLayoutTable,
    /// Layout of `tonemap`.
    pub tonemap_layout: BlockLayoutTable,
    fallback_env: (TextureHandle, TextureHandle),
    texels: HashMap<[u8; 4], TextureHandle>,
    /// 1×1-face cubes by texel (fallbacks of `TextureCube` parameters).
    cube_texels: HashMap<[u8; 4], TextureHandle>,
    /// Output targets by size.
    pub outputs: HashMap<(u32, u32), TextureHandle>,
    /// Copies a depth texture into another through `frag_depth` (backends may refuse
    /// `copy_texture` on depth formats; the soft backend does).
    pub depth_copy: Option<f3d_hal::PipelineHandle>,
}

const DEPTH_COPY_WGSL: &str = r#"
@group(0) @binding(0) var source: texture_depth_2d;

@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @builtin(frag_depth) f32 {
    return textureLoad(source, vec2<i32>(p.xy), 0);
}
"#;

fn depth_copy_pipeline(device: &dyn GraphicsDevice) -> Result<f3d_hal::PipelineHandle, String> {
    let module = Arc::new(f3d_materials::compile_wgsl("f3d depth copy", DEPTH_COPY_WGSL)?);
    let shader = |stage, entry: &str| {
        device
            .create_shader(&f3d_hal::ShaderDescriptor {
                label: entry.into(),
                module: module.clone(),
                stage,
                entry_point: entry.into(),
            })
            .map_err(|e| e.to_string())
    };
    device
        .create_pipeline(&f3d_hal::PipelineDescriptor {
            label: "f3d depth copy".into(),
            vertex: shader(f3d_hal::ShaderStage::Vertex, "vs")?,
            fragment: Some(shader(f3d_hal::ShaderStage::Fragment, "fs")?),
            vertex_buffers: Vec::new(),
            primitive: f3d_hal::PrimitiveState::default(),
            depth_stencil: Some(f3d_hal::DepthStencilState::depth(
                TextureFormat::Depth32Float,
                CompareFunction::Always,
                true,
            )),
            color_targets: Vec::new(),
            sample_count: 1,
            multiview: None,
        })
        .map_err(|e| e.to_string())
}

fn sampler(device: &dyn GraphicsDevice, desc: SamplerDescriptor) -> Result<SamplerHandle, String> {
    device.create_sampler(&desc).map_err(|e| e.to_string())
}

fn texture(
    device: &dyn GraphicsDevice,
    desc: &TextureDescriptor,
    levels: &[Vec<u8>],
) -> Result<TextureHandle, String> {
    let t = device.create_texture(desc).map_err(|e| e.to_string())?;
    for layer in 0..desc.array_layers {
        for (level, data) in levels.iter().enumerate() {
            device
                .write_texture(&t, TextureRegion::level(desc, level as u32, layer), data)
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(t)
}

fn f16_bytes(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(|v| f32_to_f16(v).to_le_bytes()).collect()
}

impl ViewResources {
    /// Makes the shared objects on `device`.
    pub fn new(device: &dyn GraphicsDevice) -> Result<Self, String> {
        let lit = stage_module(StageModule::Material { variant: Variant::Color, shading: ShadingModel::Lit })
            .map_err(|e| e.to_string())?;
        let skybox_module = Arc::new(compile_library_module("skybox.wgsl").map_err(|e| e.to_string())?);
        let tonemap_module = Arc::new(compile_library_module("tonemap.wgsl").map_err(|e| e.to_string())?);
        let table = |m: &ValidatedModule, name: &str| {
            BlockLayoutTable::of(m.module(), name)
                .ok_or_else(|| format!("the engine library has no `{name}` block"))
        };
        let sampled = TextureUsages::SAMPLED | TextureUsages::COPY_DST;
        let hdr = TextureFormat::Rgba16Float;
        let cube = texture(
            device,
            &TextureDescriptor::new_cube("f3d no environment", 1, hdr).with_usage(sampled),
            &[f16_bytes([0.0, 0.0, 0.0, 1.0])],
        )?;
        let lut = texture(
            device,
            &TextureDescriptor::new_2d("f3d no brdf lut", 1, 1, hdr).with_usage(sampled),
            &[f16_bytes([1.0, 0.0, 0.0, 1.0])],
        )?;
        let no_scene_color = texture(
            device,
            &TextureDescriptor::new_2d("f3d no scene colour", 1, 1, hdr).with_usage(sampled),
            &[f16_bytes([0.0, 0.0, 0.0, 1.0])],
        )?;
        let shadow_desc = TextureDescriptor::new_2d("f3d no shadow map", 1, 1, TextureFormat::Depth32Float)
            .with_usage(TextureUsages::SAMPLED | TextureUsages::RENDER_ATTACHMENT);
        let no_shadow_map = device.create_texture(&shadow_desc).map_err(|e| e.to_string())?;
        let pass = device
            .begin_render_pass(&RenderPassDescriptor {
                label: "f3d clear no-shadow map".into(),
                depth_stencil_attachment: Some(DepthStencilAttachment::clear(&no_shadow_map, 1.0)),
                ..RenderPassDescriptor::default()
            })
            .map_err(|e| e.to_string())?;
        pass.submit().map_err(|e| e.to_string())?;
        let _ = Color::BLACK;
        let bindings = ViewBindings {
            environment: cube.clone(),
            environment_sampler: sampler(device, SamplerDescriptor::linear(AddressMode::ClampToEdge))?,
            brdf_lut: lut.clone(),
            brdf_lut_sampler: sampler(device, SamplerDescriptor::linear(AddressMode::ClampToEdge))?,
            shadow_sampler: sampler(
                device,
                SamplerDescriptor {
                    compare: Some(CompareFunction::LessEqual),
                    ..SamplerDescriptor::linear(AddressMode::ClampToEdge)
                },
            )?,
            no_shadow_map,
            no_scene_color,
            material_sampler: sampler(device, SamplerDescriptor::linear(AddressMode::Repeat))?,
            scene_sampler: sampler(device, SamplerDescriptor::linear(AddressMode::ClampToEdge))?,
        };
        Ok(Self {
            bindings,
            has_environment: false,
            radiance_mips: 1,
            sh: [[0.0; 3]; 9],
            view_layout: table(&lit, "view")?,
            lights_layout: table(&lit, "lights")?,
            tonemap_layout: table(&tonemap_module, "tonemap")?,
            skybox_module,
            tonemap_module,
            fallback_env: (cube, lut),
            texels: HashMap::new(),
            cube_texels: HashMap::new(),
            outputs: HashMap::new(),
            depth_copy: depth_copy_pipeline(device)
                .map_err(|e| bevy_log::error!("no depth copy pipeline: {e}"))
                .ok(),
        })
    }

    /// A 1×1 texture of `texel` (linear RGBA8), made once.
    pub fn texel(&mut self, device: &dyn GraphicsDevice, texel: [u8; 4]) -> Option<TextureHandle> {
        if let Some(t) = self.texels.get(&texel) {
            return Some(t.clone());
        }
        let desc = TextureDescriptor::new_2d("f3d texel", 1, 1, TextureFormat::Rgba8Unorm)
            .with_usage(TextureUsages::SAMPLED | TextureUsages::COPY_DST);
        let t = texture(device, &desc, &[texel.to_vec()]).ok()?;
        self.texels.insert(texel, t.clone());
        Some(t)
    }

    /// A cube of 1×1 faces of `texel` (linear RGBA8): the fallback of a `TextureCube`
    /// parameter.
    pub fn cube_texel(&mut self, device: &dyn GraphicsDevice, texel: [u8; 4]) -> Option<TextureHandle> {
        if let Some(t) = self.cube_texels.get(&texel) {
            return Some(t.clone());
        }
        let desc = TextureDescriptor::new_cube("f3d cube texel", 1, TextureFormat::Rgba8Unorm)
            .with_usage(TextureUsages::SAMPLED | TextureUsages::COPY_DST);
        let t = device.create_texture(&desc).ok()?;
        for layer in 0..6 {
            device.write_texture(&t, TextureRegion::level(&desc, 0, layer), &texel).ok()?;
        }
        self.cube_texels.insert(texel, t.clone());
        Some(t)
    }

    /// The output target of `size` (sRGB RGBA8, read back by screenshots).
    pub fn output(&mut self, device: &dyn GraphicsDevice, size: (u32, u32)) -> Option<TextureHandle> {
        if let Some(t) = self.outputs.get(&size) {
            return Some(t.clone());
        }
        let desc = TextureDescriptor::new_2d("f3d output", size.0, size.1, TextureFormat::Rgba8UnormSrgb);
        let t = device.create_texture(&desc).ok()?;
        // A few sizes stay (one per camera of its own size); more, and the oldest go.
        if self.outputs.len() >= 4 {
            self.outputs.clear();
        }
        self.outputs.insert(size, t.clone());
        Some(t)
    }

    fn set_environment(
        &mut self,
        device: &dyn GraphicsDevice,
        env: Option<&crate::environment::Environment>,
    ) {
        let Some(env) = env else {
            self.has_environment = false;
            self.bindings.environment = self.fallback_env.0.clone();
            self.bindings.brdf_lut = self.fallback_env.1.clone();
            self.radiance_mips = 1;
            return;
        };
        let data = ibl::compute(env);
        let mips = data.radiance.len() as u32;
        let sampled = TextureUsages::SAMPLED | TextureUsages::COPY_DST;
        let desc = TextureDescriptor::new_cube("f3d environment", ibl::CUBE_SIZE, TextureFormat::Rgba16Float)
            .with_mips(mips)
            .with_usage(sampled);
        let upload = || -> Result<(TextureHandle, TextureHandle), String> {
            let cube = device.create_texture(&desc).map_err(|e| e.to_string())?;
            for (level, texels) in data.radiance.iter().enumerate() {
                let size = (ibl::CUBE_SIZE >> level).max(1) as usize;
                for face in 0..6 {
                    let face_texels = texels.get(face * size * size..(face + 1) * size * size).unwrap_or(&[]);
                    let bytes = f16_bytes(face_texels.iter().flatten().copied());
                    device
                        .write_texture(&cube, TextureRegion::level(&desc, level as u32, face as u32), &bytes)
                        .map_err(|e| e.to_string())?;
                }
            }
            let lut_desc = TextureDescriptor::new_2d(
                "f3d brdf lut",
                ibl::LUT_SIZE,
                ibl::LUT_SIZE,
                TextureFormat::Rgba16Float,
            )
            .with_usage(sampled);
            let lut = texture(
                device,
                &lut_desc,
                &[f16_bytes(data.lut.iter().flat_map(|[a, b]| [*a, *b, 0.0, 1.0]))],
            )?;
            Ok((cube, lut))
        };
        match upload() {
            Ok((cube, lut)) => {
                self.bindings.environment = cube;
                self.bindings.brdf_lut = lut;
                self.has_environment = true;
                self.radiance_mips = mips;
                self.sh = data.sh;
            }
            Err(e) => {
                bevy_log::error!("the environment could not be uploaded: {e}");
                self.set_environment(device, None);
            }
        }
    }
}

/// Uploads the environment when it changed.
pub fn prepare_environment(
    device: Res<RenderDevice>,
    env: Res<ExtractedEnvironment>,
    mut view: ResMut<ViewResources>,
) {
    if env.changed {
        view.set_environment(device.0.as_ref(), env.environment.as_ref());
    }
}

/// The packed view and lights blocks and the shadow projection of this frame.
#[derive(Resource, Default)]
pub struct ViewUniforms {
    /// `view`.
    pub view: Vec<u8>,
    /// `lights`.
    pub lights: Vec<u8>,
    /// The camera's world position.
    pub camera_position: Vec3,
    /// Clip from world.
    pub view_proj: Mat4,
    /// The shadow map's size when the sun casts shadows.
    pub shadow_map_size: Option<u32>,
}

/// The directional light's shadow projection: an orthographic box around `center`.
#[allow(deprecated)] // glam 0.33's free-function spellings give the same matrices.
pub fn shadow_view_proj(direction: Vec3, settings: &crate::light::ShadowSettings) -> Mat4 {
    let dir = direction.try_normalize().unwrap_or(Vec3::NEG_Y);
    let e = settings.half_extent.max(1e-3);
    let eye = settings.center - dir * (e * 2.0);
    let up = if dir.y.abs() > 0.99 { Vec3::Z } else { Vec3::Y };
    let view = Mat4::look_at_rh(eye, settings.center, up);
    Mat4::orthographic_rh(-e, e, -e, e, 0.01, e * 4.0) * view
}

/// Packs the view and lights blocks.
pub(crate) fn pack_view(
    res: &ViewResources,
    frame: &ExtractedFrame,
    camera: &ExtractedCameraView,
    lights: &ExtractedLights,
    environment_intensity: f32,
    size: (u32, u32),
) -> ViewUniforms {
    let projection = camera.clip_from_view;
    let view_from_world = camera.world_from_view.inverse();
    let view_proj = projection * view_from_world;
    let camera_position = camera.world_from_view.w_axis.truncate();
    let mut v = BlockWriter::new(&res.view_layout);
    v.mat4("view_proj", &view_proj)
        .mat4("inverse_view_proj", &view_proj.inverse())
        .mat4("view_from_world", &view_from_world)
        .mat4("projection", &projection)
        .mat4("inverse_projection", &projection.inverse())
        .vec("camera_position", &camera_position.to_array())
        .f32("time", frame.time)
        .vec("viewport_size", &[size.0 as f32, size.1 as f32])
        .f32("exposure", camera.exposure)
        .u32("frame_index", frame.frame as u32);
    let mut l = BlockWriter::new(&res.lights_layout);
    let mut shadow_map_size = None;
    if let Some(sun) = &lights.directional {
        l.vec("directional.direction", &sun.direction.to_array())
            .u32("directional.enabled", 1)
            .vec("directional.color", &sun.radiance);
        if let Some(s) = &sun.shadows {
            let size = s.map_size.clamp(16, 4096);
            shadow_map_size = Some(size);
            l.f32("directional.shadow_bias", s.depth_bias)
                .mat4("directional.shadow_view_proj", &shadow_view_proj(sun.direction, s))
                .f32("directional.shadow_normal_bias", s.normal_bias * s.half_extent * 2.0)
                .f32("directional.shadow_texel_size", 1.0 / size as f32)
                .u32("directional.shadow_enabled", 1);
        }
    }
    for (i, p) in lights.points.iter().take(8).enumerate() {
        l.vec(&format!("points[{i}].position"), &p.position.to_array())
            .f32(&format!("points[{i}].range"), p.range)
            .vec(&format!("points[{i}].color"), &p.radiance)
            .f32(&format!("points[{i}].radius"), p.radius)
            .vec(&format!("points[{i}].spot_direction"), &p.spot_direction.to_array())
            .f32(&format!("points[{i}].spot_scale"), p.spot_scale)
            .f32(&format!("points[{i}].spot_offset"), p.spot_offset);
    }
    l.u32("point_count", lights.points.len().min(8) as u32);
    if res.has_environment {
        // Radiance cube for specular, SH for diffuse.
        l.u32("environment_flags", 1 | 2)
            .f32("environment_intensity", environment_intensity)
            .f32("radiance_mip_count", res.radiance_mips as f32);
        for (i, c) in res.sh.iter().enumerate() {
            l.vec(&format!("sh[{i}]"), &[c[0], c[1], c[2], 0.0]);
        }
    } else {
        l.u32("environment_flags", 0).f32("environment_intensity", 1.0).vec("ambient", &lights.ambient);
    }
    ViewUniforms { view: v.finish(), lights: l.finish(), camera_position, view_proj, shadow_map_size }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every member path the renderer writes exists in the library's blocks: a renamed
    /// member fails here instead of silently drawing without it.
    #[test]
    fn written_paths_exist_in_the_library() {
        let lit = stage_module(StageModule::Material { variant: Variant::Color, shading: ShadingModel::Lit })
            .unwrap();
        let view = BlockLayoutTable::of(lit.module(), "view").unwrap();
        for p in [
            "view_proj",
            "inverse_view_proj",
            "view_from_world",
            "projection",
            "inverse_projection",
            "camera_position",
            "time",
            "viewport_size",
            "exposure",
            "frame_index",
        ] {
            assert!(view.offset(p).is_some(), "view.{p}");
        }
        let lights = BlockLayoutTable::of(lit.module(), "lights").unwrap();
        for p in [
            "directional.direction",
            "directional.enabled",
            "directional.color",
            "directional.shadow_bias",
            "directional.shadow_view_proj",
            "directional.shadow_normal_bias",
            "directional.shadow_texel_size",
            "directional.shadow_enabled",
            "points[7].position",
            "points[7].range",
            "points[7].color",
            "points[7].radius",
            "points[7].spot_direction",
            "points[7].spot_scale",
            "points[7].spot_offset",
            "point_count",
            "environment_flags",
            "environment_intensity",
            "radiance_mip_count",
            "ambient",
            "sh[8]",
        ] {
            assert!(lights.offset(p).is_some(), "lights.{p}");
        }
        let tonemap = compile_library_module("tonemap.wgsl").unwrap();
        let t = BlockLayoutTable::of(tonemap.module(), "tonemap").unwrap();
        for p in ["exposure", "curve", "encode_srgb"] {
            assert!(t.offset(p).is_some(), "tonemap.{p}");
        }
    }
}
