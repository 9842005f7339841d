//! Composition: a checked material becomes one complete WGSL module per variant.
//!
//! ```text
//!  surface.wgsl (+ view, draw)           the contract: VertexInputs, MaterialInputs, accessors
//!  generated: MaterialParams + textures  from the parameters (MaterialLayout)
//!  generated: VertexInput/VertexOutput   engine attributes/varyings + the material's own
//!  the material's vertex (or an empty one)
//!  the material's fragment (surface)
//!  mesh.wgsl, lighting.wgsl (Lit), fragment.wgsl   the entry points of the variant
//! ```
//!
//! Variants are preprocessor defines: `F3D_VARIANT_COLOR|DEPTH|SHADOW`, `F3D_LIT|F3D_UNLIT`,
//! `F3D_SCENE_COLOR`, `F3D_SCENE_DEPTH`, `F3D_BLEND_<MODE>`, `F3D_DOUBLE_SIDED`, and
//! `F3D_INSTANCED` (the model matrix per instance, from [`INSTANCE_LOCATIONS`], instead of the
//! per-draw `draw` block).

pub(crate) mod preprocess;

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::MaterialError;
use crate::format::load::UserCode;
use crate::format::{Blending, Culling, LoadedMaterial, ParamType, ShadingModel};
use crate::layout::MaterialLayout;
use crate::library::{
    ENGINE_ATTRIBUTES, ENGINE_VARYINGS, FIRST_CUSTOM_LOCATION, INSTANCE_LOCATIONS,
    INSTANCE_MATERIAL_LOCATION, MATERIAL_SLOT_VARYING_LOCATION,
};
use crate::source::{Location, SourceText};
use preprocess::Preprocessor;

/// Which module of a material: the colour pass, the depth prepass or the shadow map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// `vs_mesh` + `fs_lit` or `fs_unlit`.
    Color,
    /// `vs_depth` + `fs_depth`.
    DepthOnly,
    /// `vs_shadow` + `fs_shadow`.
    Shadow,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 3] = [Self::Color, Self::DepthOnly, Self::Shadow];

    /// The define that selects it.
    pub fn define(self) -> &'static str {
        match self {
            Self::Color => "F3D_VARIANT_COLOR",
            Self::DepthOnly => "F3D_VARIANT_DEPTH",
            Self::Shadow => "F3D_VARIANT_SHADOW",
        }
    }

    /// The vertex and fragment entry points of this variant for a shading model.
    pub fn entry_points(self, shading: ShadingModel) -> (&'static str, &'static str) {
        match (self, shading) {
            (Self::Color, ShadingModel::Lit) => ("vs_mesh", "fs_lit"),
            (Self::Color, ShadingModel::Unlit) => ("vs_mesh", "fs_unlit"),
            (Self::DepthOnly, _) => ("vs_depth", "fs_depth"),
            (Self::Shadow, _) => ("vs_shadow", "fs_shadow"),
        }
    }

    /// A lower-case name for labels.
    pub fn name(self) -> &'static str {
        match self {
            Self::Color => "color",
            Self::DepthOnly => "depth",
            Self::Shadow => "shadow",
        }
    }
}

/// Where a stretch of the composed text came from.
#[derive(Clone, Debug)]
pub(crate) enum Origin {
    /// A file (library, project include, `fragment_file`).
    Text(SourceText),
    /// Code written inside the `.ron`.
    User(UserCode),
}

impl Origin {
    fn text(&self) -> &str {
        match self {
            Self::Text(t) => t.text(),
            Self::User(u) => u.text(),
        }
    }

    fn location(&self, offset: usize, len: usize) -> Location {
        match self {
            Self::Text(t) => t.location(offset, len),
            Self::User(u) => u.location(offset, len),
        }
    }

    fn is_library(&self) -> bool {
        matches!(self, Self::Text(t) if t.path().starts_with("<f3d>"))
    }
}

#[derive(Clone, Debug)]
struct Segment {
    out_start: usize,
    len: usize,
    origin: usize,
    origin_offset: usize,
}

/// A composed WGSL module and the map from its bytes back to the files they came from.
#[derive(Clone, Debug, Default)]
pub struct ComposedSource {
    text: String,
    origins: Vec<Origin>,
    segments: Vec<Segment>,
    files: Vec<PathBuf>,
}

/// What a byte of a composed module is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// Written by f3d_materials for this material.
    Generated,
    /// A file of the engine library.
    Library,
    /// The material's own code (the `.ron`, its `fragment_file`, a project include).
    User,
}

impl ComposedSource {
    /// The WGSL naga parses.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Project files read through `#include` (for hot reload).
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// A source that rewrites one file line by line (origin 0).
    pub(crate) fn for_rewrite(file: SourceText) -> Self {
        Self { origins: vec![Origin::Text(file)], ..Self::default() }
    }

