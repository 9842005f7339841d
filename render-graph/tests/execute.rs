//! Executing graphs on the null backend: real textures, clears, copies and readback.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use common::nothing;
use common::three_pass::{ThreePassPipelines, three_pass_graph};
use f3d_backend_null::NullDevice;
use f3d_hal::{
    AdapterInfo, BackendId, Color, CommandEncoder, DepthRange, DeviceError, DeviceFeature, DeviceFeatures,
    DeviceLimits, DeviceOwner, FormatSupport, FramebufferOrigin, GeometryBuffer, GeometryDescriptor,
    GraphicsDevice, LoadOp, PendingReadback, PipelineDescriptor, PipelineHandle, PipelineRefusals,
    RenderPassDescriptor, ResourceState, SamplerDescriptor, SamplerHandle, ShaderDescriptor, ShaderHandle,
    TextureDescriptor, TextureFormat, TextureHandle, TextureRegion,
};
use f3d_render_graph::{
    DeviceContext, GraphError, PassContext, PassResult, RenderGraph, TextureDesc, TransientPool,
};

const SIZE: u32 = 4;

fn device() -> NullDevice {
    NullDevice::new("graph tests")
}

fn target(device: &dyn GraphicsDevice, label: &str) -> TextureHandle {
    device.create_texture(&TextureDescriptor::new_2d(label, SIZE, SIZE, TextureFormat::Rgba8Unorm)).unwrap()
}

/// Every pixel of `texture`, as RGBA8.
fn pixels(device: &dyn GraphicsDevice, texture: &TextureHandle) -> Vec<[u8; 4]> {
    let image = device.readback(texture, TextureRegion::full(texture.descriptor())).unwrap().wait().unwrap();
    (0..SIZE).flat_map(|y| (0..SIZE).map(move |x| (x, y))).map(|(x, y)| image.rgba8(x, y)).collect()
}

fn all(color: [u8; 4]) -> Vec<[u8; 4]> {
    vec![color; (SIZE * SIZE) as usize]
}

fn rgba8() -> TextureDesc {
    TextureDesc::relative(1.0, TextureFormat::Rgba8Unorm)
}

#[test]
fn clear_then_copy_reaches_the_target_and_culled_passes_do_not_run() {
    let device = device();
    let target_texture = target(&device, "target");
    let mut graph = RenderGraph::new();
    let target = graph.import_texture("target", target_texture.clone(), ResourceState::Undefined);
    let red = graph.create_texture("red", rgba8());
    let debug = graph.create_texture("debug", rgba8());

    // Cleared blue, then overwritten whole by the copy: culled.
    let mut t1 = target;
    let blue = graph.add_pass("clear_target_blue", |pass| {
        t1 = pass.write_color(target, LoadOp::Clear(Color::BLUE));
        nothing
    });
    let mut red1 = red;
    graph.add_pass("clear_red", |pass| {
        red1 = pass.write_color(red, LoadOp::Clear(Color::RED));
        |ctx: &mut PassContext<'_>| -> PassResult {
            // The encoder records; it is a PassEncoder, which has no submit.
            ctx.encoder.set_viewport(f3d_hal::Viewport::full(SIZE, SIZE))?;
            Ok(())
        }
    });
    graph.add_copy_pass("copy_to_target", red1, t1);
    // Nobody reads what it writes: culled, and its closure never runs.
    let ran = Arc::new(AtomicBool::new(false));
    let flag = ran.clone();
    let debug_pass = graph.add_pass("debug_green", |pass| {
        pass.write_color(debug, LoadOp::Clear(Color::GREEN));
        move |_: &mut PassContext<'_>| -> PassResult {
            flag.store(true, Ordering::SeqCst);
            Ok(())
        }
    });

    let compiled = graph.compile((SIZE, SIZE)).unwrap();
    assert!(compiled.is_culled(blue));
    assert!(compiled.is_culled(debug_pass));
    let mut pool = TransientPool::default();
    let executed = compiled.execute(&device, &mut pool).unwrap();
    assert_eq!(executed.passes_run(), 2);
    assert!(!ran.load(Ordering::SeqCst), "a culled pass's closure ran");
    assert_eq!(pixels(&device, &target_texture), all([255, 0, 0, 255]));
    assert_eq!(pool.len(), 1, "only the red transient needed memory");
}

