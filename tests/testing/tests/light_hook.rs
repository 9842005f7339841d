//! The material `light` hook (issue 21, item 5): called in the engine's light loop with the
//! light's direction, radiance, attenuation and shadow, its result replacing the engine BRDF's
//! direct term.
//!
//! The ground's hook returns only the light's green radiance times the shadow term, and the
//! ground is black with no ambient light, so under the sun it is pure green (the engine BRDF
//! on a black surface would give a dim grey highlight at most) and in the cube's shadow it is
//! black. On soft against those expectations; GPU backends against a live soft frame.

use f3d::prelude::*;
use f3d_testing::{
    Frame, backend_opens, compare, gpu, material_from_text, render_on, soft_frame, top_down_camera,
};

const SIZE: u32 = 64;

const GREEN_LIGHT: &str = r#"Material(
    name: "Green light",
    light: Some(r"
fn light(l: ptr<function, LightInputs>) -> vec3<f32> {
    return vec3<f32>(0.0, (*l).radiance.g, 0.0) * (*l).shadow * (*l).attenuation;
}
"),
    fragment: r"
fn surface(m: ptr<function, MaterialInputs>) { (*m).base_color = vec4<f32>(0.0, 0.0, 0.0, 1.0); }
",
)"#;

/// Straight down on the ground (x -4..4, z -4..4 in view, +z down the frame); a cube at the
/// origin lifted off the ground; the sun travelling along (1, -1, 0), so the cube's shadow
/// lands to its right.
fn scene(world: &mut World) {
    let ground = world.resource_mut::<Assets<Mesh>>().add(Plane3d::default().mesh().size(20.0, 20.0));
    let cube = world.resource_mut::<Assets<Mesh>>().add(Cuboid::from_length(1.0));
    let hooked =
        world.resource_mut::<Assets<CustomMaterial>>().add(material_from_text("green_light", GREEN_LIGHT));
    let white = world.resource_mut::<Assets<StandardMaterial>>().add(StandardMaterial {
        base_color: Color::WHITE,
        unlit: true,
        ..default()
    });
    world.spawn((Mesh3d(ground), MeshMaterial3d(hooked), Transform::default()));
    world.spawn((Mesh3d(cube), MeshMaterial3d(white), Transform::from_xyz(0.0, 1.5, 0.0)));
    world.spawn((
        DirectionalLight {
            illuminance: 3.0 / Exposure::default().exposure(),
            shadow_maps_enabled: true,
            ..default()
        },
        ShadowBox { half_extent: 6.0, center: Vec3::ZERO },
        Transform::from_xyz(-1.0, 1.0, 0.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    world.insert_resource(GlobalAmbientLight { brightness: 0.0, ..default() });
    top_down_camera(world, Vec3::ZERO, 8.0, 8.0);
}

/// The pixel over ground point (x, z).
fn at(frame: &Frame, x: f32, z: f32) -> [u8; 3] {
    let scale = SIZE as f32 / 8.0;
    let p = frame.pixel(((x + 4.0) * scale) as u32, ((z + 4.0) * scale) as u32);
    [p[0], p[1], p[2]]
}

#[test]
fn the_light_hook_replaces_the_direct_term_and_gets_the_shadow() {
    let frame = soft_frame(SIZE, SIZE, scene).expect("soft");
    if let Ok(dir) = std::env::var("F3D_TEST_OUT") {
        let _ = frame.write_png(&std::path::Path::new(&dir).join("light_hook.png"));
    }
    // Open ground: the hook's green, nothing else.
    assert_eq!(at(&frame, -3.0, -3.0), [0, 255, 0], "open ground");
    assert_eq!(at(&frame, 3.5, 3.0), [0, 255, 0], "open ground");
    // The cube (heights 1 to 2) shades the ground from x 1.5 to 2.5 at most; its middle is
    // at 2.0 (the unlit cube's own top covers x -0.5..0.5).
    assert_eq!(at(&frame, 2.0, 0.0), [0, 0, 0], "the ground in the cube's shadow");
    assert_eq!(at(&frame, 0.0, 0.0), [255, 255, 255], "the cube's top");
}

fn against_soft(backend: &str) {
    if !backend_opens(backend) {
        return;
    }
    let frame = render_on(backend, SIZE, SIZE, scene);
    let soft = soft_frame(SIZE, SIZE, scene).expect("soft");
    let cmp = compare(&frame, &soft, gpu::AGAINST_SOFT).unwrap_or_else(|e| panic!("{backend}: {e}"));
    cmp.within(gpu::AGAINST_SOFT).unwrap_or_else(|e| panic!("{backend} against soft: {e}"));
}

#[test]
fn the_light_hook_draws_the_same_on_wgpu_as_on_soft() {
    against_soft("wgpu");
}

#[test]
fn the_light_hook_draws_the_same_on_vulkan_as_on_soft() {
    against_soft("vulkan");
}
