//! glTF loading (f3d's `GltfLoader` and `GltfSceneRoot`): files written by
//! `f3d_testing::gltf` are loaded through the `AssetServer` and spawned, and what was spawned
//! is checked (meshes, materials, cameras, lights, the hierarchy); bad files fail their load
//! with a reason and the app keeps running; two scenes are drawn as goldens on soft and
//! compared with a live soft frame on vulkan and wgpu.

use std::f32::consts::PI;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use f3d::bevy_asset::LoadState;
use f3d::bevy_ecs::name::Name;
use f3d::bevy_image::ImageSampler;
use f3d::bevy_mesh::{Indices, VertexAttributeValues};
use f3d::f3d_hal::{BackendId, DeviceRequest, GraphicsDevice};
use f3d::prelude::*;
use f3d::wgpu_types::TextureFormat;
use f3d_testing::gltf::{
    Camera as FileCamera, GltfBuilder, Light, Material, Node, Primitive, png_rgba, render_gltf,
};
use f3d_testing::{Frame, assert_golden, backend_opens, compare, golden_path, gpu};
use serde_json::json;

/// A fresh folder for one test's files.
fn folder(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gltf").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

fn write(dir: &Path, file: &str, bytes: &[u8]) {
    std::fs::write(dir.join(file), bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
}

/// An app on the soft backend (a tiny target) with `dir` as its asset folder.
fn app(dir: &Path) -> App {
    let mut app = App::new();
    app.add_plugins(AssetPlugin { file_path: dir.display().to_string(), ..Default::default() }).add_plugins(
        F3dRenderPlugin {
            backend: BackendChoice::Named(BackendId::from_name("soft")),
            size: (16, 16),
            ..Default::default()
        },
    );
    app.finish();
    app.cleanup();
    app
}

/// Loads `file`, spawns its scene and runs until the scene's status arrives.
fn load(dir: &Path, file: &str) -> (App, Entity, Handle<Gltf>) {
    let mut app = app(dir);
    let handle = app.world().resource::<AssetServer>().load::<Gltf>(file.to_owned());
    let root = app.world_mut().spawn(GltfSceneRoot::new(handle.clone())).id();
    let started = Instant::now();
    while app.world().get::<GltfSceneStatus>(root).is_none() {
        assert!(started.elapsed() < Duration::from_secs(30), "{file} did not load within 30 s");
        app.update();
        std::thread::sleep(Duration::from_millis(1));
    }
    app.update();
    (app, root, handle)
}

fn spawned(app: &App, root: Entity) {
    match app.world().get::<GltfSceneStatus>(root) {
        Some(GltfSceneStatus::Spawned { .. }) => {}
        other => panic!("the scene did not spawn: {other:?}"),
    }
}

/// The failure reason of a file that must not load; the app keeps running after it.
fn failure(dir: &Path, file: &str) -> String {
    let (mut app, root, handle) = load(dir, file);
    let reason = match app.world().get::<GltfSceneStatus>(root) {
        Some(GltfSceneStatus::Failed { reason }) => reason.clone(),
        other => panic!("{file} loaded: {other:?}"),
    };
    let state = app.world().resource::<AssetServer>().get_load_state(&handle);
    assert!(matches!(state, Some(LoadState::Failed(_))), "{file}: load state {state:?}");
    for _ in 0..3 {
        app.update();
    }
    assert!(reason.contains(file), "the reason names the file: {reason}");
    reason
}

fn entity_named(app: &mut App, name: &str) -> Entity {
    let world = app.world_mut();
    let mut q = world.query::<(Entity, &Name)>();
    q.iter(world)
        .find(|(_, n)| n.as_str() == name)
        .map(|(e, _)| e)
        .unwrap_or_else(|| panic!("no node {name}"))
}

/// The `(Mesh3d, MeshMaterial3d)` children of `node`.
fn primitives(app: &App, node: Entity) -> Vec<(Handle<Mesh>, Handle<StandardMaterial>)> {
    let world = app.world();
    let children = world.get::<Children>(node).map(|c| c.to_vec()).unwrap_or_default();
    children
        .into_iter()
        .filter_map(|c| {
            let mesh = world.get::<Mesh3d>(c)?;
            let material = world.get::<MeshMaterial3d<StandardMaterial>>(c)?;
            Some((mesh.0.clone(), material.0.clone()))
        })
        .collect()
}

fn checker_png() -> Vec<u8> {
    let mut rgba = Vec::new();
    for y in 0..8u32 {
        for x in 0..8u32 {
            rgba.extend(if (x / 2 + y / 2) % 2 == 0 { [240, 240, 240, 255] } else { [30, 60, 200, 255] });
        }
    }
    png_rgba(8, 8, &rgba)
}

const FACE_COLORS: [[f32; 4]; 6] = [
    [1.0, 0.2, 0.2, 1.0],
    [0.2, 1.0, 0.2, 1.0],
    [0.2, 0.2, 1.0, 1.0],
    [1.0, 1.0, 0.2, 1.0],
    [1.0, 0.2, 1.0, 1.0],
    [0.2, 1.0, 1.0, 1.0],
];

/// A textured, vertex-coloured cube on a ground plane, with a camera and two lights.
fn box_scene() -> GltfBuilder {
    let eye = Transform::from_xyz(2.2, 1.8, 3.0).looking_at(Vec3::new(0.0, 0.4, 0.0), Vec3::Y);
    GltfBuilder {
        meshes: vec![
            vec![Primitive { material: Some(0), ..Primitive::cube(1.0, Some(FACE_COLORS)) }],
            vec![Primitive { material: Some(1), ..Primitive::plane(6.0) }],
        ],
        materials: vec![
            Material {
                name: Some("boxes".into()),
                base_color_texture: Some(0),
                metallic: 0.0,
                roughness: 0.6,
                ..Material::default()
            },
            Material {
                name: Some("ground".into()),
                base_color: [0.5, 0.5, 0.5, 1.0],
                metallic: 0.0,
                ..Material::default()
            },
        ],
        textures: vec![checker_png()],
        nodes: vec![
            Node {
                name: Some("cube".into()),
                translation: Some([0.0, 0.5, 0.0]),
                rotation: Some(Quat::from_rotation_y(-0.2).to_array()),
                mesh: Some(0),
                children: vec![3],
                ..Node::default()
            },
            Node { name: Some("ground".into()), mesh: Some(1), ..Node::default() },
            Node {
                name: Some("camera".into()),
                translation: Some(eye.translation.to_array()),
                rotation: Some(eye.rotation.to_array()),
                camera: Some(0),
                ..Node::default()
            },
            Node {
                name: Some("small cube".into()),
                translation: Some([0.0, 0.75, 0.0]),
                scale: Some([0.5, 0.5, 0.5]),
                mesh: Some(0),
                ..Node::default()
            },
            Node {
                name: Some("sun".into()),
                rotation: Some(
                    Transform::from_xyz(1.0, 2.0, 1.5).looking_at(Vec3::ZERO, Vec3::Y).rotation.to_array(),
                ),
                light: Some(0),
                ..Node::default()
            },
            Node {
                name: Some("lamp".into()),
                translation: Some([-1.5, 1.5, 1.0]),
                light: Some(1),
                ..Node::default()
            },
        ],
        roots: vec![0, 1, 2, 4, 5],
        cameras: vec![FileCamera::Perspective { yfov: 0.8, znear: 0.1, zfar: Some(50.0) }],
        lights: vec![
            Light {
                kind: "directional",
                color: [1.0, 0.95, 0.9],
                intensity: 4000.0,
                range: None,
                cone: None,
            },
            Light { kind: "point", color: [1.0, 0.6, 0.3], intensity: 4000.0, range: Some(10.0), cone: None },
        ],
    }
}

#[test]
fn meshes_materials_textures_and_hierarchy_spawn() {
    let dir = folder("box");
    write(&dir, "box.gltf", &box_scene().build().embedded());
    let (mut app, root, handle) = load(&dir, "box.gltf");
    spawned(&app, root);
    let gltf = app.world().resource::<Assets<Gltf>>().get(&handle).expect("the Gltf asset").clone();
    assert_eq!(
        (gltf.scenes.len(), gltf.meshes.len(), gltf.materials.len(), gltf.textures.len()),
        (1, 2, 2, 1)
    );
    assert!(gltf.named_materials.contains_key("boxes") && gltf.named_materials.contains_key("ground"));
    assert!(gltf.skipped.is_empty(), "nothing skipped: {:?}", gltf.skipped);

    // The hierarchy: the small cube is a child of the cube, with both transforms applied.
    let cube = entity_named(&mut app, "cube");
    let small = entity_named(&mut app, "small cube");
    assert_eq!(app.world().get::<ChildOf>(cube).map(|c| c.parent()), Some(root));
    assert_eq!(app.world().get::<ChildOf>(small).map(|c| c.parent()), Some(cube));
    let local = app.world().get::<Transform>(small).copied().unwrap_or_default();
    assert_eq!((local.translation, local.scale), (Vec3::new(0.0, 0.75, 0.0), Vec3::splat(0.5)));
    let global = app.world().get::<GlobalTransform>(small).expect("propagated").compute_transform();
    let expected = Transform::from_xyz(0.0, 0.5, 0.0).with_rotation(Quat::from_rotation_y(-0.2)) * local;
    assert!(
        global.translation.distance(expected.translation) < 1e-5
            && global.scale.distance(expected.scale) < 1e-5
    );

    // The mesh: every attribute, indices, vertex colours.
    let prims = primitives(&app, cube);
    assert_eq!(prims.len(), 1);
    let (mesh, material) = &prims[0];
    let meshes = app.world().resource::<Assets<Mesh>>();
    let mesh = meshes.get(mesh).expect("the mesh");
    assert_eq!(mesh.count_vertices(), 24);
    for attribute in
        [Mesh::ATTRIBUTE_POSITION, Mesh::ATTRIBUTE_NORMAL, Mesh::ATTRIBUTE_UV_0, Mesh::ATTRIBUTE_COLOR]
    {
        assert!(mesh.attribute(attribute).is_some(), "{} missing", attribute.name);
    }
    match mesh.attribute(Mesh::ATTRIBUTE_COLOR) {
        Some(VertexAttributeValues::Float32x4(c)) => assert_eq!(c[0], FACE_COLORS[0]),
        other => panic!("colours: {other:?}"),
    }
    assert!(matches!(mesh.indices(), Some(Indices::U32(i)) if i.len() == 36));

    // The material and its sRGB texture.
    let materials = app.world().resource::<Assets<StandardMaterial>>();
    let m = materials.get(material).expect("the material");
    assert_eq!((m.metallic, m.perceptual_roughness, m.alpha_mode), (0.0, 0.6, AlphaMode::Opaque));
    let texture = m.base_color_texture.clone().expect("a base colour texture");
    let image = app.world().resource::<Assets<Image>>().get(&texture).expect("the image");
    assert_eq!(image.texture_descriptor.format, TextureFormat::Rgba8UnormSrgb);
    assert_eq!((image.width(), image.height()), (8, 8));
    assert!(
        matches!(&image.sampler, ImageSampler::Descriptor(d) if d.address_mode_u == f3d::bevy_image::ImageAddressMode::Repeat)
    );

    // Labels as bevy_gltf writes them.
    let server = app.world().resource::<AssetServer>();
    for label in ["Scene0", "Mesh0", "Mesh0/Primitive0", "Material1", "Texture0"] {
        assert!(server.get_handle_untyped(format!("box.gltf#{label}")).is_some(), "no sub-asset {label}");
    }
}

#[test]
fn cameras_spawn_with_their_projections_and_only_the_first_is_active() {
    let dir = folder("cameras");
    let mut scene = box_scene();
    scene.cameras.push(FileCamera::Orthographic { xmag: 2.0, ymag: 1.5, znear: 0.5, zfar: 20.0 });
    scene.nodes.push(Node {
        name: Some("ortho".into()),
        translation: Some([0.0, 0.0, 5.0]),
        camera: Some(1),
        ..Node::default()
    });
    scene.roots.push(scene.nodes.len() - 1);
    write(&dir, "cameras.gltf", &scene.build().embedded());
    let (mut app, root, _) = load(&dir, "cameras.gltf");
    spawned(&app, root);
    let first = entity_named(&mut app, "camera");
    let second = entity_named(&mut app, "ortho");
    let world = app.world();
    assert!(world.get::<Camera3d>(first).is_some() && world.get::<Camera3d>(second).is_some());
    let (c1, c2) =
        (world.get::<Camera>(first).expect("camera"), world.get::<Camera>(second).expect("camera"));
    assert!(c1.is_active && !c2.is_active, "only the first camera is active");
    assert_eq!((c1.order, c2.order), (0, 0), "Bevy's default order");
    match world.get::<Projection>(first) {
        Some(Projection::Perspective(p)) => assert_eq!((p.fov, p.near, p.far), (0.8, 0.1, 50.0)),
        other => panic!("perspective expected: {other:?}"),
    }
    match world.get::<Projection>(second) {
        Some(Projection::Orthographic(o)) => {
            assert_eq!((o.near, o.far), (0.5, 20.0));
            assert!(matches!(
                o.scaling_mode,
                f3d::bevy_camera::ScalingMode::Fixed { width: 4.0, height: 3.0 }
            ));
        }
        other => panic!("orthographic expected: {other:?}"),
    }
}

#[test]
fn punctual_lights_are_in_bevy_units() {
    let dir = folder("lights");
    let mut scene = box_scene();
    scene.lights.push(Light {
        kind: "spot",
        color: [0.0, 1.0, 0.0],
        intensity: 2.0,
        range: None,
        cone: Some((0.2, 0.5)),
    });
    scene.nodes.push(Node {
        name: Some("spot".into()),
        translation: Some([0.0, 3.0, 0.0]),
        light: Some(2),
        ..Node::default()
    });
    scene.roots.push(scene.nodes.len() - 1);
    write(&dir, "lights.gltf", &scene.build().embedded());
    let (mut app, root, _) = load(&dir, "lights.gltf");
    spawned(&app, root);
    let (sun, lamp, spot) =
        (entity_named(&mut app, "sun"), entity_named(&mut app, "lamp"), entity_named(&mut app, "spot"));
    let world = app.world();
    let sun = world.get::<DirectionalLight>(sun).expect("a directional light");
    assert_eq!(sun.illuminance, 4000.0, "lux as is");
    assert_eq!(sun.color.to_linear().to_f32_array_no_alpha(), [1.0, 0.95, 0.9]);
    let lamp = world.get::<PointLight>(lamp).expect("a point light");
    assert!((lamp.intensity - 4000.0 * 4.0 * PI).abs() < 1e-2, "candela × 4π lumens: {}", lamp.intensity);
    assert_eq!(lamp.range, 10.0);
    let spot = world.get::<SpotLight>(spot).expect("a spot light");
    assert!((spot.intensity - 8.0 * PI).abs() < 1e-4);
    assert_eq!((spot.inner_angle, spot.outer_angle), (0.2, 0.5));
    assert!(spot.range >= 1000.0, "an infinite range stays far: {}", spot.range);
}

#[test]
fn material_modes_and_factors_carry_over() {
    let dir = folder("materials");
    let materials = vec![
        Material { alpha_mode: "MASK", alpha_cutoff: Some(0.3), double_sided: true, ..Material::default() },
        Material { alpha_mode: "BLEND", base_color: [0.2, 0.4, 0.6, 0.5], ..Material::default() },
        Material {
            unlit: true,
            emissive: [1.0, 0.5, 0.25],
            emissive_strength: Some(4.0),
            ..Material::default()
        },
    ];
    let scene = GltfBuilder {
        meshes: (0..3).map(|m| vec![Primitive { material: Some(m), ..Primitive::plane(1.0) }]).collect(),
        materials,
        nodes: (0..3)
            .map(|m| Node { name: Some(format!("m{m}")), mesh: Some(m), ..Node::default() })
            .collect(),
        roots: vec![0, 1, 2],
        ..GltfBuilder::default()
    };
    write(&dir, "materials.glb", &scene.build().glb());
    let (mut app, root, _) = load(&dir, "materials.glb");
    spawned(&app, root);
    let nodes: Vec<Entity> = (0..3).map(|m| entity_named(&mut app, &format!("m{m}"))).collect();
    let found: Vec<StandardMaterial> = nodes
        .iter()
        .map(|&n| {
            let (_, m) = primitives(&app, n).pop().expect("a primitive");
            app.world().resource::<Assets<StandardMaterial>>().get(&m).expect("material").clone()
        })
        .collect();
    assert_eq!(found[0].alpha_mode, AlphaMode::Mask(0.3));
    assert!(found[0].double_sided && !found[1].double_sided);
    assert_eq!(found[1].alpha_mode, AlphaMode::Blend);
    assert_eq!(found[1].base_color, Color::linear_rgba(0.2, 0.4, 0.6, 0.5), "factors are linear");
    assert!(found[2].unlit);
    assert_eq!(
        found[2].emissive,
        LinearRgba::rgb(4.0, 2.0, 1.0),
        "emissive × KHR_materials_emissive_strength"
    );
    assert_eq!((found[1].metallic, found[1].perceptual_roughness), (1.0, 1.0), "glTF's defaults");
}

#[test]
fn colour_textures_are_srgb_and_data_textures_linear() {
    let dir = folder("texture_spaces");
    let scene = GltfBuilder {
        meshes: vec![vec![Primitive { material: Some(0), ..Primitive::plane(1.0) }]],
        materials: vec![Material {
            // Texture 0 is colour and data at once: decoded both ways.
            base_color_texture: Some(0),
            metallic_roughness_texture: Some(0),
            emissive_texture: Some(1),
            normal_texture: Some(2),
            occlusion_texture: Some(3),
            ..Material::default()
        }],
        textures: (0..4).map(|_| checker_png()).collect(),
        nodes: vec![Node { name: Some("card".into()), mesh: Some(0), ..Node::default() }],
        roots: vec![0],
        ..GltfBuilder::default()
    };
    write(&dir, "spaces.glb", &scene.build().glb());
    let (mut app, root, _) = load(&dir, "spaces.glb");
    spawned(&app, root);
    let card = entity_named(&mut app, "card");
    let (_, material) = primitives(&app, card).pop().expect("a primitive");
    let m = app.world().resource::<Assets<StandardMaterial>>().get(&material).expect("material").clone();
    let format = |h: Option<Handle<Image>>| {
        let h = h.expect("a texture");
        app.world().resource::<Assets<Image>>().get(&h).expect("image").texture_descriptor.format
    };
    assert_eq!(format(m.base_color_texture.clone()), TextureFormat::Rgba8UnormSrgb);
    assert_eq!(format(m.emissive_texture.clone()), TextureFormat::Rgba8UnormSrgb);
    assert_eq!(format(m.metallic_roughness_texture.clone()), TextureFormat::Rgba8Unorm);
    assert_eq!(format(m.normal_map_texture.clone()), TextureFormat::Rgba8Unorm);
    assert_eq!(format(m.occlusion_texture.clone()), TextureFormat::Rgba8Unorm);
    assert_ne!(m.base_color_texture, m.metallic_roughness_texture, "texture 0 decoded twice");
}

#[test]
fn missing_normals_are_generated_and_small_indices_read() {
    let dir = folder("normals");
    let tri = Primitive {
        positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]],
        uvs1: Some(vec![[0.0, 0.0]; 4]),
        indices: Some(vec![0, 1, 2, 2, 1, 3]),
        small_indices: true,
        ..Primitive::default()
    };
    let strip = Primitive { mode: Some(5), indices: Some(vec![0, 1, 2, 3]), ..tri.clone() };
    let scene = GltfBuilder {
        meshes: vec![vec![tri, strip]],
        nodes: vec![Node { name: Some("quad".into()), mesh: Some(0), ..Node::default() }],
        roots: vec![0],
        ..GltfBuilder::default()
    };
    let doc = scene.build();
    assert_eq!(doc.json["accessors"][2]["componentType"], json!(5121), "u8 indices written");
    write(&dir, "normals.gltf", &doc.embedded());
    let (mut app, root, _) = load(&dir, "normals.gltf");
    spawned(&app, root);
    let quad = entity_named(&mut app, "quad");
    let prims = primitives(&app, quad);
    assert_eq!(prims.len(), 2, "the triangle strip draws as a list");
    let meshes = app.world().resource::<Assets<Mesh>>();
    for (mesh, _) in &prims {
        let mesh = meshes.get(mesh).expect("mesh");
        // Flat normals: one vertex per corner of two triangles.
        assert_eq!(mesh.count_vertices(), 6);
        match mesh.attribute(Mesh::ATTRIBUTE_NORMAL) {
            Some(VertexAttributeValues::Float32x3(n)) => {
                assert!(n.iter().all(|n| Vec3::from(*n).distance(Vec3::Z) < 1e-5), "facing +z: {n:?}")
            }
            other => panic!("normals: {other:?}"),
        }
        assert!(mesh.attribute(Mesh::ATTRIBUTE_UV_1).is_some(), "TEXCOORD_1 as ATTRIBUTE_UV_1");
    }
}

