//! Bevy's `3d_scene` example with f3d as the renderer: a circular base, a cube, a point
//! light casting shadows and a camera, written against Bevy's own crates; the renderer plugin
//! is the only f3d line. `cargo run --release --example 3d_scene [-- --backend B --size WxH
//! --out 3d_scene.png]`.

use f3d::prelude::*;
use f3d_examples::cli::run_scene;

/// The scene, as Bevy's example writes it.
fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    // circular base
    commands.spawn((
        Mesh3d(meshes.add(Circle::new(4.0))),
        MeshMaterial3d(materials.add(Color::WHITE)),
        Transform::from_rotation(Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2)),
    ));
    // cube
    commands.spawn((
        Mesh3d(meshes.add(Cuboid::new(1.0, 1.0, 1.0))),
        MeshMaterial3d(materials.add(Color::srgb_u8(124, 144, 255))),
        Transform::from_xyz(0.0, 0.5, 0.0),
    ));
    // light
    commands
        .spawn((PointLight { shadow_maps_enabled: true, ..default() }, Transform::from_xyz(4.0, 8.0, 4.0)));
    // camera
    commands
        .spawn((Camera3d::default(), Transform::from_xyz(-2.5, 4.5, 9.0).looking_at(Vec3::ZERO, Vec3::Y)));
}

fn main() -> std::process::ExitCode {
    run_scene("3d_scene", setup)
}
