//! A small glTF writer for tests, and [`render_gltf`], which draws a file through the
//! `AssetServer` like an app would.
//!
//! [`GltfBuilder`] takes plain inputs (per-primitive positions, normals, uvs, colours and
//! indices; materials with factors and an embedded PNG texture; nodes with transforms; an
//! optional camera; `KHR_lights_punctual` lights) and [`GltfBuilder::build`] lays them out as
//! a [`GltfDoc`]: the JSON (a `serde_json::Value`, which a test may edit to make a bad file)
//! and the binary buffer. The document writes as `.gltf` with the buffer in a `data:` URI
//! ([`GltfDoc::embedded`]), with the buffer in a file of its own ([`GltfDoc::external`]), or
//! as `.glb` ([`GltfDoc::glb`]).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use f3d::f3d_hal::{BackendId, GraphicsDevice};
use f3d::plugin::RenderRegistry;
use f3d::prelude::*;
use serde_json::{Value, json};

use crate::Frame;

/// One primitive's vertex data (triangles unless `mode` says otherwise).
#[derive(Clone, Debug, Default)]
pub struct Primitive {
    /// `POSITION`.
    pub positions: Vec<[f32; 3]>,
    /// `NORMAL`.
    pub normals: Option<Vec<[f32; 3]>>,
    /// `TEXCOORD_0`.
    pub uvs: Option<Vec<[f32; 2]>>,
    /// `TEXCOORD_1`.
    pub uvs1: Option<Vec<[f32; 2]>>,
    /// `COLOR_0` (linear RGBA, written as floats).
    pub colors: Option<Vec<[f32; 4]>>,
    /// `TANGENT`.
    pub tangents: Option<Vec<[f32; 4]>>,
    /// Indices, written as `u16` when they fit (else `u32`), or `u8` with `small_indices`.
    pub indices: Option<Vec<u32>>,
    /// Write the indices as `u8`.
    pub small_indices: bool,
    /// The material index.
    pub material: Option<usize>,
    /// The glTF mode (4, triangles, when `None`).
    pub mode: Option<u32>,
}

impl Primitive {
    /// An axis-aligned box of side `size` centred on the origin: 24 vertices with normals,
    /// uvs and a colour per face (`face_colors`, +x −x +y −y +z −z), 36 indices.
    pub fn cube(size: f32, face_colors: Option<[[f32; 4]; 6]>) -> Self {
        let h = size * 0.5;
        let faces: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
            ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
            ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
            ([0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
            ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
            ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
            ([0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ];
        let mut p = Self { normals: Some(Vec::new()), uvs: Some(Vec::new()), ..Self::default() };
        let mut colors = Vec::new();
        let mut indices = Vec::new();
        for (f, (n, u, v)) in faces.iter().enumerate() {
            let base = p.positions.len() as u32;
            for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                p.positions.push(std::array::from_fn(|i| (n[i] + su * u[i] + sv * v[i]) * h));
                p.normals.get_or_insert_default().push(*n);
                p.uvs.get_or_insert_default().push([(su + 1.0) * 0.5, (1.0 - sv) * 0.5]);
                if let Some(c) = face_colors {
                    colors.push(c[f]);
                }
            }
            indices.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
        }
        p.indices = Some(indices);
        p.colors = face_colors.map(|_| colors);
        p
    }

    /// A square of side `size` in the XZ plane facing +Y, with normals and uvs.
    pub fn plane(size: f32) -> Self {
        let h = size * 0.5;
        Self {
            positions: vec![[-h, 0.0, h], [h, 0.0, h], [h, 0.0, -h], [-h, 0.0, -h]],
            normals: Some(vec![[0.0, 1.0, 0.0]; 4]),
            uvs: Some(vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]]),
            indices: Some(vec![0, 1, 2, 0, 2, 3]),
            ..Self::default()
        }
    }

