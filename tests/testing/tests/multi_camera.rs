//! Every active camera draws, in `order`, into its own target: a camera drawing into an
//! image (`Image::new_target_texture`) feeds a material texture that a later camera samples in
//! the same frame, on every backend that opens. The first frame is captured, so a texture
//! drawn after the camera that samples it (or not at all) would show its zeros, not the
//! picture.

use f3d::bevy_camera::ImageRenderTarget;
use f3d::prelude::*;
use f3d_testing::{Frame, render_frame};

const RED: [u8; 3] = [255, 0, 0];
const GREEN: [u8; 3] = [0, 255, 0];
const BLACK: [u8; 3] = [0, 0, 0];

/// Camera A (order `a_order`, active `a_active`) looks at a green cube on a red clear, far
/// from the rest, into a 64×64 image; camera B (order 1) looks down at a plane whose unlit
/// material shows that image, on a black clear.
fn scene(a_order: isize, a_active: bool) -> impl FnOnce(&mut World) + Send + Sync + 'static {
    move |world: &mut World| {
        let target = world.resource_mut::<Assets<Image>>().add(Image::new_target_texture(
            64,
            64,
            f3d::wgpu_types::TextureFormat::Rgba8UnormSrgb,
            None,
        ));
        let cube = world.resource_mut::<Assets<Mesh>>().add(Cuboid::new(1.0, 1.0, 1.0));
        let plane = world.resource_mut::<Assets<Mesh>>().add(Plane3d::default().mesh().size(2.0, 2.0));
        let green = world.resource_mut::<Assets<StandardMaterial>>().add(StandardMaterial {
            base_color: Color::srgb(0.0, 1.0, 0.0),
            unlit: true,
            ..default()
        });
        let screen = world.resource_mut::<Assets<StandardMaterial>>().add(StandardMaterial {
            base_color_texture: Some(target.clone()),
            unlit: true,
            ..default()
        });
        world.spawn((Mesh3d(cube), MeshMaterial3d(green), Transform::from_xyz(100.0, 0.0, 0.0)));
        world.spawn((
            Camera3d::default(),
            Camera {
                order: a_order,
                is_active: a_active,
                clear_color: ClearColorConfig::Custom(Color::srgb(1.0, 0.0, 0.0)),
                ..default()
            },
            RenderTarget::Image(ImageRenderTarget::from(target)),
            Tonemapping::None,
            Transform::from_xyz(100.0, 0.0, 4.0).looking_at(Vec3::new(100.0, 0.0, 0.0), Vec3::Y),
        ));
        world.spawn((Mesh3d(plane), MeshMaterial3d(screen), Transform::default()));
        world.spawn((
            Camera3d::default(),
            Camera { order: 1, clear_color: ClearColorConfig::Custom(Color::BLACK), ..default() },
            Tonemapping::None,
            Transform::from_xyz(0.0, 3.0, 0.0).looking_at(Vec3::ZERO, Vec3::NEG_Z),
        ));
    }
}

fn render(backend: &str, a_order: isize, a_active: bool) -> Frame {
    let request = f3d::f3d_hal::DeviceRequest {
        backend: Some(f3d::f3d_hal::BackendId::from_name(backend)),
        ..f3d::f3d_hal::DeviceRequest::new(96, 96)
    };
    let device = f3d::plugin::default_registry().open(&request).expect("the backend opened a moment ago");
    render_frame(96, 96, device, scene(a_order, a_active)).unwrap_or_else(|e| panic!("{backend}: {e}"))
}

fn rgb(frame: &Frame, x: u32, y: u32) -> [u8; 3] {
    let p = frame.pixel(x, y);
    [p[0], p[1], p[2]]
}

fn near(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 24)
}

#[test]
fn a_camera_drawing_into_an_image_feeds_a_later_cameras_material() {
    for backend in ["soft", "wgpu", "vulkan"] {
        if !f3d_testing::backend_opens(backend) {
            continue;
        }
        let frame = render(backend, 0, true);
        if std::env::var_os("F3D_KEEP_FRAMES").is_some() {
            let _ = frame.write_png(&std::env::temp_dir().join(format!("multi_camera_{backend}.png")));
        }
        // B's view: the plane fills the middle, the black clear the corners.
        let (centre, corner, plane_edge) = (rgb(&frame, 48, 48), rgb(&frame, 1, 1), rgb(&frame, 48, 30));
        assert!(near(centre, GREEN), "{backend}: the middle shows {centre:?}, not A's green cube");
        assert!(near(plane_edge, RED), "{backend}: the plane's edge shows {plane_edge:?}, not A's red clear");
        assert!(near(corner, BLACK), "{backend}: the corner shows {corner:?}, not B's black clear");
    }
}

#[test]
fn cameras_draw_in_order_and_inactive_ones_not_at_all() {
    // A after B: B samples the image before A drew into it this frame (its zeros: black).
    let late = render("soft", 2, true);
    let centre = rgb(&late, 48, 48);
    assert!(near(centre, BLACK), "drawn after its reader, the image still showed {centre:?}");
    let inactive = render("soft", 0, false);
    let centre = rgb(&inactive, 48, 48);
    assert!(near(centre, BLACK), "an inactive camera drew: {centre:?}");
}
