//! Tests of the tests: deliberately dishonest devices, each of which a named check must
//! catch. Each test also runs the same check on the honest null device, so a check that
//! fails everything cannot pass these tests.

use std::sync::{Arc, Mutex};

use std::ops::Range;

use f3d_backend_null::NullDevice;
use f3d_backend_soft::SoftDevice;
use f3d_conformance::declines::AllowedDecline;
use f3d_conformance::{Outcome, Tier, all_checks, run_check, run_check_allowing};
use f3d_hal::{
    AdapterInfo, BackendId, BindingLayout, BindingSlot, CommandEncoder, DepthRange, DeviceError,
    DeviceFeature, DeviceFeatures, DeviceLimits, DeviceOwner, FormatSupport, FramebufferOrigin,
    GeometryBuffer, GeometryDescriptor, GraphicsDevice, IndexFormat, PassEncoder, PendingReadback,
    PipelineDescriptor, PipelineHandle, PipelineRefusal, PipelineRefusals, RenderPassDescriptor,
    SamplerDescriptor, SamplerHandle, ScissorRect, ShaderDescriptor, ShaderHandle, TextureDescriptor,
    TextureFormat, TextureHandle, TextureRegion, Viewport,
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
    /// Keeps every texture it makes alive, and its live counter does not count them.
    LeaksAndHidesIt,
    /// (Over the soft device.) Lists every pipeline as refused, and draws it anyway.
    DrawsRefusedPipelines,
    /// (Over the soft device.) Rebinds uniform blocks after `set_pipeline`.
    BindingsFollowThePipeline,
    /// Reports presentation, and its surfaces say every frame was shown without drawing it.
    PresentsNothing,
    /// Refuses a texture past a limit naming another limit.
    WrongLimitName,
    /// (Over the soft device.) Reads every timestamp back as 0.
    ZeroTimestamps,
    /// (Over the soft device.) Reports neither wireframe nor the blend constant, and refuses
    /// their pipelines as invalid descriptors instead of naming the feature.
    RefusesWithoutNaming,
    /// (Over the soft device.) Does not report wireframe, and makes wireframe pipelines
    /// anyway (a backend that forgot the shared pipeline check).
    ForgetsTheRules,
    /// Reports one sampled texture per stage more than it accepts.
    OverReportsBindings,
    /// Reports half the samplers per stage it accepts, and accepts past what it reports.
    UnderReportsBindings,
    /// (Over the soft device.) Takes `write_geometry` into a storage buffer and drops it, so
    /// passes keep reading what the buffer held when it was made.
    StaleStorage,
}

/// A surface that shows nothing and says it did.
struct Blind(f3d_hal::SurfaceConfig);

impl f3d_hal::PresentSurface for Blind {
    fn label(&self) -> &str {
        "blind"
    }
    fn configure(&mut self, config: &f3d_hal::SurfaceConfig) -> Result<(), DeviceError> {
        self.0 = *config;
        Ok(())
    }
    fn config(&self) -> f3d_hal::SurfaceConfig {
        self.0
    }
    fn present_mode(&self) -> f3d_hal::PresentMode {
        f3d_hal::PresentMode::Fifo
    }
    fn present(&mut self, _frame: &TextureHandle) -> Result<f3d_hal::Presented, DeviceError> {
        Ok(if self.0.width == 0 {
            f3d_hal::Presented::Skipped("no size".into())
        } else {
            f3d_hal::Presented::Shown
        })
    }
}

struct Dishonest {
    inner: Box<dyn GraphicsDevice>,
    lie: Lie,
    features: DeviceFeatures,
    limits: DeviceLimits,
    kept: Mutex<Vec<TextureHandle>>,
    pipelines: Mutex<Vec<String>>,
}

