//! Presenting frames in a window ([`DeviceFeature::PRESENT`](f3d_hal::DeviceFeature::PRESENT)).
//!
//! ```text
//!  SurfaceTarget (raw handles) ──instance.create_surface_unsafe──► wgpu::Surface
//!  frame texture (any sampled colour format) ──blit──► surface texture ──► queue.present
//! ```
//!
//! The engine renders into its own texture (the size and format it chose) and hands it to
//! [`PresentSurface::present`], which draws it over the window's surface with a linear
//! sampler (so sizes need not match while a resize is under way) and presents. sRGB is
//! honoured both ways: sampling decodes the frame, writing encodes for an sRGB surface.
//! A surface that is hidden or zero-sized skips the frame; an outdated one is reconfigured
//! and a lost one made again, and that frame is skipped, never an error.

use f3d_hal::backend::texture_payload_linked;
use f3d_hal::present::{
    PresentMode, PresentSurface, Presented, SurfaceConfig, SurfaceTarget, check_presentable,
    choose_present_mode,
};
use f3d_hal::{BackendId, DeviceError, GraphicsDevice, OwnerLink, TextureHandle};

use crate::WgpuDevice;
use crate::device::scoped_on;
use crate::texture::WgpuTexture;

const BLIT_WGSL: &str = r#"
@group(0) @binding(0) var frame: texture_2d<f32>;
@group(0) @binding(1) var frame_sampler: sampler;

struct Out {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

@vertex
fn vs(@builtin(vertex_index) i: u32) -> Out {
    // One triangle covering the target; uv (0, 0) at the top left.
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    var out: Out;
    out.position = vec4<f32>(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, 0.0, 1.0);
    out.uv = uv;
    return out;
}

@fragment
fn fs(in: Out) -> @location(0) vec4<f32> {
    return textureSample(frame, frame_sampler, in.uv);
}
"#;

/// A window's surface on a wgpu device, and the blit that puts frames on it.
pub(crate) struct WgpuSurface {
    surface: wgpu::Surface<'static>,
    target: SurfaceTarget,
    instance: wgpu::Instance,
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    owner: OwnerLink,
    config: SurfaceConfig,
    wgpu_config: wgpu::SurfaceConfiguration,
    /// The surface must be configured again before the next frame (size or mode changed).
    stale: bool,
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::RenderPipeline,
    sampler: wgpu::Sampler,
}

fn backend(operation: &'static str, message: impl Into<String>) -> DeviceError {
    DeviceError::Backend { operation, backend: BackendId::WGPU, message: message.into() }
}

fn make_surface(instance: &wgpu::Instance, target: &SurfaceTarget) -> Result<wgpu::Surface<'static>, String> {
    // SAFETY: `SurfaceTarget::new`'s caller vouched the handles stay valid while the target
    // lives, and the surface keeps the target (and its keep-alive) for as long as it lives.
    unsafe {
        instance.create_surface_unsafe(wgpu::SurfaceTargetUnsafe::RawHandle {
            raw_display_handle: Some(target.raw_display_handle()),
            raw_window_handle: target.raw_window_handle(),
        })
    }
    .map_err(|e| e.to_string())
}

fn to_wgpu(mode: PresentMode) -> wgpu::PresentMode {
    match mode {
        PresentMode::AutoVsync => wgpu::PresentMode::AutoVsync,
        PresentMode::AutoNoVsync => wgpu::PresentMode::AutoNoVsync,
        PresentMode::Fifo => wgpu::PresentMode::Fifo,
        PresentMode::FifoRelaxed => wgpu::PresentMode::FifoRelaxed,
        PresentMode::Immediate => wgpu::PresentMode::Immediate,
        PresentMode::Mailbox => wgpu::PresentMode::Mailbox,
    }
}

fn from_wgpu(mode: wgpu::PresentMode) -> Option<PresentMode> {
    Some(match mode {
        wgpu::PresentMode::Fifo => PresentMode::Fifo,
        wgpu::PresentMode::FifoRelaxed => PresentMode::FifoRelaxed,
        wgpu::PresentMode::Immediate => PresentMode::Immediate,
        wgpu::PresentMode::Mailbox => PresentMode::Mailbox,
        _ => return None,
    })
}

