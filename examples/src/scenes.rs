//! Scenes as functions over a `World` (run them as a `Startup` system or hand them to
//! `f3d_testing::render_frame`).

use f3d::prelude::*;

use crate::assets_dir;

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
];

/// The scene called `name`.
pub fn scene(name: &str) -> Option<SceneFn> {
    SCENES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

fn mesh(world: &mut World, mesh: Mesh) -> Handle<Mesh> {
    world.resource_mut::<Assets<Mesh>>().add(mesh)
}

fn material(world: &mut World, m: impl Into<Material>) -> Handle<Material> {
    world.resource_mut::<Assets<Material>>().add(m.into())
}

fn camera(world: &mut World, eye: Vec3, target: Vec3, camera: Camera3d) {
    world.spawn((camera, Transform::from_translation(eye).looking_at(target, Vec3::Y)));
}

fn sun(world: &mut World, from: Vec3, shadows: Option<ShadowSettings>) {
    world.spawn((
        DirectionalLight { shadows, ..DirectionalLight::default() },
        Transform::from_translation(from).looking_at(Vec3::ZERO, Vec3::Y),
    ));
}

fn ground(world: &mut World, size: f32, color: [f32; 4]) {
    let plane = mesh(world, shapes::plane(size, 1));
    let m = material(world, StandardMaterial { base_color: color, roughness: 0.85, ..Default::default() });
    world.spawn((Mesh3d(plane), MeshMaterial(m), Transform::default()));
}

/// Loads an example `.ron` material; a broken file falls back to a magenta standard material
/// (and says why), so a scene always draws.
pub fn load_material(world: &mut World, file: &str) -> Handle<Material> {
    let path = assets_dir().join("materials").join(file);
    match CustomMaterial::load(&path) {
        Ok(m) => material(world, m),
        Err(errors) => {
            for e in errors {
                eprintln!("{}", e.diagnostic());
            }
            material(world, StandardMaterial::color([1.0, 0.0, 1.0, 1.0]))
        }
    }
}

fn sphere_grid(world: &mut World, origin: Vec3, columns: u32, rows: u32, spacing: f32) {
    let sphere = mesh(world, shapes::uv_sphere(spacing * 0.42, 32, 16));
    for row in 0..rows {
        let metallic = if rows > 1 { row as f32 / (rows - 1) as f32 } else { 0.0 };
        for col in 0..columns {
            let roughness = if columns > 1 { col as f32 / (columns - 1) as f32 } else { 0.5 };
            let m = material(
                world,
                StandardMaterial {
                    base_color: srgb(0.9, 0.42, 0.22),
                    metallic,
                    roughness,
                    ..Default::default()
                },
            );
            let x = (col as f32 - (columns - 1) as f32 * 0.5) * spacing;
            let y = row as f32 * spacing;
            world.spawn((
                Mesh3d(sphere),
                MeshMaterial(m),
                Transform::from_translation(origin + Vec3::new(x, y, 0.0)),
            ));
        }
    }
}

/// A plane patch with a per-vertex `phase` attribute, for the ocean material.
fn ocean_patch(size: f32, cells: u32) -> Mesh {
    let plane = shapes::plane(size, cells);
    let phases: Vec<f32> = plane
        .positions
        .iter()
        // A slow swirl of phase across the patch, so the crests bend.
        .map(|p| (p[0] * 1.7).sin() * 0.6 + (p[2] * 1.3 + p[0] * 0.5).cos() * 0.4)
        .collect();
    plane.with_attribute("phase", 1, phases)
}

/// The showcase: the README's main job.
pub fn showcase(world: &mut World) {
    camera(
        world,
        Vec3::new(0.0, 3.4, 9.0),
        Vec3::new(0.0, 1.1, -0.6),
        Camera3d {
            projection: Projection::Perspective { fov_y: 40f32.to_radians(), near: 0.1, far: 100.0 },
            ..Default::default()
        },
    );
    sun(
        world,
        Vec3::new(-4.0, 7.0, 5.0),
        Some(ShadowSettings {
            map_size: 2048,
            half_extent: 7.0,
            center: Vec3::new(0.0, 0.0, -0.5),
            ..ShadowSettings::default()
        }),
    );
    world.spawn(Environment::default());
    ground(world, 380.0, srgb(0.55, 0.56, 0.58));
    sphere_grid(world, Vec3::new(0.0, 0.55, -3.0), 7, 3, 1.05);

    // The materials issue's materials along the front.
    let toon = load_material(world, "toon.ron");
    let torus = mesh(world, shapes::torus(0.55, 0.22, 48, 24));
    world.spawn((
        Mesh3d(torus),
        MeshMaterial(toon),
        Transform::from_xyz(-3.3, 0.85, 1.2).with_rotation(Quat::from_rotation_x(1.1)),
    ));
    let brass = load_material(world, "brass.ron");
    let cylinder = mesh(world, shapes::cylinder(0.5, 1.3, 48));
    world.spawn((Mesh3d(cylinder), MeshMaterial(brass), Transform::from_xyz(-1.35, 0.65, 1.3)));
    let ocean = load_material(world, "ocean.ron");
    if let Some(Material::Custom(m)) = world.resource_mut::<Assets<Material>>().get_mut(ocean) {
        let _ = m.set_float("amplitude", 0.08);
        let _ = m.set_float("wavelength", 1.6);
    }
    let patch = mesh(world, ocean_patch(2.2, 48));
    world.spawn((Mesh3d(patch), MeshMaterial(ocean), Transform::from_xyz(0.9, 0.2, 1.3)));

    // A pool: stones under translucent water that refracts and absorbs them.
    let stone = mesh(world, shapes::ico_sphere(0.32, 2));
    let rock = material(
        world,
        StandardMaterial { base_color: srgb(0.75, 0.7, 0.6), roughness: 0.9, ..Default::default() },
    );
    for (x, z, s) in [(2.9, 1.0, 1.0), (3.5, 1.6, 0.8), (3.3, 0.7, 0.6)] {
        world.spawn((
            Mesh3d(stone),
            MeshMaterial(rock),
            Transform::from_xyz(x, 0.12, z).with_scale(Vec3::splat(s)),
        ));
    }
    let water = load_material(world, "water.ron");
    if let Some(Material::Custom(m)) = world.resource_mut::<Assets<Material>>().get_mut(water) {
        let _ = m.set_float("foam_width", 0.06);
        let _ = m.set_float("absorption_depth", 0.5);
        let _ = m.set_float("ripple_scale", 2.5);
    }
    let surface = mesh(world, shapes::plane(2.0, 1));
    world.spawn((Mesh3d(surface), MeshMaterial(water), NotShadowCaster, Transform::from_xyz(3.2, 0.3, 1.2)));
}

/// Spheres sweeping metallic (rows) × roughness (columns) under the sky.
pub fn pbr_grid(world: &mut World) {
    camera(world, Vec3::new(0.0, 1.0, 6.5), Vec3::new(0.0, 1.0, 0.0), Camera3d::default());
    world.spawn(Environment::default());
    sun(world, Vec3::new(-3.0, 4.0, 5.0), None);
    sphere_grid(world, Vec3::new(0.0, 0.0, 0.0), 5, 3, 1.0);
}

/// A cube and a sphere casting shadows on a plane, no environment.
pub fn shadows(world: &mut World) {
    camera(world, Vec3::new(0.0, 3.5, 6.0), Vec3::new(0.0, 0.3, 0.0), Camera3d::default());
    sun(
        world,
        Vec3::new(-3.0, 6.0, 2.0),
        Some(ShadowSettings { half_extent: 4.0, ..ShadowSettings::default() }),
    );
    ground(world, 10.0, srgb(0.8, 0.8, 0.8));
    let cube = mesh(world, shapes::cube(1.0));
    let red = material(world, StandardMaterial::color(srgb(0.8, 0.15, 0.1)));
    world.spawn((Mesh3d(cube), MeshMaterial(red), Transform::from_xyz(-0.8, 0.5, 0.0)));
    let sphere = mesh(world, shapes::uv_sphere(0.5, 32, 16));
    let blue = material(world, StandardMaterial::color(srgb(0.1, 0.3, 0.8)));
    world.spawn((Mesh3d(sphere), MeshMaterial(blue), Transform::from_xyz(0.9, 0.9, 0.3)));
}

/// Each blending mode over a checker floor: alpha, additive, multiply (standard material) and
/// premultiplied (the water material's mode, through a `.ron` material).
pub fn blending(world: &mut World) {
    camera(world, Vec3::new(0.0, 2.2, 4.5), Vec3::new(0.0, 0.4, 0.0), Camera3d::default());
    sun(world, Vec3::new(-2.0, 5.0, 3.0), None);
    world.spawn(Environment { skybox: false, ..Environment::default() });
    let checker = world.resource_mut::<Assets<Image>>().add(Image::checker(
        64,
        8,
        [230, 230, 230, 255],
        [40, 40, 40, 255],
    ));
    let plane = mesh(world, shapes::plane(6.0, 1));
    let floor = material(
        world,
        StandardMaterial { base_color_texture: Some(checker), roughness: 0.9, ..Default::default() },
    );
    world.spawn((Mesh3d(plane), MeshMaterial(floor), Transform::default()));
    let quad = mesh(world, shapes::plane(0.9, 1));
    let modes = [
        (AlphaMode::Blend, srgb(0.1, 0.5, 1.0), 0.5),
        (AlphaMode::Add, srgb(0.6, 0.2, 0.0), 1.0),
        (AlphaMode::Multiply, srgb(1.0, 0.3, 0.3), 1.0),
    ];
    for (i, (alpha_mode, color, alpha)) in modes.into_iter().enumerate() {
        let m = material(
            world,
            StandardMaterial {
                base_color: [color[0], color[1], color[2], alpha],
                alpha_mode,
                unlit: true,
                double_sided: true,
                ..Default::default()
            },
        );
        world.spawn((
            Mesh3d(quad),
            MeshMaterial(m),
            Transform::from_xyz(-1.5 + i as f32 * 1.0, 0.6, 0.0).with_rotation(Quat::from_rotation_x(1.2)),
        ));
    }
    let premultiplied = CustomMaterial::parse(
        "premultiplied.ron",
        br#"Material(name: "Glow", shading_model: Unlit, blending: Premultiplied, culling: None,
            fragment: "fn surface(m: ptr<function, MaterialInputs>) { (*m).base_color = vec4<f32>(0.2, 0.6, 0.1, 0.4); }")"#,
    );
    if let Ok(p) = premultiplied {
        let m = material(world, p);
        world.spawn((
            Mesh3d(quad),
            MeshMaterial(m),
            Transform::from_xyz(1.5, 0.6, 0.0).with_rotation(Quat::from_rotation_x(1.2)),
        ));
    }
}

