//! Formats as shaders see them: sRGB encode, decode and blending against the exact curve,
//! rendering into a texture and sampling it in the next pass (colour and depth), cube maps
//! with mips, 2D arrays, LOD clamps, the HDR format, and every format the device claims.

use super::Entry;

pub(crate) const CHECKS: &[Entry] = &[];
