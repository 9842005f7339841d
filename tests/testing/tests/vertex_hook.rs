//! The material `vertex` hook as the material guide has it (issue 21): it moves a vertex
//! through `VertexInputs::world_position`, turns the shading normal through `world_normal`,
//! and reads `camera_position`; the engine projects what the hook leaves in every pass, so a
//! displacement shows in the shadow map too.
//!
//! Each scene is checked on soft against expectations worked out from the geometry (below),
//! and every GPU backend that opens is compared with a soft frame drawn in the same test.

use f3d::prelude::*;
use f3d_testing::{
    Frame, backend_opens, compare, gpu, material_from_text, render_on, soft_frame, top_down_camera,
};

const SIZE: u32 = 64;
/// Pixels per world unit: the orthographic view is 8 units wide.
const SCALE: f32 = SIZE as f32 / 8.0;

/// A unit-ish cube moved by its hook by the camera's x and lifted by 1; unlit red.
const LIFT: &str = r#"Material(
    name: "Lift",
    shading_model: Unlit,
    vertex: Some(r"
fn vertex(v: ptr<function, VertexInputs>) {
    (*v).world_position.x += (*v).camera_position.x;
    (*v).world_position.y += 1.0;
}
"),
    fragment: r"
fn surface(m: ptr<function, MaterialInputs>) { (*m).base_color = vec4<f32>(1.0, 0.0, 0.0, 1.0); }
",
)"#;

/// A lit white surface whose hook turns its normal away from the light.
const TURNED: &str = r#"Material(
    name: "Turned",
    vertex: Some(r"
fn vertex(v: ptr<function, VertexInputs>) { (*v).world_normal = -(*v).world_normal; }
"),
    fragment: r"
fn surface(m: ptr<function, MaterialInputs>) {
    (*m).base_color = vec4<f32>(1.0);
    (*m).roughness = 1.0;
    (*m).metallic = 0.0;
}
",
)"#;

/// The camera: orthographic, 8×8 units, looking straight down from x = 2 (so the view spans
/// x -2..6 and z -4..4, +x to the right, +z down the frame).
fn camera(world: &mut World) {
    top_down_camera(world, Vec3::new(2.0, 0.0, 0.0), 8.0, 8.0);
}

