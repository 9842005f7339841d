//! Lights are bevy_light's: [`DirectionalLight`](bevy_light::DirectionalLight) (lux),
//! [`PointLight`](bevy_light::PointLight) and [`SpotLight`](bevy_light::SpotLight) (lumens).
//! f3d draws the first directional light (with its shadow map when `shadow_maps_enabled`) and
//! the first eight point and spot lights; spot lights are point lights with a cone.
//!
//! The directional light's shadow map is one orthographic box facing along the light, its
//! size from Bevy's [`DirectionalLightShadowMap`](bevy_light::DirectionalLightShadowMap)
//! resource. The box is the light's [`ShadowBox`] when it has one; otherwise it is fitted
//! around what the camera sees up to [`ShadowBox::DEFAULT_DISTANCE`] in front of it (Bevy's
//! cascades are not drawn: one box, the first cascade's idea). Bevy's `shadow_depth_bias` is
//! in world units along the light and `shadow_normal_bias` in texels, as in Bevy.

use bevy_ecs::prelude::Component;
use bevy_math::Vec3;

/// The box a directional light's shadow map covers (an f3d component beside Bevy's
/// `DirectionalLight`): a cube of side `2 * half_extent` around `center`, facing along the
/// light.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct ShadowBox {
    /// Half the side of the box, in world units.
    pub half_extent: f32,
    /// The centre of the box.
    pub center: Vec3,
}

impl ShadowBox {
    /// How far in front of the camera the box fitted without a `ShadowBox` reaches.
    pub const DEFAULT_DISTANCE: f32 = 30.0;
}

/// The directional light's shadow map as the render world draws it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShadowSettings {
    /// Texels per side of the shadow map.
    pub map_size: u32,
    /// Half the side of the box the map covers, in world units.
    pub half_extent: f32,
    /// The centre of that box.
    pub center: Vec3,
    /// Depth bias subtracted before the comparison (depth units, 0–1 over the box).
    pub depth_bias: f32,
    /// Offset along the normal, in shadow texels.
    pub normal_bias: f32,
}
