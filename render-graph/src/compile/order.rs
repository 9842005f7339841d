//! Stage 1: who produces and who reads each version, and a stable topological order.
//!
//! Dependencies come from the versions alone. For each version `v` of a texture, with
//! `P(v)` the pass that produced it and `R(v)` the passes reading it:
//!
//! ```text
//!   P(v) ──▶ R(v)        read after write: a reader needs the contents
//!   P(v) ──▶ P(v+1)      write after write: writes land in version order
//!   R(v) ──▶ P(v+1)      write after read: nobody overwrites what a reader still needs
//! ```
//!
//! The order is Kahn's algorithm taking, among the passes whose dependencies have all run,
//! the one added first; so a graph whose insertion order is already valid keeps it exactly.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::GraphError;
use crate::builder::{Origin, RenderGraph};

/// "No pass" in the index tables.
pub(crate) const NONE: u32 = u32::MAX;

/// Every version of every texture, flattened: version `v` of texture `r` is entry
/// `base[r] + v`.
pub(crate) struct Versions {
    pub(crate) base: Vec<u32>,
    /// The pass that produced each version ([`NONE`] for version 0).
    pub(crate) producer: Vec<u32>,
    /// Readers of entry `e` are `readers[reader_start[e]..reader_start[e + 1]]`, in pass order.
    pub(crate) reader_start: Vec<u32>,
    pub(crate) readers: Vec<u32>,
}

impl Versions {
    pub(crate) fn entry(&self, resource: u32, version: u32) -> usize {
        (self.base[resource as usize] + version) as usize
    }

    pub(crate) fn readers_of(&self, entry: usize) -> &[u32] {
        &self.readers[self.reader_start[entry] as usize..self.reader_start[entry + 1] as usize]
    }

    pub(crate) fn len(&self) -> usize {
        self.producer.len()
    }
}

/// Indexes producers and readers of every version; finds two writers of one version and reads
/// of transient contents nobody wrote.
pub(crate) fn versions(graph: &RenderGraph) -> Result<Versions, GraphError> {
    let mut base = Vec::with_capacity(graph.resources.len());
    let mut total = 0u32;
    for r in &graph.resources {
        base.push(total);
        total += r.last_version + 1;
    }
    let total = total as usize;
    let mut producer = vec![NONE; total];
    let mut reader_start = vec![0u32; total + 1];

    for (p, pass) in graph.passes.iter().enumerate() {
        for a in pass_accesses(graph, p) {
            let e = (base[a.resource as usize] + a.version) as usize;
            if a.kind.is_write() {
                let out = e + 1;
                if producer[out] != NONE {
                    let first = producer[out] as usize;
                    return Err(GraphError::TwoWriters {
                        resource: graph.resources[a.resource as usize].name.to_string(),
                        version: a.version,
                        first: graph.passes[first].name.to_string(),
                        second: pass.name.to_string(),
                    });
                }
                producer[out] = p as u32;
            }
            let reads_contents = !a.kind.is_write() || a.kind.loads();
            if reads_contents
                && a.version == 0
                && matches!(graph.resources[a.resource as usize].origin, Origin::Transient(_))
            {
                return Err(GraphError::ReadBeforeWrite {
                    pass: pass.name.to_string(),
                    resource: graph.resources[a.resource as usize].name.to_string(),
                });
            }
            if !a.kind.is_write() {
                reader_start[e + 1] += 1;
            }
        }
    }
    for e in 0..total {
        reader_start[e + 1] += reader_start[e];
    }
    let mut fill = reader_start.clone();
    let mut readers = vec![0u32; reader_start[total] as usize];
    for p in 0..graph.passes.len() {
        for a in pass_accesses(graph, p) {
            if !a.kind.is_write() {
                let e = (base[a.resource as usize] + a.version) as usize;
                readers[fill[e] as usize] = p as u32;
                fill[e] += 1;
            }
        }
    }
    Ok(Versions { base, producer, reader_start, readers })
}

