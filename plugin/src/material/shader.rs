//! [`ShaderMaterial`]: a complete fragment shader of the app's own, in WGSL or GLSL 450, as a
//! material a mesh entity draws with (`MeshMaterial3d<ShaderMaterial>`).
//!
//! ```ignore
//! let mut m = ShaderMaterial::from_wgsl("glow.wgsl", GLOW)?.with_blending(Blending::Additive);
//! m.set_block("Glow", bytemuck::bytes_of(&Glow { color: [1.0, 0.5, 0.1, 1.0], power: 3.0 }))?;
//! m.set_image("pattern", asset_server.load("pattern.png"))?;
//! commands.spawn((Mesh3d(mesh), MeshMaterial3d(shader_materials.add(m))));
//! ```
//!
//! The contract (checked when the shader is made, each refusal at the user's line):
//!
//! * **Inputs** are the engine's varyings, by location: 0 `world_position: vec3<f32>`, 1
//!   `world_normal: vec3<f32>`, 2 `uv0: vec2<f32>`, 3 `world_tangent: vec4<f32>`, 4
//!   `color: vec4<f32>` — any subset. The vertex stage is the engine's (instancing, every
//!   entity's transform, shadows and the depth prepass as for any material).
//! * **Output**: one `vec4<f32>` at location 0, written to the HDR scene colour before
//!   tonemapping, linear, and premultiplied where it blends (the
//!   [`Blending`] modes blend it as they blend a `.ron` material's output).
//! * **Bindings** are in group 1, bound by name: each uniform block takes the bytes the app
//!   set with [`set_block`](ShaderMaterial::set_block) (by the block's variable or type name;
//!   zeros until set; pack them with the layout from [`block`](ShaderMaterial::block)), each
//!   texture the image set with [`set_image`](ShaderMaterial::set_image) (white until set) and
//!   its `<name>_sampler` the engine's trilinear repeating sampler. `environment_radiance`
//!   (a `texture_cube<f32>`) with `environment_radiance_sampler` is the scene's environment
//!   when [`environment`](ShaderMaterial::environment) is on and black when it is off.
//! * **Render state** is the material's: [`blending`](ShaderMaterial::blending),
//!   [`culling`](ShaderMaterial::culling), [`depth`](ShaderMaterial::depth) (by default what
//!   the blending implies, as for `.ron` materials).
//!
//! Shader materials do not hot reload (a `.ron` material with a `fragment` is the
//! reloading kind).

use std::path::Path;
use std::sync::Arc;

use bevy_asset::{Asset, Handle};
use bevy_image::Image;
use bevy_reflect::TypePath;
use f3d_materials::format::{Blending, Culling, DepthState};
use f3d_materials::{BlockLayout, MaterialError};

/// A raw fragment shader as a material (see the [module docs](self)).
#[derive(Asset, TypePath, Clone, Debug)]
pub struct ShaderMaterial {
    shader: Arc<f3d_materials::ShaderMaterial>,
    /// How its output meets what is drawn (opaque by default).
    pub blending: Blending,
    /// Which faces are culled (back faces by default).
    pub culling: Culling,
    /// The depth test; `None` takes what the blending implies.
    pub depth: Option<DepthState>,
    /// Whether `environment_radiance` holds the scene's environment (on by default) or black.
    pub environment: bool,
    /// Each uniform block's bytes, by variable name.
    blocks: Vec<(String, Vec<u8>)>,
    /// Images bound to texture bindings, by name.
    images: Vec<(String, Handle<Image>)>,
}

impl ShaderMaterial {
    fn new(shader: f3d_materials::ShaderMaterial) -> Self {
        let blocks =
            shader.uniform_blocks().iter().map(|b| (b.name.clone(), vec![0; b.size as usize])).collect();
        Self {
            shader: Arc::new(shader),
            blending: Blending::Opaque,
            culling: Culling::Back,
            depth: None,
            environment: true,
            blocks,
            images: Vec::new(),
        }
    }

    /// A WGSL fragment shader (`label` names it in errors), checked against the contract.
    // MaterialError is the materials crate's one (large) error type; made once per material.
    #[allow(clippy::result_large_err)]
    pub fn from_wgsl(label: &str, source: &str) -> Result<Self, MaterialError> {
        f3d_materials::ShaderMaterial::from_wgsl(label, source).map(Self::new)
    }

