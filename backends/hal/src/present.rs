//! Presentation: showing frames in a window ([`DeviceFeature::PRESENT`](crate::DeviceFeature::PRESENT)).
//!
//! ```text
//!  window system ──raw handles──► SurfaceTarget (unsafe to make: the caller vouches for them)
//!                                     │ GraphicsDevice::create_surface
//!                                     ▼
//!  frame texture (sampled colour) ──► PresentSurface::present ──► the window
//!                                      (scaled to the surface, sRGB kept, then shown)
//! ```
//!
//! Decisions, and why:
//!
//! * **Raw handles, not a window type.** The HAL knows no window system: a window comes as
//!   `raw-window-handle` 0.6 handles (what winit, bevy_window, wgpu and softbuffer all speak),
//!   plus an owner that keeps the window alive as long as the surface. That one small crate is
//!   the HAL's only dependency beyond naga, thiserror, glam and bitflags.
//! * **The surface owns its images.** A backend makes whatever the window system wants (a wgpu
//!   surface, a Vulkan swapchain, a CPU framebuffer) and draws the frame onto it itself, so the
//!   engine renders into its own texture at its own size and format, and a resize under way
//!   never makes a frame fail: the frame is scaled to the surface.
//! * **A frame the window cannot take is not an error.** An outdated or lost surface is made
//!   again and that frame is [`Presented::Skipped`] with the reason; a hidden or minimised
//!   window skips too. Errors are for what the next frame cannot mend (the device is lost,
//!   the frame is not a sampled colour texture).
//! * **Presentation is a capability**: a backend that cannot present does not report
//!   [`DeviceFeature::PRESENT`](crate::DeviceFeature::PRESENT) and
//!   [`GraphicsDevice::create_surface`](crate::GraphicsDevice::create_surface)
//!   refuses by that name (the default body). — `capabilities::present`.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

pub use raw_window_handle::{RawDisplayHandle, RawWindowHandle};

use crate::{DeviceError, TextureHandle};

/// A window to present into: its raw handles, and whatever keeps them valid.
#[derive(Clone)]
pub struct SurfaceTarget {
    window: RawWindowHandle,
    display: RawDisplayHandle,
    label: String,
    keep_alive: Arc<dyn Any + Send + Sync>,
}

impl SurfaceTarget {
    /// A target from a window's raw handles.
    ///
    /// # Safety
    ///
    /// `window` and `display` must stay valid for as long as `keep_alive` (or any clone of
    /// this target, or a surface made from it) is alive, and the platform must allow them to
    /// be used from any thread (X11 and Wayland do; on others, present from the thread the
    /// platform requires).
    pub unsafe fn new(
        window: RawWindowHandle,
        display: RawDisplayHandle,
        label: impl Into<String>,
        keep_alive: Arc<dyn Any + Send + Sync>,
    ) -> Self {
        Self { window, display, label: label.into(), keep_alive }
    }

    /// The window handle.
    pub fn raw_window_handle(&self) -> RawWindowHandle {
        self.window
    }

    /// The display handle.
    pub fn raw_display_handle(&self) -> RawDisplayHandle {
        self.display
    }

    /// The window's name in errors and logs (e.g. `window 3v1 "f3d"`).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// What keeps the handles valid; a surface holds a clone of it.
    pub fn keep_alive(&self) -> Arc<dyn Any + Send + Sync> {
        self.keep_alive.clone()
    }
}

impl fmt::Debug for SurfaceTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SurfaceTarget")
            .field("label", &self.label)
            .field("window", &self.window)
            .field("display", &self.display)
            .finish_non_exhaustive()
    }
}

// SAFETY: the raw handles are plain identifiers (pointers into the window system's
// connection); `SurfaceTarget::new`'s caller vouched that they may be used from any thread.
unsafe impl Send for SurfaceTarget {}
// SAFETY: as for `Send`: nothing in a target is mutated through `&self`.
unsafe impl Sync for SurfaceTarget {}

/// How frames are paced (Bevy's and wgpu's `PresentMode`s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PresentMode {
    /// Vsync: FIFO, relaxed where the surface offers it.
    #[default]
    AutoVsync,
    /// No vsync where the surface offers it (immediate, else mailbox), else FIFO.
    AutoNoVsync,
    /// Every frame is shown, one per vertical blank.
    Fifo,
    /// FIFO, but a late frame is shown at once (it may tear).
    FifoRelaxed,
    /// Shown at once (it may tear).
    Immediate,
    /// The newest frame is shown at the next vertical blank; older ones are dropped.
    Mailbox,
}