/// The accesses pass `p` declared.
pub(crate) fn pass_accesses(graph: &RenderGraph, p: usize) -> &[crate::resource::Access] {
    let node = &graph.passes[p];
    &graph.accesses[node.first_access as usize..(node.first_access + node.access_count) as usize]
}

/// Every pass, dependencies first, insertion order breaking ties; or the cycle that
/// prevents an order.
pub(crate) fn order(graph: &RenderGraph, versions: &Versions) -> Result<Vec<u32>, GraphError> {
    let n = graph.passes.len();
    let edges = edges(graph, versions);

    // Successor lists, compressed (counting sort by source).
    let mut start = vec![0u32; n + 1];
    for &(from, _) in &edges {
        start[from as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut successors = vec![0u32; edges.len()];
    let mut indegree = vec![0u32; n];
    for &(from, to) in &edges {
        successors[fill[from as usize] as usize] = to;
        fill[from as usize] += 1;
        indegree[to as usize] += 1;
    }

    let mut ready: BinaryHeap<Reverse<u32>> =
        (0..n as u32).filter(|&p| indegree[p as usize] == 0).map(Reverse).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse(p)) = ready.pop() {
        order.push(p);
        for &s in &successors[start[p as usize] as usize..start[p as usize + 1] as usize] {
            indegree[s as usize] -= 1;
            if indegree[s as usize] == 0 {
                ready.push(Reverse(s));
            }
        }
    }
    if order.len() == n {
        return Ok(order);
    }
    Err(GraphError::Cycle {
        passes: find_cycle(&edges, &indegree)
            .iter()
            .map(|&p| graph.passes[p as usize].name.to_string())
            .collect(),
    })
}

/// Dependency edges `(before, after)`, possibly repeated.
fn edges(graph: &RenderGraph, versions: &Versions) -> Vec<(u32, u32)> {
    let mut edges = Vec::with_capacity(graph.accesses.len() * 2);
    for (r, resource) in graph.resources.iter().enumerate() {
        for v in 0..=resource.last_version {
            let e = versions.entry(r as u32, v);
            let producer = versions.producer[e];
            let next = if v < resource.last_version { versions.producer[e + 1] } else { NONE };
            let readers = versions.readers_of(e);
            if producer != NONE {
                edges.extend(readers.iter().map(|&reader| (producer, reader)));
                if next != NONE {
                    edges.push((producer, next));
                }
            }
            if next != NONE {
                edges.extend(readers.iter().map(|&reader| (reader, next)));
            }
        }
    }
    edges
}

/// A cycle among the passes Kahn's algorithm could not place (`indegree > 0`), in dependency
/// order, starting from its earliest-added pass.
fn find_cycle(edges: &[(u32, u32)], indegree: &[u32]) -> Vec<u32> {
    let stuck = |p: u32| indegree[p as usize] > 0;
    // Every stuck pass has a stuck predecessor, so walking predecessors never ends: it
    // must come back to a pass it saw, and the passes since then form a cycle.
    let predecessor =
        |p: u32| edges.iter().filter(|&&(from, to)| to == p && stuck(from)).map(|&(from, _)| from).min();
    let Some(mut p) = (0..indegree.len() as u32).find(|&p| stuck(p)) else { return Vec::new() };
    let mut seen = vec![usize::MAX; indegree.len()];
    let mut walk = Vec::new();
    while seen[p as usize] == usize::MAX {
        seen[p as usize] = walk.len();
        walk.push(p);
        match predecessor(p) {
            Some(q) => p = q,
            None => return walk,
        }
    }
    let mut cycle: Vec<u32> = walk[seen[p as usize]..].to_vec();
    cycle.reverse(); // predecessors were walked; show dependencies first
    let first = cycle.iter().enumerate().min_by_key(|&(_, &p)| p).map_or(0, |(i, _)| i);
    cycle.rotate_left(first);
    cycle
}
