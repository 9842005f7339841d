//! Presenting in a window with no GPU at all (feature `present`): the frame's texels are
//! scaled into a CPU framebuffer that the `softbuffer` crate hands to the window system
//! (X11 shared memory or Wayland shm).
//!
//! ```text
//!  frame texture (RGBA, any colour format) ──readback──► sRGB bytes ──nearest scale──►
//!      softbuffer's 0RGB buffer (the surface's size) ──present──► the window
//! ```
//!
//! * The frame is read as the soft device reads back (rows from the top), so what the window
//!   shows is exactly what a screenshot of the same frame holds when the sizes agree; while a
//!   resize is under way the frame is scaled, nearest texel, to the window.
//! * Colour: an sRGB frame's bytes are shown as they are; a linear one (`Rgba8Unorm`, float
//!   formats) is encoded to sRGB first, as a GPU's sRGB surface would.
//! * softbuffer has no present modes: the window system shows each buffer when it gets it,
//!   which is [`PresentMode::Immediate`]'s behaviour; the surface reports the mode it was asked
//!   for only where that is `Immediate`, FIFO otherwise (no tearing is possible with whole
//!   buffers, and nothing waits for vblank).

use std::num::NonZeroU32;

use f3d_hal::backend::texture_payload_linked;
use f3d_hal::present::{
    PresentMode, PresentSurface, Presented, SurfaceConfig, SurfaceTarget, check_presentable,
};
use f3d_hal::raw_window_handle::{
    DisplayHandle, HandleError, HasDisplayHandle, HasWindowHandle, WindowHandle,
};
use f3d_hal::{
    BackendId, DeviceError, OwnerLink, TextureFormat, TextureHandle, TextureRegion, linear_to_srgb,
};

use crate::device::read_lock;
use crate::texture::SoftTexture;

/// The window's handles, as softbuffer wants them.
#[derive(Clone)]
struct Handles(SurfaceTarget);

impl HasDisplayHandle for Handles {
    fn display_handle(&self) -> Result<DisplayHandle<'_>, HandleError> {
        // SAFETY: `SurfaceTarget::new`'s caller vouched the handle stays valid while the
        // target (kept here) lives.
        Ok(unsafe { DisplayHandle::borrow_raw(self.0.raw_display_handle()) })
    }
}

impl HasWindowHandle for Handles {
    fn window_handle(&self) -> Result<WindowHandle<'_>, HandleError> {
        // SAFETY: as for the display handle.
        Ok(unsafe { WindowHandle::borrow_raw(self.0.raw_window_handle()) })
    }
}

/// A window's CPU framebuffer on the soft device.
pub(crate) struct SoftSurface {
    surface: softbuffer::Surface<Handles, Handles>,
    // Declared after the surface: it must outlive it.
    _context: softbuffer::Context<Handles>,
    config: SurfaceConfig,
    sized: Option<(u32, u32)>,
    device: OwnerLink,
    label: String,
    srgb: Box<[u8; 256]>,
}

// SAFETY: softbuffer's X11 and Wayland surfaces hold a connection to the window system
// (thread-safe on both) and the raw handles, which `SurfaceTarget`'s contract allows on any
// thread; a surface is used by one thread at a time (`&mut self`).
unsafe impl Send for SoftSurface {}

fn refused(target: &str, what: impl std::fmt::Display) -> DeviceError {
    DeviceError::Backend {
        operation: "create_surface",
        backend: BackendId::SOFT,
        message: format!("the soft backend cannot present to {target}: {what}"),
    }
}

impl SoftSurface {
    pub(crate) fn new(
        device: OwnerLink,
        target: &SurfaceTarget,
        config: &SurfaceConfig,
    ) -> Result<Self, DeviceError> {
        device.check_alive("create_surface")?;
        let handles = Handles(target.clone());
        let context = softbuffer::Context::new(handles.clone()).map_err(|e| refused(target.label(), e))?;
        let surface = softbuffer::Surface::new(&context, handles).map_err(|e| refused(target.label(), e))?;
        let srgb = Box::new(std::array::from_fn(|i| {
            (linear_to_srgb(i as f64 / 255.0) * 255.0).round().clamp(0.0, 255.0) as u8
        }));
        Ok(Self {
            surface,
            _context: context,
            config: *config,
            sized: None,
            device,
            label: target.label().to_owned(),
            srgb,
        })
    }

