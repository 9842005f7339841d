//! What a `.ron` material states beyond its code, drawn (issue 21, item 8):
//!
//! * its depth test: a quad behind an opaque wall, with `compare: Always`, draws over the
//!   wall; the same quad with `LessEqual` does not (a renderer that ignored the field would
//!   draw both the same way);
//! * its raw parameter block: the app writes a colour's bytes at the offset reflection gives
//!   (`parameter_block_mut` with `offset_of`), and the frame shows that colour.
//!
//! On soft and on every GPU backend that opens, each against the expectation worked out here.

use f3d::prelude::*;
use f3d_testing::{backend_opens, material_from_text, render_on};

const SIZE: u32 = 32;

/// An unlit material of colour `tint` (a parameter) and the depth test `compare`.
fn tinted(name: &str, compare: &str) -> CustomMaterial {
    material_from_text(
        name,
        &format!(
            r#"Material(
    name: "{name}",
    shading_model: Unlit,
    depth: (write: true, compare: {compare}),
    parameters: [(name: "tint", type: Vec4, default: [0.0, 1.0, 0.0, 1.0])],
    fragment: r"
fn surface(m: ptr<function, MaterialInputs>) {{ (*m).base_color = material_params.tint; }}
",
)"#
        ),
    )
}

/// A red wall at z = 1 in front of a quad of `material` at z = -1, both filling the view of a
/// camera at z = 5 looking down -z.
fn wall_and_quad(material: CustomMaterial) -> impl FnOnce(&mut World) + Send + Sync + 'static {
    move |world: &mut World| {
        let quad = world.resource_mut::<Assets<Mesh>>().add(Rectangle::new(20.0, 20.0));
        let red = world.resource_mut::<Assets<StandardMaterial>>().add(StandardMaterial {
            base_color: Color::srgb(1.0, 0.0, 0.0),
            unlit: true,
            ..default()
        });
        let behind = world.resource_mut::<Assets<CustomMaterial>>().add(material);
        world.spawn((Mesh3d(quad.clone()), MeshMaterial3d(red), Transform::from_xyz(0.0, 0.0, 1.0)));
        world.spawn((Mesh3d(quad), MeshMaterial3d(behind), Transform::from_xyz(0.0, 0.0, -1.0)));
        world.spawn((Camera3d::default(), Tonemapping::None, Transform::from_xyz(0.0, 0.0, 5.0)));
    }
}

fn centre(backend: &str, build: impl FnOnce(&mut World) + Send + Sync + 'static) -> [u8; 3] {
    let frame = render_on(backend, SIZE, SIZE, build);
    let p = frame.pixel(SIZE / 2, SIZE / 2);
    [p[0], p[1], p[2]]
}

fn check(backend: &str) {
    if !backend_opens(backend) {
        return;
    }
    // The quad behind the wall: hidden with the usual test, drawn over it with `Always`.
    let hidden = centre(backend, wall_and_quad(tinted("behind", "LessEqual")));
    assert_eq!(hidden, [255, 0, 0], "{backend}: a LessEqual quad behind the wall showed through");
    let through = centre(backend, wall_and_quad(tinted("always", "Always")));
    assert_eq!(through, [0, 255, 0], "{backend}: the material's `compare: Always` was not applied");
    // Blue written straight into the raw block at the tint's reflected offset.
    let mut blue = tinted("raw", "Always");
    let offset = blue.parameters().offset_of("tint").expect("tint is in the block") as usize;
    let bytes: Vec<u8> = [0.0f32, 0.0, 1.0, 1.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    blue.parameter_block_mut()[offset..offset + 16].copy_from_slice(&bytes);
    let written = centre(backend, wall_and_quad(blue));
    assert_eq!(written, [0, 0, 255], "{backend}: the bytes written into the parameter block were not drawn");
}

#[test]
fn depth_state_and_raw_block_on_soft() {
    check("soft");
}

#[test]
fn depth_state_and_raw_block_on_wgpu() {
    check("wgpu");
}

#[test]
fn depth_state_and_raw_block_on_vulkan() {
    check("vulkan");
}