    /// A UV sphere of `radius` with `segments` around and `segments / 2` rings, with normals
    /// and uvs.
    pub fn sphere(radius: f32, segments: u32) -> Self {
        let rings = (segments / 2).max(2);
        let mut p = Self { normals: Some(Vec::new()), uvs: Some(Vec::new()), ..Self::default() };
        for r in 0..=rings {
            let theta = std::f32::consts::PI * r as f32 / rings as f32;
            for s in 0..=segments {
                let phi = std::f32::consts::TAU * s as f32 / segments as f32;
                let n = [theta.sin() * phi.cos(), theta.cos(), -theta.sin() * phi.sin()];
                p.positions.push(n.map(|c| c * radius));
                p.normals.get_or_insert_default().push(n);
                p.uvs.get_or_insert_default().push([s as f32 / segments as f32, r as f32 / rings as f32]);
            }
        }
        let row = segments + 1;
        let mut indices = Vec::new();
        for r in 0..rings {
            for s in 0..segments {
                let (a, b) = (r * row + s, (r + 1) * row + s);
                indices.extend([a, b, a + 1, a + 1, b, b + 1]);
            }
        }
        p.indices = Some(indices);
        p
    }
}

/// A material's factors (glTF's defaults where `Default`).
#[derive(Clone, Debug)]
pub struct Material {
    /// Its name.
    pub name: Option<String>,
    /// `baseColorFactor` (linear).
    pub base_color: [f32; 4],
    /// `baseColorTexture`: an index into [`GltfBuilder::textures`].
    pub base_color_texture: Option<usize>,
    /// `emissiveTexture`, `metallicRoughnessTexture`, `normalTexture`, `occlusionTexture`:
    /// indices into [`GltfBuilder::textures`].
    pub emissive_texture: Option<usize>,
    /// See `emissive_texture`.
    pub metallic_roughness_texture: Option<usize>,
    /// See `emissive_texture`.
    pub normal_texture: Option<usize>,
    /// See `emissive_texture`.
    pub occlusion_texture: Option<usize>,
    /// `metallicFactor`.
    pub metallic: f32,
    /// `roughnessFactor`.
    pub roughness: f32,
    /// `emissiveFactor`.
    pub emissive: [f32; 3],
    /// `KHR_materials_emissive_strength`.
    pub emissive_strength: Option<f32>,
    /// `alphaMode`: `"OPAQUE"`, `"MASK"` or `"BLEND"`.
    pub alpha_mode: &'static str,
    /// `alphaCutoff` (with `MASK`).
    pub alpha_cutoff: Option<f32>,
    /// `doubleSided`.
    pub double_sided: bool,
    /// `KHR_materials_unlit`.
    pub unlit: bool,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            name: None,
            base_color: [1.0; 4],
            base_color_texture: None,
            emissive_texture: None,
            metallic_roughness_texture: None,
            normal_texture: None,
            occlusion_texture: None,
            metallic: 1.0,
            roughness: 1.0,
            emissive: [0.0; 3],
            emissive_strength: None,
            alpha_mode: "OPAQUE",
            alpha_cutoff: None,
            double_sided: false,
            unlit: false,
        }
    }
}

/// A node: a transform and what it holds.
#[derive(Clone, Debug, Default)]
pub struct Node {
    /// Its name.
    pub name: Option<String>,
    /// `translation`.
    pub translation: Option<[f32; 3]>,
    /// `rotation` (a quaternion, x y z w).
    pub rotation: Option<[f32; 4]>,
    /// `scale`.
    pub scale: Option<[f32; 3]>,
    /// `matrix` (column major), instead of the three above.
    pub matrix: Option<[f32; 16]>,
    /// An index into [`GltfBuilder::meshes`].
    pub mesh: Option<usize>,
    /// An index into [`GltfBuilder::cameras`].
    pub camera: Option<usize>,
    /// An index into [`GltfBuilder::lights`].
    pub light: Option<usize>,
    /// Indices of its child nodes.
    pub children: Vec<usize>,
}