impl Dishonest {
    fn new(lie: Lie) -> Self {
        let inner: Box<dyn GraphicsDevice> = match lie {
            Lie::DrawsRefusedPipelines
            | Lie::BindingsFollowThePipeline
            | Lie::ZeroTimestamps
            | Lie::RefusesWithoutNaming
            | Lie::ForgetsTheRules
            | Lie::StaleStorage => Box::new(SoftDevice::new("dishonest")),
            _ => Box::new(NullDevice::new("dishonest")),
        };
        let mut features = inner.features().clone();
        match lie {
            Lie::ReportsButRefuses => features.insert(DeviceFeature::BLEND_CONSTANT),
            Lie::DoesWithoutReporting => features.remove(DeviceFeature::COPY_TEXTURE),
            Lie::PresentsNothing => features.insert(DeviceFeature::PRESENT),
            Lie::RefusesWithoutNaming => {
                features.remove(DeviceFeature::WIREFRAME);
                features.remove(DeviceFeature::BLEND_CONSTANT);
            }
            Lie::ForgetsTheRules => features.remove(DeviceFeature::WIREFRAME),
            _ => {}
        }
        let mut limits = *inner.limits();
        match lie {
            Lie::OverReportsBindings => limits.max_sampled_textures_per_stage += 1,
            Lie::UnderReportsBindings => limits.max_samplers_per_stage /= 2,
            _ => {}
        }
        Self { inner, lie, features, limits, kept: Mutex::new(Vec::new()), pipelines: Mutex::new(Vec::new()) }
    }
}

/// A pass that rebinds every uniform block it saw after each `set_pipeline`.
struct Following<'a> {
    inner: Box<dyn CommandEncoder + 'a>,
    blocks: Vec<(String, Vec<u8>)>,
}

impl PassEncoder for Following<'_> {
    fn backend(&self) -> BackendId {
        self.inner.backend()
    }
    fn set_pipeline(&mut self, pipeline: &PipelineHandle) -> Result<(), DeviceError> {
        self.inner.set_pipeline(pipeline)?;
        for (name, bytes) in &self.blocks {
            self.inner.bind_uniform_block(name, bytes);
        }
        Ok(())
    }
    fn pipeline_bindings(&self) -> Option<&BindingLayout> {
        self.inner.pipeline_bindings()
    }
    fn set_viewport(&mut self, viewport: Viewport) -> Result<(), DeviceError> {
        self.inner.set_viewport(viewport)
    }
    fn set_scissor(&mut self, rect: Option<ScissorRect>) -> Result<(), DeviceError> {
        self.inner.set_scissor(rect)
    }
    fn set_stencil_reference(&mut self, reference: u32) -> Result<(), DeviceError> {
        self.inner.set_stencil_reference(reference)
    }
    fn set_vertex_buffer(
        &mut self,
        slot: u32,
        buffer: &GeometryBuffer,
        offset: u64,
    ) -> Result<(), DeviceError> {
        self.inner.set_vertex_buffer(slot, buffer, offset)
    }
    fn set_index_buffer(
        &mut self,
        buffer: &GeometryBuffer,
        format: IndexFormat,
        offset: u64,
    ) -> Result<(), DeviceError> {
        self.inner.set_index_buffer(buffer, format, offset)
    }
    fn bind_uniform_block_at(&mut self, slot: BindingSlot, bytes: &[u8]) -> bool {
        let name = self.inner.pipeline_bindings().and_then(|l| l.get(slot)).map(|b| b.name.clone());
        let ok = self.inner.bind_uniform_block_at(slot, bytes);
        if let (true, Some(name)) = (ok, name) {
            self.blocks.retain(|(n, _)| *n != name);
            self.blocks.push((name, bytes.to_vec()));
        }
        ok
    }
    fn bind_texture_at(&mut self, slot: BindingSlot, texture: &TextureHandle) -> bool {
        self.inner.bind_texture_at(slot, texture)
    }
    fn bind_storage_buffer_at(&mut self, slot: BindingSlot, buffer: &GeometryBuffer) -> bool {
        self.inner.bind_storage_buffer_at(slot, buffer)
    }
    fn bind_sampler_at(&mut self, slot: BindingSlot, sampler: &SamplerHandle) -> bool {
        self.inner.bind_sampler_at(slot, sampler)
    }
    fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) -> Result<(), DeviceError> {
        self.inner.draw(vertices, instances)
    }
    fn draw_indexed(
        &mut self,
        indices: Range<u32>,
        base_vertex: i32,
        instances: Range<u32>,
    ) -> Result<(), DeviceError> {
        self.inner.draw_indexed(indices, base_vertex, instances)
    }
}

