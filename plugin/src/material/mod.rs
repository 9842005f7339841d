//! Materials: the built-in [`StandardMaterial`] (lit PBR, with the fields of Bevy's own) and
//! [`CustomMaterial`]s loaded from `.ron` files (DESIGN §5). Each is a Bevy asset
//! (`Assets<StandardMaterial>`, `Assets<CustomMaterial>`) named by a
//! [`MeshMaterial3d`] component on a [`Mesh3d`](bevy_mesh::Mesh3d) entity, as in Bevy:
//!
//! ```ignore
//! commands.spawn((
//!     Mesh3d(meshes.add(Cuboid::new(1.0, 1.0, 1.0))),
//!     MeshMaterial3d(materials.add(Color::srgb_u8(124, 144, 255))),
//!     Transform::from_xyz(0.0, 0.5, 0.0),
//! ));
//! ```
//!
//! `.ron` materials load through Bevy's `AssetServer` like any asset
//! (`asset_server.load::<CustomMaterial>("materials/toon.ron")`, see [`loader`]), or from a path
//! with [`CustomMaterial::from_file`] for apps without an asset folder.

pub mod loader;
pub mod reload;
pub mod shader;
pub(crate) mod standard;
pub mod typed;

pub use reload::{HotReload, MaterialEvent, MaterialWatch, RenderMaterialStore, offline_compilers};
pub use shader::{ShaderMaterial, ShaderMaterialError};
pub use typed::{TypedMaterial, TypedMaterialError, TypedValue};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bevy_asset::{Asset, Handle};
use bevy_color::{Alpha, Color, LinearRgba};
use bevy_ecs::prelude::Component;
use bevy_image::Image;
use bevy_reflect::TypePath;
use f3d_materials::{LoadedMaterial, MaterialError, MaterialLayout, MaterialParameters, ParamType, Value};

/// How a material's alpha is used (Bevy's `AlphaMode`, which lives in a crate f3d cannot
/// build; the same variants and meaning).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum AlphaMode {
    /// Alpha ignored.
    #[default]
    Opaque,
    /// Opaque where alpha is at least the cutoff, not drawn elsewhere (glTF's `MASK`).
    Mask(f32),
    /// Blended over what is behind (straight alpha), sorted back to front.
    Blend,
    /// Blended over what is behind with colour already multiplied by alpha.
    Premultiplied,
    /// Added to what is behind.
    Add,
    /// Multiplied with what is behind.
    Multiply,
}

impl AlphaMode {
    /// The `.ron` blending of the standard template (Mask draws opaque and discards).
    pub(crate) fn ron(self) -> &'static str {
        match self {
            Self::Opaque | Self::Mask(_) => "Opaque",
            Self::Blend => "Alpha",
            Self::Premultiplied => "Premultiplied",
            Self::Add => "Additive",
            Self::Multiply => "Multiply",
        }
    }
}

/// The engine's lit PBR material (metallic-roughness, as glTF), with the fields of Bevy's
/// `StandardMaterial` that f3d draws, so a Bevy scene's materials port by changing the import.
#[derive(Asset, TypePath, Clone, Debug, PartialEq)]
pub struct StandardMaterial {
    /// Base colour (with alpha), multiplied by `base_color_texture`.
    pub base_color: Color,
    /// Multiplies `base_color` (an sRGB image).
    pub base_color_texture: Option<Handle<Image>>,
    /// Emitted light (linear), multiplied by `emissive_texture`. Added after lighting, as
    /// authored: it is not scaled by the camera's exposure.
    pub emissive: LinearRgba,
    /// Multiplies `emissive` (an sRGB image).
    pub emissive_texture: Option<Handle<Image>>,
    /// Perceptual roughness, 0 (mirror) to 1.
    pub perceptual_roughness: f32,
    /// 0 dielectric, 1 metal.
    pub metallic: f32,
    /// Roughness in green, metallic in blue (glTF), multiplying the factors.
    pub metallic_roughness_texture: Option<Handle<Image>>,
    /// Tangent-space normal map (a linear image).
    pub normal_map_texture: Option<Handle<Image>>,
    /// Ambient occlusion in red (a linear image).
    pub occlusion_texture: Option<Handle<Image>>,
    /// Draw back faces too (with flipped normals).
    pub double_sided: bool,
    /// Skip lighting: output `base_color` (+ emissive) as is.
    pub unlit: bool,
    /// How alpha is used.
    pub alpha_mode: AlphaMode,
}