/// A camera.
#[derive(Clone, Copy, Debug)]
pub enum Camera {
    /// `perspective`.
    Perspective {
        /// `yfov` (radians).
        yfov: f32,
        /// `znear`.
        znear: f32,
        /// `zfar` (`None`: infinite).
        zfar: Option<f32>,
    },
    /// `orthographic`.
    Orthographic {
        /// `xmag` (half width).
        xmag: f32,
        /// `ymag` (half height).
        ymag: f32,
        /// `znear`.
        znear: f32,
        /// `zfar`.
        zfar: f32,
    },
}

/// A `KHR_lights_punctual` light (intensity in candela, or lux for directional).
#[derive(Clone, Copy, Debug)]
pub struct Light {
    /// `"directional"`, `"point"` or `"spot"`.
    pub kind: &'static str,
    /// Linear RGB.
    pub color: [f32; 3],
    /// Candela (point, spot) or lux (directional).
    pub intensity: f32,
    /// `range`.
    pub range: Option<f32>,
    /// Spot `innerConeAngle` and `outerConeAngle`.
    pub cone: Option<(f32, f32)>,
}

/// A glTF file's content, in plain inputs.
#[derive(Clone, Debug, Default)]
pub struct GltfBuilder {
    /// Meshes: each a list of primitives.
    pub meshes: Vec<Vec<Primitive>>,
    /// Materials.
    pub materials: Vec<Material>,
    /// Textures, each an embedded PNG file's bytes (see [`png_rgba`]).
    pub textures: Vec<Vec<u8>>,
    /// Nodes.
    pub nodes: Vec<Node>,
    /// The root nodes of the one scene.
    pub roots: Vec<usize>,
    /// Cameras.
    pub cameras: Vec<Camera>,
    /// Lights.
    pub lights: Vec<Light>,
}

/// A built document: JSON and its binary buffer (buffer 0).
#[derive(Clone, Debug)]
pub struct GltfDoc {
    /// The glTF JSON, with `buffers[0].byteLength` set and no `uri`.
    pub json: Value,
    /// Buffer 0's bytes.
    pub bin: Vec<u8>,
}

impl GltfDoc {
    /// `.gltf` bytes with the buffer in a base64 `data:` URI.
    pub fn embedded(&self) -> Vec<u8> {
        let mut json = self.json.clone();
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&self.bin)
        );
        if let Some(buffer) = json.pointer_mut("/buffers/0") {
            buffer["uri"] = Value::String(uri);
        }
        serde_json::to_vec_pretty(&json).unwrap_or_default()
    }

    /// `.gltf` bytes naming the buffer file `uri` (write [`bin`](Self::bin) there).
    pub fn external(&self, uri: &str) -> Vec<u8> {
        let mut json = self.json.clone();
        if let Some(buffer) = json.pointer_mut("/buffers/0") {
            buffer["uri"] = Value::String(uri.to_owned());
        }
        serde_json::to_vec_pretty(&json).unwrap_or_default()
    }

    /// `.glb` bytes: header, JSON chunk, binary chunk.
    pub fn glb(&self) -> Vec<u8> {
        let mut json = serde_json::to_vec(&self.json).unwrap_or_default();
        while !json.len().is_multiple_of(4) {
            json.push(b' ');
        }
        let mut bin = self.bin.clone();
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let total = 12 + 8 + json.len() + 8 + bin.len();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&json);
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
        out
    }
}

/// A PNG file of `width`×`height` RGBA8 texels (rows from the top).
pub fn png_rgba(width: u32, height: u32, rgba: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let written = encoder.write_header().and_then(|mut w| w.write_image_data(rgba));
        assert!(written.is_ok(), "png encoding of a {width}x{height} test image: {written:?}");
    }
    out
}

