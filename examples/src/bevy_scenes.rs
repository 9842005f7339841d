//! Scenes of Bevy's own examples, written as Bevy writes them (startup systems over
//! `Commands` and Bevy's asset stores), so the same code draws through f3d: the `3d_scene`
//! and `lighting` examples and their goldens (`SCENES`: `bevy_3d_scene`, `bevy_lighting`).

use f3d::prelude::*;

/// Bevy's `3d_scene`: a circular base, a cube, a point light and a camera.
pub fn three_d_scene(
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

/// Bevy's `lighting`, reduced to what f3d draws: a directional light with shadows, a red
/// point light, a green and a blue spot light, over a ground plane, a cube, a sphere and a
/// wall.
pub fn lighting(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    // ground plane
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(10.0, 10.0))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::WHITE,
            perceptual_roughness: 1.0,
            ..default()
        })),
    ));
    // left wall
    commands.spawn((
        Mesh3d(meshes.add(Cuboid::new(5.0, 0.15, 5.0))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgb(0.6, 0.5, 0.9),
            perceptual_roughness: 1.0,
            ..default()
        })),
        Transform::from_xyz(2.5, 2.5, -5.0).with_rotation(Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)),
    ));
    // cube
    commands.spawn((
        Mesh3d(meshes.add(Cuboid::default())),
        MeshMaterial3d(
            materials.add(StandardMaterial { base_color: Color::srgb(1.0, 0.75, 0.8), ..default() }),
        ),
        Transform::from_xyz(0.0, 0.5, 0.0),
    ));
    // sphere
    commands.spawn((
        Mesh3d(meshes.add(Sphere::new(0.5).mesh().uv(32, 18))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgb(0.9, 0.9, 0.3),
            perceptual_roughness: 0.3,
            metallic: 0.2,
            ..default()
        })),
        Transform::from_xyz(1.5, 1.0, 1.5),
    ));
    // red point light
    commands.spawn((
        PointLight {
            intensity: 100_000.0,
            color: Color::srgb(1.0, 0.2, 0.2),
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::from_xyz(1.0, 2.0, 0.0),
    ));
    // green spot light
    commands.spawn((
        SpotLight {
            intensity: 200_000.0,
            color: Color::srgb(0.2, 1.0, 0.2),
            inner_angle: 0.6,
            outer_angle: 0.8,
            ..default()
        },
        Transform::from_xyz(-1.0, 2.0, 0.0).looking_at(Vec3::new(-1.0, 0.0, 0.0), Vec3::Z),
    ));
    // blue spot light
    commands.spawn((
        SpotLight {
            intensity: 200_000.0,
            color: Color::srgb(0.2, 0.2, 1.0),
            inner_angle: 0.2,
            outer_angle: 0.4,
            ..default()
        },
        Transform::from_xyz(0.0, 4.0, 2.5).looking_at(Vec3::new(0.0, 0.0, 2.5), Vec3::Z),
    ));
    // directional 'sun' light
    commands.spawn((
        DirectionalLight {
            illuminance: light_consts::lux::OVERCAST_DAY,
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::from_xyz(0.0, 2.0, 0.0).with_rotation(Quat::from_rotation_x(-std::f32::consts::FRAC_PI_4)),
    ));
    // camera
    commands
        .spawn((Camera3d::default(), Transform::from_xyz(-2.0, 2.5, 5.0).looking_at(Vec3::ZERO, Vec3::Y)));
}
