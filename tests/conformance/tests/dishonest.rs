//! Tests of the tests: deliberately dishonest devices, each of which a named check must
//! catch. Each test also runs the same check on the honest null device, so a check that
//! fails everything cannot pass these tests.

use std::sync::{Arc, Mutex};

use f3d_backend_null::NullDevice;
use f3d_conformance::{Outcome, Tier, all_checks, run_check};
use f3d_hal::{
    AdapterInfo, BackendId, CommandEncoder, DepthRange, DeviceError, DeviceFeature, DeviceFeatures,
    DeviceLimits, DeviceOwner, FormatSupport, FramebufferOrigin, GeometryBuffer, GeometryDescriptor,
    GraphicsDevice, PendingReadback, PipelineDescriptor, PipelineHandle, PipelineRefusals,
    RenderPassDescriptor, SamplerDescriptor, SamplerHandle, ShaderDescriptor, ShaderHandle,
    TextureDescriptor, TextureFormat, TextureHandle, TextureRegion,
};

#[derive(Clone, Copy, PartialEq)]
enum Lie {
    /// Reports the blend constant, then refuses it.
    ReportsButRefuses,
    /// Refuses stencil formats naming MSAA.
    WrongFeatureName,
    /// Copies textures without reporting COPY_TEXTURE.
    DoesWithoutReporting,
    /// Reads rows back bottom-up.
    RowsBottomUp,
    /// Keeps every texture it makes alive.
    LeaksHandles,
}

struct Dishonest {
    inner: NullDevice,
    lie: Lie,
    features: DeviceFeatures,
    kept: Mutex<Vec<TextureHandle>>,
}

impl Dishonest {
    fn new(lie: Lie) -> Self {
        let inner = NullDevice::new("dishonest");
        let mut features = inner.features().clone();
        match lie {
            Lie::ReportsButRefuses => features.insert(DeviceFeature::BLEND_CONSTANT),
            Lie::DoesWithoutReporting => features.remove(DeviceFeature::COPY_TEXTURE),
            _ => {}
        }
        Self { inner, lie, features, kept: Mutex::new(Vec::new()) }
    }
}

impl GraphicsDevice for Dishonest {
    fn backend_id(&self) -> BackendId {
        self.inner.backend_id()
    }
    fn owner(&self) -> &DeviceOwner {
        self.inner.owner()
    }
    fn adapter_info(&self) -> AdapterInfo {
        self.inner.adapter_info()
    }
    fn default_color_format(&self) -> TextureFormat {
        self.inner.default_color_format()
    }
    fn default_depth_stencil_format(&self) -> TextureFormat {
        self.inner.default_depth_stencil_format()
    }
    fn hdr_color_format(&self) -> TextureFormat {
        self.inner.hdr_color_format()
    }
    fn framebuffer_origin(&self) -> FramebufferOrigin {
        self.inner.framebuffer_origin()
    }
    fn depth_range(&self) -> DepthRange {
        self.inner.depth_range()
    }
    fn features(&self) -> &DeviceFeatures {
        &self.features
    }
    fn limits(&self) -> &DeviceLimits {
        self.inner.limits()
    }
    fn texture_format_support(&self, format: TextureFormat) -> FormatSupport {
        self.inner.texture_format_support(format)
    }
    fn create_texture(&self, desc: &TextureDescriptor) -> Result<TextureHandle, DeviceError> {
        if self.lie == Lie::WrongFeatureName && desc.format.has_stencil() {
            return Err(DeviceError::Unsupported {
                feature: DeviceFeature::MSAA,
                backend: self.backend_id(),
            });
        }
        let t = self.inner.create_texture(desc)?;
        if self.lie == Lie::LeaksHandles {
            self.kept.lock().unwrap().push(t.clone());
        }
        Ok(t)
    }
    fn write_texture(
        &self,
        texture: &TextureHandle,
        region: TextureRegion,
        data: &[u8],
    ) -> Result<(), DeviceError> {
        self.inner.write_texture(texture, region, data)
    }
    fn create_geometry(
        &self,
        desc: &GeometryDescriptor,
        data: Option<&[u8]>,
    ) -> Result<GeometryBuffer, DeviceError> {
        self.inner.create_geometry(desc, data)
    }
    fn write_geometry(&self, buffer: &GeometryBuffer, offset: u64, data: &[u8]) -> Result<(), DeviceError> {
        self.inner.write_geometry(buffer, offset, data)
    }
    fn create_sampler(&self, desc: &SamplerDescriptor) -> Result<SamplerHandle, DeviceError> {
        self.inner.create_sampler(desc)
    }
    fn create_shader(&self, desc: &ShaderDescriptor) -> Result<ShaderHandle, DeviceError> {
        self.inner.create_shader(desc)
    }
    fn create_pipeline(&self, desc: &PipelineDescriptor) -> Result<PipelineHandle, DeviceError> {
        self.inner.create_pipeline(desc)
    }
    fn begin_frame(&self) -> Result<(), DeviceError> {
        self.inner.begin_frame()
    }
    fn begin_render_pass(
        &self,
        desc: &RenderPassDescriptor,
    ) -> Result<Box<dyn CommandEncoder + '_>, DeviceError> {
        self.inner.begin_render_pass(desc)
    }
    fn readback(
        &self,
        texture: &TextureHandle,
        region: TextureRegion,
    ) -> Result<PendingReadback, DeviceError> {
        let pending = self.inner.readback(texture, region)?;
        if self.lie != Lie::RowsBottomUp {
            return Ok(pending);
        }
        Ok(PendingReadback::deferred(move || {
            let mut image = pending.wait()?;
            let row = image.data.len() / image.height as usize;
            let flipped: Vec<u8> = image.data.chunks_exact(row).rev().flatten().copied().collect();
            image.data = flipped;
            Ok(image)
        }))
    }
    fn live_resources(&self) -> usize {
        self.inner.live_resources()
    }
    fn pipeline_refusals(&self) -> PipelineRefusals {
        self.inner.pipeline_refusals()
    }
    fn copy_texture(
        &self,
        src: &TextureHandle,
        src_region: TextureRegion,
        dst: &TextureHandle,
        dst_region: TextureRegion,
    ) -> Result<(), DeviceError> {
        self.inner.copy_texture(src, src_region, dst, dst_region)
    }
}

