//! [`MaterialParameters`]: a material's parameter values, packed into the bytes of its
//! `MaterialParams` block at the offsets naga laid out, plus its textures.
//!
//! The app sets values by name and type; a hot loop resolves [`offset_of`] once and writes the
//! raw block itself. Defaults are applied at construction, so an unset parameter renders
//! sensibly, and [`MaterialParameters::carry_over`] keeps what the app set across a reload.
//!
//! [`offset_of`]: MaterialParameters::offset_of

use std::sync::Arc;

use f3d_hal::{TextureDimension, TextureHandle};

use crate::ParameterError;
use crate::format::{DefaultValue, Hint, MaterialDesc, ParamType};
use crate::layout::{MaterialLayout, ParamSlot};

/// A parameter value, for [`MaterialParameters::set`].
#[derive(Clone, Debug)]
pub enum Value {
    /// For `Float`.
    Float(f32),
    /// For `Int`.
    Int(i32),
    /// For `Vec2`.
    Vec2([f32; 2]),
    /// For `Vec3`.
    Vec3([f32; 3]),
    /// For `Vec4`.
    Vec4([f32; 4]),
    /// For `Mat4`, column-major.
    Mat4([f32; 16]),
    /// For `Texture2d` and `TextureCube`.
    Texture(TextureHandle),
}

impl Value {
    /// The type name for errors.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Float(_) => "Float",
            Self::Int(_) => "Int",
            Self::Vec2(_) => "Vec2",
            Self::Vec3(_) => "Vec3",
            Self::Vec4(_) => "Vec4",
            Self::Mat4(_) => "Mat4",
            Self::Texture(_) => "texture",
        }
    }
}

#[derive(Clone, Debug)]
struct Param {
    name: Arc<str>,
    ty: ParamType,
    hint: Option<Hint>,
    slot: ParamSlot,
    /// Index into `textures` for texture parameters.
    texture_index: usize,
}

/// A material's parameter values: the packed block and the textures.
#[derive(Clone, Debug)]
pub struct MaterialParameters {
    material: Arc<str>,
    params: Arc<[Param]>,
    block: Vec<u8>,
    textures: Vec<Option<TextureHandle>>,
    /// Which parameters the app has set (they survive a reload).
    set_by_app: Vec<bool>,
    /// Whether the app wrote the raw block ([`block_mut`](Self::block_mut)): then every block
    /// parameter counts as set.
    block_written: bool,
    version: u64,
}

/// sRGB-encoded to linear, the decode `SourceColor` parameters get.
fn decode_srgb(v: f32) -> f32 {
    f3d_hal::srgb_to_linear(f64::from(v)) as f32
}

impl MaterialParameters {
    /// The parameters of a checked material, at their defaults (`SourceColor` defaults decoded
    /// to linear; unset numbers are zero).
    pub fn new(desc: &MaterialDesc, layout: &MaterialLayout) -> Self {
        let mut texture_count = 0;
        let params: Vec<Param> = desc
            .parameters
            .iter()
            .zip(&layout.slots)
            .map(|(p, (_, _, slot))| {
                let texture_index = texture_count;
                if p.ty.is_texture() {
                    texture_count += 1;
                }
                Param {
                    name: p.name.as_str().into(),
                    ty: p.ty,
                    hint: p.hint,
                    slot: slot.clone(),
                    texture_index,
                }
            })
            .collect();
        let size = layout.block.as_ref().map_or(0, |b| b.size as usize);
        let mut this = Self {
            material: desc.name.as_str().into(),
            params: params.into(),
            block: vec![0; size],
            textures: vec![None; texture_count],
            set_by_app: vec![false; desc.parameters.len()],
            block_written: false,
            version: 0,
        };
        for (i, p) in desc.parameters.iter().enumerate() {
            if let Some(d) = &p.default {
                this.write_default(i, d);
            }
        }
        this
    }

