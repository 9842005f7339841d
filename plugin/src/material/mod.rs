//! Materials: the built-in [`StandardMaterial`] (lit PBR) and [`CustomMaterial`]s loaded from
//! `.ron` files (DESIGN §5), both stored as [`Material`] assets and named by the
//! [`MeshMaterial`] component.

pub(crate) mod standard;

use std::path::Path;
use std::sync::Arc;

use bevy_ecs::prelude::Component;
use f3d_materials::{LoadedMaterial, MaterialError, MaterialLayout, MaterialParameters, ParamType, Value};

use crate::assets::Handle;
use crate::image::Image;

/// How a standard material's alpha is used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AlphaMode {
    /// Alpha ignored.
    #[default]
    Opaque,
    /// Blended over what is behind (straight alpha), sorted back to front.
    Blend,
    /// Added to what is behind.
    Add,
    /// Multiplied with what is behind.
    Multiply,
}

impl AlphaMode {
    pub(crate) fn ron(self) -> &'static str {
        match self {
            Self::Opaque => "Opaque",
            Self::Blend => "Alpha",
            Self::Add => "Additive",
            Self::Multiply => "Multiply",
        }
    }
}

/// The engine's lit PBR material (metallic-roughness, as glTF).
#[derive(Clone, Debug, PartialEq)]
pub struct StandardMaterial {
    /// Linear base colour and alpha (see [`srgb`](crate::color::srgb)).
    pub base_color: [f32; 4],
    /// 0 dielectric, 1 metal.
    pub metallic: f32,
    /// Perceptual roughness, 0 (mirror) to 1.
    pub roughness: f32,
    /// Linear emitted radiance.
    pub emissive: [f32; 3],
    /// Multiplies `base_color` (sRGB image).
    pub base_color_texture: Option<Handle<Image>>,
    /// Roughness in green, metallic in blue (glTF), multiplying the factors.
    pub metallic_roughness_texture: Option<Handle<Image>>,
    /// Tangent-space normal map (linear image).
    pub normal_texture: Option<Handle<Image>>,
    /// Multiplies `emissive` (sRGB image).
    pub emissive_texture: Option<Handle<Image>>,
    /// Ambient occlusion in red (linear image).
    pub occlusion_texture: Option<Handle<Image>>,
    /// How alpha is used.
    pub alpha_mode: AlphaMode,
    /// Draw back faces too (with flipped normals).
    pub double_sided: bool,
    /// Skip lighting: output `base_color` (+ emissive) as is.
    pub unlit: bool,
}

impl Default for StandardMaterial {
    fn default() -> Self {
        Self {
            base_color: [1.0; 4],
            metallic: 0.0,
            roughness: 0.5,
            emissive: [0.0; 3],
            base_color_texture: None,
            metallic_roughness_texture: None,
            normal_texture: None,
            emissive_texture: None,
            occlusion_texture: None,
            alpha_mode: AlphaMode::Opaque,
            double_sided: false,
            unlit: false,
        }
    }
}

impl StandardMaterial {
    /// A material of one linear colour.
    pub fn color(base_color: [f32; 4]) -> Self {
        Self { base_color, ..Self::default() }
    }
}

/// A `.ron` material with its parameter values (and textures by parameter name).
#[derive(Clone, Debug)]
pub struct CustomMaterial {
    loaded: Arc<LoadedMaterial>,
    params: MaterialParameters,
    textures: Vec<(String, Handle<Image>)>,
}

impl CustomMaterial {
    /// Reads and checks the `.ron` file at `path` (shader code is compiled by the render world
    /// for its backend; a compile error there is logged once and the material draws nothing).
    pub fn load(path: impl AsRef<Path>) -> Result<Self, Vec<MaterialError>> {
        Self::from_loaded(f3d_materials::read_material(path.as_ref())?)
    }

