//! A bare X window to present into, and the pattern frame shown in it: what the
//! `capabilities::present` check and the backends' presentation tests share.
//!
//! The window lives on its own XCB connection (x11rb, libxcb loaded at run time), so any
//! backend can make a surface from it (XCB handles: wgpu, vulkan's `VK_KHR_xcb_surface`,
//! softbuffer), and its pixels are read straight back from the X server. The pattern's left
//! half is sRGB `[128, 32, 0]` — 128 shows whether sRGB is kept (a frame decoded and stored
//! without encoding shows 55; one encoded twice, 188) — and its right half `[0, 64, 192]`, so
//! swapped channels show too.

use std::any::Any;
use std::error::Error;
use std::ffi::CString;
use std::num::NonZeroU32;
use std::ptr::NonNull;
use std::sync::Arc;
use std::time::{Duration, Instant};

use f3d_hal::raw_window_handle::{RawDisplayHandle, RawWindowHandle, XcbDisplayHandle, XcbWindowHandle};
use f3d_hal::{
    GraphicsDevice, PresentSurface, Presented, SurfaceTarget, TextureDescriptor, TextureFormat,
    TextureHandle, TextureRegion, TextureUsages,
};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConfigureWindowAux, ConnectionExt, CreateWindowAux, ImageFormat, WindowClass};
use x11rb::xcb_ffi::XCBConnection;

/// What goes wrong with the X server or the window, in words.
pub type WindowFailure = Box<dyn Error>;

/// The pattern's left half, as sRGB bytes.
pub const LEFT: [u8; 3] = [128, 32, 0];
/// The pattern's right half.
pub const RIGHT: [u8; 3] = [0, 64, 192];

/// A bare, mapped X window on its own XCB connection.
pub struct TestWindow {
    conn: Arc<XCBConnection>,
    id: u32,
    screen: usize,
}

impl TestWindow {
    /// A `width`x`height` window on `display` (`None`: the `DISPLAY` variable's).
    pub fn open(display: Option<&str>, (width, height): (u32, u32)) -> Result<Self, WindowFailure> {
        let display = display.map(CString::new).transpose()?;
        // An X server started without `-noreset` refuses connections for a moment each time
        // its last client leaves (as another check's window may just have): try a few times.
        let mut tries = 0;
        let (conn, screen) = loop {
            match XCBConnection::connect(display.as_deref()) {
                Ok(c) => break c,
                Err(_) if tries < 10 && (display.is_some() || std::env::var_os("DISPLAY").is_some()) => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(e) => return Err(e.into()),
            }
        };
        let root = conn.setup().roots.get(screen).ok_or("the X server has no such screen")?;
        let (depth, parent, visual, black) = (root.root_depth, root.root, root.root_visual, root.black_pixel);
        let id = conn.generate_id()?;
        conn.create_window(
            depth,
            id,
            parent,
            0,
            0,
            u16::try_from(width)?,
            u16::try_from(height)?,
            0,
            WindowClass::INPUT_OUTPUT,
            visual,
            &CreateWindowAux::new().background_pixel(black),
        )?;
        conn.map_window(id)?;
        // A round trip: the window exists and is mapped once it returns.
        conn.get_input_focus()?.reply()?;
        Ok(Self { conn: Arc::new(conn), id, screen })
    }

    /// The target for a surface; it keeps the connection (and so the window) alive.
    pub fn target(&self, label: &str) -> Result<SurfaceTarget, WindowFailure> {
        let window = XcbWindowHandle::new(NonZeroU32::new(self.id).ok_or("window id 0")?);
        let display = XcbDisplayHandle::new(
            NonNull::new(self.conn.get_raw_xcb_connection()),
            i32::try_from(self.screen)?,
        );
        let keep_alive: Arc<dyn Any + Send + Sync> = self.conn.clone();
        // SAFETY: the connection lives as long as `keep_alive` (the target and the surface hold
        // it), and the window lives as long as the connection; XCB may be used from any thread.
        Ok(unsafe {
            SurfaceTarget::new(
                RawWindowHandle::Xcb(window),
                RawDisplayHandle::Xcb(display),
                label,
                keep_alive,
            )
        })
    }

