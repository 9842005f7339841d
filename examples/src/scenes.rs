//! Scenes as functions over a `World` (run them as a `Startup` system or hand them to
//! `f3d_testing::render_frame`).

use f3d::bevy_ecs::system::RunSystemOnce;
use f3d::bevy_mesh::{MeshVertexAttribute, VertexFormat};
use f3d::image::{ImageData, ImageFormat};
use f3d::prelude::*;

use crate::assets_dir;
use crate::typed::{Ocean, Water};

/// A named scene.
pub type SceneFn = fn(&mut World);

/// Every scene by name: the showcase and the focused scenes the goldens draw.
pub const SCENES: &[(&str, SceneFn)] = &[
    ("showcase", showcase),
    ("pbr_grid", pbr_grid),
    ("shadows", shadows),
    ("blending", blending),
    ("materials", materials),
    ("textures", textures),
    ("point_lights", point_lights),
    ("unlit_no_environment", unlit_no_environment),
    ("tonemap_none", tonemap_none),
    ("tonemap_aces", tonemap_aces),
    ("tonemap_neutral", tonemap_neutral),
    ("sky_only", sky_only),
    ("bevy_3d_scene", bevy_3d_scene),
    ("bevy_lighting", bevy_lighting),
    ("msaa", msaa),
    ("vertex_hooks", vertex_hooks),
    ("light_hook", light_hook),
    ("shader_materials", shader_materials),
];

