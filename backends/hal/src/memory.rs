//! Memory a device holds, by kind: what [`GraphicsDevice::memory_report`](crate::GraphicsDevice)
//! answers, and the counter backends keep it with.
//!
//! Every backend reports the bytes behind live handles (textures, geometry), the memory it keeps
//! for itself (uniform rings, staging buffers), and what dropped handles still hold until the
//! GPU has finished with them. A conformance check (`lifecycle::memory_report_follows_resources`)
//! creates, reports, drops and reports again on every backend.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// What a piece of device memory is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryKind {
    /// Texels of textures (every level, layer and sample).
    Textures,
    /// Geometry buffers (vertices, indices, instances, storage).
    Geometry,
    /// The per-pass uniform ring(s).
    UniformRings,
    /// Buffers for uploads and readbacks the device keeps or has in flight.
    Staging,
    /// Compiled pipelines and shaders, where the backend can tell.
    Pipelines,
    /// Released by their handles, held until the GPU has finished with them.
    Retiring,
}

impl MemoryKind {
    /// Every kind, in report order.
    pub const ALL: [MemoryKind; 6] =
        [Self::Textures, Self::Geometry, Self::UniformRings, Self::Staging, Self::Pipelines, Self::Retiring];

    fn index(self) -> usize {
        self as usize
    }
}

/// Bytes a device holds, by kind. Each figure is what the backend allocated (a GPU backend
/// counts its allocations, rounded as the driver or allocator rounded them; a CPU backend its
/// host buffers), not an estimate from descriptors where better is known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryReport {
    /// Textures of live handles.
    pub textures: u64,
    /// Geometry buffers of live handles.
    pub geometry: u64,
    /// Uniform rings.
    pub uniform_rings: u64,
    /// Staging buffers alive now.
    pub staging: u64,
    /// Pipelines and shaders, when the backend can tell (`None`: the API does not say).
    pub pipelines: Option<u64>,
    /// Memory of dropped handles not yet given back (the GPU may still read it).
    pub retiring: u64,
}

impl MemoryReport {
    /// The sum of every figure.
    pub fn total(&self) -> u64 {
        self.textures
            + self.geometry
            + self.uniform_rings
            + self.staging
            + self.pipelines.unwrap_or(0)
            + self.retiring
    }

    /// The figure for `kind` (`Pipelines` as 0 when unknown).
    pub fn get(&self, kind: MemoryKind) -> u64 {
        match kind {
            MemoryKind::Textures => self.textures,
            MemoryKind::Geometry => self.geometry,
            MemoryKind::UniformRings => self.uniform_rings,
            MemoryKind::Staging => self.staging,
            MemoryKind::Pipelines => self.pipelines.unwrap_or(0),
            MemoryKind::Retiring => self.retiring,
        }
    }
}

impl std::fmt::Display for MemoryReport {
    /// `textures 1.2 MB, geometry 40 kB, …` (decimal units), for logs and `--verbose`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mb = |b: u64| b as f64 / 1e6;
        write!(
            f,
            "textures {:.2} MB, geometry {:.2} MB, uniform rings {:.2} MB, staging {:.2} MB, pipelines {}, retiring {:.2} MB (total {:.2} MB)",
            mb(self.textures),
            mb(self.geometry),
            mb(self.uniform_rings),
            mb(self.staging),
            self.pipelines.map_or_else(|| "unknown".to_owned(), |p| format!("{:.2} MB", mb(p))),
            mb(self.retiring),
            mb(self.total())
        )
    }
}

/// A device's memory figures, shared with the charges its payloads hold (for backend authors).
#[derive(Clone, Debug, Default)]
pub struct MemoryCounter(Arc<[AtomicU64; 6]>);

impl MemoryCounter {
    /// Every figure at zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts `bytes` of `kind` until the returned charge drops (hold it in the payload).
    pub fn charge(&self, kind: MemoryKind, bytes: u64) -> MemoryCharge {
        self.0[kind.index()].fetch_add(bytes, Ordering::AcqRel);
        MemoryCharge { counter: self.clone(), kind, bytes }
    }

    /// The report. `pipelines` is `None` unless the backend charged some.
    pub fn report(&self) -> MemoryReport {
        let get = |k: MemoryKind| self.0[k.index()].load(Ordering::Acquire);
        let pipelines = get(MemoryKind::Pipelines);
        MemoryReport {
            textures: get(MemoryKind::Textures),
            geometry: get(MemoryKind::Geometry),
            uniform_rings: get(MemoryKind::UniformRings),
            staging: get(MemoryKind::Staging),
            pipelines: (pipelines > 0).then_some(pipelines),
            retiring: get(MemoryKind::Retiring),
        }
    }
}

/// Bytes of one kind, counted while this lives.
#[derive(Debug)]
pub struct MemoryCharge {
    counter: MemoryCounter,
    kind: MemoryKind,
    bytes: u64,
}

impl MemoryCharge {
    /// The bytes charged.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Moves the bytes to `kind` (a resource that starts retiring, say).
    pub fn move_to(&mut self, kind: MemoryKind) {
        if kind != self.kind {
            self.counter.0[self.kind.index()].fetch_sub(self.bytes, Ordering::AcqRel);
            self.counter.0[kind.index()].fetch_add(self.bytes, Ordering::AcqRel);
            self.kind = kind;
        }
    }
}

impl Drop for MemoryCharge {
    fn drop(&mut self) {
        self.counter.0[self.kind.index()].fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_count_while_they_live() {
        let counter = MemoryCounter::new();
        let a = counter.charge(MemoryKind::Textures, 100);
        let mut b = counter.charge(MemoryKind::Geometry, 40);
        assert_eq!(counter.report().textures, 100);
        assert_eq!(counter.report().geometry, 40);
        assert_eq!(counter.report().pipelines, None);
        b.move_to(MemoryKind::Retiring);
        assert_eq!(counter.report().geometry, 0);
        assert_eq!(counter.report().retiring, 40);
        drop((a, b));
        assert_eq!(counter.report(), MemoryReport::default());
    }
}
