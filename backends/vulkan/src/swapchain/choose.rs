//! The swapchain's settings from what the surface offers: pure functions of the surface's
//! answers, tested without a window.

use ash::vk;

/// The format the swapchain's images get: an 8-bit sRGB one in the sRGB colour space where
/// offered, else the first offered; only formats a blit can write (`blit_dst`), when any is.
pub(super) fn choose_format(
    offered: &[vk::SurfaceFormatKHR],
    blit_dst: impl Fn(vk::Format) -> bool,
) -> Option<vk::SurfaceFormatKHR> {
    let usable: Vec<vk::SurfaceFormatKHR> = offered.iter().copied().filter(|f| blit_dst(f.format)).collect();
    let pool = if usable.is_empty() { offered } else { &usable };
    let srgb = [vk::Format::B8G8R8A8_SRGB, vk::Format::R8G8B8A8_SRGB];
    pool.iter()
        .copied()
        .find(|f| srgb.contains(&f.format) && f.color_space == vk::ColorSpaceKHR::SRGB_NONLINEAR)
        .or_else(|| pool.first().copied())
}

/// The images' size: the surface's current extent where it has one, else the configured size
/// clamped to what the surface allows; `None` when either is zero (a minimised window).
pub(super) fn choose_extent(
    caps: &vk::SurfaceCapabilitiesKHR,
    width: u32,
    height: u32,
) -> Option<vk::Extent2D> {
    if width == 0 || height == 0 {
        return None;
    }
    let extent = if caps.current_extent.width != u32::MAX {
        caps.current_extent
    } else {
        // min/max rather than clamp: a driver reporting min > max gets its min, not a panic.
        vk::Extent2D {
            width: width.min(caps.max_image_extent.width).max(caps.min_image_extent.width),
            height: height.min(caps.max_image_extent.height).max(caps.min_image_extent.height),
        }
    };
    (extent.width > 0 && extent.height > 0).then_some(extent)
}

/// One image more than the minimum (so acquiring never waits for the image on screen), within
/// the maximum (0: none).
pub(super) fn choose_image_count(caps: &vk::SurfaceCapabilitiesKHR) -> u32 {
    let count = caps.min_image_count + 1;
    if caps.max_image_count > 0 { count.min(caps.max_image_count) } else { count }
}

/// Opaque where the window system allows it.
pub(super) fn choose_composite_alpha(supported: vk::CompositeAlphaFlagsKHR) -> vk::CompositeAlphaFlagsKHR {
    use vk::CompositeAlphaFlagsKHR as A;
    [A::OPAQUE, A::INHERIT, A::PRE_MULTIPLIED, A::POST_MULTIPLIED]
        .into_iter()
        .find(|a| supported.contains(*a))
        .unwrap_or(A::OPAQUE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(current: (u32, u32), min: (u32, u32), max: (u32, u32)) -> vk::SurfaceCapabilitiesKHR {
        vk::SurfaceCapabilitiesKHR {
            current_extent: vk::Extent2D { width: current.0, height: current.1 },
            min_image_extent: vk::Extent2D { width: min.0, height: min.1 },
            max_image_extent: vk::Extent2D { width: max.0, height: max.1 },
            min_image_count: 2,
            max_image_count: 3,
            ..Default::default()
        }
    }

    fn format(format: vk::Format) -> vk::SurfaceFormatKHR {
        vk::SurfaceFormatKHR { format, color_space: vk::ColorSpaceKHR::SRGB_NONLINEAR }
    }

    #[test]
    fn the_extent_follows_the_surface_or_the_config() {
        let window = caps((64, 48), (1, 1), (4096, 4096));
        assert_eq!(choose_extent(&window, 96, 64), Some(vk::Extent2D { width: 64, height: 48 }));
        let free = caps((u32::MAX, u32::MAX), (8, 8), (100, 100));
        assert_eq!(choose_extent(&free, 96, 640), Some(vk::Extent2D { width: 96, height: 100 }));
        assert_eq!(choose_extent(&free, 2, 2), Some(vk::Extent2D { width: 8, height: 8 }));
        // Minimised: a zero config or a zero current extent.
        assert_eq!(choose_extent(&window, 0, 48), None);
        assert_eq!(choose_extent(&caps((0, 0), (0, 0), (0, 0)), 64, 48), None);
    }

    #[test]
    fn srgb_formats_come_first() {
        let offered = [format(vk::Format::B8G8R8A8_UNORM), format(vk::Format::B8G8R8A8_SRGB)];
        assert_eq!(choose_format(&offered, |_| true).map(|f| f.format), Some(vk::Format::B8G8R8A8_SRGB));
        let unorm = [format(vk::Format::A2B10G10R10_UNORM_PACK32), format(vk::Format::R8G8B8A8_UNORM)];
        assert_eq!(
            choose_format(&unorm, |_| true).map(|f| f.format),
            Some(vk::Format::A2B10G10R10_UNORM_PACK32)
        );
        // Only formats a blit can write, where there are any.
        assert_eq!(
            choose_format(&offered, |f| f == vk::Format::B8G8R8A8_UNORM).map(|f| f.format),
            Some(vk::Format::B8G8R8A8_UNORM)
        );
        assert_eq!(choose_format(&offered, |_| false).map(|f| f.format), Some(vk::Format::B8G8R8A8_SRGB));
        assert_eq!(choose_format(&[], |_| true), None);
    }

    #[test]
    fn one_image_more_than_the_minimum_within_the_maximum() {
        let mut c = caps((1, 1), (1, 1), (1, 1));
        assert_eq!(choose_image_count(&c), 3);
        c.max_image_count = 2;
        assert_eq!(choose_image_count(&c), 2);
        c.max_image_count = 0;
        assert_eq!(choose_image_count(&c), 3);
    }

    #[test]
    fn opaque_where_allowed() {
        use vk::CompositeAlphaFlagsKHR as A;
        assert_eq!(choose_composite_alpha(A::OPAQUE | A::INHERIT), A::OPAQUE);
        assert_eq!(choose_composite_alpha(A::INHERIT | A::PRE_MULTIPLIED), A::INHERIT);
    }
}
