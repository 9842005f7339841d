// part of 47_error_in_fragment_file.ron
fn surface(m: ptr<function, MaterialInputs>) {
    (*m).base_color = vec4<f32>(1.0, 0.5, 0.25, 1.0);
    (*m).metallic = true;
}