/// The scene called `name`.
pub fn scene(name: &str) -> Option<SceneFn> {
    SCENES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// Lux for a sun that reflects `radiance / π` from a white surface facing it at Bevy's
/// default exposure (the scenes were first lit in those units).
fn lux(radiance: f32) -> f32 {
    radiance / Exposure::default().exposure()
}

/// Lumens for a point light of `radiance` at one unit's distance at the default exposure.
fn lumens(radiance: f32) -> f32 {
    radiance * 4.0 * std::f32::consts::PI / Exposure::default().exposure()
}

/// A linear colour from sRGB components.
fn srgb(r: f32, g: f32, b: f32) -> Color {
    Color::srgb(r, g, b)
}

fn mesh(world: &mut World, mesh: impl Into<Mesh>) -> Handle<Mesh> {
    world.resource_mut::<Assets<Mesh>>().add(mesh)
}

fn material(world: &mut World, m: impl Into<StandardMaterial>) -> MeshMaterial3d<StandardMaterial> {
    MeshMaterial3d(world.resource_mut::<Assets<StandardMaterial>>().add(m))
}

fn custom(world: &mut World, m: CustomMaterial) -> MeshMaterial3d<CustomMaterial> {
    MeshMaterial3d(world.resource_mut::<Assets<CustomMaterial>>().add(m))
}

fn camera(world: &mut World, eye: Vec3, target: Vec3, extra: impl Bundle) {
    world.spawn((Camera3d::default(), extra, Transform::from_translation(eye).looking_at(target, Vec3::Y)));
}

fn sun(world: &mut World, from: Vec3, shadows: Option<ShadowBox>) {
    let mut light = world.spawn((
        DirectionalLight {
            color: Color::linear_rgb(1.0, 0.96, 0.9),
            illuminance: lux(3.0),
            shadow_maps_enabled: shadows.is_some(),
            ..default()
        },
        Transform::from_translation(from).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    if let Some(b) = shadows {
        light.insert(b);
    }
}

/// The shadow box most scenes use: 4 units around the origin.
fn shadow_box(half_extent: f32) -> ShadowBox {
    ShadowBox { half_extent, center: Vec3::ZERO }
}

/// The dim ambient of scenes without an environment.
fn dim_ambient(world: &mut World) {
    world.insert_resource(GlobalAmbientLight { brightness: 30.0, ..default() });
}

fn plane(size: f32, cells: u32) -> Mesh {
    Plane3d::default().mesh().size(size, size).subdivisions(cells.saturating_sub(1)).build()
}

fn ground(world: &mut World, size: f32, color: Color) {
    let plane = mesh(world, plane(size, 1));
    let m = material(world, StandardMaterial { base_color: color, perceptual_roughness: 0.85, ..default() });
    world.spawn((Mesh3d(plane), m, Transform::default()));
}

/// Loads an example `.ron` material; a broken file is reported (and again, with its line, by
/// the render world's store, which loads it once a save fixes it), so a scene always starts.
pub fn load_material(world: &mut World, file: &str) -> Handle<CustomMaterial> {
    let path = assets_dir().join("materials").join(file);
    let m = CustomMaterial::load(&path).unwrap_or_else(|errors| {
        for e in errors {
            f3d::bevy_log::error!("{}", e.diagnostic());
        }
        CustomMaterial::from_file(&path)
    });
    world.resource_mut::<Assets<CustomMaterial>>().add(m)
}

/// Edits the custom material `handle` in place.
/// Writes the values of a typed material struct (see [`crate::typed`]) into a material; a
/// struct gone stale is logged and the material keeps its file's values.
fn apply(world: &mut World, handle: &Handle<CustomMaterial>, values: &impl TypedMaterial) {
    if let Some(mut m) = world.resource_mut::<Assets<CustomMaterial>>().get_mut(handle)
        && let Err(e) = values.apply(&mut m)
    {
        f3d::bevy_log::error!("{e}");
    }
}

fn sphere_grid(world: &mut World, origin: Vec3, columns: u32, rows: u32, spacing: f32) {
    let sphere = mesh(world, Sphere::new(spacing * 0.42).mesh().uv(32, 16));
    for row in 0..rows {
        let metallic = if rows > 1 { row as f32 / (rows - 1) as f32 } else { 0.0 };
        for col in 0..columns {
            let perceptual_roughness = if columns > 1 { col as f32 / (columns - 1) as f32 } else { 0.5 };
            let m = material(
                world,
                StandardMaterial {
                    base_color: srgb(0.9, 0.42, 0.22),
                    metallic,
                    perceptual_roughness,
                    ..default()
                },
            );
            let x = (col as f32 - (columns - 1) as f32 * 0.5) * spacing;
            let y = row as f32 * spacing;
            world.spawn((
                Mesh3d(sphere.clone()),
                m,
                Transform::from_translation(origin + Vec3::new(x, y, 0.0)),
            ));
        }
    }
}

/// The vertex attribute the ocean material reads as `phase`.
pub const ATTRIBUTE_PHASE: MeshVertexAttribute =
    MeshVertexAttribute::new("phase", 0x0f3d_0001, VertexFormat::Float32);

/// A plane patch with a per-vertex `phase` attribute, for the ocean material.
fn ocean_patch(size: f32, cells: u32) -> Mesh {
    let plane = plane(size, cells);
    let phases: Vec<f32> = plane
        .attribute(Mesh::ATTRIBUTE_POSITION)
        .and_then(|p| p.as_float3())
        .unwrap_or_default()
        .iter()
        // A slow swirl of phase across the patch, so the crests bend.
        .map(|p| (p[0] * 1.7).sin() * 0.6 + (p[2] * 1.3 + p[0] * 0.5).cos() * 0.4)
        .collect();
    plane.with_inserted_attribute(ATTRIBUTE_PHASE, phases)
}

/// The showcase: the README's main job.
pub fn showcase(world: &mut World) {
    camera(
        world,
        Vec3::new(0.0, 3.4, 9.0),
        Vec3::new(0.0, 1.1, -0.6),
        (
            Projection::Perspective(PerspectiveProjection {
                fov: 40f32.to_radians(),
                near: 0.1,
                far: 100.0,
                ..default()
            }),
            // Drawn without it where the device cannot multisample (logged).
            Msaa::Sample4,
        ),
    );
    world.insert_resource(DirectionalLightShadowMap { size: 2048 });
    sun(
        world,
        Vec3::new(-4.0, 7.0, 5.0),
        Some(ShadowBox { half_extent: 7.0, center: Vec3::new(0.0, 0.0, -0.5) }),
    );
    world.spawn(Environment::default());
    ground(world, 380.0, srgb(0.55, 0.56, 0.58));
    sphere_grid(world, Vec3::new(0.0, 0.55, -3.0), 7, 3, 1.05);

    // The materials issue's materials along the front.
    let toon = load_material(world, "toon.ron");
    let torus = mesh(world, Torus::new(0.33, 0.77).mesh().major_resolution(48).minor_resolution(24));
    world.spawn((
        Mesh3d(torus),
        MeshMaterial3d(toon),
        Transform::from_xyz(-3.3, 0.85, 1.2).with_rotation(Quat::from_rotation_x(1.1)),
    ));
    let brass = load_material(world, "brass.ron");
    let cylinder = mesh(world, Cylinder::new(0.5, 1.3).mesh().resolution(48));
    world.spawn((Mesh3d(cylinder), MeshMaterial3d(brass), Transform::from_xyz(-1.35, 0.65, 1.3)));
    let ocean = load_material(world, "ocean.ron");
    apply(world, &ocean, &Ocean { amplitude: Some(0.08), wavelength: Some(1.6), ..default() });
    let patch = mesh(world, ocean_patch(2.2, 48));
    world.spawn((Mesh3d(patch), MeshMaterial3d(ocean), Transform::from_xyz(0.9, 0.2, 1.3)));

    // A pool: stones under translucent water that refracts and absorbs them.
    let stone = mesh(world, Sphere::new(0.32).mesh().ico(2).expect("2 subdivisions are few"));
    let rock = material(
        world,
        StandardMaterial { base_color: srgb(0.75, 0.7, 0.6), perceptual_roughness: 0.9, ..default() },
    );
    for (x, z, s) in [(2.9, 1.0, 1.0), (3.5, 1.6, 0.8), (3.3, 0.7, 0.6)] {
        world.spawn((
            Mesh3d(stone.clone()),
            rock.clone(),
            Transform::from_xyz(x, 0.12, z).with_scale(Vec3::splat(s)),
        ));
    }
    let water = load_material(world, "water.ron");
    apply(
        world,
        &water,
        &Water { foam_width: Some(0.06), absorption_depth: Some(0.5), ripple_scale: Some(2.5), ..default() },
    );
    let surface = mesh(world, plane(2.0, 1));
    world.spawn((
        Mesh3d(surface),
        MeshMaterial3d(water),
        NotShadowCaster,
        Transform::from_xyz(3.2, 0.3, 1.2),
    ));
}

/// Spheres sweeping metallic (rows) × roughness (columns) under the sky.
pub fn pbr_grid(world: &mut World) {
    camera(world, Vec3::new(0.0, 1.0, 6.5), Vec3::new(0.0, 1.0, 0.0), ());
    world.spawn(Environment::default());
    sun(world, Vec3::new(-3.0, 4.0, 5.0), None);
    sphere_grid(world, Vec3::new(0.0, 0.0, 0.0), 5, 3, 1.0);
}

/// A cube and a sphere casting shadows on a plane, no environment.
pub fn shadows(world: &mut World) {
    camera(world, Vec3::new(0.0, 3.5, 6.0), Vec3::new(0.0, 0.3, 0.0), ());
    dim_ambient(world);
    sun(world, Vec3::new(-3.0, 6.0, 2.0), Some(shadow_box(4.0)));
    ground(world, 10.0, srgb(0.8, 0.8, 0.8));
    let cube = mesh(world, Cuboid::from_length(1.0));
    let red = material(world, srgb(0.8, 0.15, 0.1));
    world.spawn((Mesh3d(cube), red, Transform::from_xyz(-0.8, 0.5, 0.0)));
    let sphere = mesh(world, Sphere::new(0.5).mesh().uv(32, 16));
    let blue = material(world, srgb(0.1, 0.3, 0.8));
    world.spawn((Mesh3d(sphere), blue, Transform::from_xyz(0.9, 0.9, 0.3)));
}

/// Each blending mode over a checker floor: alpha, additive, multiply (standard material) and
/// premultiplied (the water material's mode, through a `.ron` material).
pub fn blending(world: &mut World) {
    camera(world, Vec3::new(0.0, 2.2, 4.5), Vec3::new(0.0, 0.4, 0.0), ());
    sun(world, Vec3::new(-2.0, 5.0, 3.0), None);
    world.spawn(Environment { skybox: false, ..Environment::default() });
    let checker = world.resource_mut::<Assets<Image>>().add(ImageData::checker(
        64,
        8,
        [230, 230, 230, 255],
        [40, 40, 40, 255],
    ));
    let floor_mesh = mesh(world, plane(6.0, 1));
    let floor = material(
        world,
        StandardMaterial { base_color_texture: Some(checker), perceptual_roughness: 0.9, ..default() },
    );
    world.spawn((Mesh3d(floor_mesh), floor, Transform::default()));
    let quad = mesh(world, plane(0.9, 1));
    let modes = [
        (AlphaMode::Blend, srgb(0.1, 0.5, 1.0), 0.5),
        (AlphaMode::Add, srgb(0.6, 0.2, 0.0), 1.0),
        (AlphaMode::Multiply, srgb(1.0, 0.3, 0.3), 1.0),
    ];
    for (i, (alpha_mode, color, alpha)) in modes.into_iter().enumerate() {
        let m = material(
            world,
            StandardMaterial {
                base_color: color.with_alpha(alpha),
                alpha_mode,
                unlit: true,
                double_sided: true,
                ..Default::default()
            },
        );
        world.spawn((
            Mesh3d(quad.clone()),
            m,
            Transform::from_xyz(-1.5 + i as f32 * 1.0, 0.6, 0.0).with_rotation(Quat::from_rotation_x(1.2)),
        ));
    }
    let premultiplied = CustomMaterial::parse(
        "premultiplied.ron",
        br#"Material(name: "Glow", shading_model: Unlit, blending: Premultiplied, culling: None,
            fragment: "fn surface(m: ptr<function, MaterialInputs>) { (*m).base_color = vec4<f32>(0.2, 0.6, 0.1, 0.4); }")"#,
    );
    if let Ok(p) = premultiplied {
        let m = custom(world, p);
        world.spawn((
            Mesh3d(quad),
            m,
            Transform::from_xyz(1.5, 0.6, 0.0).with_rotation(Quat::from_rotation_x(1.2)),
        ));
    }
}

/// The four example `.ron` materials side by side.
pub fn materials(world: &mut World) {
    camera(world, Vec3::new(0.0, 2.6, 5.0), Vec3::new(0.0, 0.4, 0.0), ());
    sun(world, Vec3::new(-3.0, 6.0, 4.0), Some(shadow_box(4.0)));
    world.spawn(Environment::default());
    ground(world, 10.0, srgb(0.5, 0.5, 0.5));
    let toon = load_material(world, "toon.ron");
    let sphere = mesh(world, Sphere::new(0.5).mesh().uv(32, 16));
    world.spawn((Mesh3d(sphere.clone()), MeshMaterial3d(toon), Transform::from_xyz(-1.8, 0.6, 0.0)));
    let brass = load_material(world, "brass.ron");
    world.spawn((Mesh3d(sphere), MeshMaterial3d(brass), Transform::from_xyz(-0.6, 0.6, 0.0)));
    let ocean = load_material(world, "ocean.ron");
    apply(world, &ocean, &Ocean { amplitude: Some(0.1), wavelength: Some(1.2), ..default() });
    let patch = mesh(world, ocean_patch(1.1, 32));
    world.spawn((Mesh3d(patch), MeshMaterial3d(ocean), Transform::from_xyz(0.6, 0.15, 0.0)));
    let cube = mesh(world, Cuboid::from_length(0.4));
    let red = material(world, srgb(0.8, 0.2, 0.1));
    world.spawn((Mesh3d(cube), red, Transform::from_xyz(1.8, 0.15, 0.0)));
    let water = load_material(world, "water.ron");
    let surface = mesh(world, plane(1.2, 1));
    world.spawn((
        Mesh3d(surface),
        MeshMaterial3d(water),
        NotShadowCaster,
        Transform::from_xyz(1.8, 0.25, 0.0),
    ));
}

/// The material guide's vertex examples: ground that curves away from the camera
/// (`world_curve.ron`, reading `camera_position`), a patch of waves (`waves.ron`, moving
/// `world_position` and `world_normal`; its shadow follows the waves), and a sphere whose
/// shading normal alone is dented (`hammered.ron`). A cube on the waves casts a shadow onto
/// them.
pub fn vertex_hooks(world: &mut World) {
    camera(world, Vec3::new(0.0, 2.2, 4.6), Vec3::new(0.0, 0.2, 0.0), ());
    sun(world, Vec3::new(-3.0, 6.0, 2.0), Some(shadow_box(4.0)));
    world.spawn(Environment::default());
    let curve = load_material(world, "world_curve.ron");
    let ground = mesh(world, plane(24.0, 48));
    world.spawn((Mesh3d(ground), MeshMaterial3d(curve), Transform::default()));
    let waves = load_material(world, "waves.ron");
    let patch = mesh(world, plane(2.0, 40));
    world.spawn((Mesh3d(patch), MeshMaterial3d(waves), Transform::from_xyz(0.9, 0.3, 0.3)));
    let cube = mesh(world, Cuboid::from_length(0.3));
    let red = material(world, srgb(0.8, 0.2, 0.1));
    world.spawn((Mesh3d(cube), red, Transform::from_xyz(0.9, 0.9, 0.3)));
    let hammered = load_material(world, "hammered.ron");
    let sphere = mesh(world, Sphere::new(0.5).mesh().uv(48, 24));
    world.spawn((Mesh3d(sphere), MeshMaterial3d(hammered), Transform::from_xyz(-1.0, 0.6, 0.2)));
}

/// The `light` hook: spheres of `toon_lit.ron`, whose hook bands each light's Lambert term
/// on its own, under the sun (with shadows) and a warm point light beside them; a sphere of
/// the standard material beside them for contrast.
pub fn light_hook(world: &mut World) {
    camera(world, Vec3::new(0.0, 2.0, 4.2), Vec3::new(0.0, 0.4, 0.0), ());
    sun(world, Vec3::new(-3.0, 5.0, 3.0), Some(shadow_box(4.0)));
    dim_ambient(world);
    ground(world, 8.0, srgb(0.6, 0.6, 0.6));
    let toon = load_material(world, "toon_lit.ron");
    let sphere = mesh(world, Sphere::new(0.45).mesh().uv(48, 24));
    for x in [-1.1f32, 0.0] {
        world.spawn((
            Mesh3d(sphere.clone()),
            MeshMaterial3d(toon.clone()),
            Transform::from_xyz(x, 0.45, 0.0),
        ));
    }
    let smooth = material(world, StandardMaterial { perceptual_roughness: 1.0, ..default() });
    world.spawn((Mesh3d(sphere), smooth, Transform::from_xyz(1.1, 0.45, 0.0)));
    world.spawn((
        PointLight {
            color: Color::linear_rgb(1.0, 0.45, 0.15),
            intensity: lumens(4.0),
            range: 5.0,
            radius: 0.05,
            ..default()
        },
        Transform::from_xyz(0.6, 1.0, 1.2),
    ));
}

/// Base-colour, normal and emissive textures on the standard material.
pub fn textures(world: &mut World) {
    camera(world, Vec3::new(0.0, 1.2, 3.2), Vec3::new(0.0, 0.3, 0.0), ());
    sun(world, Vec3::new(-2.0, 3.0, 3.0), None);
    world.spawn(Environment { skybox: false, ..Environment::default() });
    let mut images = world.resource_mut::<Assets<Image>>();
    let checker = images.add(ImageData::checker(64, 4, [240, 200, 60, 255], [60, 90, 200, 255]));
    // Bumps: a normal map of tilted stripes.
    let mut normal = ImageData::solid(32, 32, [128, 128, 255, 255], ImageFormat::Rgba8Linear);
    for y in 0..32 {
        for x in 0..32 {
            let t = if (x / 4) % 2 == 0 { [200u8, 128, 220, 255] } else { [56, 128, 220, 255] };
            let i = ((y * 32 + x) * 4) as usize;
            normal.data[i..i + 4].copy_from_slice(&t);
        }
    }
    let normal = images.add(normal);
    let glow = images.add(ImageData::checker(16, 2, [255, 255, 255, 255], [0, 0, 0, 255]));
    let cube = mesh(world, Cuboid::from_length(0.8));
    let a = material(
        world,
        StandardMaterial { base_color_texture: Some(checker), perceptual_roughness: 0.6, ..default() },
    );
    world.spawn((
        Mesh3d(cube),
        a,
        Transform::from_xyz(-0.7, 0.3, 0.0).with_rotation(Quat::from_rotation_y(0.6)),
    ));
    // Tangents are generated by the render world for meshes that have none.
    let sphere = mesh(world, Sphere::new(0.45).mesh().uv(32, 16));
    let b = material(
        world,
        StandardMaterial {
            base_color: srgb(0.8, 0.8, 0.85),
            normal_map_texture: Some(normal),
            emissive: LinearRgba::rgb(1.5, 0.6, 0.2),
            emissive_texture: Some(glow),
            perceptual_roughness: 0.35,
            ..default()
        },
    );
    // Bevy's UV sphere has its poles on Z: stood upright, the stripes run around it.
    world.spawn((
        Mesh3d(sphere),
        b,
        Transform::from_xyz(0.7, 0.35, 0.0)
            .with_rotation(Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2)),
    ));
}

/// Three coloured point lights over a plane and spheres, no sun.
pub fn point_lights(world: &mut World) {
    camera(world, Vec3::new(0.0, 3.0, 5.0), Vec3::new(0.0, 0.2, 0.0), ());
    dim_ambient(world);
    ground(world, 8.0, srgb(0.7, 0.7, 0.7));
    let sphere = mesh(world, Sphere::new(0.35).mesh().ico(3).expect("3 subdivisions are few"));
    let white = material(world, StandardMaterial { perceptual_roughness: 0.3, ..default() });
    for x in [-1.2f32, 0.0, 1.2] {
        world.spawn((Mesh3d(sphere.clone()), white.clone(), Transform::from_xyz(x, 0.35, 0.0)));
    }
    for (pos, color) in [
        (Vec3::new(-1.5, 1.0, 1.0), Color::linear_rgb(1.0, 0.2, 0.1)),
        (Vec3::new(0.0, 1.2, -1.0), Color::linear_rgb(0.2, 1.0, 0.3)),
        (Vec3::new(1.5, 1.0, 1.0), Color::linear_rgb(0.2, 0.4, 1.0)),
    ] {
        world.spawn((
            PointLight { color, intensity: lumens(6.0), range: 6.0, radius: 0.05, ..default() },
            Transform::from_translation(pos),
        ));
    }
}

/// An unlit material with vertex colours, no lights, no environment (the constant ambient).
pub fn unlit_no_environment(world: &mut World) {
    camera(
        world,
        Vec3::new(1.5, 1.5, 2.5),
        Vec3::ZERO,
        Camera { clear_color: ClearColorConfig::Custom(Color::linear_rgb(0.1, 0.1, 0.3)), ..default() },
    );
    dim_ambient(world);
    let cube = Mesh::from(Cuboid::from_length(1.0));
    let colors: Vec<[f32; 4]> = cube
        .attribute(Mesh::ATTRIBUTE_POSITION)
        .and_then(|p| p.as_float3())
        .unwrap_or_default()
        .iter()
        .map(|p| [p[0] + 0.5, p[1] + 0.5, p[2] + 0.5, 1.0])
        .collect();
    let cube = mesh(world, cube.with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, colors));
    let m = material(world, StandardMaterial { unlit: true, ..default() });
    world.spawn((Mesh3d(cube), m, Transform::default()));
}

