//! f3d benchmarks: what the criterion benches in `benches/` share, so a profiler binary
//! (`src/bin/`) can run exactly the frames a bench times.

/// The soft rasteriser's fill-rate scene (`benches/soft_fill.rs`): (a) flat colour, (b) four
/// perspective varyings with a depth test, (c) Blinn-Phong with a trilinear-sampled
/// mipmapped texture, at 1280x720.
pub mod soft_fill {
    use std::sync::Arc;

    use f3d_hal::{
        AddressMode, Color, ColorAttachment, ColorTargetState, CompareFunction, DepthStencilAttachment,
        DepthStencilState, GeometryBuffer, GraphicsDevice, PipelineDescriptor, PipelineHandle,
        PrimitiveState, RenderPassDescriptor, SamplerDescriptor, SamplerHandle, ShaderDescriptor,
        ShaderStage, TextureDescriptor, TextureFormat, TextureHandle, TextureRegion, VertexAttribute,
        VertexBufferLayout, VertexFormat, VertexStepMode,
    };

    /// Target width.
    pub const W: u32 = 1280;
    /// Target height.
    pub const H: u32 = 720;
    /// Full-screen quads per frame.
    pub const QUADS: u32 = 4;

    const WGSL: &str = r#"
    struct Params { light: vec4<f32>, eye: vec4<f32> }
    @group(0) @binding(0) var<uniform> params: Params;
    @group(0) @binding(1) var albedo: texture_2d<f32>;
    @group(0) @binding(2) var albedo_sampler: sampler;

    struct Flat { @builtin(position) p: vec4<f32> }
    @vertex fn vs_flat(@location(0) p: vec4<f32>) -> Flat { return Flat(p); }
    @fragment fn fs_flat() -> @location(0) vec4<f32> { return vec4<f32>(0.2, 0.5, 0.8, 1.0); }

    struct Four {
        @builtin(position) p: vec4<f32>,
        @location(0) a: vec4<f32>,
        @location(1) b: vec4<f32>,
        @location(2) c: vec4<f32>,
        @location(3) d: vec4<f32>,
    }
    @vertex fn vs_four(@location(0) p: vec4<f32>) -> Four {
        let q = p * vec4<f32>(1.0, 1.0, 1.0, 1.0);
        return Four(p, q * 0.5 + 0.5, q.yxzw, q.zwxy * 0.25, vec4<f32>(q.x, 0.3, q.y, 1.0));
    }
    @fragment fn fs_four(i: Four) -> @location(0) vec4<f32> {
        return vec4<f32>(i.a.x + i.b.y, i.c.z + i.d.x, i.a.w * i.b.z, 1.0);
    }

    struct Lit {
        @builtin(position) p: vec4<f32>,
        @location(0) world: vec3<f32>,
        @location(1) normal: vec3<f32>,
        @location(2) uv: vec2<f32>,
    }
    @vertex fn vs_lit(@location(0) p: vec4<f32>) -> Lit {
        let world = vec3<f32>(p.x * 4.0, p.y * 2.0, -3.0 - p.x);
        return Lit(p, world, normalize(vec3<f32>(p.x * 0.3, p.y * 0.3, 1.0)), p.xy * 3.0);
    }
    @fragment fn fs_lit(i: Lit) -> @location(0) vec4<f32> {
        let n = normalize(i.normal);
        let l = normalize(params.light.xyz - i.world);
        let v = normalize(params.eye.xyz - i.world);
        let h = normalize(l + v);
        let base = textureSample(albedo, albedo_sampler, i.uv).rgb;
        let diffuse = max(dot(n, l), 0.0);
        let specular = pow(max(dot(n, h), 0.0), 32.0);
        return vec4<f32>(base * (0.1 + diffuse) + vec3<f32>(specular), 1.0);
    }
    "#;

    /// Everything one fill-rate frame needs, made once.
    pub struct Scene {
        /// The device.
        pub device: Arc<dyn GraphicsDevice>,
        target: TextureHandle,
        depth: TextureHandle,
        vb: GeometryBuffer,
        /// The (flat) pipeline.
        pub flat: PipelineHandle,
        /// The (four) pipeline.
        pub four: PipelineHandle,
        /// The (lit) pipeline.
        pub lit: PipelineHandle,
        albedo: TextureHandle,
        sampler: SamplerHandle,
    }

