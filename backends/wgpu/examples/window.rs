//! A live window on the wgpu backend: an animated triangle drawn through the HAL, shown with
//! [`WindowPresenter`], following the window as it is resized. (The showcase scene takes its
//! place once the plugin renders it.)
//!
//! `cargo run -p f3d_backend_wgpu --features window --example window`

use std::error::Error;
use std::sync::Arc;
use std::time::Instant;

use f3d_backend_wgpu::winit::application::ApplicationHandler;
use f3d_backend_wgpu::winit::event::WindowEvent;
use f3d_backend_wgpu::winit::event_loop::{ActiveEventLoop, EventLoop};
use f3d_backend_wgpu::winit::window::{Window, WindowId};
use f3d_backend_wgpu::{WgpuDevice, WindowPresenter};
use f3d_hal::{
    Color, ColorAttachment, ColorTargetState, DeviceRequest, GraphicsDevice, PipelineDescriptor,
    PipelineHandle, PrimitiveState, RenderPassDescriptor, ShaderDescriptor, ShaderStage, TextureDescriptor,
    TextureFormat, TextureHandle, TextureUsages,
};

const TRIANGLE_WGSL: &str = r#"
struct Frame { time: f32, aspect: f32 }
@group(0) @binding(0) var<uniform> frame: Frame;

struct Out { @builtin(position) position: vec4<f32>, @location(0) color: vec3<f32> }

@vertex
fn vs(@builtin(vertex_index) i: u32) -> Out {
    let angle = frame.time + f32(i) * 2.0943951;
    var out: Out;
    out.position = vec4<f32>(0.7 * cos(angle) / frame.aspect, 0.7 * sin(angle), 0.5, 1.0);
    out.color = vec3<f32>(f32(i == 0u), f32(i == 1u), f32(i == 2u));
    return out;
}

@fragment
fn fs(in: Out) -> @location(0) vec4<f32> {
    return vec4<f32>(in.color, 1.0);
}
"#;

struct Running {
    device: WgpuDevice,
    presenter: WindowPresenter,
    pipeline: PipelineHandle,
    frame: TextureHandle,
}

fn frame_texture(device: &WgpuDevice, (w, h): (u32, u32)) -> Result<TextureHandle, Box<dyn Error>> {
    let desc = TextureDescriptor::new_2d("frame", w, h, TextureFormat::Rgba8UnormSrgb)
        .with_usage(TextureUsages::RENDER_ATTACHMENT | TextureUsages::SAMPLED);
    Ok(device.create_texture(&desc)?)
}

impl Running {
    fn start(event_loop: &ActiveEventLoop) -> Result<Self, Box<dyn Error>> {
        let window = Arc::new(event_loop.create_window(Window::default_attributes().with_title("f3d wgpu"))?);
        let (device, presenter) = WindowPresenter::open(window, &DeviceRequest::new(800, 600))?;
        println!("f3d on {}", device.adapter_info().name);
        let module = Arc::new(f3d_materials::compile_wgsl("triangle.wgsl", TRIANGLE_WGSL)?);
        let shader = |stage, entry: &str| {
            device.create_shader(&ShaderDescriptor {
                label: entry.into(),
                module: module.clone(),
                stage,
                entry_point: entry.into(),
            })
        };
        let pipeline = device.create_pipeline(&PipelineDescriptor {
            label: "triangle".into(),
            vertex: shader(ShaderStage::Vertex, "vs")?,
            fragment: Some(shader(ShaderStage::Fragment, "fs")?),
            vertex_buffers: Vec::new(),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            color_targets: vec![ColorTargetState::replace(TextureFormat::Rgba8UnormSrgb)],
            sample_count: 1,
            multiview: None,
        })?;
        let frame = frame_texture(&device, presenter.size())?;
        Ok(Self { device, presenter, pipeline, frame })
    }

    fn redraw(&mut self, time: f32) -> Result<(), Box<dyn Error>> {
        let (w, h) = self.presenter.size();
        if (self.frame.descriptor().width, self.frame.descriptor().height) != (w, h) {
            self.frame = frame_texture(&self.device, (w, h))?;
        }
        self.device.begin_frame()?;
        let background = Color::new(0.05, 0.05, 0.08, 1.0);
        let mut pass = self.device.begin_render_pass(&RenderPassDescriptor::color(
            "triangle",
            ColorAttachment::clear(&self.frame, background),
        ))?;
        pass.set_pipeline(&self.pipeline)?;
        let uniforms: Vec<u8> =
            [time, w as f32 / h as f32, 0.0, 0.0].iter().flat_map(|v| v.to_le_bytes()).collect();
        if !pass.bind_uniform_block("frame", &uniforms) {
            return Err("the frame block was refused".into());
        }
        pass.draw(0..3, 0..1)?;
        pass.submit()?;
        self.presenter.present(&self.device, &self.frame)?;
        Ok(())
    }
}

struct App {
    running: Option<Running>,
    start: Instant,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_none() {
            match Running::start(event_loop) {
                Ok(r) => {
                    r.presenter.window().request_redraw();
                    self.running = Some(r);
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    event_loop.exit();
                }
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(r) = &mut self.running else { return };
        let result = match event {
            WindowEvent::CloseRequested => {
                event_loop.exit();
                Ok(())
            }
            WindowEvent::Resized(size) => r
                .presenter
                .resize(&r.device, size.width, size.height)
                .map_err(|e| Box::new(e) as Box<dyn Error>),
            WindowEvent::RedrawRequested => {
                let drawn = r.redraw(self.start.elapsed().as_secs_f32());
                r.presenter.window().request_redraw();
                drawn
            }
            _ => Ok(()),
        };
        if let Err(e) = result {
            eprintln!("error: {e}");
            event_loop.exit();
        }
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let event_loop = EventLoop::new()?;
    event_loop.run_app(&mut App { running: None, start: Instant::now() })?;
    Ok(())
}