    /// The frame as sRGB RGBA8 bytes, rows from the top.
    fn frame_bytes(&self, frame: &TextureHandle) -> Result<(u32, u32, Vec<u8>), DeviceError> {
        const OP: &str = "present";
        let texture = texture_payload_linked::<SoftTexture>(&self.device, frame, OP)?;
        let desc = frame.descriptor();
        let region = TextureRegion::full(desc);
        let image = read_lock(&texture.store).main.readback(desc, &region);
        let (w, h) = (image.width, image.height);
        let bytes = match image.format {
            TextureFormat::Rgba8UnormSrgb => image.data,
            TextureFormat::Rgba8Unorm => {
                let mut data = image.data;
                for px in data.chunks_exact_mut(4) {
                    for c in &mut px[..3] {
                        *c = self.srgb[usize::from(*c)];
                    }
                }
                data
            }
            _ => {
                let mut data = Vec::with_capacity((w * h * 4) as usize);
                for y in 0..h {
                    for x in 0..w {
                        let [r, g, b, _] = image.texel_f32(x, y);
                        let encode =
                            |v: f32| (linear_to_srgb(f64::from(v.clamp(0.0, 1.0))) * 255.0).round() as u8;
                        data.extend_from_slice(&[encode(r), encode(g), encode(b), 255]);
                    }
                }
                data
            }
        };
        Ok((w, h, bytes))
    }
}

impl PresentSurface for SoftSurface {
    fn label(&self) -> &str {
        &self.label
    }

    fn configure(&mut self, config: &SurfaceConfig) -> Result<(), DeviceError> {
        self.device.check_alive("configure")?;
        self.config = *config;
        Ok(())
    }

    fn config(&self) -> SurfaceConfig {
        self.config
    }

    fn present_mode(&self) -> PresentMode {
        if self.config.present_mode == PresentMode::Immediate {
            PresentMode::Immediate
        } else {
            PresentMode::Fifo
        }
    }

    fn present(&mut self, frame: &TextureHandle) -> Result<Presented, DeviceError> {
        const OP: &str = "present";
        self.device.check_alive(OP)?;
        check_presentable(frame, OP)?;
        let (Some(width), Some(height)) =
            (NonZeroU32::new(self.config.width), NonZeroU32::new(self.config.height))
        else {
            return Ok(Presented::Skipped(format!("{} has no size (minimised)", self.label)));
        };
        let (fw, fh, bytes) = self.frame_bytes(frame)?;
        let window_error = |e: softbuffer::SoftBufferError| DeviceError::Backend {
            operation: OP,
            backend: BackendId::SOFT,
            message: format!("{}: {e}", self.label),
        };
        if self.sized != Some((width.get(), height.get())) {
            self.surface.resize(width, height).map_err(window_error)?;
            self.sized = Some((width.get(), height.get()));
        }
        let mut buffer = self.surface.buffer_mut().map_err(window_error)?;
        let (w, h) = (width.get() as usize, height.get() as usize);
        // Nearest texel: the frame's column and row for each of the window's.
        let columns: Vec<usize> = (0..w).map(|x| (x * fw as usize / w).min(fw as usize - 1)).collect();
        for y in 0..h {
            let sy = (y * fh as usize / h).min(fh as usize - 1);
            let row = &bytes[sy * fw as usize * 4..(sy + 1) * fw as usize * 4];
            let out = &mut buffer[y * w..(y + 1) * w];
            for (o, &sx) in out.iter_mut().zip(&columns) {
                let p = &row[sx * 4..sx * 4 + 4];
                *o = (u32::from(p[0]) << 16) | (u32::from(p[1]) << 8) | u32::from(p[2]);
            }
        }
        buffer.present().map_err(window_error)?;
        Ok(Presented::Shown)
    }
}
