//! The presenter on a real X server: starts Xvfb, opens a winit window, renders frames through
//! the HAL, presents them with `WindowPresenter`, and reads the window back from the X server
//! (the screenshot) to check the frames reached it: the clear colour at the edges and the
//! quad in the middle, before and after a resize.
//!
//! Without `Xvfb` on the PATH it is skipped with that reason, except on CI (`CI` set), where it
//! is required. Its own harness: winit wants its event loop on the main thread.

use std::error::Error;
use std::sync::Arc;
use std::time::{Duration, Instant};

use f3d_backend_wgpu::winit::application::ApplicationHandler;
use f3d_backend_wgpu::winit::event::WindowEvent;
use f3d_backend_wgpu::winit::event_loop::{ActiveEventLoop, EventLoop};
use f3d_backend_wgpu::winit::platform::x11::EventLoopBuilderExtX11;
use f3d_backend_wgpu::winit::raw_window_handle::{HasWindowHandle, RawWindowHandle};
use f3d_backend_wgpu::winit::window::{Window, WindowId};
use f3d_backend_wgpu::{WgpuDevice, WindowPresenter};
use f3d_hal::{
    Color, ColorAttachment, ColorTargetState, DeviceRequest, GraphicsDevice, PipelineDescriptor,
    PipelineHandle, PrimitiveState, RenderPassDescriptor, ShaderDescriptor, ShaderStage, TextureDescriptor,
    TextureFormat, TextureUsages,
};
use x11rb::protocol::xproto::{ConnectionExt, ImageFormat};

mod common;

type Failure = Box<dyn Error>;

/// The middle half of the target, in one colour.
const QUAD_WGSL: &str = r#"
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let c = array<vec2<f32>, 6>(vec2(-0.5, -0.5), vec2(0.5, -0.5), vec2(-0.5, 0.5),
                                vec2(-0.5, 0.5), vec2(0.5, -0.5), vec2(0.5, 0.5))[i];
    return vec4<f32>(c, 0.5, 1.0);
}

@fragment
fn fs() -> @location(0) vec4<f32> {
    return vec4<f32>(1.0, 0.8, 0.0, 1.0);
}
"#;

const CLEAR: [u8; 3] = [0, 0, 255];
const QUAD: [u8; 3] = [255, 231, 0];
const FIRST: (u32, u32) = (160, 120);
const SECOND: (u32, u32) = (240, 200);
const FRAMES: u32 = 4;

/// The window's pixels as RGB, read from the X server.
fn screenshot(display: &str, window: &Window) -> Result<(u32, u32, Vec<[u8; 3]>), Failure> {
    let id = match window.window_handle()?.as_raw() {
        RawWindowHandle::Xlib(h) => h.window as u32,
        RawWindowHandle::Xcb(h) => h.window.get(),
        other => return Err(format!("not an X11 window: {other:?}").into()),
    };
    let (conn, _) = x11rb::connect(Some(display))?;
    let geometry = conn.get_geometry(id)?.reply()?;
    let (w, h) = (u32::from(geometry.width), u32::from(geometry.height));
    let image =
        conn.get_image(ImageFormat::Z_PIXMAP, id, 0, 0, geometry.width, geometry.height, !0)?.reply()?;
    if image.depth != 24 || image.data.len() < (w * h * 4) as usize {
        return Err(format!("a {}-bit image of {} bytes for {w}x{h}", image.depth, image.data.len()).into());
    }
    // 24-bit TrueColor in 32-bit little-endian pixels: blue, green, red, unused.
    let pixels = image.data.chunks_exact(4).take((w * h) as usize).map(|p| [p[2], p[1], p[0]]).collect();
    Ok((w, h, pixels))
}

fn close(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 2)
}

/// The screenshot shows the clear colour at the corners and the quad in the middle, at `size`.
fn check(display: &str, window: &Window, size: (u32, u32)) -> Result<(), Failure> {
    let (w, h, pixels) = screenshot(display, window)?;
    if (w, h) != size {
        return Err(format!("the window is {w}x{h}, expected {}x{}", size.0, size.1).into());
    }
    let at = |x: u32, y: u32| pixels[(y * w + x) as usize];
    for (x, y) in [(2, 2), (w - 3, 2), (2, h - 3), (w - 3, h - 3)] {
        if !close(at(x, y), CLEAR) {
            return Err(format!(
                "corner ({x}, {y}) of the window shows {:?}, not the clear colour",
                at(x, y)
            )
            .into());
        }
    }
    if !close(at(w / 2, h / 2), QUAD) {
        return Err(
            format!("the middle of the window shows {:?}, not the quad {QUAD:?}", at(w / 2, h / 2)).into()
        );
    }
    Ok(())
}

struct Running {
    device: WgpuDevice,
    presenter: WindowPresenter,
    pipeline: PipelineHandle,
    presented: u32,
    resized: bool,
}

impl Running {
    fn start(event_loop: &ActiveEventLoop) -> Result<Self, Failure> {
        let attributes = Window::default_attributes()
            .with_title("f3d window test")
            .with_inner_size(f3d_backend_wgpu::winit::dpi::PhysicalSize::new(FIRST.0, FIRST.1))
            .with_resizable(true);
        let window = Arc::new(event_loop.create_window(attributes)?);
        let (device, presenter) = WindowPresenter::open(window, &DeviceRequest::new(FIRST.0, FIRST.1))?;
        println!("presenting on {} ({})", device.adapter_info().name, device.adapter_info().driver);
        let module = Arc::new(f3d_materials::compile_wgsl("quad.wgsl", QUAD_WGSL)?);
        let shader = |stage, entry: &str| {
            device.create_shader(&ShaderDescriptor {
                label: entry.into(),
                module: module.clone(),
                stage,
                entry_point: entry.into(),
            })
        };
        let pipeline = device.create_pipeline(&PipelineDescriptor {
            label: "quad".into(),
            vertex: shader(ShaderStage::Vertex, "vs")?,
            fragment: Some(shader(ShaderStage::Fragment, "fs")?),
            vertex_buffers: Vec::new(),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            color_targets: vec![ColorTargetState::replace(TextureFormat::Rgba8UnormSrgb)],
            sample_count: 1,
            multiview: None,
        })?;
        Ok(Self { device, presenter, pipeline, presented: 0, resized: false })
    }