/// The four example `.ron` materials side by side.
pub fn materials(world: &mut World) {
    camera(world, Vec3::new(0.0, 2.6, 5.0), Vec3::new(0.0, 0.4, 0.0), Camera3d::default());
    sun(
        world,
        Vec3::new(-3.0, 6.0, 4.0),
        Some(ShadowSettings { half_extent: 4.0, ..ShadowSettings::default() }),
    );
    world.spawn(Environment::default());
    ground(world, 10.0, srgb(0.5, 0.5, 0.5));
    let toon = load_material(world, "toon.ron");
    let sphere = mesh(world, shapes::uv_sphere(0.5, 32, 16));
    world.spawn((Mesh3d(sphere), MeshMaterial(toon), Transform::from_xyz(-1.8, 0.6, 0.0)));
    let brass = load_material(world, "brass.ron");
    world.spawn((Mesh3d(sphere), MeshMaterial(brass), Transform::from_xyz(-0.6, 0.6, 0.0)));
    let ocean = load_material(world, "ocean.ron");
    if let Some(Material::Custom(m)) = world.resource_mut::<Assets<Material>>().get_mut(ocean) {
        let _ = m.set_float("amplitude", 0.1);
        let _ = m.set_float("wavelength", 1.2);
    }
    let patch = mesh(world, ocean_patch(1.1, 32));
    world.spawn((Mesh3d(patch), MeshMaterial(ocean), Transform::from_xyz(0.6, 0.15, 0.0)));
    let cube = mesh(world, shapes::cube(0.4));
    let red = material(world, StandardMaterial::color(srgb(0.8, 0.2, 0.1)));
    world.spawn((Mesh3d(cube), MeshMaterial(red), Transform::from_xyz(1.8, 0.15, 0.0)));
    let water = load_material(world, "water.ron");
    let surface = mesh(world, shapes::plane(1.2, 1));
    world.spawn((Mesh3d(surface), MeshMaterial(water), NotShadowCaster, Transform::from_xyz(1.8, 0.25, 0.0)));
}