    /// No parameters at all: what a material that has not loaded yet holds (every setter
    /// answers [`ParameterError::Unknown`]).
    pub fn none(material: &str) -> Self {
        Self {
            material: material.into(),
            params: Arc::new([]),
            block: Vec::new(),
            textures: Vec::new(),
            set_by_app: Vec::new(),
            block_written: false,
            version: 0,
        }
    }

    /// The parameters of a compiled material.
    pub fn for_compiled(desc: &MaterialDesc, compiled: &crate::CompiledMaterial) -> Self {
        Self::new(desc, &compiled.layout)
    }

    fn write_default(&mut self, index: usize, value: &DefaultValue) {
        let Some(p) = self.params.get(index).cloned() else { return };
        let mut numbers = Vec::with_capacity(16);
        flatten(value, &mut numbers);
        if p.ty == ParamType::Int {
            if let (Some(&v), ParamSlot::Block { offset, .. }) = (numbers.first(), &p.slot) {
                self.write_bytes(*offset, &(v as i32).to_le_bytes());
            }
            return;
        }
        let mut floats: Vec<f32> = numbers.iter().map(|&v| v as f32).collect();
        if p.hint == Some(Hint::SourceColor) {
            for c in floats.iter_mut().take(3) {
                *c = decode_srgb(*c);
            }
        }
        if let ParamSlot::Block { offset, .. } = p.slot {
            self.write_floats(offset, &floats);
        }
    }

    fn write_bytes(&mut self, offset: u32, bytes: &[u8]) {
        let start = offset as usize;
        if let Some(dst) = self.block.get_mut(start..start + bytes.len()) {
            dst.copy_from_slice(bytes);
        }
    }

    fn write_floats(&mut self, offset: u32, values: &[f32]) {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.write_bytes(offset, &bytes);
    }

    fn find(&self, name: &str) -> Result<(usize, &Param), ParameterError> {
        self.params.iter().enumerate().find(|(_, p)| *p.name == *name).ok_or_else(|| {
            ParameterError::Unknown {
                material: self.material.to_string(),
                parameter: name.to_owned(),
                declared: self.params.iter().map(|p| p.name.to_string()).collect(),
            }
        })
    }

    fn set_numbers(
        &mut self,
        name: &str,
        given: &'static str,
        want: ParamType,
        values: &[f32],
    ) -> Result<(), ParameterError> {
        let (index, p) = self.find(name)?;
        if p.ty != want {
            return Err(ParameterError::WrongType { parameter: name.to_owned(), declared: p.ty, given });
        }
        if let ParamSlot::Block { offset, .. } = p.slot {
            self.write_floats(offset, values);
        }
        self.touch(index);
        Ok(())
    }

    fn touch(&mut self, index: usize) {
        if let Some(s) = self.set_by_app.get_mut(index) {
            *s = true;
        }
        self.version += 1;
    }

    /// Sets a `Float`.
    pub fn set_float(&mut self, name: &str, value: f32) -> Result<(), ParameterError> {
        self.set_numbers(name, "Float", ParamType::Float, &[value])
    }

    /// Sets an `Int`.
    pub fn set_int(&mut self, name: &str, value: i32) -> Result<(), ParameterError> {
        let (index, p) = self.find(name)?;
        if p.ty != ParamType::Int {
            return Err(ParameterError::WrongType {
                parameter: name.to_owned(),
                declared: p.ty,
                given: "Int",
            });
        }
        if let ParamSlot::Block { offset, .. } = p.slot {
            self.write_bytes(offset, &value.to_le_bytes());
        }
        self.touch(index);
        Ok(())
    }

    /// Sets a `Vec2`.
    pub fn set_vec2(&mut self, name: &str, value: [f32; 2]) -> Result<(), ParameterError> {
        self.set_numbers(name, "Vec2", ParamType::Vec2, &value)
    }