#[test]
fn sparse_accessors_substitute_their_values() {
    let dir = folder("sparse");
    let mut doc = GltfBuilder {
        meshes: vec![vec![Primitive::plane(2.0)]],
        nodes: vec![Node { name: Some("plane".into()), mesh: Some(0), ..Node::default() }],
        roots: vec![0],
        ..GltfBuilder::default()
    }
    .build();
    // Vertex 2 of POSITION (accessor 0) replaced by a sparse value.
    while !doc.bin.len().is_multiple_of(4) {
        doc.bin.push(0);
    }
    let indices_at = doc.bin.len();
    doc.bin.extend(2u16.to_le_bytes());
    doc.bin.extend([0, 0]);
    let values_at = doc.bin.len();
    doc.bin.extend([0.5f32, 1.0, -0.5].iter().flat_map(|f| f.to_le_bytes()));
    let views = doc.json["bufferViews"].as_array_mut().expect("views");
    views.push(json!({ "buffer": 0, "byteOffset": indices_at, "byteLength": 2 }));
    views.push(json!({ "buffer": 0, "byteOffset": values_at, "byteLength": 12 }));
    let first = views.len() - 2;
    doc.json["accessors"][0]["sparse"] = json!({
        "count": 1,
        "indices": { "bufferView": first, "componentType": 5123 },
        "values": { "bufferView": first + 1 },
    });
    doc.json["accessors"][0]["max"] = json!([1.0, 1.0, 1.0]);
    doc.json["buffers"][0]["byteLength"] = json!(doc.bin.len());
    write(&dir, "sparse.gltf", &doc.embedded());
    let (mut app, root, _) = load(&dir, "sparse.gltf");
    spawned(&app, root);
    let plane = entity_named(&mut app, "plane");
    let (mesh, _) = primitives(&app, plane).pop().expect("a primitive");
    let mesh = app.world().resource::<Assets<Mesh>>().get(&mesh).expect("mesh");
    match mesh.attribute(Mesh::ATTRIBUTE_POSITION) {
        Some(VertexAttributeValues::Float32x3(p)) => {
            assert_eq!(p[2], [0.5, 1.0, -0.5], "the sparse value");
            assert_eq!(p[1], [1.0, 0.0, 1.0], "the others as in the buffer");
        }
        other => panic!("positions: {other:?}"),
    }
}