/// Runs `tier::name` on a dishonest device and on the honest null device.
fn judge(lie: Lie, tier: Tier, name: &str) -> (Outcome, Outcome) {
    let check =
        all_checks().into_iter().find(|c| c.tier == tier && c.name == name).expect("the check exists");
    let dishonest = run_check(&check, &BackendId::NULL, &move || {
        Ok(Arc::new(Dishonest::new(lie)) as Arc<dyn GraphicsDevice>)
    });
    let honest = run_check(&check, &BackendId::NULL, &|| {
        Ok(Arc::new(NullDevice::new("honest")) as Arc<dyn GraphicsDevice>)
    });
    (dishonest, honest)
}

fn assert_caught(lie: Lie, tier: Tier, name: &str, words: &str) {
    let (dishonest, honest) = judge(lie, tier, name);
    assert_eq!(honest, Outcome::Passed, "{tier}::{name} must pass on the honest null device");
    match dishonest {
        Outcome::Failed(why) => {
            assert!(why.contains(words), "{tier}::{name} failed for another reason: {why}")
        }
        other => panic!("{tier}::{name} did not catch the lie: {other:?}"),
    }
}

#[test]
fn a_feature_reported_and_refused_is_caught() {
    assert_caught(
        Lie::ReportsButRefuses,
        Tier::Capabilities,
        "blend_constant",
        "blend-constant is not supported",
    );
}

#[test]
fn a_refusal_naming_the_wrong_feature_is_caught() {
    assert_caught(Lie::WrongFeatureName, Tier::Capabilities, "stencil", "naming msaa");
}

#[test]
fn doing_what_is_not_reported_is_caught() {
    assert_caught(
        Lie::DoesWithoutReporting,
        Tier::Capabilities,
        "copy_texture",
        "succeeded although the device does not report copy-texture",
    );
}

#[test]
fn rows_read_bottom_up_are_caught() {
    assert_caught(Lie::RowsBottomUp, Tier::Core, "readback_rows_from_top", "row 0 = top");
}

#[test]
fn leaked_handles_are_caught() {
    assert_caught(Lie::LeaksHandles, Tier::Lifecycle, "handles_release_on_drop", "leaked");
}

#[test]
fn a_declined_factory_declines_every_check_and_never_passes() {
    let check = all_checks()[0];
    let outcome = run_check(&check, &BackendId::new("absent"), &|| {
        Err(f3d_hal::OpenError::DeviceUnavailable {
            backend: BackendId::new("absent"),
            reason: "no adapter".into(),
        })
    });
    // CI may require every backend, but never one called "absent".
    match outcome {
        Outcome::Declined(why) => assert!(why.starts_with("absent: "), "{why}"),
        other => panic!("a factory that cannot open gave {other:?}"),
    }
}

#[test]
fn tier_sizes_are_held() {
    let count = |t| all_checks().iter().filter(|c| c.tier == t).count();
    assert_eq!(count(Tier::Core), 13);
    assert_eq!(count(Tier::Capabilities), DeviceFeature::ALL.len());
    assert_eq!(count(Tier::Lifecycle), 7);
    assert_eq!(count(Tier::Shader), 44);
    assert!(count(Tier::Shader) >= 40, "the shader tier keeps at least 40 checks");
    let mut names: Vec<String> = all_checks().iter().map(|c| c.full_name()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), all_checks().len(), "check names are unique");
}