#[test]
fn aliased_transients_share_one_physical_texture() {
    let device = device();
    let baseline = device.live_resources();
    let (a_tex, b_tex) = (target(&device, "a"), target(&device, "b"));
    let mut pool = TransientPool::new(0);

    let frame = |pool: &mut TransientPool| {
        let mut graph = RenderGraph::new();
        let out_a = graph.import_texture("out_a", a_tex.clone(), ResourceState::Undefined);
        let out_b = graph.import_texture("out_b", b_tex.clone(), ResourceState::Undefined);
        let first = graph.create_texture("first", rgba8());
        let second = graph.create_texture("second", rgba8());
        let mut first1 = first;
        graph.add_pass("clear_first", |pass| {
            first1 = pass.write_color(first, LoadOp::Clear(Color::RED));
            nothing
        });
        graph.add_copy_pass("copy_first", first1, out_a);
        let mut second1 = second;
        graph.add_pass("clear_second", |pass| {
            second1 = pass.write_color(second, LoadOp::Clear(Color::GREEN));
            nothing
        });
        graph.add_copy_pass("copy_second", second1, out_b);
        let compiled = graph.compile((SIZE, SIZE)).unwrap();
        assert_eq!(compiled.physical_slot(first), Some(0));
        assert_eq!(compiled.physical_slot(second), Some(0));
        assert_eq!(compiled.bytes_saved(), u64::from(SIZE * SIZE * 4));
        compiled.execute(&device, pool).unwrap();
    };

    frame(&mut pool);
    assert_eq!(pool.len(), 1);
    assert_eq!(pool.textures_created(), 1);
    assert_eq!(device.live_resources(), baseline + 2 + 1, "two targets and one pooled transient");
    // Aliasing kept both results right: the second clear happened after the first copy.
    assert_eq!(pixels(&device, &a_tex), all([255, 0, 0, 255]));
    assert_eq!(pixels(&device, &b_tex), all([0, 255, 0, 255]));

    // Later frames reuse the pooled texture.
    frame(&mut pool);
    frame(&mut pool);
    assert_eq!(pool.textures_created(), 1);
    assert_eq!(device.live_resources(), baseline + 3);

    // A frame without transients leaves it unused; with max_unused_frames = 0 it goes.
    let mut graph = RenderGraph::new();
    let out = graph.import_texture("out_a", a_tex.clone(), ResourceState::CopyDestination);
    graph.add_pass("clear", |pass| {
        pass.write_color(out, LoadOp::Clear(Color::WHITE));
        nothing
    });
    graph.compile((SIZE, SIZE)).unwrap().execute(&device, &mut pool).unwrap();
    assert!(pool.is_empty());
    assert_eq!(device.live_resources(), baseline + 2);
}

#[test]
fn pool_keeps_unused_textures_for_the_configured_frames() {
    let device = device();
    let mut pool = TransientPool::new(2);
    let with_transient = |pool: &mut TransientPool| {
        let mut graph = RenderGraph::new();
        let t = graph.create_texture("t", rgba8());
        let mut t1 = t;
        graph.add_pass("clear", |pass| {
            t1 = pass.write_color(t, LoadOp::Clear(Color::RED));
            nothing
        });
        graph.mark_output(t1);
        let executed = graph.compile((SIZE, SIZE)).unwrap().execute(&device, pool).unwrap();
        // Outputs are handed back: the transient itself, read back.
        let texture = executed.texture(t1).unwrap().clone();
        assert_eq!(pixels(&device, &texture), all([255, 0, 0, 255]));
    };
    let empty = |pool: &mut TransientPool| {
        RenderGraph::new().compile((SIZE, SIZE)).unwrap().execute(&device, pool).unwrap();
    };
    with_transient(&mut pool);
    empty(&mut pool);
    empty(&mut pool);
    assert_eq!(pool.len(), 1, "unused for 2 executions: kept");
    with_transient(&mut pool);
    assert_eq!(pool.textures_created(), 1, "reused after 2 unused executions");
    empty(&mut pool);
    empty(&mut pool);
    empty(&mut pool);
    assert!(pool.is_empty(), "unused for 3 executions: dropped");
}

