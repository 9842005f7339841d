//! f3d software backend (work in progress).
pub mod exec;
