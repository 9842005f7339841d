//! The compiled graph as Graphviz: `f3d graph | dot -Tsvg > frame.svg`.
//!
//! Passes are boxes (numbered in execution order; culled ones, and what only they produce,
//! grey), texture versions are ellipses (`name vN`; imported textures drawn with a double border, aliased
//! transients filled with their slot's colour and labelled with the slot). An edge into a
//! pass is a read (or the load of a write), an edge out of it the version it produces.

use std::fmt::Write;

use crate::CompiledGraph;
use crate::compile::order::{NONE, pass_accesses};

const SLOT_COLOURS: [&str; 8] =
    ["lightblue", "palegreen", "lightsalmon", "khaki", "plum", "lightcyan", "wheat", "pink"];

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

impl CompiledGraph {
    /// Graphviz source for the compiled graph. Deterministic: nodes and edges come in
    /// declaration order.
    pub fn to_dot(&self) -> String {
        let g = &self.graph;
        let mut out =
            String::from("digraph render_graph {\n  rankdir=LR;\n  node [fontname=\"monospace\"];\n");
        let mut position = vec![NONE; g.passes.len()];
        for (pos, &p) in self.liveness.schedule.iter().enumerate() {
            position[p as usize] = pos as u32;
        }
        // Writing to a String cannot fail: the results of `writeln!` are ignored below.
        for (p, pass) in g.passes.iter().enumerate() {
            let name = escape(&pass.name);
            if position[p] == NONE {
                let _ = writeln!(
                    out,
                    "  p{p} [shape=box, style=\"filled,dashed\", fillcolor=grey90, fontcolor=grey50, color=grey60, label=\"{name}\\n(culled)\"];"
                );
            } else {
                let _ = writeln!(out, "  p{p} [shape=box, style=bold, label=\"{}: {name}\"];", position[p]);
            }
        }

        // Only versions some pass touches get a node; those only culled passes produce are grey.
        let mut touched: Vec<Vec<bool>> =
            g.resources.iter().map(|r| vec![false; r.last_version as usize + 1]).collect();
        let mut dead: Vec<Vec<bool>> = touched.clone();
        for (p, &pos) in position.iter().enumerate() {
            for a in pass_accesses(g, p) {
                let versions = &mut touched[a.resource as usize];
                if !a.kind.is_write() || a.kind.loads() {
                    versions[a.version as usize] = true;
                }
                if a.kind.is_write() {
                    versions[a.version as usize + 1] = true;
                    dead[a.resource as usize][a.version as usize + 1] = pos == NONE;
                }
            }
        }
        for (r, res) in g.resources.iter().enumerate() {
            let slot = self.alias.slot_of[r];
            let aliased = slot != NONE && self.alias.slots[slot as usize].occupants > 1;
            for v in (0..=res.last_version).filter(|&v| touched[r][v as usize]) {
                let mut attrs = format!("label=\"{} v{v}", escape(&res.name));
                if aliased {
                    let _ = write!(
                        attrs,
                        "\\nslot {slot} (aliased)\", style=filled, fillcolor={}",
                        SLOT_COLOURS[slot as usize % SLOT_COLOURS.len()]
                    );
                } else {
                    attrs.push('"');
                }
                if res.is_imported() {
                    attrs.push_str(", peripheries=2");
                }
                if dead[r][v as usize] {
                    attrs.push_str(", color=grey60, fontcolor=grey50");
                }
                let _ = writeln!(out, "  t{r}v{v} [shape=ellipse, {attrs}];");
            }
        }

        for (p, &pos) in position.iter().enumerate() {
            let grey = if pos == NONE { " [color=grey60]" } else { "" };
            for a in pass_accesses(g, p) {
                let (r, v) = (a.resource, a.version);
                if a.kind.is_write() {
                    if a.kind.loads() {
                        let _ = writeln!(out, "  t{r}v{v} -> p{p} [style=dashed, label=\"load\"];");
                    }
                    let _ = writeln!(out, "  p{p} -> t{r}v{} [label=\"{}\"]{grey};", v + 1, a.kind.name());
                } else {
                    let _ = writeln!(out, "  t{r}v{v} -> p{p} [label=\"{}\"]{grey};", a.kind.name());
                }
            }
        }
        out.push_str("}\n");
        out
    }
}
