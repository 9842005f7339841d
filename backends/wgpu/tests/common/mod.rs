//! What the wgpu backend's tests share.

#![allow(dead_code)]

pub use f3d_conformance::quiet_mesa;
