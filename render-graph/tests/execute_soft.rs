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