/// Base-colour, normal and emissive textures on the standard material.
pub fn textures(world: &mut World) {
    camera(world, Vec3::new(0.0, 1.2, 3.2), Vec3::new(0.0, 0.3, 0.0), Camera3d::default());
    sun(world, Vec3::new(-2.0, 3.0, 3.0), None);
    world.spawn(Environment { skybox: false, ..Environment::default() });
    let mut images = world.resource_mut::<Assets<Image>>();
    let checker = images.add(Image::checker(64, 4, [240, 200, 60, 255], [60, 90, 200, 255]));
    // Bumps: a normal map of tilted stripes.
    let mut normal = Image::solid(32, 32, [128, 128, 255, 255], ImageFormat::Rgba8Linear);
    for y in 0..32 {
        for x in 0..32 {
            let t = if (x / 4) % 2 == 0 { [200u8, 128, 220, 255] } else { [56, 128, 220, 255] };
            let i = ((y * 32 + x) * 4) as usize;
            normal.data[i..i + 4].copy_from_slice(&t);
        }
    }
    let normal = images.add(normal);
    let glow = images.add(Image::checker(16, 2, [255, 255, 255, 255], [0, 0, 0, 255]));
    let cube = mesh(world, shapes::cube(0.8));
    let a = material(
        world,
        StandardMaterial { base_color_texture: Some(checker), roughness: 0.6, ..Default::default() },
    );
    world.spawn((
        Mesh3d(cube),
        MeshMaterial(a),
        Transform::from_xyz(-0.7, 0.3, 0.0).with_rotation(Quat::from_rotation_y(0.6)),
    ));
    let mut sphere_mesh = shapes::uv_sphere(0.45, 32, 16);
    sphere_mesh.generate_tangents();
    let sphere = mesh(world, sphere_mesh);
    let b = material(
        world,
        StandardMaterial {
            base_color: srgb(0.8, 0.8, 0.85),
            normal_texture: Some(normal),
            emissive: [1.5, 0.6, 0.2],
            emissive_texture: Some(glow),
            roughness: 0.35,
            ..Default::default()
        },
    );
    world.spawn((Mesh3d(sphere), MeshMaterial(b), Transform::from_xyz(0.7, 0.35, 0.0)));
}