/// Lays out buffer views and accessors in one binary buffer.
#[derive(Default)]
struct Layout {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Layout {
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut view = json!({ "buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len() });
        if let Some(t) = target {
            view["target"] = json!(t);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(view);
        self.views.len() - 1
    }

    fn floats<const N: usize>(&mut self, data: &[[f32; N]], kind: &str, bounds: bool) -> usize {
        let bytes: Vec<u8> = data.iter().flatten().flat_map(|f| f.to_le_bytes()).collect();
        let view = self.view(&bytes, Some(34962));
        let mut accessor =
            json!({ "bufferView": view, "componentType": 5126, "count": data.len(), "type": kind });
        if bounds && !data.is_empty() {
            let min: Vec<f32> =
                (0..N).map(|i| data.iter().map(|v| v[i]).fold(f32::INFINITY, f32::min)).collect();
            let max: Vec<f32> =
                (0..N).map(|i| data.iter().map(|v| v[i]).fold(f32::NEG_INFINITY, f32::max)).collect();
            accessor["min"] = json!(min);
            accessor["max"] = json!(max);
        }
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    fn indices(&mut self, indices: &[u32], small: bool) -> usize {
        let max = indices.iter().copied().max().unwrap_or(0);
        let (component, bytes): (u32, Vec<u8>) = if small && max <= 255 {
            (5121, indices.iter().map(|&i| i as u8).collect())
        } else if max <= 65535 {
            (5123, indices.iter().flat_map(|&i| (i as u16).to_le_bytes()).collect())
        } else {
            (5125, indices.iter().flat_map(|&i| i.to_le_bytes()).collect())
        };
        let view = self.view(&bytes, Some(34963));
        self.accessors
            .push(json!({ "bufferView": view, "componentType": component, "count": indices.len(), "type": "SCALAR" }));
        self.accessors.len() - 1
    }
}

impl GltfBuilder {
    /// The document.
    pub fn build(&self) -> GltfDoc {
        let mut layout = Layout::default();
        let mut extensions_used: Vec<&str> = Vec::new();
        let meshes: Vec<Value> = self
            .meshes
            .iter()
            .map(|primitives| {
                let primitives: Vec<Value> = primitives
                    .iter()
                    .map(|p| {
                        let mut attributes = serde_json::Map::new();
                        attributes
                            .insert("POSITION".into(), json!(layout.floats(&p.positions, "VEC3", true)));
                        if let Some(n) = &p.normals {
                            attributes.insert("NORMAL".into(), json!(layout.floats(n, "VEC3", false)));
                        }
                        if let Some(uv) = &p.uvs {
                            attributes.insert("TEXCOORD_0".into(), json!(layout.floats(uv, "VEC2", false)));
                        }
                        if let Some(uv) = &p.uvs1 {
                            attributes.insert("TEXCOORD_1".into(), json!(layout.floats(uv, "VEC2", false)));
                        }
                        if let Some(c) = &p.colors {
                            attributes.insert("COLOR_0".into(), json!(layout.floats(c, "VEC4", false)));
                        }
                        if let Some(t) = &p.tangents {
                            attributes.insert("TANGENT".into(), json!(layout.floats(t, "VEC4", false)));
                        }
                        let mut primitive = json!({ "attributes": attributes });
                        if let Some(i) = &p.indices {
                            primitive["indices"] = json!(layout.indices(i, p.small_indices));
                        }
                        if let Some(m) = p.material {
                            primitive["material"] = json!(m);
                        }
                        if let Some(mode) = p.mode {
                            primitive["mode"] = json!(mode);
                        }
                        primitive
                    })
                    .collect();
                json!({ "primitives": primitives })
            })
            .collect();
        let images: Vec<Value> = self
            .textures
            .iter()
            .map(|png| json!({ "bufferView": layout.view(png, None), "mimeType": "image/png" }))
            .collect();
        let textures: Vec<Value> =
            (0..self.textures.len()).map(|i| json!({ "source": i, "sampler": 0 })).collect();
        let materials: Vec<Value> = self
            .materials
            .iter()
            .map(|m| {
                let mut pbr = json!({
                    "baseColorFactor": m.base_color,
                    "metallicFactor": m.metallic,
                    "roughnessFactor": m.roughness,
                });
                if let Some(t) = m.base_color_texture {
                    pbr["baseColorTexture"] = json!({ "index": t });
                }
                if let Some(t) = m.metallic_roughness_texture {
                    pbr["metallicRoughnessTexture"] = json!({ "index": t });
                }
                let mut material = json!({
                    "pbrMetallicRoughness": pbr,
                    "emissiveFactor": m.emissive,
                    "alphaMode": m.alpha_mode,
                    "doubleSided": m.double_sided,
                });
                if let Some(name) = &m.name {
                    material["name"] = json!(name);
                }
                if let Some(c) = m.alpha_cutoff {
                    material["alphaCutoff"] = json!(c);
                }
                for (key, texture) in [
                    ("emissiveTexture", m.emissive_texture),
                    ("normalTexture", m.normal_texture),
                    ("occlusionTexture", m.occlusion_texture),
                ] {
                    if let Some(t) = texture {
                        material[key] = json!({ "index": t });
                    }
                }
                let mut extensions = serde_json::Map::new();
                if m.unlit {
                    extensions.insert("KHR_materials_unlit".into(), json!({}));
                    extensions_used.push("KHR_materials_unlit");
                }
                if let Some(s) = m.emissive_strength {
                    extensions
                        .insert("KHR_materials_emissive_strength".into(), json!({ "emissiveStrength": s }));
                    extensions_used.push("KHR_materials_emissive_strength");
                }
                if !extensions.is_empty() {
                    material["extensions"] = Value::Object(extensions);
                }
                material
            })
            .collect();
        let nodes: Vec<Value> = self
            .nodes
            .iter()
            .map(|n| {
                let mut node = json!({});
                let mut set = |key: &str, value: Value| node[key] = value;
                if let Some(v) = &n.name {
                    set("name", json!(v));
                }
                if let Some(v) = n.translation {
                    set("translation", json!(v));
                }
                if let Some(v) = n.rotation {
                    set("rotation", json!(v));
                }
                if let Some(v) = n.scale {
                    set("scale", json!(v));
                }
                if let Some(v) = n.matrix {
                    set("matrix", json!(v));
                }
                if let Some(v) = n.mesh {
                    set("mesh", json!(v));
                }
                if let Some(v) = n.camera {
                    set("camera", json!(v));
                }
                if !n.children.is_empty() {
                    set("children", json!(n.children));
                }
                if let Some(v) = n.light {
                    set("extensions", json!({ "KHR_lights_punctual": { "light": v } }));
                }
                node
            })
            .collect();
        let cameras: Vec<Value> = self
            .cameras
            .iter()
            .map(|c| match *c {
                Camera::Perspective { yfov, znear, zfar } => {
                    let mut p = json!({ "yfov": yfov, "znear": znear });
                    if let Some(f) = zfar {
                        p["zfar"] = json!(f);
                    }
                    json!({ "type": "perspective", "perspective": p })
                }
                Camera::Orthographic { xmag, ymag, znear, zfar } => json!({
                    "type": "orthographic",
                    "orthographic": { "xmag": xmag, "ymag": ymag, "znear": znear, "zfar": zfar },
                }),
            })
            .collect();
        let lights: Vec<Value> = self
            .lights
            .iter()
            .map(|l| {
                let mut light = json!({ "type": l.kind, "color": l.color, "intensity": l.intensity });
                if let Some(r) = l.range {
                    light["range"] = json!(r);
                }
                if let Some((inner, outer)) = l.cone {
                    light["spot"] = json!({ "innerConeAngle": inner, "outerConeAngle": outer });
                }
                light
            })
            .collect();
        let mut root = json!({
            "asset": { "version": "2.0", "generator": "f3d_testing" },
            "scene": 0,
            "scenes": [{ "nodes": self.roots }],
            "nodes": nodes,
            "meshes": meshes,
            "accessors": layout.accessors,
            "bufferViews": layout.views,
            "buffers": [{ "byteLength": layout.bin.len() }],
        });
        if !materials.is_empty() {
            root["materials"] = json!(materials);
        }
        if !images.is_empty() {
            root["images"] = json!(images);
            root["textures"] = json!(textures);
            root["samplers"] =
                json!([{ "magFilter": 9729, "minFilter": 9987, "wrapS": 10497, "wrapT": 10497 }]);
        }
        if !cameras.is_empty() {
            root["cameras"] = json!(cameras);
        }
        if !lights.is_empty() {
            root["extensions"] = json!({ "KHR_lights_punctual": { "lights": lights } });
            extensions_used.push("KHR_lights_punctual");
        }
        extensions_used.sort_unstable();
        extensions_used.dedup();
        if !extensions_used.is_empty() {
            root["extensionsUsed"] = json!(extensions_used);
        }
        GltfDoc { json: root, bin: layout.bin }
    }
}

/// How [`render_gltf`] went wrong.
#[derive(Debug)]
pub enum RenderGltfError {
    /// The scene did not spawn: the file failed to load (the reason is the loader's).
    Failed(String),
    /// Something else (no device, no frame, a timeout).
    Other(String),
}

impl std::fmt::Display for RenderGltfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Failed(reason) => write!(f, "the glTF scene failed: {reason}"),
            Self::Other(reason) => f.write_str(reason),
        }
    }
}

/// Draws `file` (in the asset folder `dir`) on `device`: loads it through the `AssetServer`,
/// spawns its default scene under a [`GltfSceneRoot`], runs `extra` on the world (cameras,
/// lights or an environment the file lacks), and captures the second frame after the scene
/// spawned. Gives up after 30 s of loading.
pub fn render_gltf(
    width: u32,
    height: u32,
    device: Arc<dyn GraphicsDevice>,
    dir: &Path,
    file: &str,
    extra: impl FnOnce(&mut World) + Send + Sync + 'static,
) -> Result<Frame, RenderGltfError> {
    let backend: BackendId = device.backend_id();
    let mut registry = f3d::f3d_hal::DeviceRegistry::new();
    let shared = device.clone();
    let _ = registry.add_backend(backend.clone(), move |_| Ok(shared.clone()));
    let captured = crate::Captured::default();
    let mut app = App::new();
    app.add_plugins(AssetPlugin { file_path: dir.display().to_string(), ..Default::default() })
        .insert_resource(RenderRegistry(registry))
        .add_plugins(F3dRenderPlugin {
            backend: BackendChoice::Named(backend),
            size: (width, height),
            fixed_time_step: Some(1.0 / 60.0),
            ..Default::default()
        })
        .insert_resource(captured.clone());
    let file = file.to_owned();
    let mut extra = Some(extra);
    app.add_systems(Startup, move |world: &mut World| {
        let gltf = world.resource::<AssetServer>().load::<Gltf>(file.clone());
        world.spawn(GltfSceneRoot::new(gltf));
        if let Some(extra) = extra.take() {
            extra(world);
        }
    });
    app.add_systems(Update, crate::keep_screenshots);
    app.finish();
    app.cleanup();
    if !app.world().contains_resource::<RenderDevice>() {
        return Err(RenderGltfError::Other("the plugin did not open the device".into()));
    }
    let started = Instant::now();
    let mut spawned_at = None;
    let mut frame = 0u32;
    loop {
        frame += 1;
        app.update();
        if let Some(result) = captured.0.lock().unwrap_or_else(|e| e.into_inner()).take() {
            return result.map_err(RenderGltfError::Other);
        }
        let world = app.world_mut();
        let status = world.query::<&GltfSceneStatus>().iter(world).next().cloned();
        match status {
            Some(GltfSceneStatus::Failed { reason }) => return Err(RenderGltfError::Failed(reason)),
            Some(GltfSceneStatus::Spawned { .. }) if spawned_at.is_none() => spawned_at = Some(frame),
            _ => {}
        }
        if spawned_at.is_some_and(|at| frame == at + 2) {
            world.spawn(Screenshot::pixels());
        }
        if spawned_at.is_some_and(|at| frame > at + 8) {
            return Err(RenderGltfError::Other("no screenshot arrived".into()));
        }
        if spawned_at.is_none() {
            if started.elapsed() > Duration::from_secs(30) {
                return Err(RenderGltfError::Other("the glTF file did not load within 30 s".into()));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}
