//! Cameras are bevy_camera's: [`Camera3d`](bevy_camera::Camera3d) with its
//! [`Camera`] (order, activity, viewport, clear colour), [`Projection`], [`RenderTarget`] and
//! [`Exposure`](bevy_camera::Exposure). f3d adds the [`Tonemapping`] and [`Msaa`] components and fills in
//! what bevy_render's camera system would: each camera's target size, its projection's aspect
//! ratio and its `clip_from_view` ([`update_cameras`], before Bevy computes frusta, so frustum
//! culling sees the right shape).
//!
//! The target: `RenderTarget::Window(_)` is that bevy_window `Window` at its physical size, or
//! headless (no such window) the offscreen main target of
//! [`F3dRenderPlugin::size`](crate::plugin::F3dRenderPlugin) ([`crate::window`]); an image
//! target made as a render target (`Image::new_target_texture`: `RENDER_ATTACHMENT` usage,
//! RGBA8) is drawn into, and materials of cameras with a higher `order` sample the picture in
//! the same frame; another image target, and `RenderTarget::None { size }`, draw offscreen at
//! their size. Every active camera draws, in `order` (see [`crate::render`]).
//!
//! Depth: f3d draws with depth 0 at the near plane and 1 at the far plane. Bevy's perspective
//! matrix is reverse-Z and infinite, so f3d builds its own from the same fields (`fov`,
//! `aspect_ratio`, `near`, `far`); a custom projection's matrix is taken as Bevy's convention
//! (reverse Z) and flipped.

use bevy_asset::Assets;
use bevy_camera::{Camera, Projection, RenderTarget, RenderTargetInfo};
use bevy_ecs::prelude::*;
use bevy_image::Image;
use bevy_math::{Mat4, UVec2};

use crate::resources::RenderSettings;
use crate::window::WindowTargets;

/// The tone curve the tonemap pass applies (DESIGN §2): a component on the camera.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Tonemapping {
    /// Clamp only.
    None,
    /// Khronos PBR Neutral: colours as authored up to a highlight shoulder.
    #[default]
    PbrNeutral,
    /// ACES filmic (Hill's fit).
    Aces,
}

/// Multisample anti-aliasing of a camera's scene: a component on the camera, as Bevy's
/// `Msaa` (which lives in bevy_render) with the same variants.
///
/// Opaque, sky and translucent draws go into a multisampled scene colour and depth, which are
/// resolved into the HDR target before anything reads it (the scene-colour snapshot, the
/// tonemap, custom passes through [`ViewGraph::resolved_hdr`](crate::render::graph::ViewGraph::resolved_hdr)).
///
/// Differences from Bevy, on purpose: a camera without the component draws without MSAA
/// (Bevy makes 4× a required component of every camera; f3d's default device may be the CPU
/// rasteriser, where 4× costs time, so it is opted into); and f3d's HAL offers one
/// multisampled count, 4, so `Sample2` and `Sample8` draw with 4 samples (logged once). A
/// device without [`MSAA`](f3d_hal::DeviceFeature::MSAA), or whose scene formats cannot be
/// multisampled, draws without it (logged once). With MSAA on, the depth prepass draws only
/// when a material reads the scene depth, into a single-sampled copy that materials sample.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Msaa {
    /// One sample per pixel.
    #[default]
    Off,
    /// Two samples (drawn with 4).
    Sample2,
    /// Four samples.
    Sample4,
    /// Eight samples (drawn with 4).
    Sample8,
}

impl Msaa {
    /// The samples asked for.
    pub fn samples(self) -> u32 {
        match self {
            Self::Off => 1,
            Self::Sample2 => 2,
            Self::Sample4 => 4,
            Self::Sample8 => 8,
        }
    }
}

impl Tonemapping {
    /// The value `fs_tonemap` switches on.
    pub fn shader_value(self) -> u32 {
        match self {
            Self::None => 0,
            Self::PbrNeutral => 1,
            Self::Aces => 2,
        }
    }
}

