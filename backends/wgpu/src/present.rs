//! Presenting frames in a winit window (feature `window`).
//!
//! ```text
//!  frame texture (any sampled colour format) ──blit──► surface texture ──► queue.present
//! ```
//!
//! The engine renders into its own texture (the size and format it chose) and hands it to
//! [`WindowPresenter::present`], which draws it over the window's surface with a linear
//! sampler (so sizes need not match while a resize is under way) and presents. sRGB is
//! honoured both ways: sampling decodes the frame, writing encodes for an sRGB surface.

use std::sync::Arc;

use f3d_hal::{
    BackendId, DeviceError, DeviceRequest, GraphicsDevice, OpenError, SampleKind, TextureHandle,
    TextureUsages,
};
use winit::window::Window;

use crate::WgpuDevice;

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

/// A window's surface, configured for one device, and the blit that puts frames on it.
pub struct WindowPresenter {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::RenderPipeline,
    sampler: wgpu::Sampler,
}

fn unavailable(reason: String) -> OpenError {
    OpenError::DeviceUnavailable { backend: BackendId::WGPU, reason }
}

fn backend(operation: &'static str, message: impl Into<String>) -> DeviceError {
    DeviceError::Backend { operation, backend: BackendId::WGPU, message: message.into() }
}

impl WindowPresenter {
    /// Opens a device on an adapter that can present to `window`, and its presenter.
    pub fn open(window: Arc<Window>, request: &DeviceRequest) -> Result<(WgpuDevice, Self), OpenError> {
        let instance = crate::adapter::instance(request);
        let surface = instance
            .create_surface(window.clone())
            .map_err(|e| unavailable(format!("the window has no surface wgpu can draw to: {e}")))?;
        let device = WgpuDevice::open_for_surface(instance, &surface, request)?;
        let presenter = Self::with_surface(&device, window, surface)
            .map_err(|e| unavailable(format!("the window's surface could not be set up: {e}")))?;
        Ok((device, presenter))
    }

    fn with_surface(
        device: &WgpuDevice,
        window: Arc<Window>,
        surface: wgpu::Surface<'static>,
    ) -> Result<Self, DeviceError> {
        const OP: &str = "present";
        let caps = surface.get_capabilities(device.wgpu_adapter());
        let format = caps
            .formats
            .iter()
            .copied()
            .find(wgpu::TextureFormat::is_srgb)
            .or_else(|| caps.formats.first().copied())
            .ok_or_else(|| backend(OP, "the adapter cannot present to this window"))?;
        let size = window.inner_size();
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps.alpha_modes.first().copied().unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: Vec::new(),
            color_space: wgpu::SurfaceColorSpace::Auto,
        };
        let module = f3d_materials::compile_wgsl("blit.wgsl", BLIT_WGSL).map_err(|e| backend(OP, e))?;
        let wdevice = device.wgpu_device();
        let (layout, pipeline, sampler) = device.scoped(OP, 0, || {
            surface.configure(wdevice, &config);
            let shader = wdevice.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("f3d blit"),
                source: wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(module.module().clone())),
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
        })?;
        Ok(Self { window, surface, config, layout, pipeline, sampler })
    }

    /// The window.
    pub fn window(&self) -> &Arc<Window> {
        &self.window
    }

    /// The surface's size in pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// The surface's format (sRGB where the window offers one).
    pub fn wgpu_surface_format(&self) -> wgpu::TextureFormat {
        self.config.format
    }

    /// Follows the window to a new size (a zero size, a minimised window, is ignored).
    pub fn resize(&mut self, device: &WgpuDevice, width: u32, height: u32) -> Result<(), DeviceError> {
        device.alive("resize")?;
        if width == 0 || height == 0 || (width, height) == self.size() {
            return Ok(());
        }
        self.config.width = width;
        self.config.height = height;
        device.scoped("resize", 0, || self.surface.configure(device.wgpu_device(), &self.config))
    }

    /// Draws `frame` (a single-sampled, sampled colour texture of `device`) over the whole
    /// window and presents it. `Ok(false)` when the surface could not take a frame now (the
    /// window is hidden, or changed and was reconfigured): show the next one.
    pub fn present(&mut self, device: &WgpuDevice, frame: &TextureHandle) -> Result<bool, DeviceError> {
        const OP: &str = "present";
        let t = device.texture(frame, OP)?;
        let desc = frame.descriptor();
        let float = desc.format.facts().sample_kind == SampleKind::Float && desc.format.is_color();
        let view = match &t.sampled_view {
            Some(view)
                if float
                    && desc.usage.contains(TextureUsages::SAMPLED)
                    && device.texture_format_support(desc.format).filterable =>
            {
                view
            }
            _ => {
                return Err(DeviceError::Refused {
                    operation: OP,
                    reason: format!(
                        "{} must be a sampled, filterable colour texture to be shown",
                        desc.label
                    ),
                });
            }
        };
        let surface_texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => return Ok(false),
            wgpu::CurrentSurfaceTexture::Outdated => {
                let size = self.window.inner_size();
                self.config.width = size.width.max(1);
                self.config.height = size.height.max(1);
                device.scoped(OP, 0, || self.surface.configure(device.wgpu_device(), &self.config))?;
                return Ok(false);
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                self.surface = device.wgpu_instance().create_surface(self.window.clone()).map_err(|e| {
                    backend(OP, format!("the window's surface was lost and not made again: {e}"))
                })?;
                device.scoped(OP, 0, || self.surface.configure(device.wgpu_device(), &self.config))?;
                return Ok(false);
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                return Err(backend(OP, "wgpu refused to hand out the surface's texture"));
            }
        };
        let wdevice = device.wgpu_device();
        device.scoped(OP, 0, || {
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
            device.wgpu_queue().submit([encoder.finish()]);
            self.window.pre_present_notify();
            device.wgpu_queue().present(surface_texture);
        })?;
        Ok(true)
    }
}