    /// Sets a `Vec3`.
    pub fn set_vec3(&mut self, name: &str, value: [f32; 3]) -> Result<(), ParameterError> {
        self.set_numbers(name, "Vec3", ParamType::Vec3, &value)
    }

    /// Sets a `Vec4`.
    pub fn set_vec4(&mut self, name: &str, value: [f32; 4]) -> Result<(), ParameterError> {
        self.set_numbers(name, "Vec4", ParamType::Vec4, &value)
    }

    /// Sets a `Mat4` (column-major).
    pub fn set_mat4(&mut self, name: &str, value: [f32; 16]) -> Result<(), ParameterError> {
        self.set_numbers(name, "Mat4", ParamType::Mat4, &value)
    }

    /// Sets a colour parameter (`Vec3` takes the RGB, `Vec4` all four). A `SourceColor`
    /// parameter takes sRGB-encoded RGB and stores it decoded to linear; alpha is linear.
    pub fn set_color(&mut self, name: &str, rgba: [f32; 4]) -> Result<(), ParameterError> {
        let (_, p) = self.find(name)?;
        let (ty, hint) = (p.ty, p.hint);
        let mut c = rgba;
        if hint == Some(Hint::SourceColor) {
            for v in c.iter_mut().take(3) {
                *v = decode_srgb(*v);
            }
        }
        match ty {
            ParamType::Vec3 => self.set_numbers(name, "color", ty, &c[..3]),
            ParamType::Vec4 => self.set_numbers(name, "color", ty, &c),
            declared => {
                Err(ParameterError::WrongType { parameter: name.to_owned(), declared, given: "color" })
            }
        }
    }

    /// Sets a texture parameter; its dimension must match (`Texture2d` a 2D texture,
    /// `TextureCube` a cube) and it must be sampleable.
    pub fn set_texture(&mut self, name: &str, texture: TextureHandle) -> Result<(), ParameterError> {
        let (index, p) = self.find(name)?;
        let want = match p.ty {
            ParamType::Texture2d => TextureDimension::D2,
            ParamType::TextureCube => TextureDimension::Cube,
            declared => {
                return Err(ParameterError::WrongType {
                    parameter: name.to_owned(),
                    declared,
                    given: "texture",
                });
            }
        };
        let desc = texture.descriptor();
        if desc.dimension != want
            || !desc.usage.contains(f3d_hal::TextureUsages::SAMPLED)
            || desc.sample_count != 1
        {
            return Err(ParameterError::WrongTexture {
                parameter: name.to_owned(),
                declared: p.ty,
                given: format!(
                    "{:?} {:?} (usage {:?}, {} samples)",
                    desc.dimension, desc.format, desc.usage, desc.sample_count
                ),
            });
        }
        let slot = p.texture_index;
        if let Some(t) = self.textures.get_mut(slot) {
            *t = Some(texture);
        }
        self.touch(index);
        Ok(())
    }

    /// Sets any parameter, dispatching on the value's type.
    pub fn set(&mut self, name: &str, value: Value) -> Result<(), ParameterError> {
        match value {
            Value::Float(v) => self.set_float(name, v),
            Value::Int(v) => self.set_int(name, v),
            Value::Vec2(v) => self.set_vec2(name, v),
            Value::Vec3(v) => self.set_vec3(name, v),
            Value::Vec4(v) => self.set_vec4(name, v),
            Value::Mat4(v) => self.set_mat4(name, v),
            Value::Texture(t) => self.set_texture(name, t),
        }
    }

