// f3d engine library: the fragment entry points of surface materials.

#include <surface.wgsl>

fn f3d_begin_fragment(in: VertexOutput, front_facing: bool) {
    var n = f3d_safe_normalize(in.world_normal);
#ifdef F3D_DOUBLE_SIDED
    if !front_facing {
        n = -n;
    }
#endif
    f3d_fragment.world_position = in.world_position;
    f3d_fragment.world_normal = n;
    f3d_fragment.world_tangent = in.world_tangent;
    f3d_fragment.uv0 = in.uv0;
    f3d_fragment.color = in.color;
    f3d_fragment.frag_coord = in.clip_position;
    f3d_load_varyings(in);
}

fn f3d_default_material() -> MaterialInputs {
    return MaterialInputs(vec4<f32>(1.0), f3d_fragment.world_normal, vec3<f32>(0.0), 0.0, 0.5, 1.0);
}

// Linear, premultiplied output.
fn f3d_finish(rgb: vec3<f32>, alpha: f32) -> vec4<f32> {
#ifdef F3D_BLEND_OPAQUE
    return vec4<f32>(rgb, 1.0);
#else
#ifdef F3D_BLEND_PREMULTIPLIED
    return vec4<f32>(rgb, alpha);
#else
    return vec4<f32>(rgb * alpha, alpha);
#endif
#endif
}

#ifdef F3D_VARIANT_COLOR
#ifdef F3D_LIT
@fragment
fn fs_lit(in: VertexOutput, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    f3d_begin_fragment(in, front_facing);
    var m = f3d_default_material();
    surface(&m);
    return f3d_finish(f3d_shade_lit(m), m.base_color.a);
}
#else
@fragment
fn fs_unlit(in: VertexOutput, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    f3d_begin_fragment(in, front_facing);
    var m = f3d_default_material();
    surface(&m);
    return f3d_finish(m.base_color.rgb, m.base_color.a);
}
#endif
#endif

#ifdef F3D_VARIANT_DEPTH
@fragment
fn fs_depth() {}
#endif

#ifdef F3D_VARIANT_SHADOW
@fragment
fn fs_shadow() {}
#endif
