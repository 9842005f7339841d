// f3d engine library: group 2, per draw.

struct Draw {
    // World from object.
    model: mat4x4<f32>,
    // The inverse transpose of model's upper 3x3 (in a mat4 for layout); transforms normals.
    normal_matrix: mat4x4<f32>,
}

@group(2) @binding(0) var<uniform> draw: Draw;