fn tonemap_scene(world: &mut World, tonemapping: Tonemapping) {
    // Half a stop brighter than the default exposure (×1.5).
    let exposure = Exposure { ev100: Exposure::default().ev100 - 1.5f32.log2() };
    camera(world, Vec3::new(0.0, 0.6, 4.0), Vec3::new(0.0, 0.3, 0.0), (tonemapping, exposure));
    sun(world, Vec3::new(-2.0, 3.0, 3.0), None);
    world.spawn(Environment::default());
    let sphere = mesh(world, Sphere::new(0.4).mesh().uv(32, 16));
    for (i, emissive) in [[0.0, 0.0, 0.0], [2.0, 0.6, 0.1], [0.2, 1.0, 6.0]].into_iter().enumerate() {
        let m = material(
            world,
            StandardMaterial {
                base_color: srgb(0.9, 0.9, 0.9),
                // Emissive is not exposed: ×1.5 keeps the picture the exposure used to make.
                emissive: LinearRgba::rgb(emissive[0], emissive[1], emissive[2]) * 1.5,
                perceptual_roughness: 0.2,
                ..default()
            },
        );
        world.spawn((Mesh3d(sphere.clone()), m, Transform::from_xyz(-1.0 + i as f32, 0.4, 0.0)));
    }
}

