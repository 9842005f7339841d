//! Cameras: what is seen, how it is exposed and tonemapped, and where it goes.

use bevy_ecs::prelude::Component;
use bevy_math::Mat4;
use bevy_transform::components::Transform;

/// How the camera projects.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Projection {
    /// Perspective with a vertical field of view in radians.
    Perspective {
        /// Vertical field of view, radians.
        fov_y: f32,
        /// Near plane distance.
        near: f32,
        /// Far plane distance.
        far: f32,
    },
    /// Orthographic, `height` world units tall (width from the aspect ratio).
    Orthographic {
        /// Visible height in world units.
        height: f32,
        /// Near plane distance.
        near: f32,
        /// Far plane distance.
        far: f32,
    },
}

impl Default for Projection {
    fn default() -> Self {
        Self::Perspective { fov_y: 45f32.to_radians(), near: 0.1, far: 200.0 }
    }
}

impl Projection {
    /// Clip from view for a target of `aspect` (width / height), depth 0 (near) to 1 (far).
    // glam 0.33 deprecates these in favour of free functions with the same results; the
    // methods read better here.
    #[allow(deprecated)]
    pub fn matrix(&self, aspect: f32) -> Mat4 {
        let aspect = if aspect.is_finite() && aspect > 0.0 { aspect } else { 1.0 };
        match *self {
            Self::Perspective { fov_y, near, far } => {
                let near = near.max(1e-4);
                Mat4::perspective_rh(fov_y.clamp(1e-3, 3.1), aspect, near, far.max(near * 1.001))
            }
            Self::Orthographic { height, near, far } => {
                let h = height.abs().max(1e-6) * 0.5;
                Mat4::orthographic_rh(-h * aspect, h * aspect, -h, h, near, far.max(near + 1e-3))
            }
        }
    }
}

/// The tone curve the tonemap pass applies (DESIGN §2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Tonemapping {
    /// Clamp only.
    None,
    /// Khronos PBR Neutral: colours as authored up to a highlight shoulder.
    #[default]
    PbrNeutral,
    /// ACES filmic (Hill's fit).
    Aces,
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

/// Where a camera's picture goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RenderTarget {
    /// The app's main target: the window, or in a headless app the offscreen image of the
    /// plugin's size (what screenshots read).
    #[default]
    Window,
    /// An offscreen image of its own size (screenshots read it).
    Image {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
}

/// A 3D camera. The active camera with the lowest `order` draws; it looks down its
/// transform's −Z with +Y up.
#[derive(Component, Clone, Debug, PartialEq)]
#[require(Transform)]
pub struct Camera3d {
    /// Perspective or orthographic.
    pub projection: Projection,
    /// Multiplier on scene radiance before tonemapping.
    pub exposure: f32,
    /// The tone curve.
    pub tonemapping: Tonemapping,
    /// Linear colour the scene is cleared to where nothing (not even a sky) draws.
    pub clear_color: [f32; 4],
    /// Where the picture goes.
    pub target: RenderTarget,
    /// Lower orders win when several cameras are active.
    pub order: i32,
    /// Whether it draws.
    pub active: bool,
}

impl Default for Camera3d {
    fn default() -> Self {
        Self {
            projection: Projection::default(),
            exposure: 1.0,
            tonemapping: Tonemapping::default(),
            clear_color: [0.02, 0.02, 0.025, 1.0],
            target: RenderTarget::default(),
            order: 0,
            active: true,
        }
    }
}