/// Three coloured point lights over a plane and spheres, no sun.
pub fn point_lights(world: &mut World) {
    camera(world, Vec3::new(0.0, 3.0, 5.0), Vec3::new(0.0, 0.2, 0.0), Camera3d::default());
    ground(world, 8.0, srgb(0.7, 0.7, 0.7));
    let sphere = mesh(world, shapes::ico_sphere(0.35, 3));
    let white = material(world, StandardMaterial { roughness: 0.3, ..Default::default() });
    for x in [-1.2f32, 0.0, 1.2] {
        world.spawn((Mesh3d(sphere), MeshMaterial(white), Transform::from_xyz(x, 0.35, 0.0)));
    }
    for (pos, color) in [
        (Vec3::new(-1.5, 1.0, 1.0), [1.0, 0.2, 0.1]),
        (Vec3::new(0.0, 1.2, -1.0), [0.2, 1.0, 0.3]),
        (Vec3::new(1.5, 1.0, 1.0), [0.2, 0.4, 1.0]),
    ] {
        world.spawn((
            PointLight { color, intensity: 6.0, range: 6.0, radius: 0.05 },
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
        Camera3d { clear_color: [0.1, 0.1, 0.3, 1.0], ..Default::default() },
    );
    let mut cube = shapes::cube(1.0);
    cube.colors = cube.positions.iter().map(|p| [p[0] + 0.5, p[1] + 0.5, p[2] + 0.5, 1.0]).collect();
    let cube = mesh(world, cube);
    let m = material(world, StandardMaterial { unlit: true, ..Default::default() });
    world.spawn((Mesh3d(cube), MeshMaterial(m), Transform::default()));
}

fn tonemap_scene(world: &mut World, tonemapping: Tonemapping) {
    camera(
        world,
        Vec3::new(0.0, 0.6, 4.0),
        Vec3::new(0.0, 0.3, 0.0),
        Camera3d { tonemapping, exposure: 1.5, ..Default::default() },
    );
    sun(world, Vec3::new(-2.0, 3.0, 3.0), None);
    world.spawn(Environment::default());
    let sphere = mesh(world, shapes::uv_sphere(0.4, 32, 16));
    for (i, emissive) in [[0.0, 0.0, 0.0], [2.0, 0.6, 0.1], [0.2, 1.0, 6.0]].into_iter().enumerate() {
        let m = material(
            world,
            StandardMaterial {
                base_color: srgb(0.9, 0.9, 0.9),
                emissive,
                roughness: 0.2,
                ..Default::default()
            },
        );
        world.spawn((Mesh3d(sphere), MeshMaterial(m), Transform::from_xyz(-1.0 + i as f32, 0.4, 0.0)));
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
        Camera3d {
            projection: Projection::Perspective { fov_y: 1.4, near: 0.1, far: 10.0 },
            ..Default::default()
        },
    );
    world.spawn(Environment::default());
}
