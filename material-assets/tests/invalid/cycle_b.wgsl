// part of 33_include_cycle.ron
#include "cycle_a.wgsl"
fn cycle_b() {}
