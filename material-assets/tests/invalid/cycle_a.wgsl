// part of 33_include_cycle.ron
#include "cycle_b.wgsl"
fn cycle_a() {}
