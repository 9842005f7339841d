// Included by ripples.wgsl relative to itself.
#include <noise.wgsl>

fn wave_shape(x: f32) -> f32 {
    return x * x;
}
