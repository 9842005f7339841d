//! Read-only storage buffers in vertex and fragment stages (what the renderer's material
//! tables are): a runtime-sized array indexed per instance in the vertex stage and per
//! fragment with a flat index, `arrayLength`, a `write_geometry` between passes seen by the
//! next pass, and the refusals — a buffer without `STORAGE`, a writable storage buffer in a
//! render stage, and the whole binding on a device without the feature.

use f3d_hal::{
    Color, DeviceError, DeviceFeature, GeometryBuffer, GeometryDescriptor, GeometryUsages, GraphicsDevice,
    ReadbackImage, TextureFormat,
};

use super::Entry;
use crate::draw::{pipeline_desc_from, render, target};
use crate::support::expect_unsupported;
use crate::{CheckResult, Context, Verdict, ensure, fail};

pub(crate) const CHECKS: &[Entry] = &[
    ("storage_buffers_are_read_by_vertex_and_fragment_stages", read_in_render_stages),
    ("writable_storage_in_a_render_stage_is_refused", writable_refused),
];

/// Instance `i` draws the quarter `items[i].rect` (NDC) of the target; its fragments write
/// `items[i].color` with alpha `arrayLength(&items) / 255`.
const WGSL: &str = r#"
struct Item {
    rect: vec4<f32>,
    color: vec4<f32>,
}
@group(0) @binding(0) var<storage, read> items: array<Item>;

struct Varyings {
    @builtin(position) position: vec4<f32>,
    @location(0) @interpolate(flat) item: u32,
}

@vertex
fn vs(@builtin(vertex_index) vertex: u32, @builtin(instance_index) instance: u32) -> Varyings {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 0.0), vec2<f32>(0.0, 1.0),
        vec2<f32>(0.0, 1.0), vec2<f32>(1.0, 0.0), vec2<f32>(1.0, 1.0),
    );
    let c = corners[vertex % 6u];
    let r = items[instance].rect;
    var out: Varyings;
    out.position = vec4<f32>(mix(r.x, r.z, c.x), mix(r.y, r.w, c.y), 0.5, 1.0);
    out.item = instance;
    return out;
}

@fragment
fn fs(in: Varyings) -> @location(0) vec4<f32> {
    let c = items[in.item].color;
    return vec4<f32>(c.rgb, f32(arrayLength(&items)) / 255.0);
}
"#;

/// The same module with the buffer writable (and written by the fragment stage).
const WRITABLE_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read_write> counts: array<u32>;

@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    var p = array<vec2<f32>, 3>(vec2<f32>(-1.0, -1.0), vec2<f32>(3.0, -1.0), vec2<f32>(-1.0, 3.0));
    return vec4<f32>(p[i], 0.5, 1.0);
}

@fragment
fn fs(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    counts[u32(pos.x)] = 1u;
    return vec4<f32>(1.0);
}
"#;

const SIZE: u32 = 16;

/// Items: the four quarters of the target (bottom-left, bottom-right, top-left, top-right in
/// NDC), each with its colour, plus `extra` items drawn nowhere (they only lengthen the array).
fn items(colors: [[f32; 4]; 4], extra: usize) -> Vec<u8> {
    let rects =
        [[-1.0, -1.0, 0.0, 0.0], [0.0, -1.0, 1.0, 0.0], [-1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0f32]];
    let mut out = Vec::new();
    for (rect, color) in rects.iter().zip(colors) {
        out.extend(rect.iter().chain(color.iter()).flat_map(|v| v.to_le_bytes()));
    }
    for _ in 0..extra {
        out.extend(std::iter::repeat_n(0u8, 32));
    }
    out
}

fn storage(device: &dyn GraphicsDevice, bytes: &[u8]) -> Result<GeometryBuffer, Verdict> {
    let desc = GeometryDescriptor {
        label: "conformance items".into(),
        size: bytes.len() as u64,
        usage: GeometryUsages::STORAGE,
    };
    device.create_geometry(&desc, Some(bytes)).ctx("create a STORAGE buffer")
}

/// The colour each quarter must show: rgb of its item, alpha the array's length.
fn expect_quarters(image: &ReadbackImage, colors: [[f32; 4]; 4], len: u8, what: &str) -> CheckResult {
    // Rows from the top: NDC y > 0 (items 2, 3) is the upper half.
    let probes = [(4, 12, 0), (12, 12, 1), (4, 4, 2), (12, 4, 3)];
    for (x, y, item) in probes {
        let c = colors[item];
        let want = [c[0], c[1], c[2]].map(|v| (v * 255.0).round() as u8);
        let got = image.rgba8(x, y);
        let ok = got[..3].iter().zip(want).all(|(g, w)| g.abs_diff(w) <= 1) && got[3].abs_diff(len) <= 1;
        ensure!(
            ok,
            "{what}: pixel ({x}, {y}) reads {got:?}, expected item {item}'s colour {want:?} with alpha {len} \
             (the array's length)"
        );
    }
    Ok(())
}

