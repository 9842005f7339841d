//! Typed structs of the example materials, made by `f3d material codegen` (see
//! [`f3d::material::typed`]) from `assets/materials/{water,ocean,toon}.ron`; the test
//! `tests/typed_materials.rs` generates them again and fails when a file here is out of date.
//! The showcase sets its water and ocean through them.
//!
//! A parameter set this way is checked by the compiler:
//!
//! ```
//! use f3d::prelude::*;
//! use f3d_examples::typed::Toon;
//!
//! let mut toon = Toon::default();
//! toon.set_band_count(4).set_rim_strength(0.2);
//! toon.base_color = Some(Color::srgb(0.9, 0.3, 0.2));
//! assert_eq!(toon.band_count, Some(4));
//! ```
//!
//! A misspelt field is a compile error:
//!
//! ```compile_fail,E0609
//! let mut toon = f3d_examples::typed::Toon::default();
//! toon.band_cont = Some(4);
//! ```
//!
//! and so is a misspelt setter:
//!
//! ```compile_fail,E0599
//! let mut toon = f3d_examples::typed::Toon::default();
//! toon.set_band_cont(4);
//! ```
//!
//! A value of the wrong type too (`band_count` is an `Int`, `light_direction` a `Vec3`):
//!
//! ```compile_fail,E0308
//! let mut toon = f3d_examples::typed::Toon::default();
//! toon.set_band_count(2.5);
//! ```
//!
//! ```compile_fail,E0308
//! let mut toon = f3d_examples::typed::Toon::default();
//! toon.light_direction = Some(f3d::bevy_math::Vec2::new(1.0, 0.0));
//! ```

#[rustfmt::skip]
mod ocean;
#[rustfmt::skip]
mod toon;
#[rustfmt::skip]
mod water;

pub use ocean::Ocean;
pub use toon::Toon;
pub use water::Water;