    /// Copies `text`, found at `origin_offset` of origin 0.
    pub(crate) fn copy_line(&mut self, origin_offset: usize, text: &str) {
        self.copy(0, origin_offset, text);
    }

    /// Appends text with no origin.
    pub(crate) fn push_generated(&mut self, text: &str) {
        self.text.push_str(text);
    }

    fn copy(&mut self, origin: usize, origin_offset: usize, line: &str) {
        self.segments.push(Segment { out_start: self.text.len(), len: line.len(), origin, origin_offset });
        self.text.push_str(line);
    }

    fn segment(&self, offset: usize) -> Option<&Segment> {
        let i = self.segments.partition_point(|s| s.out_start + s.len <= offset);
        self.segments.get(i).filter(|s| s.out_start <= offset)
    }

    /// Where byte `offset` (of a span `len` long) of the composed text was written; `None` for
    /// generated text.
    pub fn location(&self, offset: usize, len: usize) -> Option<Location> {
        let seg = self.segment(offset)?;
        let origin = self.origins.get(seg.origin)?;
        let within = offset - seg.out_start;
        Some(origin.location(seg.origin_offset + within, len.min(seg.len - within).max(1)))
    }

    /// What byte `offset` of the composed text is.
    pub fn kind(&self, offset: usize) -> SourceKind {
        match self.segment(offset).and_then(|s| self.origins.get(s.origin)) {
            None => SourceKind::Generated,
            Some(o) if o.is_library() => SourceKind::Library,
            Some(_) => SourceKind::User,
        }
    }
}

/// The defines of one variant of a material.
pub fn defines(material: &LoadedMaterial, variant: Variant) -> Vec<String> {
    let desc = &material.desc;
    let mut d = vec![variant.define().to_owned()];
    d.push(match desc.shading_model {
        ShadingModel::Lit => "F3D_LIT".into(),
        ShadingModel::Unlit => "F3D_UNLIT".into(),
    });
    d.extend(desc.engine_inputs.iter().map(|e| e.define().to_owned()));
    d.push(
        match desc.blending {
            Blending::Opaque => "F3D_BLEND_OPAQUE",
            Blending::Alpha => "F3D_BLEND_ALPHA",
            Blending::Additive => "F3D_BLEND_ADDITIVE",
            Blending::Multiply => "F3D_BLEND_MULTIPLY",
            Blending::Premultiplied => "F3D_BLEND_PREMULTIPLIED",
        }
        .into(),
    );
    if desc.culling == Culling::None {
        d.push("F3D_DOUBLE_SIDED".into());
    }
    if material.light.is_some() && desc.shading_model == ShadingModel::Lit {
        d.push("F3D_CUSTOM_LIGHT".into());
    }
    d
}

