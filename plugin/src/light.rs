//! Lights: one shadowed directional light (the sun) and point lights.

use bevy_ecs::prelude::Component;
use bevy_math::Vec3;
use bevy_transform::components::Transform;

/// A directional light's shadow map: an orthographic box around `center`, facing along the
/// light.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShadowSettings {
    /// Texels per side of the shadow map.
    pub map_size: u32,
    /// Half the side of the box the map covers, in world units.
    pub half_extent: f32,
    /// The centre of that box.
    pub center: Vec3,
    /// Depth bias subtracted before the comparison (depth units, 0–1).
    pub depth_bias: f32,
    /// Offset along the normal, in shadow texels.
    pub normal_bias: f32,
}

impl Default for ShadowSettings {
    fn default() -> Self {
        Self { map_size: 1024, half_extent: 12.0, center: Vec3::ZERO, depth_bias: 0.002, normal_bias: 1.5 }
    }
}

/// Light arriving from one direction (the sun): the transform's −Z. f3d draws the first one
/// it finds.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[require(Transform)]
pub struct DirectionalLight {
    /// Linear colour.
    pub color: [f32; 3],
    /// Brightness: a white surface facing the light fully lit reflects `illuminance / π`.
    pub illuminance: f32,
    /// Shadow map, or none.
    pub shadows: Option<ShadowSettings>,
}

impl Default for DirectionalLight {
    fn default() -> Self {
        Self { color: [1.0, 0.96, 0.9], illuminance: 3.0, shadows: Some(ShadowSettings::default()) }
    }
}

/// A light at the transform's position, fading to nothing at `range`. At most 8 are drawn
/// (the first 8 found).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[require(Transform)]
pub struct PointLight {
    /// Linear colour.
    pub color: [f32; 3],
    /// Brightness at 1 unit distance.
    pub intensity: f32,
    /// Distance at which it has faded out.
    pub range: f32,
    /// Physical radius (keeps the falloff finite close by).
    pub radius: f32,
}

impl Default for PointLight {
    fn default() -> Self {
        Self { color: [1.0; 3], intensity: 5.0, range: 10.0, radius: 0.05 }
    }
}
