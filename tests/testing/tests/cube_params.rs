//! `TextureCube` material parameters fed by cube images (issue 21, item 3): a row of squares
//! seen from above, each with its own instance of one unlit material that samples its cube
//! parameter in one axis direction (`face` 0–5: +X, −X, +Y, −Y, +Z, −Z). The cube image has a
//! colour per face, so each square must show exactly its face's colour; a seventh square has no
//! image bound and shows the parameter's `DefaultWhite` fallback cube, and an eighth has a 2D
//! image bound to the cube parameter, which is refused (logged) and draws the same white; a
//! ninth gives the cube image to another material's 2D parameter, refused and white too.
//! On soft, wgpu and vulkan, against the sRGB bytes given (`Tonemapping::None`, so an unlit
//! sRGB colour comes out as those bytes within rounding).

use f3d::image::{ImageData, ImageFormat};
use f3d::prelude::*;
use f3d_testing::{Frame, backend_opens, material_from_text, render_on, top_down_camera};

const CUBE_FACES: &str = r#"Material(
    name: "Cube faces",
    shading_model: Unlit,
    parameters: [
        (name: "sky", type: TextureCube, hint: DefaultWhite),
        (name: "face", type: Int),
    ],
    fragment: r"
fn surface(m: ptr<function, MaterialInputs>) {
    var dirs = array<vec3<f32>, 6>(
        vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(-1.0, 0.0, 0.0),
        vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, -1.0, 0.0),
        vec3<f32>(0.0, 0.0, 1.0), vec3<f32>(0.0, 0.0, -1.0),
    );
    let d = dirs[clamp(material_params.face, 0, 5)];
    (*m).base_color = vec4<f32>(textureSample(sky, sky_sampler, d).rgb, 1.0);
}
",
)"#;

/// A 2D parameter, to which a cube image is given (refused when drawn: white).
const FLAT: &str = r#"Material(
    name: "Flat",
    shading_model: Unlit,
    parameters: [(name: "picture", type: Texture2d, hint: DefaultWhite)],
    fragment: r"
fn surface(m: ptr<function, MaterialInputs>) {
    (*m).base_color = vec4<f32>(textureSample(picture, picture_sampler, uv0()).rgb, 1.0);
}
",
)"#;

/// The faces' colours (sRGB bytes), in the order +X, −X, +Y, −Y, +Z, −Z.
const FACES: [[u8; 3]; 6] =
    [[200, 40, 40], [40, 200, 40], [40, 40, 200], [200, 200, 40], [40, 200, 200], [200, 40, 200]];
const CELLS: u32 = 9;
/// Pixels per cell (one world unit).
const CELL: u32 = 16;
const TOLERANCE: u8 = 6;

fn scene(world: &mut World) {
    let faces = FACES.map(|[r, g, b]| [r, g, b, 255]);
    let cube_image =
        world.resource_mut::<Assets<Image>>().add(ImageData::cube_faces(4, faces, ImageFormat::Rgba8Srgb));
    let flat_image = world.resource_mut::<Assets<Image>>().add(ImageData::solid(
        4,
        4,
        [0, 0, 0, 255],
        ImageFormat::Rgba8Srgb,
    ));
    let square = world.resource_mut::<Assets<Mesh>>().add(Plane3d::default().mesh().size(0.8, 0.8));
    for cell in 0..CELLS - 1 {
        let mut material = material_from_text("cube_faces", CUBE_FACES);
        material.set_int("face", cell.min(5) as i32).expect("the face parameter");
        match cell {
            0..6 => {
                material.set_image("sky", cube_image.clone()).expect("a cube image for a TextureCube");
            }
            // No image: the DefaultWhite fallback cube.
            6 => {}
            // A 2D image for a cube parameter: accepted by the setter (the image is not loaded
            // yet), refused when it is drawn, which draws the fallback.
            _ => {
                material.set_image("sky", flat_image.clone()).expect("the setter takes any image");
            }
        }
        let material = world.resource_mut::<Assets<CustomMaterial>>().add(material);
        let x = cell as f32 + 0.5 - CELLS as f32 / 2.0;
        world.spawn((Mesh3d(square.clone()), MeshMaterial3d(material), Transform::from_xyz(x, 0.0, 0.0)));
    }
    // The ninth: a cube image given to a 2D parameter, refused when drawn.
    let mut flat = material_from_text("flat", FLAT);
    flat.set_image("picture", cube_image).expect("the setter takes any image");
    let flat = world.resource_mut::<Assets<CustomMaterial>>().add(flat);
    let x = (CELLS - 1) as f32 + 0.5 - CELLS as f32 / 2.0;
    world.spawn((Mesh3d(square), MeshMaterial3d(flat), Transform::from_xyz(x, 0.0, 0.0)));
    top_down_camera(world, Vec3::ZERO, CELLS as f32, 1.0);
}

fn expected(cell: u32) -> [u8; 3] {
    FACES.get(cell as usize).copied().unwrap_or([255, 255, 255])
}

fn judge(backend: &str, frame: &Frame) {
    let wrong: Vec<(u32, [u8; 3], [u8; 3])> = (0..CELLS)
        .filter_map(|cell| {
            let p = frame.pixel(cell * CELL + CELL / 2, CELL / 2);
            let seen = [p[0], p[1], p[2]];
            let want = expected(cell);
            (!seen.iter().zip(want).all(|(s, w)| s.abs_diff(w) <= TOLERANCE)).then_some((cell, want, seen))
        })
        .collect();
    assert!(wrong.is_empty(), "{backend}: cells showing the wrong colour (cell, expected, seen): {wrong:?}");
}

fn check(backend: &str) {
    if !backend_opens(backend) {
        return;
    }
    let frame = render_on(backend, CELLS * CELL, CELL, scene);
    if let Ok(dir) = std::env::var("F3D_TEST_OUT") {
        let _ = frame.write_png(&std::path::Path::new(&dir).join(format!("cube_params_{backend}.png")));
    }
    judge(backend, &frame);
}

#[test]
fn each_face_of_a_cube_parameter_samples_its_own_colour_on_soft() {
    check("soft");
}

#[test]
fn each_face_of_a_cube_parameter_samples_its_own_colour_on_wgpu() {
    check("wgpu");
}

#[test]
fn each_face_of_a_cube_parameter_samples_its_own_colour_on_vulkan() {
    check("vulkan");
}

/// A cube image survives the trip through bevy's `Image` (six layers viewed as a cube) and
/// back; a cube view over other than six square layers is refused with a reason.
#[test]
fn cube_images_round_trip_and_bad_ones_are_refused() {
    let faces = FACES.map(|[r, g, b]| [r, g, b, 255]);
    let cube = ImageData::cube_faces(2, faces, ImageFormat::Rgba8Srgb);
    let image: Image = cube.clone().into();
    assert_eq!(ImageData::from_bevy(&image), Ok(cube));
    let mut five = image.clone();
    five.texture_descriptor.size.depth_or_array_layers = 5;
    let err = ImageData::from_bevy(&five).expect_err("five layers are not a cube");
    assert!(err.contains("6 square layers"), "{err}");
}