#[test]
fn a_readback_pass_is_kept_alive_and_sees_the_transient() {
    let device = device();
    let mut graph = RenderGraph::new();
    let t = graph.create_texture("picked", rgba8());
    let mut t1 = t;
    graph.add_pass("clear", |pass| {
        t1 = pass.write_color(t, LoadOp::Clear(Color::new(0.0, 0.0, 1.0, 1.0)));
        nothing
    });
    let seen = Arc::new(Mutex::new(Vec::new()));
    let out = seen.clone();
    graph.add_device_pass("readback", |pass| {
        pass.read_copy(t1);
        pass.keep_alive();
        move |ctx: &mut DeviceContext<'_>| -> PassResult {
            let texture = ctx.texture(t1)?;
            let image = ctx.device.readback(texture, TextureRegion::full(texture.descriptor()))?.wait()?;
            out.lock().unwrap().push(image.rgba8(0, 0));
            Ok(())
        }
    });
    let compiled = graph.compile((SIZE, SIZE)).unwrap();
    assert_eq!(compiled.order().collect::<Vec<_>>(), ["clear", "readback"]);
    compiled.execute(&device, &mut TransientPool::default()).unwrap();
    assert_eq!(*seen.lock().unwrap(), [[0, 0, 255, 255]]);
}

#[test]
fn pass_errors_name_the_pass() {
    let device = device();
    let mut graph = RenderGraph::new();
    let out = graph.import_texture("out", target(&device, "out"), ResourceState::Undefined);
    let other = graph.create_texture("other", rgba8());
    let mut other1 = other;
    graph.add_pass("fill_other", |pass| {
        other1 = pass.write_color(other, LoadOp::Clear(Color::RED));
        nothing
    });
    graph.add_pass("sneaky", |pass| {
        pass.read_texture(other1);
        pass.write_color(out, LoadOp::Clear(Color::BLACK));
        |ctx: &mut PassContext<'_>| -> PassResult { Err(format!("gave up after {}", ctx.pass_name()).into()) }
    });
    let err =
        graph.compile((SIZE, SIZE)).unwrap().execute(&device, &mut TransientPool::default()).unwrap_err();
    assert!(matches!(&err, GraphError::Pass { pass, .. } if pass == "sneaky"), "{err:?}");
    assert_eq!(err.to_string(), "pass sneaky: gave up after sneaky");
}

#[test]
fn undeclared_textures_are_refused() {
    let device = device();
    let mut graph = RenderGraph::new();
    let out = graph.import_texture("out", target(&device, "out"), ResourceState::Undefined);
    let secret = graph.import_texture("secret", target(&device, "secret"), ResourceState::ShaderRead);
    let asked = Arc::new(Mutex::new(None));
    let answer = asked.clone();
    graph.add_pass("nosy", |pass| {
        pass.write_color(out, LoadOp::Clear(Color::BLACK));
        move |ctx: &mut PassContext<'_>| -> PassResult {
            let err = ctx.texture(secret).unwrap_err();
            *answer.lock().unwrap() = Some(err.to_string());
            assert!(ctx.texture(out).is_ok());
            Ok(())
        }
    });
    graph.compile((SIZE, SIZE)).unwrap().execute(&device, &mut TransientPool::default()).unwrap();
    assert_eq!(asked.lock().unwrap().as_deref(), Some("pass nosy did not declare secret"));
}

#[test]
fn allocation_failures_name_the_texture() {
    let device = device();
    let mut graph = RenderGraph::new();
    let huge = graph.create_texture("huge", TextureDesc::absolute(1 << 20, 4, TextureFormat::Rgba8Unorm));
    let mut huge1 = huge;
    graph.add_pass("fill", |pass| {
        huge1 = pass.write_color(huge, LoadOp::Clear(Color::RED));
        nothing
    });
    graph.mark_output(huge1);
    let err =
        graph.compile((SIZE, SIZE)).unwrap().execute(&device, &mut TransientPool::default()).unwrap_err();
    assert!(matches!(&err, GraphError::Allocation { resource, .. } if resource == "huge"), "{err:?}");
    assert!(matches!(err.device_error(), Some(DeviceError::LimitExceeded { .. })), "{err:?}");
}