    /// Builds the scene on `device` (soft for the fill benchmarks; any device for the
    /// side-by-side harness).
    pub fn scene(device: Arc<dyn GraphicsDevice>) -> Scene {
        let module = Arc::new(f3d_materials::compile_wgsl("fill.wgsl", WGSL).expect("compiles"));
        let shader = |stage, entry: &str| {
            device
                .create_shader(&ShaderDescriptor {
                    label: entry.into(),
                    module: module.clone(),
                    stage,
                    entry_point: entry.into(),
                })
                .expect("shader")
        };
        let layout = VertexBufferLayout {
            stride: 16,
            step_mode: VertexStepMode::Vertex,
            attributes: vec![VertexAttribute { location: 0, format: VertexFormat::Float32x4, offset: 0 }],
        };
        let pipeline = |vs: &str, fs: &str, depth: bool| {
            device
                .create_pipeline(&PipelineDescriptor {
                    label: fs.into(),
                    vertex: shader(ShaderStage::Vertex, vs),
                    fragment: Some(shader(ShaderStage::Fragment, fs)),
                    vertex_buffers: vec![layout.clone()],
                    primitive: PrimitiveState::default(),
                    depth_stencil: depth.then(|| {
                        DepthStencilState::depth(
                            TextureFormat::Depth32Float,
                            CompareFunction::LessEqual,
                            true,
                        )
                    }),
                    color_targets: vec![ColorTargetState::replace(TextureFormat::Rgba8UnormSrgb)],
                    sample_count: 1,
                    multiview: None,
                })
                .expect("pipeline")
        };
        let quad: Vec<f32> =
            [[-1.0f32, -1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]
                .iter()
                .flat_map(|p| [p[0], p[1], 0.5, 1.0])
                .collect();
        let bytes: Vec<u8> = quad.iter().flat_map(|f| f.to_le_bytes()).collect();
        let albedo_desc =
            TextureDescriptor::new_2d("albedo", 256, 256, TextureFormat::Rgba8UnormSrgb).with_mips(9);
        let albedo = device.create_texture(&albedo_desc).expect("texture");
        for level in 0..9 {
            let r = TextureRegion::level(&albedo_desc, level, 0);
            let data: Vec<u8> =
                (0..r.width * r.height).flat_map(|i| [(i * 7) as u8, (i * 13) as u8, 128, 255]).collect();
            device.write_texture(&albedo, r, &data).expect("upload");
        }
        Scene {
            target: device
                .create_texture(&TextureDescriptor::new_2d("target", W, H, TextureFormat::Rgba8UnormSrgb))
                .expect("target"),
            depth: device
                .create_texture(&TextureDescriptor::new_2d("depth", W, H, TextureFormat::Depth32Float))
                .expect("depth"),
            vb: device
                .create_geometry(&f3d_hal::GeometryDescriptor::new("quad", bytes.len() as u64), Some(&bytes))
                .expect("vb"),
            flat: pipeline("vs_flat", "fs_flat", false),
            four: pipeline("vs_four", "fs_four", true),
            lit: pipeline("vs_lit", "fs_lit", false),
            sampler: device.create_sampler(&SamplerDescriptor::linear(AddressMode::Repeat)).expect("sampler"),
            albedo,
            device,
        }
    }

    /// Draws one frame: `QUADS` full-screen quads with `pipeline` (`depth`: with a depth test).
    pub fn frame(s: &Scene, pipeline: &PipelineHandle, depth: bool) {
        let desc = RenderPassDescriptor {
            depth_stencil_attachment: depth.then(|| DepthStencilAttachment::clear(&s.depth, 1.0)),
            ..RenderPassDescriptor::color("fill", ColorAttachment::clear(&s.target, Color::BLACK))
        };
        let mut pass = s.device.begin_render_pass(&desc).expect("pass");
        pass.set_pipeline(pipeline).expect("pipeline");
        pass.set_vertex_buffer(0, &s.vb, 0).expect("vb");
        if pipeline.slot("params").is_some() {
            let params: Vec<u8> =
                [2.0f32, 3.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0].iter().flat_map(|f| f.to_le_bytes()).collect();
            assert!(pass.bind_uniform_block("params", &params));
            assert!(pass.bind_texture("albedo", &s.albedo, &s.sampler));
        }
        for _ in 0..QUADS {
            pass.draw(0..6, 0..1).expect("draw");
        }
        pass.submit().expect("submit");
        assert!(s.device.pipeline_refusals().is_empty());
    }

    /// [`frame`], then a 1×1 readback of the target, so a GPU device has finished the frame
    /// when it returns (the side-by-side harness times frames this way on every device).
    pub fn frame_and_wait(s: &Scene, pipeline: &PipelineHandle, depth: bool) {
        frame(s, pipeline, depth);
        let region = TextureRegion {
            x: 0,
            y: 0,
            width: 1,
            height: 1,
            ..TextureRegion::level(s.target.descriptor(), 0, 0)
        };
        s.device.readback(&s.target, region).and_then(|r| r.wait()).expect("readback");
    }
}