/// Bright and HDR colours with no tone curve (clamped).
pub fn tonemap_none(world: &mut World) {
    tonemap_scene(world, Tonemapping::None);
}

/// The same with ACES.
pub fn tonemap_aces(world: &mut World) {
    tonemap_scene(world, Tonemapping::Aces);
}

/// The same with Khronos PBR Neutral (the default).
pub fn tonemap_neutral(world: &mut World) {
    tonemap_scene(world, Tonemapping::PbrNeutral);
}

/// The skybox alone, looking at the horizon and the sun's glow.
pub fn sky_only(world: &mut World) {
    camera(
        world,
        Vec3::ZERO,
        Vec3::new(0.4, 0.25, 0.3),
        Projection::Perspective(PerspectiveProjection { fov: 1.4, near: 0.1, far: 10.0, ..default() }),
    );
    world.spawn(Environment::default());
}

/// Bevy's `3d_scene` example's scene ([`crate::bevy_scenes::three_d_scene`]).
pub fn bevy_3d_scene(world: &mut World) {
    if let Err(e) = world.run_system_once(crate::bevy_scenes::three_d_scene) {
        f3d::bevy_log::error!("bevy_3d_scene: {e}");
    }
}

/// Bevy's `3d_scene` with 4× MSAA on its camera, as Bevy draws it by default: the MSAA
/// golden (the cube's and the disc's edges resolve to partial coverage).
pub fn msaa(world: &mut World) {
    bevy_3d_scene(world);
    let cameras: Vec<Entity> = world.query_filtered::<Entity, With<Camera3d>>().iter(world).collect();
    for camera in cameras {
        world.entity_mut(camera).insert(Msaa::Sample4);
    }
}