#[test]
fn transitions_reach_the_device_and_copies_need_the_feature() {
    let device = Recorder::new(true);
    let target_texture = target(&device, "target");
    let build = || {
        let mut graph = RenderGraph::new();
        let target = graph.import_texture("target", target_texture.clone(), ResourceState::Present);
        let a = graph.create_texture("a", rgba8());
        let snapshot = graph.create_texture("snapshot", rgba8());
        let mut a1 = a;
        graph.add_pass("draw", |pass| {
            a1 = pass.write_color(a, LoadOp::Clear(Color::GREEN));
            nothing
        });
        let snapshot1 = graph.add_copy_pass("snapshot", a1, snapshot);
        graph.add_pass("present", |pass| {
            pass.read_texture(snapshot1);
            pass.write_color(target, LoadOp::Clear(Color::WHITE));
            nothing
        });
        graph.compile((SIZE, SIZE)).unwrap()
    };
    build().execute(&device, &mut TransientPool::default()).unwrap();
    let passes = device.passes.lock().unwrap().clone();
    assert_eq!(
        passes,
        [
            (
                "draw".to_owned(),
                vec![(
                    "f3d transient a".to_owned(),
                    ResourceState::Undefined,
                    ResourceState::ColorAttachment
                )]
            ),
            (
                "present".to_owned(),
                vec![
                    (
                        "f3d transient snapshot".to_owned(),
                        ResourceState::CopyDestination,
                        ResourceState::ShaderRead
                    ),
                    ("target".to_owned(), ResourceState::Present, ResourceState::ColorAttachment),
                ]
            ),
        ]
    );

    let no_copies = Recorder::new(false);
    let err = build().execute(&no_copies, &mut TransientPool::default()).unwrap_err();
    assert!(matches!(&err, GraphError::Pass { pass, .. } if pass == "snapshot"), "{err:?}");
    assert_eq!(
        err.device_error().and_then(DeviceError::unsupported_feature),
        Some(DeviceFeature::COPY_TEXTURE)
    );
    assert!(no_copies.passes.lock().unwrap().is_empty(), "refused before anything ran");
}

#[test]
fn three_pass_graph_runs_on_null() {
    let device = device();
    let target_texture = target(&device, "target");
    let pipelines = ThreePassPipelines::new(&device, TextureFormat::Rgba8Unorm).unwrap();
    let (graph, _) = three_pass_graph(target_texture.clone(), &pipelines);
    let compiled = graph.compile((SIZE, SIZE)).unwrap();
    assert_eq!(compiled.order().collect::<Vec<_>>(), ["scene", "sample", "tonemap"]);
    // hdr and sampled are both live during `sample`: two physical textures.
    assert_eq!(compiled.physical_textures(), 2);
    let executed = compiled.execute(&device, &mut TransientPool::default()).unwrap();
    assert_eq!(executed.passes_run(), 3);
    // The null backend refuses every pipeline at its first draw: the clears are all that
    // land, and each refusal is reported once.
    assert_eq!(pixels(&device, &target_texture), all([0, 0, 0, 255]));
    let refused: Vec<String> = device.pipeline_refusals().into_iter().map(|r| r.pipeline).collect();
    assert_eq!(refused, ["fs_scene", "fs_sample", "fs_tonemap"]);
}

/// A recorded render pass: its label and (texture label, before, after) per transition.
type RecordedPass = (String, Vec<(String, ResourceState, ResourceState)>);

/// A null device that records each render pass's label and transitions, and can be made to
/// lack `COPY_TEXTURE`.
struct Recorder {
    inner: NullDevice,
    features: DeviceFeatures,
    passes: Mutex<Vec<RecordedPass>>,
}

impl Recorder {
    fn new(copies: bool) -> Self {
        let features = if copies {
            DeviceFeatures::empty().with(DeviceFeature::COPY_TEXTURE)
        } else {
            DeviceFeatures::empty()
        };
        Self { inner: device(), features, passes: Mutex::new(Vec::new()) }
    }
}

impl GraphicsDevice for Recorder {
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
        self.inner.create_texture(desc)
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
        let transitions = desc.transitions.iter().map(|t| (t.texture.label(), t.before, t.after)).collect();
        self.passes.lock().unwrap().push((desc.label.clone(), transitions));
        self.inner.begin_render_pass(desc)
    }
    fn readback(
        &self,
        texture: &TextureHandle,
        region: TextureRegion,
    ) -> Result<PendingReadback, DeviceError> {
        self.inner.readback(texture, region)
    }
    fn live_resources(&self) -> usize {
        self.inner.live_resources()
    }
    fn memory_report(&self) -> f3d_hal::MemoryReport {
        self.inner.memory_report()
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
        if !self.features.has(DeviceFeature::COPY_TEXTURE) {
            return Err(DeviceError::Unsupported {
                feature: DeviceFeature::COPY_TEXTURE,
                backend: self.backend_id(),
            });
        }
        self.inner.copy_texture(src, src_region, dst, dst_region)
    }
}