    /// A Vulkan GLSL 450 fragment shader, checked against the contract.
    #[allow(clippy::result_large_err)]
    pub fn from_glsl(label: &str, source: &str) -> Result<Self, MaterialError> {
        f3d_materials::ShaderMaterial::from_glsl(label, source).map(Self::new)
    }

    /// A `.wgsl`, `.glsl` or `.frag` file.
    #[allow(clippy::result_large_err)]
    pub fn load(path: impl AsRef<Path>) -> Result<Self, MaterialError> {
        f3d_materials::ShaderMaterial::from_path(path.as_ref()).map(Self::new)
    }

    /// The compiled shader (its module, entry point and reflected blocks).
    pub fn shader(&self) -> &Arc<f3d_materials::ShaderMaterial> {
        &self.shader
    }

    /// The layout of the block whose type or variable is called `name`: member offsets and
    /// the size [`set_block`](Self::set_block) takes.
    pub fn block(&self, name: &str) -> Option<&BlockLayout> {
        self.shader.block(name)
    }

    /// Sets the bytes of the uniform block whose type or variable is called `name`: exactly
    /// its size (see [`block`](Self::block)). An unknown name or another length is an error.
    pub fn set_block(&mut self, name: &str, bytes: &[u8]) -> Result<&mut Self, ShaderMaterialError> {
        let block = self.shader.block(name).ok_or_else(|| self.unknown(name, "uniform block"))?;
        if bytes.len() != block.size as usize {
            return Err(ShaderMaterialError::Size {
                shader: self.shader.label().to_owned(),
                block: name.to_owned(),
                expected: block.size,
                given: bytes.len(),
            });
        }
        let var = block.name.clone();
        if let Some((_, b)) = self.blocks.iter_mut().find(|(n, _)| *n == var) {
            b.copy_from_slice(bytes);
        }
        Ok(self)
    }

    /// The bytes of each uniform block, by variable name (zeros until set).
    pub fn blocks(&self) -> &[(String, Vec<u8>)] {
        &self.blocks
    }

    /// Binds an image to the texture binding `name` (2D or cube, as the shader declares it;
    /// an image of the other dimension draws white, with an error logged).
    pub fn set_image(&mut self, name: &str, image: Handle<Image>) -> Result<&mut Self, ShaderMaterialError> {
        if !self.textures().any(|(n, _)| n == name) {
            return Err(self.unknown(name, "texture"));
        }
        self.images.retain(|(n, _)| n != name);
        self.images.push((name.to_owned(), image));
        Ok(self)
    }

    /// The images bound by name.
    pub fn images(&self) -> &[(String, Handle<Image>)] {
        &self.images
    }

    /// The shader's own texture bindings (name, whether it is a cube), the engine's
    /// `environment_radiance` left out.
    pub fn textures(&self) -> impl Iterator<Item = (&str, bool)> {
        self.shader.textures().iter().map(|(name, cube)| (name.as_str(), *cube))
    }

    /// Sets [`blending`](Self::blending).
    pub fn with_blending(mut self, blending: Blending) -> Self {
        self.blending = blending;
        self
    }

    /// Sets [`culling`](Self::culling).
    pub fn with_culling(mut self, culling: Culling) -> Self {
        self.culling = culling;
        self
    }

    /// Sets [`depth`](Self::depth).
    pub fn with_depth(mut self, depth: DepthState) -> Self {
        self.depth = Some(depth);
        self
    }

    /// Sets [`environment`](Self::environment).
    pub fn with_environment(mut self, on: bool) -> Self {
        self.environment = on;
        self
    }

    fn unknown(&self, name: &str, what: &'static str) -> ShaderMaterialError {
        ShaderMaterialError::Unknown { shader: self.shader.label().to_owned(), name: name.to_owned(), what }
    }
}

/// A value a [`ShaderMaterial`] does not take.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ShaderMaterialError {
    /// No binding of that name and kind.
    #[error("{shader}: the shader has no {what} called `{name}`")]
    Unknown {
        /// The shader's label.
        shader: String,
        /// The name asked for.
        name: String,
        /// What was looked for.
        what: &'static str,
    },
    /// Bytes of the wrong length for a block.
    #[error("{shader}: block `{block}` is {expected} bytes, {given} were given")]
    Size {
        /// The shader's label.
        shader: String,
        /// The block.
        block: String,
        /// Its size.
        expected: u32,
        /// The bytes given.
        given: usize,
    },
}