/// Composes `material`'s module for `variant`. `include_dirs` are the project folders
/// `#include` searches after the engine library and the material's own folder; `instanced`
/// reads the model matrix per instance ([`INSTANCE_LOCATIONS`]) instead of from `draw`;
/// `material_slots > 0` (with `instanced`) reads the parameters from an array of that many
/// blocks, at the slot each instance carries ([`INSTANCE_MATERIAL_LOCATION`]).
pub fn compose_material(
    material: &LoadedMaterial,
    layout: &MaterialLayout,
    variant: Variant,
    include_dirs: &[PathBuf],
    instanced: bool,
    material_slots: u32,
) -> Result<ComposedSource, MaterialError> {
    let material_slots = if instanced && layout.block.is_some() { material_slots } else { 0 };
    let desc = &material.desc;
    let mut all_defines = defines(material, variant);
    if instanced {
        all_defines.push("F3D_INSTANCED".into());
    }
    let mut pre = Preprocessor::new(all_defines, include_dirs);
    let dir = material.path().parent().map(|p| p.to_path_buf());
    // The name is free text in a line comment: every character WGSL ends a line at (CR, VT,
    // FF, NEL, U+2028, U+2029 as well as LF) would let the rest of it out as code.
    let name = desc.name.replace(|c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'), " ");
    pre.generated(&format!(
        "// f3d material `{name}`, {} variant: composed by f3d_materials; do not edit.\n",
        variant.name()
    ));
    pre.library("surface.wgsl")?;
    pre.generated("\n// ---- generated: material parameters (@group(1))\n");
    pre.generated(&layout.declarations(desc, material_slots));
    pre.generated("\n// ---- generated: vertex interface\n");
    pre.generated(&interface_wgsl(material, instanced, material_slots > 0));
    match &material.vertex {
        Some(code) => {
            pre.generated("\n// ---- material: vertex\n");
            pre.file(
                format!("user:vertex:{}", material.path().display()),
                "vertex".into(),
                Origin::User(code.clone()),
                dir.clone(),
            )?;
        }
        None => pre.generated("\nfn vertex(v: ptr<function, VertexInputs>) {}\n"),
    }
    pre.generated("\n// ---- material: fragment\n");
    let fragment = &material.fragment;
    let fragment_dir = fragment.file.path().parent().map(|p| p.to_path_buf()).or(dir);
    let fragment_origin = match &fragment.offsets {
        Some(_) => Origin::User(fragment.clone()),
        None => Origin::Text(fragment.file.clone()),
    };
    pre.file(
        format!("user:fragment:{}", fragment.file.path().display()),
        "fragment".into(),
        fragment_origin,
        fragment_dir,
    )?;
    if let Some(code) = &material.light {
        pre.generated("\n// ---- material: light\n");
        let dir = material.path().parent().map(|p| p.to_path_buf());
        pre.file(
            format!("user:light:{}", material.path().display()),
            "light".into(),
            Origin::User(code.clone()),
            dir,
        )?;
    }
    pre.generated("\n// ---- engine: entry points\n");
    pre.library("mesh.wgsl")?;
    if desc.shading_model == ShadingModel::Lit {
        pre.library("lighting.wgsl")?;
    }
    pre.library("fragment.wgsl")?;
    Ok(pre.out)
}

/// VertexInput/VertexOutput with the material's attributes and varyings, the private globals
/// user code reads them through, and the copies in and out. The copies' own names are
/// `f3d_`-prefixed: an attribute or varying may be called anything else (`in`, `out`).
fn interface_wgsl(material: &LoadedMaterial, instanced: bool, material_array: bool) -> String {
    let desc = &material.desc;
    let interp = |ty: ParamType| if ty == ParamType::Int { "@interpolate(flat) " } else { "" };
    let mut s = String::from("struct VertexInput {\n");
    for a in ENGINE_ATTRIBUTES {
        let _ = writeln!(s, "    @location({}) {}: {},", a.location, a.name, a.wgsl);
    }
    if instanced {
        for (row, location) in INSTANCE_LOCATIONS.iter().enumerate() {
            let _ = writeln!(s, "    @location({location}) f3d_instance_row{row}: vec4<f32>,");
        }
    }
    if material_array {
        let _ = writeln!(s, "    @location({INSTANCE_MATERIAL_LOCATION}) f3d_instance_material: u32,");
    }
    for (i, a) in desc.attributes.iter().enumerate() {
        let _ = writeln!(
            s,
            "    @location({}) {}custom_{}: {},",
            FIRST_CUSTOM_LOCATION + i as u32,
            interp(a.ty),
            a.name,
            a.ty.wgsl()
        );
    }
    s += "}\n\nstruct VertexOutput {\n    @builtin(position) clip_position: vec4<f32>,\n";
    for (name, location, ty) in ENGINE_VARYINGS {
        let _ = writeln!(s, "    @location({location}) {name}: {ty},");
    }
    if material_array {
        let _ = writeln!(
            s,
            "    @location({MATERIAL_SLOT_VARYING_LOCATION}) @interpolate(flat) f3d_material_slot: u32,"
        );
    }
    for (i, v) in desc.varyings.iter().enumerate() {
        let _ = writeln!(
            s,
            "    @location({}) {}custom_{}: {},",
            FIRST_CUSTOM_LOCATION + i as u32,
            interp(v.ty),
            v.name,
            v.ty.wgsl()
        );
    }
    s += "}\n\n";
    for v in desc.attributes.iter().chain(&desc.varyings) {
        let _ = writeln!(s, "var<private> {}: {};", v.name, v.ty.wgsl());
    }
    s += "\nfn f3d_load_attributes(f3d_in: VertexInput) {\n";
    if material_array {
        s += "    f3d_select_material(f3d_in.f3d_instance_material);\n";
    }
    for a in &desc.attributes {
        let _ = writeln!(s, "    {0} = f3d_in.custom_{0};", a.name);
    }
    s += "}\n\nfn f3d_store_varyings(f3d_out: ptr<function, VertexOutput>) {\n";
    if material_array {
        s += "    (*f3d_out).f3d_material_slot = f3d_material_slot;\n";
    }
    for v in &desc.varyings {
        let _ = writeln!(s, "    (*f3d_out).custom_{0} = {0};", v.name);
    }
    s += "}\n\nfn f3d_load_varyings(f3d_in: VertexOutput) {\n";
    if material_array {
        s += "    f3d_select_material(f3d_in.f3d_material_slot);\n";
    }
    for v in &desc.varyings {
        let _ = writeln!(s, "    {0} = f3d_in.custom_{0};", v.name);
    }
    s += "}\n";
    s
}
