//! SPIR-V from validated naga modules (naga's spv-out), and the vulkan [`MaterialCompiler`].
//!
//! One set of writer options serves both: shaders made by a device and materials compiled
//! for the backend come out the same way.
//!
//! * **Y points up in clip space** on every f3d backend, and down in Vulkan's: vertex stages
//!   flip `position.y` (`ADJUST_COORDINATE_SPACE`), so clip-space y up lands in the top rows and
//!   viewports keep their y-down pixel rectangles with no negative-height trick.
//! * **Points** have a size: vertex stages write `PointSize = 1` (`FORCE_POINT_SIZE`), which
//!   Vulkan needs for point-list pipelines and ignores otherwise.
//! * **Robust access**: indices into arrays, buffers and image loads are clamped or read zero
//!   (naga's bounds-check policies), on top of the device's `robustBufferAccess`.
//! * **No debug info**: no `OpSource`, so the validation layers never see WGSL's source
//!   language (Debian's 1.3.239 layers misreport it as "Invalid source language operand: 10";
//!   DESIGN §9). Nothing is filtered from the layer's messages.
//! * **Capabilities** are limited to what the device enabled: a shader needing more (64-bit
//!   floats on a device without `shaderFloat64`, say) is refused by name here instead of
//!   reaching `vkCreateShaderModule`.

use std::sync::Arc;

use f3d_hal::naga;
use f3d_hal::shader_cache::ShaderCache;
use f3d_hal::{BackendId, ShaderStage, ValidatedModule};
use f3d_materials::{BackendShader, MaterialCompiler, MaterialError};
use naga::back::spv;

use crate::instance::Enabled;

/// The SPIR-V capabilities a device (or the baseline) lets shaders use.
#[derive(Clone, Debug)]
pub(crate) struct ShaderCaps {
    capabilities: naga::FastHashSet<spv::Capability>,
    /// The capabilities in order, as words: the part of a SPIR-V cache key that says which
    /// devices' words these are.
    key: String,
}

impl ShaderCaps {
    /// What every Vulkan 1.3 device allows.
    pub(crate) fn baseline() -> Self {
        Self::from_enabled(&Enabled::default())
    }

    /// What a device with `enabled` allows.
    pub(crate) fn from_enabled(enabled: &Enabled) -> Self {
        use spv::Capability as C;
        let mut caps: Vec<C> = vec![
            C::Shader,
            C::Matrix,
            C::ImageQuery,
            C::DerivativeControl,
            C::Sampled1D,
            C::Image1D,
            C::SampledBuffer,
            C::StorageImageExtendedFormats,
        ];
        let mut add = |on: bool, list: &[C]| {
            if on {
                caps.extend_from_slice(list);
            }
        };
        add(enabled.image_cube_array, &[C::SampledCubeArray, C::ImageCubeArray]);
        add(enabled.sample_rate_shading, &[C::SampleRateShading]);
        add(enabled.shader_clip_distance, &[C::ClipDistance]);
        add(enabled.shader_float64, &[C::Float64]);
        add(enabled.shader_int64, &[C::Int64]);
        add(enabled.shader_int16, &[C::Int16]);
        add(enabled.shader_float16, &[C::Float16]);
        add(enabled.multiview, &[C::MultiView]);
        let mut names: Vec<String> = caps.iter().map(|c| format!("{c:?}")).collect();
        names.sort();
        names.dedup();
        Self { capabilities: caps.into_iter().collect(), key: names.join(",") }
    }
}

fn options(caps: &ShaderCaps, flags: spv::WriterFlags) -> spv::Options<'static> {
    spv::Options {
        lang_version: (1, 3),
        flags,
        // Bindings keep their WGSL group and binding numbers as descriptor set and binding.
        fake_missing_bindings: true,
        capabilities: Some(caps.capabilities.clone()),
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: naga::proc::BoundsCheckPolicy::Restrict,
            buffer: naga::proc::BoundsCheckPolicy::Restrict,
            image_load: naga::proc::BoundsCheckPolicy::ReadZeroSkipWrite,
            binding_array: naga::proc::BoundsCheckPolicy::Restrict,
        },
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::Polyfill,
        debug_info: None,
        ..spv::Options::default()
    }
}

