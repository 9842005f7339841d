//! A window's `VkSurfaceKHR`, made from its raw handles with the platform extension they
//! need (those the instance enabled: Xlib, XCB, Wayland).

use ash::vk;
use f3d_hal::raw_window_handle::{RawDisplayHandle, RawWindowHandle};
use f3d_hal::{DeviceError, SurfaceTarget};

use super::{Fns, cannot_present};
use crate::sync::Shared;

/// The window system a handle belongs to, in words.
fn window_kind(handle: &RawWindowHandle) -> &'static str {
    match handle {
        RawWindowHandle::Xlib(_) => "an Xlib window",
        RawWindowHandle::Xcb(_) => "an XCB window",
        RawWindowHandle::Wayland(_) => "a Wayland surface",
        RawWindowHandle::Win32(_) => "a Win32 window",
        RawWindowHandle::AppKit(_) => "an AppKit view",
        RawWindowHandle::AndroidNdk(_) => "an Android window",
        _ => "a window of another system",
    }
}

fn display_kind(handle: &RawDisplayHandle) -> &'static str {
    match handle {
        RawDisplayHandle::Xlib(_) => "an Xlib display",
        RawDisplayHandle::Xcb(_) => "an XCB connection",
        RawDisplayHandle::Wayland(_) => "a Wayland display",
        RawDisplayHandle::Windows(_) => "Windows",
        RawDisplayHandle::AppKit(_) => "macOS",
        RawDisplayHandle::Android(_) => "Android",
        _ => "a display of another system",
    }
}

/// Makes a `VkSurfaceKHR` for `target` with the platform extension its handles need, and
/// checks that the device's queue family can present to it.
pub(super) fn make_surface(
    shared: &Shared,
    fns: &Fns,
    target: &SurfaceTarget,
    operation: &'static str,
) -> Result<vk::SurfaceKHR, DeviceError> {
    let label = target.label();
    let on = shared.instance.surfaces;
    let (entry, instance) = (&shared.instance.entry, &shared.instance.instance);
    let missing = |ext: &str| {
        cannot_present(operation, label, format!("its handles need {ext}, which the Vulkan loader lacks"))
    };
    let made = match (target.raw_window_handle(), target.raw_display_handle()) {
        (RawWindowHandle::Xlib(w), RawDisplayHandle::Xlib(d)) => {
            if !on.xlib {
                return Err(missing("VK_KHR_xlib_surface"));
            }
            let Some(display) = d.display else {
                return Err(cannot_present(operation, label, "its Xlib display handle holds no Display"));
            };
            let info = vk::XlibSurfaceCreateInfoKHR::default().dpy(display.as_ptr()).window(w.window);
            let ext = ash::khr::xlib_surface::Instance::new(entry, instance);
            // SAFETY: `SurfaceTarget::new`'s caller vouched that the handles are valid while
            // the target (kept by the surface) lives; the extension is enabled.
            unsafe { ext.create_xlib_surface(&info, None) }
        }
        (RawWindowHandle::Xcb(w), RawDisplayHandle::Xcb(d)) => {
            if !on.xcb {
                return Err(missing("VK_KHR_xcb_surface"));
            }
            let Some(connection) = d.connection else {
                return Err(cannot_present(operation, label, "its XCB display handle holds no connection"));
            };
            let info =
                vk::XcbSurfaceCreateInfoKHR::default().connection(connection.as_ptr()).window(w.window.get());
            let ext = ash::khr::xcb_surface::Instance::new(entry, instance);
            // SAFETY: as for Xlib.
            unsafe { ext.create_xcb_surface(&info, None) }
        }
        (RawWindowHandle::Wayland(w), RawDisplayHandle::Wayland(d)) => {
            if !on.wayland {
                return Err(missing("VK_KHR_wayland_surface"));
            }
            let info = vk::WaylandSurfaceCreateInfoKHR::default()
                .display(d.display.as_ptr())
                .surface(w.surface.as_ptr());
            let ext = ash::khr::wayland_surface::Instance::new(entry, instance);
            // SAFETY: as for Xlib.
            unsafe { ext.create_wayland_surface(&info, None) }
        }
        (window, display) => {
            return Err(cannot_present(
                operation,
                label,
                format!(
                    "it is {} on {}, and this backend presents to Xlib, XCB and Wayland windows",
                    window_kind(&window),
                    display_kind(&display)
                ),
            ));
        }
    };
    let surface = made.map_err(|e| match e {
        vk::Result::ERROR_DEVICE_LOST => shared.vk_error(operation, e),
        other => cannot_present(operation, label, format!("making its surface failed: {other}")),
    })?;
    shared.objects.add(1);
    let destroy = || {
        // SAFETY: the surface was just made and nothing uses it.
        unsafe { fns.surface.destroy_surface(surface, None) };
        shared.objects.sub(1);
    };
    // SAFETY: the family is one of the physical device's; the surface is this instance's.
    match unsafe { fns.surface.get_physical_device_surface_support(shared.physical, shared.family, surface) }
    {
        Ok(true) => Ok(surface),
        Ok(false) => {
            destroy();
            Err(cannot_present(
                operation,
                label,
                format!("queue family {} of {} cannot present to it", shared.family, shared.caps.name),
            ))
        }
        Err(e) => {
            destroy();
            Err(shared.vk_error(operation, e))
        }
    }
}