impl Default for StandardMaterial {
    fn default() -> Self {
        Self {
            base_color: Color::WHITE,
            base_color_texture: None,
            emissive: LinearRgba::BLACK,
            emissive_texture: None,
            perceptual_roughness: 0.5,
            metallic: 0.0,
            metallic_roughness_texture: None,
            normal_map_texture: None,
            occlusion_texture: None,
            double_sided: false,
            unlit: false,
            alpha_mode: AlphaMode::Opaque,
        }
    }
}

impl From<Color> for StandardMaterial {
    fn from(base_color: Color) -> Self {
        let alpha_mode = if base_color.alpha() < 1.0 { AlphaMode::Blend } else { AlphaMode::Opaque };
        Self { base_color, alpha_mode, ..Self::default() }
    }
}

impl From<Handle<Image>> for StandardMaterial {
    fn from(texture: Handle<Image>) -> Self {
        Self { base_color_texture: Some(texture), ..Self::default() }
    }
}

/// A `.ron` material with its parameter values (and textures by parameter name).
///
/// A material read from a file ([`load`](Self::load), [`from_file`](Self::from_file)) hot
/// reloads while the app runs (when [`HotReload::watch`](crate::material::HotReload) is on):
/// the render world's store watches its `.ron`, `fragment_file` and includes, and at a frame
/// boundary the asset takes the new version, keeping the values the app set where the
/// parameter still exists with the same type (images by name) and taking the edited defaults
/// for the rest. A save that does not load keeps the last good version drawing; each outcome
/// arrives as a [`MaterialEvent`].
#[derive(Asset, TypePath, Clone, Debug)]
pub struct CustomMaterial {
    /// `None` while a material from a file has not loaded yet (it draws nothing).
    loaded: Option<Arc<LoadedMaterial>>,
    params: MaterialParameters,
    textures: Vec<(String, Handle<Image>)>,
    /// The file it is read from (and reloaded from), when it is.
    file: Option<PathBuf>,
    /// Made by the asset loader and not yet given the app's values (see [`loader`]).
    from_loader: bool,
    /// Values set before the file loaded, applied (in order) when it does.
    pending: Vec<Pending>,
}

/// A value set on a material whose file has not loaded yet.
#[derive(Clone, Debug)]
enum Pending {
    Value(String, Value),
    Color(String, [f32; 4]),
    Image(String, Handle<Image>),
}