fn flags() -> spv::WriterFlags {
    // ADJUST_COORDINATE_SPACE and FORCE_POINT_SIZE only touch vertex stages.
    spv::WriterFlags::ADJUST_COORDINATE_SPACE
        | spv::WriterFlags::FORCE_POINT_SIZE
        | spv::WriterFlags::CLAMP_FRAG_DEPTH
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    message
}

/// SPIR-V words of one entry point.
pub(crate) fn entry_spirv(
    module: &ValidatedModule,
    stage: ShaderStage,
    entry_point: &str,
    caps: &ShaderCaps,
) -> Result<Vec<u32>, String> {
    let pipeline =
        spv::PipelineOptions { shader_stage: stage.to_naga(), entry_point: entry_point.to_owned() };
    let words = spv::write_vec(module.module(), module.info(), &options(caps, flags()), Some(&pipeline))
        .map_err(|e| error_chain(&e))?;
    check_capabilities(&words, caps)?;
    Ok(words)
}

/// SPIR-V words of one entry point, kept with the module ([`ValidatedModule::compiled`]): the
/// material check and `create_shader` of every device with the same capabilities share them;
/// and on disk in `cache` ([`ValidatedModule::compiled_cached`]), so the next run reads them
/// instead of running naga's SPIR-V writer.
pub(crate) fn cached_entry_spirv(
    module: &ValidatedModule,
    stage: ShaderStage,
    entry_point: &str,
    caps: &ShaderCaps,
    cache: &ShaderCache,
) -> Result<Arc<Vec<u32>>, String> {
    let key = format!("vulkan spirv [{}] {stage} {entry_point}", caps.key);
    // On disk the key also names how the words are written: this file's text (the writer's
    // options live here), so an edited compiler never reads an older one's words.
    static WRITER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let writer = WRITER.get_or_init(|| blake3_hex(include_str!("compiler.rs")));
    let disk_key = format!("{key} writer {writer}");
    let encode = |words: &Vec<u32>| Some(words.iter().flat_map(|w| w.to_le_bytes()).collect());
    let decode = |bytes: &[u8]| {
        let words: Vec<u32> =
            bytes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        (bytes.len().is_multiple_of(4) && words.first() == Some(&SPIRV_MAGIC)).then_some(words)
    };
    module.compiled_cached(&disk_key, cache, encode, decode, || entry_spirv(module, stage, entry_point, caps))
}

/// The hash of `text`, as hex (the shader cache's own key function, over one part).
fn blake3_hex(text: &str) -> String {
    f3d_hal::shader_cache::CacheKey::of(&[text.as_bytes()]).hex()
}

/// The first word of every SPIR-V module.
const SPIRV_MAGIC: u32 = 0x0723_0203;

/// SPIR-V words of a whole module (every entry point).
pub(crate) fn module_spirv(module: &ValidatedModule, caps: &ShaderCaps) -> Result<Vec<u32>, String> {
    let words = spv::write_vec(module.module(), module.info(), &options(caps, flags()), None)
        .map_err(|e| error_chain(&e))?;
    check_capabilities(&words, caps)?;
    Ok(words)
}

/// The operands of every instruction with `opcode`, after the 5-word header.
fn instructions(words: &[u32], opcode: u32) -> impl Iterator<Item = &[u32]> {
    let mut i = 5;
    std::iter::from_fn(move || {
        while i < words.len() {
            let count = (words[i] >> 16) as usize;
            if count == 0 {
                return None;
            }
            let at = i;
            i += count;
            if words[at] & 0xffff == opcode {
                return words.get(at + 1..at + count);
            }
        }
        None
    })
}