    /// Renders a frame at the surface's size and presents it.
    fn frame(&mut self) -> Result<(), Failure> {
        let (w, h) = self.presenter.size();
        let desc = TextureDescriptor::new_2d("frame", w, h, TextureFormat::Rgba8UnormSrgb)
            .with_usage(TextureUsages::RENDER_ATTACHMENT | TextureUsages::SAMPLED);
        let frame = self.device.create_texture(&desc)?;
        self.device.begin_frame()?;
        let mut pass = self.device.begin_render_pass(&RenderPassDescriptor::color(
            "frame",
            ColorAttachment::clear(&frame, Color::BLUE),
        ))?;
        pass.set_pipeline(&self.pipeline)?;
        pass.draw(0..6, 0..1)?;
        pass.submit()?;
        if self.presenter.present(&self.device, &frame)? {
            self.presented += 1;
        }
        Ok(())
    }
}

struct App {
    display: String,
    running: Option<Running>,
    result: Option<Result<(), Failure>>,
    deadline: Instant,
}

impl App {
    fn step(&mut self, event_loop: &ActiveEventLoop, event: WindowEvent) -> Result<bool, Failure> {
        let Some(r) = &mut self.running else { return Ok(false) };
        match event {
            WindowEvent::Resized(size) => r.presenter.resize(&r.device, size.width, size.height)?,
            WindowEvent::RedrawRequested => {
                if Instant::now() > self.deadline {
                    return Err(format!("only {} frames were presented in 60 s", r.presented).into());
                }
                r.frame()?;
                let window = r.presenter.window().clone();
                if r.presented >= FRAMES && !r.resized {
                    // The server has the last frame once the queue is idle.
                    r.device.wgpu_device().poll(wgpu_wait()).map_err(|e| e.to_string())?;
                    check(&self.display, &window, FIRST)?;
                    r.resized = true;
                    r.presented = 0;
                    let _ = window.request_inner_size(f3d_backend_wgpu::winit::dpi::PhysicalSize::new(
                        SECOND.0, SECOND.1,
                    ));
                } else if r.presented >= FRAMES && r.presenter.size() == SECOND {
                    r.device.wgpu_device().poll(wgpu_wait()).map_err(|e| e.to_string())?;
                    check(&self.display, &window, SECOND)?;
                    let escaped = r.device.wgpu_take_uncaptured_errors();
                    if !escaped.is_empty() {
                        return Err(format!("wgpu errors escaped: {escaped:?}").into());
                    }
                    event_loop.exit();
                    return Ok(true);
                }
                window.request_redraw();
            }
            _ => {}
        }
        Ok(false)
    }
}

fn wgpu_wait() -> f3d_backend_wgpu::wgpu::PollType {
    f3d_backend_wgpu::wgpu::PollType::wait_indefinitely()
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() {
            return;
        }
        match Running::start(event_loop) {
            Ok(r) => {
                r.presenter.window().request_redraw();
                self.running = Some(r);
            }
            Err(e) => {
                self.result = Some(Err(e));
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match self.step(event_loop, event) {
            Ok(true) => self.result = Some(Ok(())),
            Ok(false) => {}
            Err(e) => {
                self.result = Some(Err(e));
                event_loop.exit();
            }
        }
    }
}

fn run() -> Result<(), Failure> {
    let (_server, display) = f3d_testing::xvfb::start(320, 240)?;
    // SAFETY: `main` calls this before any thread of this process exists (the event loop,
    // wgpu and Mesa start theirs later), so nothing reads the environment concurrently.
    unsafe {
        std::env::set_var("DISPLAY", &display);
        std::env::remove_var("WAYLAND_DISPLAY");
    }
    let event_loop = EventLoop::builder().with_x11().build()?;
    let mut app =
        App { display, running: None, result: None, deadline: Instant::now() + Duration::from_secs(60) };
    event_loop.run_app(&mut app)?;
    drop(app.running.take());
    app.result.unwrap_or_else(|| Err("the event loop ended before the frames were checked".into()))
}

fn main() {
    common::quiet_mesa();
    let filtered_out = std::env::args()
        .skip(1)
        .any(|a| !a.starts_with('-') && !"presents_frames_under_xvfb".contains(a.as_str()));
    if std::env::args().any(|a| a == "--list") {
        println!("presents_frames_under_xvfb: test");
        return;
    }
    if filtered_out {
        println!("running 0 tests");
        return;
    }
    let has_xvfb = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("Xvfb").is_file()));
    if !has_xvfb {
        if std::env::var_os("CI").is_some() {
            eprintln!(
                "test presents_frames_under_xvfb ... FAILED: Xvfb is required on CI (apt-get install xvfb)"
            );
            std::process::exit(1);
        }
        println!("test presents_frames_under_xvfb ... skipped: Xvfb is not installed (apt-get install xvfb)");
        return;
    }
    match run() {
        Ok(()) => println!("test presents_frames_under_xvfb ... ok\n\ntest result: ok. 1 passed; 0 failed"),
        Err(e) => {
            eprintln!("test presents_frames_under_xvfb ... FAILED: {e}");
            std::process::exit(1);
        }
    }
}