impl CustomMaterial {
    /// Reads and checks the `.ron` file at `path` (shader code is compiled by the render world
    /// for its backend; a compile error there is reported once and the material draws
    /// nothing). The file is watched for hot reload.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, Vec<MaterialError>> {
        let mut m = Self::from_loaded(f3d_materials::read_material(path.as_ref())?)?;
        m.file = Some(path.as_ref().to_owned());
        Ok(m)
    }

    /// The material in the `.ron` file at `path`, loaded by the render world's material
    /// store: this never fails. Until the file loads the material draws nothing and its
    /// parameters are unknown; a file that does not load is reported as
    /// [`MaterialEvent::Failed`](crate::material::MaterialEvent) and loads when a save fixes
    /// it.
    pub fn from_file(path: impl AsRef<Path>) -> Self {
        let path = path.as_ref();
        let name =
            path.file_stem().map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into_owned());
        Self {
            loaded: None,
            params: MaterialParameters::none(&name),
            textures: Vec::new(),
            file: Some(path.to_owned()),
            from_loader: false,
            pending: Vec::new(),
        }
    }

    /// A stand-in for a material that [`AssetServer`](bevy_asset::AssetServer) is still
    /// loading, so values can be set before the file arrives; they are applied (in order)
    /// when it does:
    ///
    /// ```ignore
    /// let toon: Handle<CustomMaterial> = asset_server.load("materials/toon.ron");
    /// materials.get_or_insert_with(&toon, CustomMaterial::loading)?.set_int("band_count", 4)?;
    /// ```
    ///
    /// It draws nothing until then. Once the material has loaded, `get_or_insert_with` returns
    /// it and the value applies at once.
    pub fn loading() -> Self {
        Self {
            loaded: None,
            params: MaterialParameters::none("(loading)"),
            textures: Vec::new(),
            file: None,
            from_loader: false,
            pending: Vec::new(),
        }
    }

    /// Parses a material from bytes, `path` naming it (and the folder its includes start in).
    /// Not watched: there is no file behind it.
    pub fn parse(path: impl AsRef<Path>, bytes: &[u8]) -> Result<Self, Vec<MaterialError>> {
        Self::from_loaded(f3d_materials::parse_material(path.as_ref(), bytes)?)
    }

    pub(crate) fn from_loaded(loaded: LoadedMaterial) -> Result<Self, Vec<MaterialError>> {
        let layout = MaterialLayout::new(&loaded.desc).map_err(|message| {
            vec![MaterialError::Backend {
                backend: "layout".into(),
                label: loaded.desc.name.clone(),
                reason: message,
            }]
        })?;
        let params = MaterialParameters::new(&loaded.desc, &layout);
        Ok(Self {
            loaded: Some(Arc::new(loaded)),
            params,
            textures: Vec::new(),
            file: None,
            from_loader: false,
            pending: Vec::new(),
        })
    }

    /// Takes a new version of its file: parameter values the app set survive where the new
    /// version has a parameter of the same name and type, images where it has a `Texture2d`
    /// of that name; the rest take the new defaults.
    pub(crate) fn adopt(&mut self, loaded: Arc<LoadedMaterial>) {
        let Ok(layout) = MaterialLayout::new(&loaded.desc) else { return };
        self.params = self.params.carry_over(&loaded.desc, &layout);
        // An image stays bound where the new version has a texture parameter of that name
        // and the same dimension.
        let old = self.loaded.clone();
        let type_in = |desc: &f3d_materials::MaterialDesc, name: &str| {
            desc.parameters.iter().find(|p| p.name == name).map(|p| p.ty)
        };
        self.textures.retain(|(name, _)| {
            let now = type_in(&loaded.desc, name);
            now.is_some_and(ParamType::is_texture)
                && old.as_ref().is_none_or(|old| type_in(&old.desc, name) == now)
        });
        self.loaded = Some(loaded);
        // What the app set before the first version arrived; a value the file does not take
        // is reported, as it would have been had the file been there.
        for pending in std::mem::take(&mut self.pending) {
            let result = match pending {
                Pending::Value(name, value) => self.params.set(&name, value).map_err(|e| e.to_string()),
                Pending::Color(name, rgba) => self.params.set_color(&name, rgba).map_err(|e| e.to_string()),
                Pending::Image(name, image) => {
                    self.set_image(&name, image).map(|_| ()).map_err(|e| e.to_string())
                }
            };
            if let Err(e) = result {
                bevy_log::warn!("a value set before the material loaded does not apply: {e}");
            }
        }
    }

    /// The file it is read from, when it is.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Whether it has loaded (a material [`from_file`](Self::from_file) whose file has not
    /// loaded yet has not).
    pub fn is_loaded(&self) -> bool {
        self.loaded.is_some()
    }

    /// Whether this is a placeholder holding values set before its file loaded.
    pub(crate) fn holds_waiting_values(&self) -> bool {
        self.loaded.is_none() && !self.pending.is_empty()
    }

    /// The material as loaded (its current version); `None` until a material from a file
    /// has loaded.
    pub fn loaded(&self) -> Option<&Arc<LoadedMaterial>> {
        self.loaded.as_ref()
    }

    /// The parameter values.
    pub fn parameters(&self) -> &MaterialParameters {
        &self.params
    }

    /// The packed parameter block, writable, for bulk updates: resolve each parameter's byte
    /// offset once with [`MaterialParameters::offset_of`] (naga's layout of the block, as the
    /// shader reads it) and write its bytes straight in. Counts as a change (the renderer
    /// takes the new bytes, through the asset's `Modified` event like any edit). Empty while a
    /// material from a file has not loaded, and for a material without numeric parameters.
    pub fn parameter_block_mut(&mut self) -> &mut [u8] {
        self.params.block_mut()
    }

    /// Sets a numeric parameter (dispatching on its declared type). On a material whose
    /// file has not loaded yet (see [`from_file`](Self::from_file)) the value is kept and
    /// applied when it loads (a value the file turns out not to take is logged then).
    pub fn set(&mut self, name: &str, value: Value) -> Result<&mut Self, f3d_materials::ParameterError> {
        if self.loaded.is_none() {
            self.pending.push(Pending::Value(name.to_owned(), value));
        } else {
            self.params.set(name, value)?;
        }
        Ok(self)
    }

    /// Sets a float parameter (kept until the file loads, as [`set`](Self::set)).
    pub fn set_float(&mut self, name: &str, value: f32) -> Result<&mut Self, f3d_materials::ParameterError> {
        self.set(name, Value::Float(value))
    }

    /// Sets an int parameter (kept until the file loads, as [`set`](Self::set)).
    pub fn set_int(&mut self, name: &str, value: i32) -> Result<&mut Self, f3d_materials::ParameterError> {
        self.set(name, Value::Int(value))
    }

    /// Sets a colour parameter from sRGB-authored components (decoded where the parameter
    /// has the `SourceColor` hint).
    pub fn set_color(
        &mut self,
        name: &str,
        rgba: [f32; 4],
    ) -> Result<&mut Self, f3d_materials::ParameterError> {
        if self.loaded.is_none() {
            self.pending.push(Pending::Color(name.to_owned(), rgba));
        } else {
            self.params.set_color(name, rgba)?;
        }
        Ok(self)
    }

    /// Binds an image to a `Texture2d` parameter, or a cube image (see [`crate::image`]) to a
    /// `TextureCube` one. An unknown name or a parameter of another type is an error naming
    /// it; an image of the other dimension (known once it loads) draws the parameter's default
    /// texel instead, with an error logged naming the material and parameter. Before the file
    /// loads the image is kept and bound then.
    // MaterialError is the materials crate's one (large) error type; binding an image is not a
    // hot path.
    #[allow(clippy::result_large_err)]
    pub fn set_image(&mut self, name: &str, image: Handle<Image>) -> Result<&mut Self, MaterialError> {
        if self.loaded.is_none() {
            self.pending.push(Pending::Image(name.to_owned(), image));
            return Ok(self);
        }
        let declared = self
            .loaded
            .as_ref()
            .and_then(|l| l.desc.parameters.iter().find(|p| p.name == name))
            .map(|p| p.ty);
        match declared {
            Some(ParamType::Texture2d | ParamType::TextureCube) => {
                self.textures.retain(|(n, _)| n != name);
                self.textures.push((name.to_owned(), image));
                Ok(self)
            }
            other => Err(MaterialError::Backend {
                backend: "f3d".into(),
                label: self
                    .loaded
                    .as_ref()
                    .map_or_else(|| "(not loaded)".to_owned(), |l| l.desc.name.clone()),
                reason: match other {
                    Some(ty) => format!("parameter `{name}` is {ty:?}, not a texture"),
                    None => format!("the material has no parameter `{name}`"),
                },
            }),
        }
    }

    /// The images bound to texture parameters.
    pub fn images(&self) -> &[(String, Handle<Image>)] {
        &self.textures
    }
}