/// Refuses SPIR-V declaring a capability the device did not enable. naga checks some
/// capabilities against its options but declares others (`Float64` for `f64`) regardless, so
/// the words themselves are the authority.
fn check_capabilities(words: &[u32], caps: &ShaderCaps) -> Result<(), String> {
    const OP_CAPABILITY: u32 = 17;
    for operands in instructions(words, OP_CAPABILITY) {
        let Some(&raw) = operands.first() else { continue };
        let known = spv::Capability::from_u32(raw);
        if known.is_none_or(|c| !caps.capabilities.contains(&c)) {
            let name = known.map_or_else(|| format!("capability {raw}"), |c| format!("{c:?}"));
            return Err(format!(
                "the shader needs the SPIR-V capability {name}, which this Vulkan device does not enable"
            ));
        }
    }
    Ok(())
}

/// Turns validated modules into what the vulkan backend runs: SPIR-V words, written with the
/// options the device uses, refusing shaders that need capabilities the device lacks.
#[derive(Clone, Debug)]
pub struct VulkanCompiler {
    caps: ShaderCaps,
}

impl VulkanCompiler {
    /// For materials that must run on any Vulkan 1.3 device: no optional shader capability.
    pub fn new() -> Self {
        Self { caps: ShaderCaps::baseline() }
    }

    /// For `device`: the capabilities its features enabled.
    pub fn for_device(device: &crate::VulkanDevice) -> Self {
        Self { caps: device.shader_caps().clone() }
    }
}

impl Default for VulkanCompiler {
    fn default() -> Self {
        Self::new()
    }
}

impl MaterialCompiler for VulkanCompiler {
    fn backend(&self) -> BackendId {
        BackendId::VULKAN
    }

    fn compile(&self, label: &str, module: &Arc<ValidatedModule>) -> Result<BackendShader, MaterialError> {
        module_spirv(module, &self.caps).map(BackendShader::SpirV).map_err(|reason| MaterialError::Backend {
            backend: BackendId::VULKAN.to_string(),
            label: label.to_owned(),
            reason,
        })
    }
}

/// Whether SPIR-V `words` contain an `OpSource` instruction (opcode 3).
#[cfg(test)]
fn has_op_source(words: &[u32]) -> bool {
    instructions(words, 3).next().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(source: &str) -> Arc<ValidatedModule> {
        Arc::new(f3d_materials::compile_wgsl("t.wgsl", source).expect("compiles"))
    }

    const WGSL: &str = r#"
        @vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
            return vec4<f32>(f32(i), 1.0, 0.0, 1.0);
        }
        @fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }
    "#;

    #[test]
    fn spirv_has_no_op_source() {
        let m = module(WGSL);
        let words = entry_spirv(&m, ShaderStage::Vertex, "vs", &ShaderCaps::baseline()).expect("spirv");
        assert_eq!(words[0], 0x0723_0203, "SPIR-V magic");
        assert!(!has_op_source(&words), "OpSource would reach the validation layers");
        let whole = module_spirv(&m, &ShaderCaps::baseline()).expect("spirv");
        assert!(!has_op_source(&whole));
    }

    #[test]
    fn f64_needs_the_device_capability() {
        let m = module("@compute @workgroup_size(1) fn main() { var x: f64 = 1.0lf; x = x * 2.0lf; }");
        let baseline = VulkanCompiler::new().compile("f64", &m);
        assert!(
            matches!(&baseline, Err(MaterialError::Backend { backend, reason, .. }) if backend == "vulkan" && reason.contains("Float64")),
            "{baseline:?}"
        );
        let with = VulkanCompiler {
            caps: ShaderCaps::from_enabled(&Enabled { shader_float64: true, ..Enabled::default() }),
        };
        assert!(matches!(with.compile("f64", &m), Ok(BackendShader::SpirV(_))));
    }

    #[test]
    fn a_missing_entry_point_is_an_error() {
        let m = module(WGSL);
        assert!(entry_spirv(&m, ShaderStage::Fragment, "nope", &ShaderCaps::baseline()).is_err());
    }
}