/// The size in pixels of what `target` draws into, if it is known yet (an image target whose
/// image has not loaded is not) and not empty (a minimised window is). A window target is the
/// window's physical size; with no such window (headless), the main target's.
pub fn target_size(
    target: Option<&RenderTarget>,
    main: (u32, u32),
    windows: &WindowTargets,
    images: &Assets<Image>,
) -> Option<UVec2> {
    match target {
        None | Some(RenderTarget::Window(_)) | Some(RenderTarget::TextureView(_)) => {
            Some(windows.window_size(target).unwrap_or(UVec2::new(main.0, main.1)))
        }
        Some(RenderTarget::Image(t)) => images.get(&t.handle).map(|i| i.size()),
        Some(RenderTarget::None { size }) => Some(*size),
    }
    .filter(|s| s.x > 0 && s.y > 0)
}

/// Fills each camera's target info and projection aspect (what bevy_render's camera system
/// does), in `PostUpdate` before frusta are computed.
pub fn update_cameras(
    settings: Res<RenderSettings>,
    windows: Res<WindowTargets>,
    images: Res<Assets<Image>>,
    mut cameras: Query<(&mut Camera, &mut Projection, Option<&RenderTarget>)>,
) {
    for (mut camera, mut projection, target) in &mut cameras {
        let Some(size) = target_size(target, settings.size, &windows, &images) else { continue };
        let info = RenderTargetInfo { physical_size: size, scale_factor: 1.0 };
        let viewport = camera.viewport.as_ref().map_or(size, |v| v.physical_size.min(size)).max(UVec2::ONE);
        let stale = camera.computed.target_info.as_ref().is_none_or(|t| t.physical_size != size)
            || camera.computed.old_viewport_size != Some(viewport);
        if stale || projection.is_changed() {
            let computed = &mut camera.computed;
            computed.target_info = Some(info);
            computed.old_viewport_size = Some(viewport);
            projection.update(viewport.x as f32, viewport.y as f32);
            camera.computed.clip_from_view = projection.get_clip_from_view();
        }
    }
}

/// Clip from view with depth 0 at the near plane and 1 at the far plane (see the module docs).
// glam 0.33 deprecates the methods in favour of free functions with the same results.
#[allow(deprecated)]
pub fn clip_from_view(projection: &Projection) -> Mat4 {
    match projection {
        Projection::Perspective(p) => {
            let aspect =
                if p.aspect_ratio.is_finite() && p.aspect_ratio > 0.0 { p.aspect_ratio } else { 1.0 };
            let near = p.near.max(1e-4);
            Mat4::perspective_rh(p.fov.clamp(1e-3, 3.1), aspect, near, p.far.max(near * 1.001))
        }
        Projection::Orthographic(o) => {
            let a = o.area;
            let (w, h) = ((a.max.x - a.min.x).abs().max(1e-6), (a.max.y - a.min.y).abs().max(1e-6));
            Mat4::orthographic_rh(
                a.min.x,
                a.min.x + w,
                a.min.y,
                a.min.y + h,
                o.near,
                o.far.max(o.near + 1e-3),
            )
        }
        Projection::Custom(_) => {
            // Reverse Z to forward Z: z' = w - z.
            let m = projection.get_clip_from_view();
            let (x, y, z, w) = (m.row(0), m.row(1), m.row(2), m.row(3));
            Mat4::from_cols(x, y, w - z, w).transpose()
        }
    }
}

/// The multiplier Bevy's `Exposure` puts on scene light (1 / (1.2 · 2^EV100)).
pub fn exposure_multiplier(exposure: Option<&bevy_camera::Exposure>) -> f32 {
    exposure.copied().unwrap_or_default().exposure()
}

#[cfg(test)]
mod tests {
    use bevy_camera::PerspectiveProjection;
    use bevy_math::Vec4;

    use super::*;

    /// The near plane lands at depth 0 and the far plane at 1; a custom projection in Bevy's
    /// reverse-Z convention is flipped to the same.
    #[test]
    fn depth_runs_from_near_to_far() {
        let p = Projection::Perspective(PerspectiveProjection { near: 0.5, far: 50.0, ..Default::default() });
        let m = clip_from_view(&p);
        let depth = |z: f32| {
            let c = m * Vec4::new(0.0, 0.0, -z, 1.0);
            c.z / c.w
        };
        assert!(depth(0.5).abs() < 1e-5 && (depth(50.0) - 1.0).abs() < 1e-4);
    }
}