/// A material type f3d draws: what the render world takes from each asset.
pub trait Material: Asset + Clone {
    /// The asset as the render world prepares it.
    fn source(&self) -> MaterialSource;
}

impl Material for StandardMaterial {
    fn source(&self) -> MaterialSource {
        MaterialSource::Standard(self.clone())
    }
}

impl Material for CustomMaterial {
    fn source(&self) -> MaterialSource {
        MaterialSource::Custom(self.clone())
    }
}

impl Material for ShaderMaterial {
    fn source(&self) -> MaterialSource {
        MaterialSource::Shader(self.clone())
    }
}

/// A material as extracted into the render world.
#[derive(Clone, Debug)]
pub enum MaterialSource {
    /// The built-in lit PBR material.
    Standard(StandardMaterial),
    /// A `.ron` material.
    Custom(CustomMaterial),
    /// A raw fragment shader.
    Shader(ShaderMaterial),
}

/// The material a [`Mesh3d`](bevy_mesh::Mesh3d) entity is drawn with (Bevy's name and shape:
/// `MeshMaterial3d(materials.add(...))`). Immutable: insert a new one to change it (editing
/// the asset itself is picked up without that).
#[derive(Component, Clone, Debug)]
#[component(immutable, on_insert = crate::render::extract::touch_instance, on_discard = crate::render::extract::touch_instance)]
pub struct MeshMaterial3d<M: Material>(pub Handle<M>);

impl<M: Material> PartialEq for MeshMaterial3d<M> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<M: Material> Eq for MeshMaterial3d<M> {}

impl<M: Material> Default for MeshMaterial3d<M> {
    fn default() -> Self {
        Self(Handle::default())
    }
}

impl<M: Material> From<Handle<M>> for MeshMaterial3d<M> {
    fn from(handle: Handle<M>) -> Self {
        Self(handle)
    }
}
