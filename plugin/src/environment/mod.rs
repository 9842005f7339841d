//! The environment: a procedural sky or an equirectangular HDR image, lighting the scene
//! image-based (a prefiltered radiance cube, SH irradiance and a BRDF LUT, all computed on
//! the CPU once per environment and cached by the render world) and drawn as the skybox.

pub mod hdr;
pub(crate) mod ibl;

use std::sync::Arc;

use bevy_ecs::prelude::Component;
use bevy_math::Vec3;

/// A procedural sky: a gradient from the ground through the horizon to the zenith, with a
/// soft sun glow (drawn in the skybox only; the directional light is the sun's direct light).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sky {
    /// Linear radiance straight up.
    pub zenith: [f32; 3],
    /// Linear radiance at the horizon.
    pub horizon: [f32; 3],
    /// Linear radiance of the ground below the horizon.
    pub ground: [f32; 3],
    /// Direction towards the sun (normalised on use).
    pub sun_direction: Vec3,
    /// Linear radiance of the glow around the sun.
    pub sun_glow: [f32; 3],
}

impl Default for Sky {
    fn default() -> Self {
        Self {
            zenith: [0.16, 0.32, 0.75],
            horizon: [0.75, 0.85, 1.0],
            ground: [0.18, 0.16, 0.14],
            sun_direction: Vec3::new(0.4, 0.6, 0.3),
            sun_glow: [6.0, 5.2, 4.0],
        }
    }
}

/// An equirectangular (latitude-longitude) image of linear radiance, rows from the top (+Y).
#[derive(Clone, Debug, PartialEq)]
pub struct EquirectImage {
    /// Width in texels (longitude).
    pub width: u32,
    /// Height in texels (latitude).
    pub height: u32,
    /// `width * height` linear RGB texels.
    pub texels: Vec<[f32; 3]>,
}

/// Where the environment's light comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum EnvironmentSource {
    /// The procedural sky.
    Sky(Sky),
    /// An equirectangular HDR image (see [`hdr::read_hdr`]).
    Image(Arc<EquirectImage>),
}

/// Image-based lighting and the skybox. f3d uses the first one it finds.
#[derive(Component, Clone, Debug, PartialEq)]
pub struct Environment {
    /// The light.
    pub source: EnvironmentSource,
    /// Luminance of a sky radiance of 1, in cd/m² (nits): the camera's exposure scales it
    /// as it does lights. The default, about 998, shows the sky as authored at Bevy's default
    /// exposure (EV100 9.7).
    pub intensity: f32,
    /// Draw it behind the scene.
    pub skybox: bool,
}

impl Default for Environment {
    fn default() -> Self {
        Self {
            source: EnvironmentSource::Sky(Sky::default()),
            intensity: 1.0 / bevy_camera::Exposure::default().exposure(),
            skybox: true,
        }
    }
}

impl Environment {
    /// A procedural sky environment.
    pub fn sky(sky: Sky) -> Self {
        Self { source: EnvironmentSource::Sky(sky), ..Self::default() }
    }

    /// An environment from an equirectangular HDR image.
    pub fn image(image: EquirectImage) -> Self {
        Self { source: EnvironmentSource::Image(Arc::new(image)), ..Self::default() }
    }
}