    /// The current value of a parameter (a texture's only if set).
    pub fn get(&self, name: &str) -> Option<Value> {
        let (_, p) = self.find(name).ok()?;
        let floats = |n: usize| -> Option<Vec<f32>> {
            let ParamSlot::Block { offset, .. } = p.slot else { return None };
            let bytes = self.block.get(offset as usize..offset as usize + 4 * n)?;
            Some(bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
        };
        Some(match p.ty {
            ParamType::Float => Value::Float(*floats(1)?.first()?),
            ParamType::Int => {
                let ParamSlot::Block { offset, .. } = p.slot else { return None };
                let b = self.block.get(offset as usize..offset as usize + 4)?;
                Value::Int(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            ParamType::Vec2 => Value::Vec2(floats(2)?.try_into().ok()?),
            ParamType::Vec3 => Value::Vec3(floats(3)?.try_into().ok()?),
            ParamType::Vec4 => Value::Vec4(floats(4)?.try_into().ok()?),
            ParamType::Mat4 => Value::Mat4(floats(16)?.try_into().ok()?),
            ParamType::Texture2d | ParamType::TextureCube => {
                Value::Texture(self.textures.get(p.texture_index)?.clone()?)
            }
        })
    }

    /// The byte offset of a block parameter in [`block`](Self::block) (from naga's layout);
    /// `None` for textures and unknown names. Resolve once, write in the hot loop.
    pub fn offset_of(&self, name: &str) -> Option<u32> {
        match self.find(name).ok()?.1.slot {
            ParamSlot::Block { offset, .. } => Some(offset),
            ParamSlot::Texture { .. } => None,
        }
    }

    /// The packed `MaterialParams` bytes, ready for `bind_uniform_block("MaterialParams", ..)`.
    /// Empty when the material has no numeric parameter.
    pub fn block(&self) -> &[u8] {
        &self.block
    }

    /// The packed bytes, writable (with [`offset_of`](Self::offset_of)); counts as a change.
    /// Every block parameter then counts as set by the app: a new version of the file (hot
    /// reload) keeps their values where it has a parameter of the same name and type, as it
    /// keeps values given through [`set`](Self::set).
    pub fn block_mut(&mut self) -> &mut [u8] {
        self.version += 1;
        self.block_written = true;
        &mut self.block
    }

    /// Each texture parameter: its name (shared: cloning it allocates nothing), the texture set
    /// (if any), and the RGBA8 texel the renderer binds instead when it is unset (from its
    /// `Default*` hint; white without one).
    pub fn textures(&self) -> impl Iterator<Item = (&Arc<str>, Option<&TextureHandle>, [u8; 4])> {
        self.params.iter().filter(|p| p.ty.is_texture()).map(|p| {
            let fallback = p.hint.and_then(|h| h.default_texel()).unwrap_or([255; 4]);
            (&p.name, self.textures.get(p.texture_index).and_then(Option::as_ref), fallback)
        })
    }

    /// Bumped by every change: a renderer re-uploads when it differs from what it last saw.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Parameters for an edited material that keep every value the app set here, where the
    /// edited material still has a parameter of that name and type; the rest take the edited
    /// defaults (DESIGN §5, hot reload).
    pub fn carry_over(&self, desc: &MaterialDesc, layout: &MaterialLayout) -> Self {
        let mut next = Self::new(desc, layout);
        for (i, p) in self.params.iter().enumerate() {
            let raw = self.block_written && !p.ty.is_texture();
            if !raw && !self.set_by_app.get(i).copied().unwrap_or(false) {
                continue;
            }
            let same = next.params.iter().any(|q| q.name == p.name && q.ty == p.ty);
            if !same {
                continue;
            }
            if let Some(v) = self.get(&p.name) {
                // Same name and type: cannot fail.
                let _ = next.set(&p.name, v);
            }
        }
        next.version = self.version + 1;
        next
    }
}

fn flatten(v: &DefaultValue, out: &mut Vec<f64>) {
    match v {
        DefaultValue::Int(i) => out.push(*i as f64),
        DefaultValue::Float(f) => out.push(*f),
        DefaultValue::List(items) => items.iter().for_each(|i| flatten(i, out)),
        DefaultValue::Bool(_) | DefaultValue::Text(_) => {}
    }
}