#[test]
fn glb_and_external_buffers_load_alike() {
    let dir = folder("containers");
    let doc = box_scene().build();
    write(&dir, "box.glb", &doc.glb());
    write(&dir, "box external.gltf", &doc.external("box%20data.bin"));
    write(&dir, "box data.bin", &doc.bin);
    for file in ["box.glb", "box external.gltf"] {
        let (mut app, root, _) = load(&dir, file);
        spawned(&app, root);
        let cube = entity_named(&mut app, "cube");
        let prims = primitives(&app, cube);
        let mesh = app.world().resource::<Assets<Mesh>>().get(&prims[0].0).expect("mesh");
        assert_eq!(mesh.count_vertices(), 24, "{file}");
    }
}

#[test]
fn skins_morph_targets_and_unknown_extensions_still_draw_the_static_mesh() {
    let dir = folder("skipped");
    let mut doc = box_scene().build();
    doc.json["skins"] = json!([{ "joints": [1] }]);
    doc.json["nodes"][0]["skin"] = json!(0);
    doc.json["meshes"][0]["primitives"][0]["targets"] = json!([{ "POSITION": 0 }]);
    doc.json["extensionsUsed"] = json!(["KHR_lights_punctual", "KHR_materials_clearcoat", "EXT_made_up"]);
    doc.json["extensionsRequired"] = json!(["EXT_made_up"]);
    let lines = json!({ "attributes": { "POSITION": 0 }, "mode": 1 });
    doc.json["meshes"][1]["primitives"].as_array_mut().expect("primitives").push(lines);
    write(&dir, "skinned.gltf", &doc.embedded());
    let (mut app, root, handle) = load(&dir, "skinned.gltf");
    spawned(&app, root);
    let gltf = app.world().resource::<Assets<Gltf>>().get(&handle).expect("the Gltf").clone();
    for what in [
        "skins",
        "morph targets",
        "extension KHR_materials_clearcoat",
        "extension EXT_made_up",
        "Lines primitives",
    ] {
        assert!(gltf.skipped.iter().any(|s| s == what), "{what} not in {:?}", gltf.skipped);
    }
    let cube = entity_named(&mut app, "cube");
    assert_eq!(primitives(&app, cube).len(), 1, "the static mesh still spawns");
    let ground = entity_named(&mut app, "ground");
    assert_eq!(primitives(&app, ground).len(), 1, "the triangles draw, the lines are left out");
}