/// Bevy's `lighting` example's scene ([`crate::bevy_scenes::lighting`]).
pub fn bevy_lighting(world: &mut World) {
    if let Err(e) = world.run_system_once(crate::bevy_scenes::lighting) {
        f3d::bevy_log::error!("bevy_lighting: {e}");
    }
}

/// A WGSL shader material: a colour block lit by a fixed direction through `world_normal`,
/// with a rim that brightens towards the silhouette's edge seen from +Z.
const RIM_WGSL: &str = "struct Rim { color: vec4<f32>, rim: vec4<f32> }
@group(1) @binding(0) var<uniform> rim: Rim;
@fragment
fn fs(@location(1) n: vec3<f32>) -> @location(0) vec4<f32> {
    let normal = normalize(n);
    let light = max(dot(normal, normalize(vec3<f32>(-0.4, 0.8, 0.5))), 0.0) * 0.8 + 0.2;
    let edge = pow(1.0 - abs(normal.z), 3.0);
    return vec4<f32>(rim.color.rgb * light + rim.rim.rgb * edge, 1.0);
}
";

/// A GLSL shader material: an image by its `uv0`, tinted by the vertex colour.
const PATTERN_GLSL: &str = "#version 450
layout(location = 2) in vec2 uv;
layout(location = 4) in vec4 tint;
layout(location = 0) out vec4 o;
layout(set = 1, binding = 0) uniform sampler2D pattern;
void main() {
    o = vec4(texture(pattern, uv * 3.0).rgb * tint.rgb, 1.0);
}
";