fn read_in_render_stages(device: &dyn GraphicsDevice) -> CheckResult {
    let desc = pipeline_desc_from(device, WGSL, ("vs", "fs"), &[TextureFormat::Rgba8Unorm], |_| {})?;
    if !device.features().has(DeviceFeature::STORAGE_BUFFERS) {
        return expect_unsupported(
            device,
            device.create_pipeline(&desc),
            DeviceFeature::STORAGE_BUFFERS,
            "a render pipeline reading a storage buffer",
        );
    }
    let pipeline = device.create_pipeline(&desc).ctx("create_pipeline (storage buffer)")?;
    let colors = [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0]];
    // Six items, two of them never drawn: `arrayLength` must count the buffer, not the draws.
    let buffer = storage(device, &items(colors, 2))?;
    let t = target(device, SIZE, SIZE, TextureFormat::Rgba8Unorm)?;
    let draw = |buffer: &GeometryBuffer| {
        render(device, &t, Color::BLACK, None, |pass| {
            pass.set_pipeline(&pipeline).ctx("set_pipeline")?;
            ensure!(
                pass.bind_storage_buffer("items", buffer),
                "binding the STORAGE buffer `items` was refused"
            );
            pass.draw(0..6, 0..4).ctx("draw")?;
            Ok(vec![pipeline.clone()])
        })
    };
    expect_quarters(&draw(&buffer)?, colors, 6, "first pass")?;

    // A write between passes is what the next pass reads.
    let mut changed = colors;
    changed[1] = [1.0, 0.0, 1.0, 1.0];
    let green_item = &items(changed, 0)[32..64];
    device.write_geometry(&buffer, 32, green_item).ctx("write_geometry into the STORAGE buffer")?;
    expect_quarters(&draw(&buffer)?, changed, 6, "after write_geometry")?;

    // A buffer made without STORAGE cannot be bound as one.
    let plain = device
        .create_geometry(&GeometryDescriptor::new("plain", 192), Some(&items(colors, 2)))
        .ctx("create_geometry")?;
    let mut pass = device
        .begin_render_pass(&f3d_hal::RenderPassDescriptor::color(
            "conformance refusal",
            f3d_hal::ColorAttachment::clear(&t, Color::BLACK),
        ))
        .ctx("begin_render_pass")?;
    pass.set_pipeline(&pipeline).ctx("set_pipeline")?;
    if pass.bind_storage_buffer("items", &plain) {
        return fail("a buffer made without STORAGE was accepted as a storage buffer");
    }
    // Nor can it be bound where the pipeline has no storage buffer.
    ensure!(
        !pass.bind_storage_buffer("absent", &buffer),
        "a storage buffer was bound to a name the pipeline lacks"
    );
    pass.submit().ctx("submit")?;
    Ok(())
}

fn writable_refused(device: &dyn GraphicsDevice) -> CheckResult {
    let module = f3d_materials::compile_wgsl("writable.wgsl", WRITABLE_WGSL)
        .map(std::sync::Arc::new)
        .map_err(|e| Verdict::Failed(format!("the writable-storage probe does not compile: {e}")))?;
    let shader = |stage, entry: &str| {
        device.create_shader(&f3d_hal::ShaderDescriptor {
            label: format!("writable {entry}"),
            module: module.clone(),
            stage,
            entry_point: entry.into(),
        })
    };
    let names_it = |e: &DeviceError| e.to_string().contains("writable");
    let has = device.features().has(DeviceFeature::STORAGE_BUFFERS);
    let vertex = shader(f3d_hal::ShaderStage::Vertex, "vs").ctx("create_shader vs")?;
    // A backend may refuse the fragment shader itself, if it says why.
    let fragment = match shader(f3d_hal::ShaderStage::Fragment, "fs") {
        Ok(f) => f,
        Err(e) if has && names_it(&e) => return Ok(()),
        Err(e) if !has => {
            return expect_unsupported(
                device,
                Err::<(), _>(e),
                DeviceFeature::STORAGE_BUFFERS,
                "a writable storage buffer",
            );
        }
        Err(e) => {
            return fail(format!(
                "the fragment shader was refused, but not naming the writable storage buffer: {e}"
            ));
        }
    };
    let desc = f3d_hal::PipelineDescriptor {
        label: "writable storage".into(),
        vertex,
        fragment: Some(fragment),
        vertex_buffers: Vec::new(),
        primitive: f3d_hal::PrimitiveState::default(),
        depth_stencil: None,
        color_targets: vec![f3d_hal::ColorTargetState::replace(TextureFormat::Rgba8Unorm)],
        sample_count: 1,
        multiview: None,
    };
    let result = device.create_pipeline(&desc);
    if !has {
        return expect_unsupported(
            device,
            result,
            DeviceFeature::STORAGE_BUFFERS,
            "a writable storage buffer",
        );
    }
    match result {
        Err(e) if names_it(&e) && e.to_string().contains("counts") => Ok(()),
        Err(other) => {
            fail(format!("a fragment stage writing a storage buffer was refused, but not naming it: {other}"))
        }
        Ok(_) => fail("a render pipeline whose fragment stage writes a storage buffer was accepted"),
    }
}
