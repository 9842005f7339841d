//! Rasterisation rules: clipping (near plane, w < 0, default depth clipping), watertight
//! shared edges, depth bias, two-sided stencil, multisampled depth.

use super::Entry;

pub(crate) const CHECKS: &[Entry] = &[];
