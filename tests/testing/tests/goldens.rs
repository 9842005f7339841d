//! Goldens on the soft backend: the showcase and the focused scenes of
//! `f3d_examples::SCENES` (each standard pass, each blending mode, the material features,
//! shadows, the tone curves), at 192x108. `F3D_BLESS=1` rewrites them.

use std::sync::Arc;

use f3d_backend_soft::SoftDevice;
use f3d_testing::{assert_golden, golden_path, render_frame};

fn golden(name: &str) {
    let build = f3d_examples::scene(name).unwrap_or_else(|| panic!("no scene {name}"));
    let frame = render_frame(192, 108, Arc::new(SoftDevice::new(name)), build)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_golden(&frame, golden_path("soft", name));
}

macro_rules! goldens {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { golden(stringify!($name)); })*
    };
}

goldens!(
    showcase,
    pbr_grid,
    shadows,
    blending,
    materials,
    textures,
    point_lights,
    unlit_no_environment,
    tonemap_none,
    tonemap_aces,
    tonemap_neutral,
    sky_only,
    bevy_3d_scene,
    bevy_lighting,
    msaa,
    vertex_hooks,
    light_hook,
    shader_materials,
);

/// Every scene has a golden test above.
#[test]
fn every_scene_has_a_golden() {
    for (name, _) in f3d_examples::SCENES {
        assert!(
            golden_path("soft", name).exists() || std::env::var_os("F3D_BLESS").is_some(),
            "{name} has no golden"
        );
    }
    assert_eq!(f3d_examples::SCENES.len(), 18, "add the new scene to the goldens! list");
}
