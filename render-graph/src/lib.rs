//! f3d render graph (work in progress).
