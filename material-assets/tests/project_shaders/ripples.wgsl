// A project include: used by tests/include.rs.
#include <noise.wgsl>
#include "waves/shape.wgsl"

fn ripples(p: vec2<f32>) -> f32 {
    return wave_shape(noise_simplex2(p, 3));
}
