//! The standard passes, one file and one system each (DESIGN §2):
//!
//! ```text
//!  shadow ──▶ depth prepass ──▶ opaque ──▶ skybox ──▶ scene-colour snapshot ──▶ translucent ──▶ tonemap
//!  (sun)      (when needed)     front to   (env)      (when a material          back to        exposure, curve,
//!                               back                   reads SceneColor)         front          sRGB → output
//! ```
//!
//! Each system runs in its own [`PassSystems`] set inside
//! [`RenderSystems::Graph`], in the order above; a pass
//! is switched off through [`StandardPasses`](crate::resources::StandardPasses) or removed with
//! `remove_systems_in_set`. App passes go between them with `.after(..)`/`.before(..)`.

pub mod depth_prepass;
pub mod draw;
pub mod opaque;
pub mod scene_color;
pub mod shadow;
pub mod skybox;
pub mod tonemap;
pub mod translucent;

use bevy_app::SubApp;
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::SystemSet;

use crate::render::{Render, RenderSystems};

/// The set of each standard pass's system, in frame order.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PassSystems {
    /// [`shadow::add_shadow_pass`].
    Shadow,
    /// [`depth_prepass::add_depth_prepass`].
    DepthPrepass,
    /// [`opaque::add_opaque_pass`].
    Opaque,
    /// [`skybox::add_skybox_pass`].
    Skybox,
    /// [`scene_color::add_scene_color_pass`].
    SceneColor,
    /// [`translucent::add_translucent_pass`].
    Translucent,
    /// [`tonemap::add_tonemap_pass`].
    Tonemap,
}

pub(crate) fn add_standard_passes(render: &mut SubApp) {
    use PassSystems::*;
    render.configure_sets(
        Render,
        (Shadow, DepthPrepass, Opaque, Skybox, SceneColor, Translucent, Tonemap)
            .chain()
            .in_set(RenderSystems::Graph),
    );
    render.add_systems(Render, shadow::add_shadow_pass.in_set(Shadow));
    render.add_systems(Render, depth_prepass::add_depth_prepass.in_set(DepthPrepass));
    render.add_systems(Render, opaque::add_opaque_pass.in_set(Opaque));
    render.add_systems(Render, skybox::add_skybox_pass.in_set(Skybox));
    render.add_systems(Render, scene_color::add_scene_color_pass.in_set(SceneColor));
    render.add_systems(Render, translucent::add_translucent_pass.in_set(Translucent));
    render.add_systems(Render, tonemap::add_tonemap_pass.in_set(Tonemap));
}
