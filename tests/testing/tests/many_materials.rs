//! Many materials of one shader, each cube its own colour (issue 16): 1,500 cubes, each with
//! its own unlit `StandardMaterial`, seen from above through an orthographic camera so that
//! every cube fills the middle of its own cell of the frame. Every cube's centre pixel must
//! show its own material's colour, on every backend that opens. With storage buffers (soft,
//! wgpu and vulkan all have them) the 1,500 materials are one table and one draw whose
//! instances read their parameters from 1,500 slots; on a soft device without them the
//! materials live in 64 KiB uniform arrays, and 1,500 is more than one holds (1,365 standard
//! materials), so the scene spans two tables.
//!
//! The expectation is independent of any backend: with `Tonemapping::None` an unlit colour
//! given in sRGB comes out as those sRGB bytes (within rounding); neighbouring colours differ
//! by 20 in some channel, so a cube showing another cube's colour cannot pass.

use f3d::prelude::*;
use f3d_testing::{Frame, backend_opens, render_on, top_down_camera};

const COLUMNS: u32 = 50;
const ROWS: u32 = 30;
/// Pixels per cell.
const CELL: u32 = 8;
/// Per channel, what rounding on each backend may move a byte.
const TOLERANCE: u8 = 6;

/// The colour of cube `i`: three base-12 digits, each a level 20 apart.
fn colour(i: u32) -> [u8; 3] {
    let level = |d: u32| (15 + 20 * (d % 12)) as u8;
    [level(i), level(i / 12), level(i / 144)]
}

fn scene(world: &mut World) {
    let cube = world.resource_mut::<Assets<Mesh>>().add(Cuboid::from_length(0.7));
    for i in 0..COLUMNS * ROWS {
        let [r, g, b] = colour(i);
        let material = world.resource_mut::<Assets<StandardMaterial>>().add(StandardMaterial {
            base_color: Color::srgb_u8(r, g, b),
            unlit: true,
            ..default()
        });
        let (column, row) = (i % COLUMNS, i / COLUMNS);
        // Cell centres from the top-left; the camera looks down -Y with -Z up the frame.
        let x = column as f32 + 0.5 - COLUMNS as f32 / 2.0;
        let z = row as f32 + 0.5 - ROWS as f32 / 2.0;
        world.spawn((Mesh3d(cube.clone()), MeshMaterial3d(material), Transform::from_xyz(x, 0.0, z)));
    }
    top_down_camera(world, Vec3::ZERO, COLUMNS as f32, ROWS as f32);
}

/// Every cube whose centre pixel is not its own colour, as `(index, expected, seen)`.
fn wrong_cubes(frame: &Frame) -> Vec<(u32, [u8; 3], [u8; 3])> {
    (0..COLUMNS * ROWS)
        .filter_map(|i| {
            let (x, y) = ((i % COLUMNS) * CELL + CELL / 2, (i / COLUMNS) * CELL + CELL / 2);
            let p = frame.pixel(x, y);
            let seen = [p[0], p[1], p[2]];
            let expected = colour(i);
            let close = seen.iter().zip(expected).all(|(s, e)| s.abs_diff(e) <= TOLERANCE);
            (!close).then_some((i, expected, seen))
        })
        .collect()
}

fn check(backend: &str) {
    if !backend_opens(backend) {
        return;
    }
    let (width, height) = (COLUMNS * CELL, ROWS * CELL);
    judge(backend, &render_on(backend, width, height, scene));
}

fn judge(backend: &str, frame: &Frame) {
    if let Ok(dir) = std::env::var("F3D_TEST_OUT") {
        let _ = frame.write_png(&std::path::Path::new(&dir).join(format!("many_materials_{backend}.png")));
    }
    let wrong = wrong_cubes(frame);
    assert!(
        wrong.is_empty(),
        "{backend}: {} of {} cubes show another colour (index, expected, seen), first: {:?}",
        wrong.len(),
        COLUMNS * ROWS,
        &wrong[..wrong.len().min(8)]
    );
    // Between the cubes, the clear colour: the cubes did not spread over their cells.
    let gap = frame.pixel(0, 0);
    assert_eq!([gap[0], gap[1], gap[2]], [0, 0, 0], "{backend}: the corner of the first cell");
}

#[test]
fn every_cube_shows_its_own_material_on_soft() {
    check("soft");
}

#[test]
fn every_cube_shows_its_own_material_on_wgpu() {
    check("wgpu");
}

#[test]
fn every_cube_shows_its_own_material_on_vulkan() {
    check("vulkan");
}

/// The fallback for devices without storage buffers: uniform-array tables.
#[test]
fn every_cube_shows_its_own_material_in_uniform_tables() {
    let device = f3d_backend_soft::SoftDevice::new("uniform tables").without_storage_buffers();
    let frame = f3d_testing::render_frame(COLUMNS * CELL, ROWS * CELL, std::sync::Arc::new(device), scene)
        .unwrap_or_else(|e| panic!("soft without storage buffers: {e}"));
    judge("soft-uniform-tables", &frame);
}
