//! The three-pass graph on the soft backend: render into a transient, sample it into a
//! second one, tonemap into the imported target — with real shaders and real pixels.

mod common;

use common::three_pass::{ThreePassPipelines, three_pass_graph};
use f3d_backend_soft::SoftDevice;
use f3d_hal::{GraphicsDevice, TextureDescriptor, TextureFormat, TextureRegion};
use f3d_render_graph::TransientPool;

#[test]
fn three_pass_graph_draws_on_soft() {
    let device = SoftDevice::new("graph");
    let target = device
        .create_texture(&TextureDescriptor::new_2d("target", 16, 16, TextureFormat::Rgba8Unorm))
        .unwrap();
    let pipelines = ThreePassPipelines::new(&device, TextureFormat::Rgba8Unorm).unwrap();
    let mut pool = TransientPool::default();
    for frame in 0..2 {
        let (graph, _) = three_pass_graph(target.clone(), &pipelines);
        let executed = graph.compile((16, 16)).unwrap().execute(&device, &mut pool).unwrap();
        assert_eq!(executed.passes_run(), 3, "frame {frame}");
    }
    assert!(device.pipeline_refusals().is_empty(), "{:?}", device.pipeline_refusals());
    let image = device.readback(&target, TextureRegion::full(target.descriptor())).unwrap().wait().unwrap();
    // The scene writes (3, 1, 0); the sample pass copies it; the tonemap maps c to c / (1 + c)
    // = (0.75, 0.5, 0), which 8-bit unorm stores as (191, 128, 0).
    for y in 0..16 {
        for x in 0..16 {
            assert_eq!(image.rgba8(x, y), [191, 128, 0, 255], "pixel ({x}, {y})");
        }
    }
    // Two frames through one pool: the transients were made once.
    assert_eq!(pool.textures_created(), 2);
}

/// A multisampled transient cleared by one pass and resolved into the imported target by the
/// next (`write_color_resolved`): the resolve is attached to the pass and its average lands in
/// the target, and the dump names it.
#[test]
fn a_multisampled_transient_resolves_into_the_target() {
    use f3d_hal::{Color, LoadOp, ResourceState};
    use f3d_render_graph::{PassContext, RenderGraph, TextureDesc};

    let device = SoftDevice::new("graph");
    let target = device
        .create_texture(&TextureDescriptor::new_2d("target", 16, 16, TextureFormat::Rgba8Unorm))
        .unwrap();
    let mut graph = RenderGraph::new();
    let out = graph.import_texture("target", target.clone(), ResourceState::Undefined);
    let ms = graph.create_texture(
        "ms",
        TextureDesc { sample_count: 4, ..TextureDesc::relative(1.0, TextureFormat::Rgba8Unorm) },
    );
    let mut cleared = ms;
    graph.add_pass("clear", |pass| {
        cleared = pass.write_color(ms, LoadOp::Clear(Color::new(0.25, 0.5, 1.0, 1.0)));
        |_: &mut PassContext<'_>| Ok(())
    });
    graph.add_pass("resolve", |pass| {
        let _ = pass.write_color_resolved(cleared, LoadOp::Load, out);
        |_: &mut PassContext<'_>| Ok(())
    });
    let compiled = graph.compile((16, 16)).unwrap();
    let dump = compiled.dump();
    assert!(dump.contains("resolve") && dump.contains("samples=4"), "{dump}");
    let executed = compiled.execute(&device, &mut TransientPool::default()).unwrap();
    assert_eq!(executed.passes_run(), 2);
    let image = device.readback(&target, TextureRegion::full(target.descriptor())).unwrap().wait().unwrap();
    for (x, y) in [(0, 0), (7, 9), (15, 15)] {
        assert_eq!(image.rgba8(x, y), [64, 128, 255, 255], "pixel ({x}, {y})");
    }
}