    /// Resizes the window (as a user dragging its border would).
    pub fn resize(&self, (width, height): (u32, u32)) -> Result<(), WindowFailure> {
        self.conn.configure_window(self.id, &ConfigureWindowAux::new().width(width).height(height))?;
        self.conn.get_input_focus()?.reply()?;
        Ok(())
    }

    /// The window's size and pixels as RGB, rows from the top, read from the X server.
    pub fn screenshot(&self) -> Result<(u32, u32, Vec<[u8; 3]>), WindowFailure> {
        let geometry = self.conn.get_geometry(self.id)?.reply()?;
        let (w, h) = (u32::from(geometry.width), u32::from(geometry.height));
        let image = self
            .conn
            .get_image(ImageFormat::Z_PIXMAP, self.id, 0, 0, geometry.width, geometry.height, !0)?
            .reply()?;
        if image.depth != 24 || image.data.len() < (w * h * 4) as usize {
            return Err(
                format!("a {}-bit image of {} bytes for {w}x{h}", image.depth, image.data.len()).into()
            );
        }
        // 24-bit TrueColor in 32-bit little-endian pixels: blue, green, red, unused.
        Ok((w, h, image.data.chunks_exact(4).take((w * h) as usize).map(|p| [p[2], p[1], p[0]]).collect()))
    }

    /// `Ok(Ok(()))` when the window is `size` and shows the pattern within ±2 (away from the
    /// middle column, where a scaled frame blends the halves); `Ok(Err(what differs))` if not.
    pub fn shows_pattern(&self, size: (u32, u32)) -> Result<Result<(), String>, WindowFailure> {
        let (w, h, pixels) = self.screenshot()?;
        if (w, h) != size {
            return Ok(Err(format!("the window is {w}x{h}, not {}x{}", size.0, size.1)));
        }
        let close = |a: [u8; 3], b: [u8; 3]| a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 2);
        for y in [1, h / 2, h - 2] {
            for (x, want) in [(1, LEFT), (w / 4, LEFT), (w / 2 - 4, LEFT), (w / 2 + 4, RIGHT), (w - 2, RIGHT)]
            {
                let got = pixels[(y * w + x) as usize];
                if !close(got, want) {
                    return Ok(Err(format!("({x}, {y}) shows {got:?}, not {want:?}")));
                }
            }
        }
        Ok(Ok(()))
    }
}

/// A sampled `Rgba8UnormSrgb` frame texture of `size` holding the pattern.
pub fn pattern_frame(
    device: &dyn GraphicsDevice,
    (width, height): (u32, u32),
) -> Result<TextureHandle, WindowFailure> {
    let desc = TextureDescriptor::new_2d("frame", width, height, TextureFormat::Rgba8UnormSrgb)
        .with_usage(TextureUsages::RENDER_ATTACHMENT | TextureUsages::SAMPLED | TextureUsages::COPY_DST);
    let frame = device.create_texture(&desc)?;
    let mut data = Vec::with_capacity((width * height * 4) as usize);
    for _ in 0..height {
        for x in 0..width {
            let [r, g, b] = if x < width / 2 { LEFT } else { RIGHT };
            data.extend_from_slice(&[r, g, b, 255]);
        }
    }
    device.write_texture(&frame, TextureRegion::full(&desc), &data)?;
    Ok(frame)
}

/// Presents `frame` until at least `frames` were shown and `window` shows the pattern at
/// `size` (10 s at most: the X server gets each frame a little after its present). Returns the
/// reasons of the frames skipped on the way.
pub fn show(
    device: &dyn GraphicsDevice,
    surface: &mut dyn PresentSurface,
    frame: &TextureHandle,
    window: &TestWindow,
    size: (u32, u32),
    frames: u32,
) -> Result<Vec<String>, WindowFailure> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let (mut shown, mut skipped) = (0, Vec::new());
    loop {
        device.begin_frame()?;
        match surface.present(frame)? {
            Presented::Shown => shown += 1,
            Presented::Skipped(why) => skipped.push(why),
        }
        if shown >= frames {
            match window.shows_pattern(size)? {
                Ok(()) => return Ok(skipped),
                Err(diff) if Instant::now() > deadline => {
                    return Err(format!("after {shown} frames shown ({skipped:?} skipped): {diff}").into());
                }
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        } else if Instant::now() > deadline {
            return Err(format!("only {shown} frames were shown in 10 s; skipped: {skipped:?}").into());
        }
    }
}