impl CommandEncoder for Following<'_> {
    fn submit(self: Box<Self>) -> Result<(), DeviceError> {
        self.inner.submit()
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
        &self.limits
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
        let t = match self.inner.create_texture(desc) {
            Err(DeviceError::LimitExceeded { operation, requested, max, .. })
                if self.lie == Lie::WrongLimitName =>
            {
                return Err(DeviceError::LimitExceeded {
                    operation,
                    limit: "max_vertex_attributes",
                    requested,
                    max,
                });
            }
            other => other?,
        };
        if matches!(self.lie, Lie::LeaksHandles | Lie::LeaksAndHidesIt) {
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
        if self.lie == Lie::StaleStorage
            && buffer.descriptor().usage.contains(f3d_hal::GeometryUsages::STORAGE)
        {
            return Ok(());
        }
        self.inner.write_geometry(buffer, offset, data)
    }
    fn create_sampler(&self, desc: &SamplerDescriptor) -> Result<SamplerHandle, DeviceError> {
        self.inner.create_sampler(desc)
    }
    fn create_shader(&self, desc: &ShaderDescriptor) -> Result<ShaderHandle, DeviceError> {
        self.inner.create_shader(desc)
    }
    fn create_pipeline(&self, desc: &PipelineDescriptor) -> Result<PipelineHandle, DeviceError> {
        let constant = desc.color_targets.iter().filter_map(|t| t.blend).any(|b| {
            [b.color, b.alpha].iter().any(|c| c.src_factor.uses_constant() || c.dst_factor.uses_constant())
        });
        if self.lie == Lie::RefusesWithoutNaming
            && (constant || desc.primitive.polygon_mode == f3d_hal::PolygonMode::Line)
        {
            return Err(DeviceError::InvalidDescriptor {
                operation: "create_pipeline",
                label: desc.label.clone(),
                reason: "not today".into(),
            });
        }
        let p = self.inner.create_pipeline(desc)?;
        self.pipelines.lock().unwrap().push(p.label());
        Ok(p)
    }
    fn begin_frame(&self) -> Result<(), DeviceError> {
        self.inner.begin_frame()
    }
    fn begin_render_pass(
        &self,
        desc: &RenderPassDescriptor,
    ) -> Result<Box<dyn CommandEncoder + '_>, DeviceError> {
        let pass = self.inner.begin_render_pass(desc)?;
        if self.lie == Lie::BindingsFollowThePipeline {
            return Ok(Box::new(Following { inner: pass, blocks: Vec::new() }));
        }
        Ok(pass)
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
        let kept = self.kept.lock().unwrap().len();
        let live = self.inner.live_resources();
        if self.lie != Lie::LeaksAndHidesIt {
            return live;
        }
        // Not counted: the kept textures nobody else holds any more (what a release would
        // have freed), so the counter looks as if they were.
        let hidden = self.kept.lock().unwrap().iter().filter(|t| t.clone_count() == 1).count();
        let _ = kept;
        live.saturating_sub(hidden)
    }
    fn memory_report(&self) -> f3d_hal::MemoryReport {
        self.inner.memory_report()
    }
    fn pipeline_refusals(&self) -> PipelineRefusals {
        if self.lie == Lie::DrawsRefusedPipelines {
            let names = self.pipelines.lock().unwrap();
            return names
                .iter()
                .map(|p| PipelineRefusal { pipeline: p.clone(), reason: "refused (not really)".into() })
                .collect();
        }
        self.inner.pipeline_refusals()
    }
    fn create_surface(
        &self,
        target: &f3d_hal::SurfaceTarget,
        config: &f3d_hal::SurfaceConfig,
    ) -> Result<Box<dyn f3d_hal::PresentSurface>, DeviceError> {
        if self.lie == Lie::PresentsNothing {
            return Ok(Box::new(Blind(*config)));
        }
        self.inner.create_surface(target, config)
    }

    fn create_query_set(
        &self,
        label: &str,
        kind: f3d_hal::QueryKind,
        count: u32,
    ) -> Result<f3d_hal::QuerySetHandle, DeviceError> {
        self.inner.create_query_set(label, kind, count)
    }

    fn read_query_set(&self, set: &f3d_hal::QuerySetHandle) -> Result<Vec<u64>, DeviceError> {
        let values = self.inner.read_query_set(set)?;
        Ok(if self.lie == Lie::ZeroTimestamps { vec![0; values.len()] } else { values })
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

/// Runs `tier::name` on a dishonest device and on the honest device it wraps.
fn judge(lie: Lie, tier: Tier, name: &str) -> (Outcome, Outcome) {
    let check =
        all_checks().into_iter().find(|c| c.tier == tier && c.name == name).expect("the check exists");
    let backend = Dishonest::new(lie).backend_id();
    let dishonest =
        run_check(&check, &backend, &move || Ok(Arc::new(Dishonest::new(lie)) as Arc<dyn GraphicsDevice>));
    let honest = run_check(&check, &backend, &move || Ok(Arc::from(Dishonest::new(lie).inner)));
    (dishonest, honest)
}

fn assert_caught(lie: Lie, tier: Tier, name: &str, words: &str) {
    let (dishonest, honest) = judge(lie, tier, name);
    assert_eq!(honest, Outcome::Passed, "{tier}::{name} must pass on the honest device");
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

/// A device whose live counter hides what it leaks: the check sees the leak through the
/// handles themselves (`watch`), not through the counter.
#[test]
fn leaks_hidden_from_the_live_counter_are_caught() {
    assert_caught(Lie::LeaksAndHidesIt, Tier::Lifecycle, "handles_release_on_drop", "keeps a clone of");
}

#[test]
fn a_refused_pipeline_that_draws_is_caught() {
    assert_caught(
        Lie::DrawsRefusedPipelines,
        Tier::Shader,
        "refused_pipeline_draws_nothing_and_is_reported_once",
        "a refused pipeline drew",
    );
}

#[test]
fn storage_writes_that_never_reach_the_draws_are_caught() {
    assert_caught(
        Lie::StaleStorage,
        Tier::Shader,
        "storage_buffers_are_read_by_vertex_and_fragment_stages",
        "after write_geometry",
    );
}

#[test]
fn bindings_that_follow_the_pipeline_are_caught() {
    assert_caught(
        Lie::BindingsFollowThePipeline,
        Tier::Shader,
        "bindings_do_not_follow_the_pipeline",
        "set_pipeline must forget every binding",
    );
}

#[test]
fn a_limit_refused_by_another_name_is_caught() {
    assert_caught(Lie::WrongLimitName, Tier::Core, "absurd_descriptors_refused", "naming another limit");
}

#[test]
fn binding_limits_reported_but_not_held_are_caught() {
    let check = "bindings_at_and_past_the_limit";
    assert_caught(Lie::OverReportsBindings, Tier::Core, check, "at max_sampled_textures_per_stage");
    assert_caught(Lie::UnderReportsBindings, Tier::Core, check, "accepted, one past max_samplers_per_stage");
}

#[test]
fn timestamps_that_do_not_move_are_caught() {
    assert_caught(Lie::ZeroTimestamps, Tier::Capabilities, "timestamp_query", "is not later");
}

#[test]
fn absent_features_refused_without_their_name_are_caught() {
    for name in ["wireframe_draws_edges_or_is_refused", "blend_factors", "blend_constant_reaches_the_blend"] {
        assert_caught(Lie::RefusesWithoutNaming, Tier::Shader, name, "must be refused as Unsupported");
    }
}

/// The validation layer holds the contract's rules itself: over a device that forgot to
/// refuse a wireframe pipeline it does not report, the suite's check fails on the device
/// alone and passes through the layer, which refuses it naming the feature.
#[test]
fn the_validation_layer_refuses_what_a_forgetful_device_lets_through() {
    let name = "wireframe_draws_edges_or_is_refused";
    let (alone, _) = judge(Lie::ForgetsTheRules, Tier::Shader, name);
    assert!(matches!(alone, Outcome::Failed(_)), "the forgetful device alone gave {alone:?}");
    let check = all_checks().into_iter().find(|c| c.name == name).expect("the check exists");
    let validated = run_check(&check, &BackendId::SOFT, &|| {
        let inner = Arc::new(Dishonest::new(Lie::ForgetsTheRules)) as Arc<dyn GraphicsDevice>;
        Ok(Arc::new(f3d_hal::ValidatingDevice::new(inner)) as Arc<dyn GraphicsDevice>)
    });
    assert_eq!(validated, Outcome::Passed, "through the validation layer");
}

#[test]
fn a_decline_off_the_reviewed_list_fails() {
    // Over soft, which runs shaders: every pipeline listed as refused makes the check decline
    // ("refused the pipeline"); soft may not decline it, so the run fails instead of staying
    // green. The null device (shader tier on its list) may.
    let (dishonest, _) =
        judge(Lie::DrawsRefusedPipelines, Tier::Shader, "viewport_covers_the_level_not_the_base");
    match dishonest {
        Outcome::Failed(why) => assert!(
            why.contains("not among the soft backend's reviewed declines"),
            "failed for another reason: {why}"
        ),
        other => panic!("a decline off soft's reviewed list gave {other:?}"),
    }
    let check = all_checks()
        .into_iter()
        .find(|c| c.full_name() == "shader::viewport_covers_the_level_not_the_base")
        .expect("the check exists");
    let null = run_check(&check, &BackendId::NULL, &|| {
        Ok(Arc::new(NullDevice::new("null")) as Arc<dyn GraphicsDevice>)
    });
    assert!(matches!(null, Outcome::Declined(_)), "null's reviewed shader-tier decline gave {null:?}");

    // A backend's own reviewed list (what an out-of-tree backend passes to
    // `run_libtest_main_tiers`) allows the decline it names, with the words it names.
    let backend = Dishonest::new(Lie::DrawsRefusedPipelines).backend_id();
    let factory = || Ok(Arc::new(Dishonest::new(Lie::DrawsRefusedPipelines)) as Arc<dyn GraphicsDevice>);
    let own = |when| AllowedDecline {
        check: "shader::viewport_covers_the_level_not_the_base",
        when,
        why: "a test",
    };
    let allowed = run_check_allowing(&check, &backend, &[own("refused the pipeline")], &factory);
    assert!(matches!(allowed, Outcome::Declined(_)), "an entry of the backend's own list gave {allowed:?}");
    let other_words = run_check_allowing(&check, &backend, &[own("out of memory")], &factory);
    assert!(matches!(other_words, Outcome::Failed(_)), "an entry for other words gave {other_words:?}");
}

#[test]
fn a_surface_that_shows_nothing_is_caught() {
    // The check reads the window back from an X server: CI runs the suite under xvfb-run.
    if let Err(e) = f3d_conformance::window::TestWindow::open(None, (8, 8)) {
        let required = std::env::var_os("F3D_REQUIRE_BACKENDS").is_some();
        assert!(!required, "no X server (DISPLAY) to judge presentation with: {e}");
        println!("skipped: no X server to present to ({e})");
        return;
    }
    assert_caught(Lie::PresentsNothing, Tier::Capabilities, "present", "not [128, 32, 0]");
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
    assert_eq!(count(Tier::Core), 21);
    assert_eq!(count(Tier::Capabilities), DeviceFeature::ALL.len());
    assert_eq!(count(Tier::Lifecycle), 8);
    assert_eq!(count(Tier::Shader), 71);
    assert!(count(Tier::Shader) >= 40, "the shader tier keeps at least 40 checks");
    let mut names: Vec<String> = all_checks().iter().map(|c| c.full_name()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), all_checks().len(), "check names are unique");
}
