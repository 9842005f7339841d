//! f3d materials (work in progress).