    /// Parses a material from bytes, `path` naming it (and the folder its includes start in).
    pub fn parse(path: impl AsRef<Path>, bytes: &[u8]) -> Result<Self, Vec<MaterialError>> {
        Self::from_loaded(f3d_materials::parse_material(path.as_ref(), bytes)?)
    }

    fn from_loaded(loaded: LoadedMaterial) -> Result<Self, Vec<MaterialError>> {
        let layout = MaterialLayout::new(&loaded.desc).map_err(|message| {
            vec![MaterialError::Backend {
                backend: "layout".into(),
                label: loaded.desc.name.clone(),
                reason: message,
            }]
        })?;
        let params = MaterialParameters::new(&loaded.desc, &layout);
        Ok(Self { loaded: Arc::new(loaded), params, textures: Vec::new() })
    }

    /// The material as loaded.
    pub fn loaded(&self) -> &Arc<LoadedMaterial> {
        &self.loaded
    }

    /// The parameter values.
    pub fn parameters(&self) -> &MaterialParameters {
        &self.params
    }

    /// Sets a numeric parameter (dispatching on its declared type).
    pub fn set(&mut self, name: &str, value: Value) -> Result<&mut Self, f3d_materials::ParameterError> {
        self.params.set(name, value)?;
        Ok(self)
    }

    /// Sets a float parameter.
    pub fn set_float(&mut self, name: &str, value: f32) -> Result<&mut Self, f3d_materials::ParameterError> {
        self.params.set_float(name, value)?;
        Ok(self)
    }

    /// Sets an int parameter.
    pub fn set_int(&mut self, name: &str, value: i32) -> Result<&mut Self, f3d_materials::ParameterError> {
        self.params.set_int(name, value)?;
        Ok(self)
    }

    /// Sets a colour parameter from sRGB-authored components (decoded where the parameter
    /// has the `SourceColor` hint).
    pub fn set_color(
        &mut self,
        name: &str,
        rgba: [f32; 4],
    ) -> Result<&mut Self, f3d_materials::ParameterError> {
        self.params.set_color(name, rgba)?;
        Ok(self)
    }

    /// Binds an image to a `Texture2d` parameter. An unknown name or a parameter of another
    /// type is an error naming it.
    // MaterialError is the materials crate's one (large) error type; binding an image is not a
    // hot path.
    #[allow(clippy::result_large_err)]
    pub fn set_image(&mut self, name: &str, image: Handle<Image>) -> Result<&mut Self, MaterialError> {
        let declared = self.loaded.desc.parameters.iter().find(|p| p.name == name).map(|p| p.ty);
        match declared {
            Some(ParamType::Texture2d) => {
                self.textures.retain(|(n, _)| n != name);
                self.textures.push((name.to_owned(), image));
                Ok(self)
            }
            other => Err(MaterialError::Backend {
                backend: "f3d".into(),
                label: self.loaded.desc.name.clone(),
                reason: match other {
                    Some(ty) => format!("parameter `{name}` is {ty:?}, not Texture2d"),
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

/// A material asset.
#[derive(Clone, Debug)]
pub enum Material {
    /// The built-in lit PBR material.
    Standard(StandardMaterial),
    /// A `.ron` material.
    Custom(CustomMaterial),
}

impl From<StandardMaterial> for Material {
    fn from(m: StandardMaterial) -> Self {
        Self::Standard(m)
    }
}

impl From<CustomMaterial> for Material {
    fn from(m: CustomMaterial) -> Self {
        Self::Custom(m)
    }
}

/// The material a [`Mesh3d`](crate::mesh::Mesh3d) entity is drawn with. Immutable: insert a
/// new one to change it (editing the asset itself is picked up without that).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[component(immutable, on_insert = crate::render::extract::touch_instance, on_discard = crate::render::extract::touch_instance)]
pub struct MeshMaterial(pub Handle<Material>);

/// Marks a mesh entity that casts no shadow.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[component(immutable, on_insert = crate::render::extract::touch_instance, on_discard = crate::render::extract::touch_instance)]
pub struct NotShadowCaster;