/// A 0.8 cube at the origin (resting on the ground) whose hook moves it to x = 2 and lifts it
/// by 1; a white ground; the sun travelling along (1, -1, 0), with shadows.
fn lifted(world: &mut World) {
    let cube = world.resource_mut::<Assets<Mesh>>().add(Cuboid::from_length(0.8));
    let ground = world.resource_mut::<Assets<Mesh>>().add(Plane3d::default().mesh().size(20.0, 20.0));
    let lift = world.resource_mut::<Assets<CustomMaterial>>().add(material_from_text("lift", LIFT));
    let white = world.resource_mut::<Assets<StandardMaterial>>().add(StandardMaterial {
        base_color: Color::WHITE,
        perceptual_roughness: 1.0,
        ..default()
    });
    world.spawn((Mesh3d(cube), MeshMaterial3d(lift), Transform::from_xyz(0.0, 0.4, 0.0)));
    world.spawn((Mesh3d(ground), MeshMaterial3d(white), Transform::default()));
    world.spawn((
        DirectionalLight { illuminance: sun_lux(), shadow_maps_enabled: true, ..default() },
        ShadowBox { half_extent: 6.0, center: Vec3::new(2.0, 0.0, 0.0) },
        Transform::from_xyz(-1.0, 1.0, 0.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    world.insert_resource(GlobalAmbientLight { brightness: 30.0, ..default() });
    camera(world);
}

/// Two ground tiles side by side under a sun straight above: the left one white, the right
/// one the same but with its normal turned away by the hook.
fn turned(world: &mut World) {
    let tile = world.resource_mut::<Assets<Mesh>>().add(Plane3d::default().mesh().size(3.0, 6.0));
    let white = world.resource_mut::<Assets<StandardMaterial>>().add(StandardMaterial {
        base_color: Color::WHITE,
        perceptual_roughness: 1.0,
        ..default()
    });
    let turned = world.resource_mut::<Assets<CustomMaterial>>().add(material_from_text("turned", TURNED));
    world.spawn((Mesh3d(tile.clone()), MeshMaterial3d(white), Transform::from_xyz(0.0, 0.0, 0.0)));
    world.spawn((Mesh3d(tile), MeshMaterial3d(turned), Transform::from_xyz(4.0, 0.0, 0.0)));
    world.spawn((
        DirectionalLight { illuminance: sun_lux(), ..default() },
        Transform::from_xyz(0.0, 1.0, 0.0).looking_at(Vec3::ZERO, Vec3::X),
    ));
    world.insert_resource(GlobalAmbientLight { brightness: 30.0, ..default() });
    camera(world);
}

/// Illuminance that lights a white surface facing the sun to about 0.6 at the default exposure.
fn sun_lux() -> f32 {
    0.6 / Exposure::default().exposure()
}

/// The pixel over world point (x, z).
fn at(frame: &Frame, x: f32, z: f32) -> [u8; 3] {
    let p = frame.pixel(((x + 2.0) * SCALE) as u32, ((z + 4.0) * SCALE) as u32);
    [p[0], p[1], p[2]]
}

fn luma(c: [u8; 3]) -> f32 {
    c.iter().map(|&v| f32::from(v)).sum::<f32>() / 3.0
}

#[test]
fn the_hook_moves_the_vertex_in_the_world_and_in_the_shadow_map() {
    let frame = soft_frame(SIZE, SIZE, lifted).expect("soft");
    if let Ok(dir) = std::env::var("F3D_TEST_OUT") {
        let _ = frame.write_png(&std::path::Path::new(&dir).join("vertex_hook_lifted.png"));
    }
    // The cube is where the hook put it (x = camera x = 2), not at the origin.
    let moved = at(&frame, 2.0, 0.0);
    assert!(moved[0] > 200 && moved[1] < 40 && moved[2] < 40, "the moved cube's top is {moved:?}");
    let origin = at(&frame, 0.0, 0.0);
    assert!(origin[0] < 200 || origin[1] > 100, "the cube stayed at the origin: {origin:?}");
    // Its shadow falls where the lifted cube casts it (heights 1.1 to 1.9 along (1, -1, 0):
    // x 2.7 to 4.3), not where the cube would have cast without the hook (x -0.3 to 1.3).
    let open = luma(at(&frame, 5.5, 0.0));
    let shadow = luma(at(&frame, 3.5, 0.0));
    let unhooked = luma(at(&frame, 0.9, 0.0));
    assert!(shadow < 0.6 * open, "no shadow under the lifted cube: {shadow} against open ground {open}");
    assert!(
        unhooked > 0.9 * open,
        "a shadow where the cube was before its hook ran: {unhooked} against {open}"
    );
}

#[test]
fn the_hook_turns_the_shading_normal() {
    let frame = soft_frame(SIZE, SIZE, turned).expect("soft");
    if let Ok(dir) = std::env::var("F3D_TEST_OUT") {
        let _ = frame.write_png(&std::path::Path::new(&dir).join("vertex_hook_turned.png"));
    }
    let lit = luma(at(&frame, 0.0, 0.0));
    let away = luma(at(&frame, 4.0, 0.0));
    assert!(lit > 100.0, "the plain tile under the sun is dark: {lit}");
    assert!(
        away < 0.5 * lit,
        "the tile whose normal turned away is as bright as the other: {away} against {lit}"
    );
}

fn against_soft(backend: &str) {
    if !backend_opens(backend) {
        return;
    }
    type Scene = fn(&mut World);
    let scenes: [(&str, Scene); 2] = [("lifted", lifted), ("turned", turned)];
    for (name, build) in scenes {
        let frame = render_on(backend, SIZE, SIZE, build);
        let soft = soft_frame(SIZE, SIZE, build).expect("soft");
        let cmp = compare(&frame, &soft, gpu::AGAINST_SOFT).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(e) = cmp.within(gpu::AGAINST_SOFT) {
            panic!("{backend} {name} against soft: {e}");
        }
    }
}

#[test]
fn the_hook_draws_the_same_on_wgpu_as_on_soft() {
    against_soft("wgpu");
}

#[test]
fn the_hook_draws_the_same_on_vulkan_as_on_soft() {
    against_soft("vulkan");
}