impl WgpuSurface {
    /// `device`'s surface for `target`'s window, set up for `config`.
    pub(crate) fn new(
        device: &WgpuDevice,
        target: &SurfaceTarget,
        config: &SurfaceConfig,
    ) -> Result<Self, DeviceError> {
        const OP: &str = "create_surface";
        device.alive(OP)?;
        let refused = |why: String| {
            backend(OP, format!("the wgpu backend cannot present to {}: {why}", target.label()))
        };
        let instance = device.wgpu_instance().clone();
        let surface = make_surface(&instance, target).map_err(refused)?;
        let adapter = device.wgpu_adapter().clone();
        let caps = surface.get_capabilities(&adapter);
        let format = caps
            .formats
            .iter()
            .copied()
            .find(wgpu::TextureFormat::is_srgb)
            .or_else(|| caps.formats.first().copied())
            .ok_or_else(|| {
                refused(format!("the adapter {} cannot present to it", device.adapter_info().name))
            })?;
        let offered: Vec<PresentMode> = caps.present_modes.iter().copied().filter_map(from_wgpu).collect();
        let wgpu_config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width: config.width.max(1),
            height: config.height.max(1),
            present_mode: to_wgpu(choose_present_mode(config.present_mode, &offered)),
            desired_maximum_frame_latency: 2,
            alpha_mode: caps.alpha_modes.first().copied().unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: Vec::new(),
            color_space: wgpu::SurfaceColorSpace::Auto,
        };
        let module = f3d_materials::compile_wgsl("blit.wgsl", BLIT_WGSL).map_err(|e| backend(OP, e))?;
        let wdevice = device.wgpu_device();
        let (layout, pipeline, sampler) =
            device.scoped(OP, 0, || blit_pipeline(wdevice, module.module(), format))?;
        let mut out = Self {
            surface,
            target: target.clone(),
            instance,
            adapter,
            device: wdevice.clone(),
            queue: device.wgpu_queue().clone(),
            owner: device.owner_link(),
            config: *config,
            wgpu_config,
            stale: true,
            layout,
            pipeline,
            sampler,
        };
        out.reconfigure(OP)?;
        Ok(out)
    }

    /// Configures the wgpu surface for `self.config` (nothing while the window has no size).
    fn reconfigure(&mut self, operation: &'static str) -> Result<(), DeviceError> {
        if self.config.width == 0 || self.config.height == 0 {
            return Ok(());
        }
        let caps = self.surface.get_capabilities(&self.adapter);
        let offered: Vec<PresentMode> = caps.present_modes.iter().copied().filter_map(from_wgpu).collect();
        self.wgpu_config.width = self.config.width;
        self.wgpu_config.height = self.config.height;
        self.wgpu_config.present_mode = to_wgpu(choose_present_mode(self.config.present_mode, &offered));
        scoped_on(&self.device, operation, 0, || self.surface.configure(&self.device, &self.wgpu_config))?;
        self.stale = false;
        Ok(())
    }
}

fn blit_pipeline(
    wdevice: &wgpu::Device,
    module: &wgpu::naga::Module,
    format: wgpu::TextureFormat,
) -> (wgpu::BindGroupLayout, wgpu::RenderPipeline, wgpu::Sampler) {
    let shader = wdevice.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("f3d blit"),
        source: wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(module.clone())),
    });
    let layout = wdevice.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("f3d blit"),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: true },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 1,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
        ],
    });
    let pipeline_layout = wdevice.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("f3d blit"),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let pipeline = wdevice.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("f3d blit"),
        layout: Some(&pipeline_layout),
        vertex: wgpu::VertexState {
            module: &shader,
            entry_point: Some("vs"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module: &shader,
            entry_point: Some("fs"),
            compilation_options: Default::default(),
            targets: &[Some(format.into())],
        }),
        multiview_mask: None,
        cache: None,
    });
    let sampler = wdevice.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("f3d blit"),
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        ..Default::default()
    });
    (layout, pipeline, sampler)
}

impl PresentSurface for WgpuSurface {
    fn label(&self) -> &str {
        self.target.label()
    }

    fn configure(&mut self, config: &SurfaceConfig) -> Result<(), DeviceError> {
        self.owner.check_alive("configure")?;
        if *config != self.config {
            self.config = *config;
            self.stale = true;
        }
        Ok(())
    }

    fn config(&self) -> SurfaceConfig {
        self.config
    }

    fn present_mode(&self) -> PresentMode {
        from_wgpu(self.wgpu_config.present_mode).unwrap_or(PresentMode::Fifo)
    }

    fn present(&mut self, frame: &TextureHandle) -> Result<Presented, DeviceError> {
        const OP: &str = "present";
        self.owner.check_alive(OP)?;
        check_presentable(frame, OP)?;
        let t = texture_payload_linked::<WgpuTexture>(&self.owner, frame, OP)?;
        let Some(view) = &t.sampled_view else {
            return Err(DeviceError::Refused {
                operation: OP,
                reason: format!(
                    "{} was not granted SAMPLED on this device, so it cannot be shown",
                    frame.label()
                ),
            });
        };
        if self.config.width == 0 || self.config.height == 0 {
            return Ok(Presented::Skipped(format!("{} has no size (minimised)", self.label())));
        }
        if self.stale {
            self.reconfigure(OP)?;
        }
        let surface_texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Timeout => {
                return Ok(Presented::Skipped("the surface timed out".into()));
            }
            wgpu::CurrentSurfaceTexture::Occluded => {
                return Ok(Presented::Skipped("the window is hidden".into()));
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.reconfigure(OP)?;
                return Ok(Presented::Skipped("the surface was outdated and is set up again".into()));
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                self.surface = make_surface(&self.instance, &self.target).map_err(|e| {
                    backend(OP, format!("{}: the surface was lost and not made again: {e}", self.label()))
                })?;
                self.reconfigure(OP)?;
                return Ok(Presented::Skipped("the surface was lost and is made again".into()));
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                return Err(backend(OP, "wgpu refused to hand out the surface's texture"));
            }
        };
        let wdevice = &self.device;
        scoped_on(wdevice, OP, 0, || {
            let target = surface_texture.texture.create_view(&wgpu::TextureViewDescriptor::default());
            let bind_group = wdevice.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("f3d blit"),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(view) },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Sampler(&self.sampler),
                    },
                ],
            });
            let mut encoder = wdevice
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("f3d present") });
            {
                let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("f3d present"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &target,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                });
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, &bind_group, &[]);
                pass.draw(0..3, 0..1);
            }
            self.queue.submit([encoder.finish()]);
            self.queue.present(surface_texture);
        })?;
        Ok(Presented::Shown)
    }
}