#[test]
fn bad_files_fail_their_load_with_a_reason() {
    let dir = folder("bad");
    let doc = box_scene().build();
    let good = doc.embedded();
    let mut cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated.gltf", good[..good.len() / 2].to_vec(), "not a valid glTF file"),
        ("not_utf8.gltf", b"\xff\xfe{\"asset\"}".to_vec(), "not a valid glTF file"),
        (
            "bad_header.glb",
            [b"glTF".as_slice(), &2u32.to_le_bytes(), &9999u32.to_le_bytes()].concat(),
            "not a valid glTF file",
        ),
    ];
    let edit = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut d = doc.clone();
        f(&mut d.json);
        d.embedded()
    };
    cases.push(("accessor_range.gltf", edit(&|j| j["accessors"][0]["count"] = json!(100_000)), "accessor 0"));
    cases.push((
        "view_range.gltf",
        edit(&|j| j["bufferViews"][0]["byteOffset"] = json!(1 << 30)),
        "out of range",
    ));
    cases.push((
        "unbacked_count.gltf",
        edit(&|j| {
            j["accessors"][0] = json!({
                "componentType": 5126, "count": 1u64 << 40, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 1],
                "sparse": {
                    "count": 1,
                    "indices": { "bufferView": 0, "componentType": 5123 },
                    "values": { "bufferView": 0 },
                },
            });
        }),
        "without a buffer view",
    ));
    cases.push(("bad_index.gltf", edit(&|j| j["nodes"][0]["mesh"] = json!(7)), "not a valid glTF file"));
    cases.push(("missing_buffer.gltf", doc.external("nowhere.bin"), "buffer 0"));
    cases.push((
        "missing_texture.gltf",
        edit(&|j| j["images"][0] = json!({ "uri": "nowhere.png" })),
        "image 0",
    ));
    let mut bad_base64 = doc.json.clone();
    bad_base64["buffers"][0]["uri"] = json!("data:application/octet-stream;base64,@@@");
    cases.push(("bad_base64.gltf", serde_json::to_vec(&bad_base64).unwrap_or_default(), "base64"));
    // An index past the vertices.
    let mut bad = GltfBuilder {
        meshes: vec![vec![Primitive {
            positions: vec![[0.0; 3]; 3],
            indices: Some(vec![0, 1, 99]),
            ..Primitive::default()
        }]],
        nodes: vec![Node { mesh: Some(0), ..Node::default() }],
        roots: vec![0],
        ..GltfBuilder::default()
    };
    cases.push(("index_range.gltf", bad.build().embedded(), "index 99 is out of range"));
    // A PNG whose header claims 20000 texels across.
    let mut huge = png_rgba(1, 1, &[255; 4]);
    huge[16..20].copy_from_slice(&20000u32.to_be_bytes());
    bad = box_scene();
    bad.textures = vec![huge];
    cases.push(("huge_image.gltf", bad.build().embedded(), "20000x1 texels"));

    for (file, bytes, _) in &cases {
        write(&dir, file, bytes);
    }
    let mut wrong = Vec::new();
    for (file, _, expect) in &cases {
        let reason = failure(&dir, file);
        println!("{file}: {reason}");
        if !reason.contains(expect) {
            wrong.push(format!("{file}: expected '{expect}' in '{reason}'"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The Khronos sample models that `load_gltf` draws (`examples/assets/models`).
fn sample_models() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/assets/models")
}

#[test]
fn khronos_sample_models_load() {
    let models = sample_models();
    // A GLB with an embedded PNG base colour texture.
    let (mut app, root, handle) = load(&models.join("BoxTextured"), "BoxTextured.glb");
    spawned(&app, root);
    let gltf = app.world().resource::<Assets<Gltf>>().get(&handle).expect("BoxTextured").clone();
    let material =
        app.world().resource::<Assets<StandardMaterial>>().get(&gltf.materials[0]).expect("material").clone();
    let texture = material.base_color_texture.expect("a base colour texture");
    let image = app.world().resource::<Assets<Image>>().get(&texture).expect("its image");
    assert_eq!(image.texture_descriptor.format, TextureFormat::Rgba8UnormSrgb);
    let world = app.world_mut();
    assert_eq!(world.query::<&Mesh3d>().iter(world).count(), 1);

    // Morph targets and an animation: skipped, the base mesh still spawns.
    let (mut app, root, handle) = load(&models.join("AnimatedMorphCube"), "AnimatedMorphCube.gltf");
    spawned(&app, root);
    let skipped =
        app.world().resource::<Assets<Gltf>>().get(&handle).expect("AnimatedMorphCube").skipped.clone();
    assert!(
        skipped.contains(&"morph targets".to_owned()) && skipped.contains(&"animations".to_owned()),
        "{skipped:?}"
    );
    let world = app.world_mut();
    assert_eq!(world.query::<&Mesh3d>().iter(world).count(), 1);

    // 82 nodes, 29 meshes and a camera.
    let (mut app, root, handle) = load(&models.join("2CylinderEngine"), "2CylinderEngine.glb");
    spawned(&app, root);
    let gltf = app.world().resource::<Assets<Gltf>>().get(&handle).expect("2CylinderEngine").clone();
    assert_eq!(gltf.meshes.len(), 29);
    let scene = app.world().resource::<Assets<GltfScene>>().get(&gltf.scenes[0]).expect("scene").clone();
    assert_eq!(scene.nodes.len(), 82);
    assert!(scene.has_camera() && scene.bounds.is_some());
    let world = app.world_mut();
    assert_eq!(world.query::<(&Camera3d, &Camera)>().iter(world).filter(|(_, c)| c.is_active).count(), 1);
}

/// A metallic, a rough, an emissive sphere and an alpha-masked textured card, with no camera
/// and no light in the file (the test frames it and adds a sun and the sky).
fn spheres_scene() -> GltfBuilder {
    // A checker of opaque and cut-out squares, two texels each.
    let mut card = Vec::new();
    for y in 0..4u32 {
        for x in 0..16u32 {
            let hole = (x / 2 + y / 2) % 2 == 0;
            card.extend([250, 180, 40, if hole { 0 } else { 255 }]);
        }
    }
    GltfBuilder {
        meshes: vec![
            vec![Primitive { material: Some(0), ..Primitive::sphere(0.45, 24) }],
            vec![Primitive { material: Some(1), ..Primitive::sphere(0.45, 24) }],
            vec![Primitive { material: Some(2), ..Primitive::sphere(0.45, 24) }],
            vec![Primitive { material: Some(3), ..Primitive::plane(1.0) }],
        ],
        materials: vec![
            Material {
                base_color: [0.95, 0.7, 0.3, 1.0],
                metallic: 1.0,
                roughness: 0.25,
                ..Material::default()
            },
            Material {
                base_color: [0.2, 0.5, 0.9, 1.0],
                metallic: 0.0,
                roughness: 0.9,
                ..Material::default()
            },
            Material {
                base_color: [0.1, 0.1, 0.1, 1.0],
                metallic: 0.0,
                roughness: 0.5,
                emissive: [1.0, 0.2, 0.6],
                emissive_strength: Some(2.0),
                ..Material::default()
            },
            Material {
                base_color_texture: Some(0),
                metallic: 0.0,
                roughness: 0.7,
                alpha_mode: "MASK",
                alpha_cutoff: Some(0.5),
                double_sided: true,
                ..Material::default()
            },
        ],
        textures: vec![png_rgba(16, 4, &card)],
        nodes: vec![
            Node { translation: Some([-1.05, 0.0, 0.0]), mesh: Some(0), ..Node::default() },
            Node { translation: Some([0.0, 0.0, 0.0]), mesh: Some(1), ..Node::default() },
            Node { translation: Some([1.05, 0.0, 0.0]), mesh: Some(2), ..Node::default() },
            Node {
                translation: Some([0.0, 0.0, 0.7]),
                rotation: Some(Quat::from_rotation_x(PI / 2.0).to_array()),
                scale: Some([2.8, 1.0, 0.7]),
                mesh: Some(3),
                ..Node::default()
            },
        ],
        roots: vec![0, 1, 2, 3],
        ..GltfBuilder::default()
    }
}

fn frame_spheres(world: &mut World) {
    world.spawn((
        Camera3d::default(),
        Transform::from_xyz(0.0, 0.9, 3.4).looking_at(Vec3::new(0.0, 0.0, 0.0), Vec3::Y),
    ));
    world.spawn((
        DirectionalLight { illuminance: 6000.0, ..Default::default() },
        Transform::from_xyz(2.0, 3.0, 2.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    world.spawn(Environment::default());
}

/// The two golden scenes, written once per test run into their own folder.
fn golden_files(name: &str) -> PathBuf {
    let dir = folder(&format!("golden_{name}"));
    write(&dir, "box.gltf", &box_scene().build().embedded());
    write(&dir, "spheres.glb", &spheres_scene().build().glb());
    dir
}

const W: u32 = 192;
const H: u32 = 108;

fn render(device: Arc<dyn GraphicsDevice>, dir: &Path, scene: &str) -> Frame {
    let result = match scene {
        "gltf_textured_box" => render_gltf(W, H, device, dir, "box.gltf", |_| {}),
        _ => render_gltf(W, H, device, dir, "spheres.glb", frame_spheres),
    };
    result.unwrap_or_else(|e| panic!("{scene}: {e}"))
}

const SCENES: [&str; 2] = ["gltf_textured_box", "gltf_spheres"];

#[test]
fn gltf_goldens_on_soft() {
    let dir = golden_files("soft");
    let frames: Vec<Frame> = SCENES
        .iter()
        .map(|scene| render(Arc::new(f3d_backend_soft::SoftDevice::new(scene)), &dir, scene))
        .collect();
    for (scene, frame) in SCENES.iter().zip(&frames) {
        // Kept beside the files, to look at before blessing.
        let _ = frame.write_png(&dir.join(format!("{scene}.png")));
    }
    for (scene, frame) in SCENES.iter().zip(&frames) {
        assert_golden(frame, golden_path("soft", scene));
    }
}

fn gpu_against_live_soft(backend: &str) {
    if !backend_opens(backend) {
        return;
    }
    let dir = golden_files(backend);
    let mut failures = Vec::new();
    for scene in SCENES {
        let soft = render(Arc::new(f3d_backend_soft::SoftDevice::new(scene)), &dir, scene);
        let request =
            DeviceRequest { backend: Some(BackendId::from_name(backend)), ..DeviceRequest::new(W, H) };
        let device =
            f3d::plugin::default_registry().open(&request).unwrap_or_else(|e| panic!("{backend}: {e}"));
        let frame = render(device, &dir, scene);
        let cmp = compare(&frame, &soft, gpu::AGAINST_SOFT).unwrap_or_else(|e| panic!("{scene}: {e}"));
        let share = cmp.mismatched as f64 / f64::from(W * H);
        println!(
            "{backend} {scene}: {} pixels ({:.2} %) differ from live soft by more than {}, largest {}",
            cmp.mismatched,
            share * 100.0,
            gpu::AGAINST_SOFT.channel,
            cmp.max_difference
        );
        if let Err(e) = cmp.within(gpu::AGAINST_SOFT) {
            let diff = dir.join(format!("{scene}.{backend}-diff.png"));
            let _ = cmp.diff.write_png(&diff);
            let _ = frame.write_png(&dir.join(format!("{scene}.{backend}.png")));
            failures.push(format!("{scene}: {e}; diff in {}", diff.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn gltf_on_vulkan_matches_live_soft() {
    gpu_against_live_soft("vulkan");
}

#[test]
fn gltf_on_wgpu_matches_live_soft() {
    gpu_against_live_soft("wgpu");
}