/// A WGSL shader material reading the environment along the normal, plus a glow; drawn
/// additively it brightens what is behind it.
const SKY_GLOW_WGSL: &str = "struct Glow { color: vec4<f32> }
@group(1) @binding(0) var<uniform> glow: Glow;
@group(1) @binding(1) var environment_radiance: texture_cube<f32>;
@group(1) @binding(2) var environment_radiance_sampler: sampler;
@fragment
fn fs(@location(1) n: vec3<f32>) -> @location(0) vec4<f32> {
    let sky = textureSampleLevel(environment_radiance, environment_radiance_sampler, normalize(n), 0.0).rgb;
    return vec4<f32>(sky * 0.6 + glow.color.rgb, 1.0);
}
";

/// Raw fragment shaders as materials (`ShaderMaterial`): WGSL and GLSL, a uniform block and a
/// texture bound by name, the environment on and off, additive blending and front culling,
/// on meshes that cast shadows through the engine's own vertex stages.
pub fn shader_materials(world: &mut World) {
    use f3d::f3d_materials::format::{Blending, Culling};
    camera(world, Vec3::new(0.0, 2.2, 4.6), Vec3::new(0.0, 0.5, 0.0), ());
    sun(world, Vec3::new(-3.0, 5.0, 3.0), Some(shadow_box(4.0)));
    world.spawn(Environment::default());
    ground(world, 10.0, srgb(0.55, 0.56, 0.58));
    let floats = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_le_bytes()).collect() };
    let made = |m: Result<ShaderMaterial, f3d::f3d_materials::MaterialError>| {
        m.unwrap_or_else(|e| panic!("an example shader: {}", e.diagnostic()))
    };

    let mut rim = made(ShaderMaterial::from_wgsl("rim.wgsl", RIM_WGSL));
    let _ = rim.set_block("Rim", &floats(&[0.7, 0.18, 0.08, 1.0, 0.2, 0.5, 1.0, 0.0]));
    let checker = world.resource_mut::<Assets<Image>>().add(ImageData::checker(
        32,
        4,
        [230, 230, 220, 255],
        [40, 40, 60, 255],
    ));
    let mut pattern = made(ShaderMaterial::from_glsl("pattern.frag", PATTERN_GLSL));
    let _ = pattern.set_image("pattern", checker);
    let mut glow = made(ShaderMaterial::from_wgsl("sky_glow.wgsl", SKY_GLOW_WGSL));
    let _ = glow.set_block("Glow", &floats(&[0.05, 0.02, 0.0, 1.0]));
    let dark_glow = glow.clone().with_environment(false).with_blending(Blending::Additive);
    // The torus's inside faces only: front faces culled.
    let inside = pattern.clone().with_culling(Culling::Front);

    let sphere = mesh(world, Sphere::new(0.45).mesh().uv(48, 24));
    let cube = mesh(world, Cuboid::from_length(0.8));
    let torus = mesh(world, Torus::new(0.25, 0.5).mesh().major_resolution(48).minor_resolution(24));
    let add = |world: &mut World, mesh: &Handle<Mesh>, m: ShaderMaterial, at: Transform| {
        let m = world.resource_mut::<Assets<ShaderMaterial>>().add(m);
        world.spawn((Mesh3d(mesh.clone()), MeshMaterial3d(m), at));
    };
    add(world, &sphere, rim, Transform::from_xyz(-1.6, 0.45, 0.0));
    add(
        world,
        &cube,
        pattern,
        Transform::from_xyz(-0.3, 0.4, -0.2).with_rotation(Quat::from_rotation_y(0.6)),
    );
    add(world, &sphere, glow, Transform::from_xyz(0.9, 0.45, 0.3));
    add(world, &sphere, dark_glow, Transform::from_xyz(1.9, 0.45, -0.4));
    add(world, &torus, inside, Transform::from_xyz(0.2, 0.3, 1.3));
}