/// What a surface is set up for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurfaceConfig {
    /// Width in physical pixels.
    pub width: u32,
    /// Height in physical pixels.
    pub height: u32,
    /// Frame pacing. A mode the surface does not offer falls back to FIFO, which every
    /// surface offers; [`PresentSurface::present_mode`] says which was taken.
    pub present_mode: PresentMode,
}

/// What [`PresentSurface::present`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Presented {
    /// The frame is on its way to the window.
    Shown,
    /// The window could not take a frame now (outdated, lost and made again, hidden, zero
    /// sized); the next frame is shown. The reason, in words.
    Skipped(String),
}

/// A window's surface on one device (made by
/// [`GraphicsDevice::create_surface`](crate::GraphicsDevice::create_surface)).
///
/// Dropping it releases what the backend made for the window; the device must outlive it
/// only in the sense that a surface of a lost device refuses with [`DeviceError::Lost`].
pub trait PresentSurface: Send {
    /// The window this surface shows into ([`SurfaceTarget::label`]).
    fn label(&self) -> &str;

    /// Follows the window to a new size or present mode. A zero size (a minimised window) is
    /// kept as asked, and frames are skipped until the window has a size again.
    fn configure(&mut self, config: &SurfaceConfig) -> Result<(), DeviceError>;

    /// What the surface is set up for now.
    fn config(&self) -> SurfaceConfig;

    /// The present mode actually in use (the asked one, or its fallback).
    fn present_mode(&self) -> PresentMode;

    /// Draws `frame` (a single-sampled, sampled colour texture of this device; sRGB or
    /// linear, both shown as such) over the whole surface, scaled to it, and presents it.
    fn present(&mut self, frame: &TextureHandle) -> Result<Presented, DeviceError>;
}

/// The checks every backend's `present` makes before it touches the window: the frame is a
/// single-sampled colour texture that shaders may sample. `operation` names the call.
pub fn check_presentable(frame: &TextureHandle, operation: &'static str) -> Result<(), DeviceError> {
    let desc = frame.descriptor();
    if !desc.format.is_color()
        || desc.sample_count != 1
        || !desc.usage.contains(crate::TextureUsages::SAMPLED)
    {
        return Err(DeviceError::Refused {
            operation,
            reason: format!(
                "{} must be a single-sampled colour texture with SAMPLED usage to be shown \
                 (it is {:?}, {} samples, usage {:?})",
                desc.label, desc.format, desc.sample_count, desc.usage
            ),
        });
    }
    Ok(())
}

/// The present mode a surface offering `offered` uses for `asked` (FIFO when nothing better
/// fits: every surface offers it).
pub fn choose_present_mode(asked: PresentMode, offered: &[PresentMode]) -> PresentMode {
    let has = |m: PresentMode| offered.contains(&m);
    let pick = |order: &[PresentMode]| order.iter().copied().find(|m| has(*m)).unwrap_or(PresentMode::Fifo);
    match asked {
        PresentMode::AutoVsync => pick(&[PresentMode::FifoRelaxed, PresentMode::Fifo]),
        PresentMode::AutoNoVsync => pick(&[PresentMode::Immediate, PresentMode::Mailbox, PresentMode::Fifo]),
        m => pick(&[m, PresentMode::Fifo]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn present_modes_fall_back_to_fifo() {
        use PresentMode::*;
        assert_eq!(choose_present_mode(AutoVsync, &[Fifo, Immediate]), Fifo);
        assert_eq!(choose_present_mode(AutoVsync, &[Fifo, FifoRelaxed]), FifoRelaxed);
        assert_eq!(choose_present_mode(AutoNoVsync, &[Fifo, Mailbox]), Mailbox);
        assert_eq!(choose_present_mode(AutoNoVsync, &[Fifo, Mailbox, Immediate]), Immediate);
        assert_eq!(choose_present_mode(Mailbox, &[Fifo]), Fifo);
        assert_eq!(choose_present_mode(Immediate, &[Fifo, Immediate]), Immediate);
        assert_eq!(choose_present_mode(Fifo, &[]), Fifo);
    }
}
