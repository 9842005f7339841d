//! The compiled graph as stable text: one section per compile stage, for snapshot tests,
//! logs and bug reports. Same graph, same text, byte for byte.

use std::fmt::{self, Write};

use f3d_hal::{Color, LoadOp, StoreOp, TextureUsages};

use crate::CompiledGraph;
use crate::builder::Origin;
use crate::compile::alias::PhysicalKey;
use crate::compile::order::{NONE, pass_accesses};
use crate::resource::AccessKind;

pub(crate) fn usage_names(usage: TextureUsages) -> String {
    let names = [
        (TextureUsages::RENDER_ATTACHMENT, "attachment"),
        (TextureUsages::SAMPLED, "sampled"),
        (TextureUsages::COPY_SRC, "copy-src"),
        (TextureUsages::COPY_DST, "copy-dst"),
    ];
    let list: Vec<&str> = names.iter().filter(|(u, _)| usage.contains(*u)).map(|&(_, n)| n).collect();
    list.join(", ")
}

pub(crate) fn shape(key: &PhysicalKey) -> String {
    let mut s = format!("{}x{} {}", key.width, key.height, key.format);
    if key.mip_level_count > 1 {
        let _ = write!(s, " mips={}", key.mip_level_count);
    }
    if key.array_layers > 1 {
        let _ = write!(s, " layers={}", key.array_layers);
    }
    if key.sample_count > 1 {
        let _ = write!(s, " samples={}", key.sample_count);
    }
    s
}

fn color(c: Color) -> String {
    format!("({}, {}, {}, {})", c.r, c.g, c.b, c.a)
}

impl CompiledGraph {
    /// The plan as text, one section per stage: `order` (live passes with their accesses,
    /// loads and derived stores), `culled`, `lifetimes`, `aliasing` (slots, bytes saved),
    /// `barriers` and `final states`. Deterministic: the snapshot tests compare it byte for
    /// byte.
    pub fn dump(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = self.write_dump(&mut out);
        out
    }

    fn write_dump(&self, out: &mut String) -> fmt::Result {
        let g = &self.graph;
        let name_width = g.resources.iter().map(|r| r.name.len()).max().unwrap_or(0);
        let pass_name = |pos: u32| -> &str {
            match self.liveness.schedule.get(pos as usize) {
                Some(&p) => &g.passes[p as usize].name,
                None => "end",
            }
        };
        let culled = self.liveness.live.iter().filter(|&&l| !l).count();
        writeln!(
            out,
            "graph: {} passes ({} culled), {} textures, output {}x{}",
            g.passes.len(),
            culled,
            g.resources.len(),
            self.output_size.0,
            self.output_size.1
        )?;

        writeln!(out, "order:")?;
        for (pos, &p) in self.liveness.schedule.iter().enumerate() {
            let pass = &g.passes[p as usize];
            let alive = if pass.keep_alive { ", kept alive" } else { "" };
            writeln!(out, "  {pos} {} ({}{alive})", pass.name, pass.kind.name())?;
            for (i, a) in pass_accesses(g, p as usize).iter().enumerate() {
                let name = &g.resources[a.resource as usize].name;
                write!(out, "      {:<17} {name:<name_width$} v{}", a.kind.name(), a.version)?;
                if a.kind.is_write() {
                    write!(out, " -> v{}", a.version + 1)?;
                    match a.kind {
                        AccessKind::ColorWrite(LoadOp::Clear(c)) => write!(out, ", clear {}", color(c))?,
                        AccessKind::DepthWrite(LoadOp::Clear(d)) => write!(out, ", clear {d}")?,
                        AccessKind::CopyDestination | AccessKind::ResolveWrite => {}
                        _ => write!(out, ", load")?,
                    }
                    let store = match self.liveness.store[(pass.first_access as usize) + i] {
                        StoreOp::Store => "store",
                        StoreOp::Discard => "discard",
                    };
                    write!(out, ", {store}")?;
                }
                writeln!(out)?;
            }
        }

        writeln!(out, "culled:")?;
        for (pass, _) in g.passes.iter().zip(&self.liveness.live).filter(|&(_, &l)| !l) {
            writeln!(out, "  {}", pass.name)?;
        }

        writeln!(out, "lifetimes:")?;
        for (r, res) in g.resources.iter().enumerate() {
            let origin = match res.origin {
                Origin::Transient(_) => "transient",
                Origin::Imported { .. } => "imported ",
            };
            let output = if res.output && !res.is_imported() { " output" } else { "" };
            write!(out, "  {:<name_width$} {origin}{output} {}", res.name, shape(&self.keys[r]))?;
            if self.lifetimes.first[r] == NONE {
                writeln!(out, ": unused")?;
            } else {
                writeln!(
                    out,
                    ": {} .. {} [{}]",
                    pass_name(self.lifetimes.first[r]),
                    pass_name(self.lifetimes.last[r]),
                    usage_names(self.lifetimes.usage[r])
                )?;
            }
        }

        writeln!(out, "aliasing:")?;
        for (s, slot) in self.alias.slots.iter().enumerate() {
            let names: Vec<&str> = (0..g.resources.len())
                .filter(|&r| self.alias.slot_of[r] == s as u32)
                .map(|r| &*g.resources[r].name)
                .collect();
            writeln!(
                out,
                "  slot {s}: {} [{}] <- {}",
                shape(&slot.key),
                usage_names(slot.usage),
                names.join(", ")
            )?;
        }
        writeln!(
            out,
            "  bytes: {} requested, {} allocated, {} saved",
            self.alias.bytes_requested,
            self.alias.bytes_allocated,
            self.bytes_saved()
        )?;

        writeln!(out, "barriers:")?;
        for (pos, &p) in self.liveness.schedule.iter().enumerate() {
            let transitions = self.barriers.at(pos);
            if transitions.is_empty() {
                continue;
            }
            writeln!(out, "  {}", g.passes[p as usize].name)?;
            for t in transitions {
                let name = &g.resources[t.texture.index as usize].name;
                writeln!(out, "      {name:<name_width$} {:?} -> {:?}", t.before, t.after)?;
            }
        }

        writeln!(out, "final states:")?;
        for (r, res) in g.resources.iter().enumerate() {
            if res.is_imported() || res.output {
                writeln!(out, "  {:<name_width$} {:?}", res.name, self.barriers.final_state[r])?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for CompiledGraph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.dump())
    }
}

impl fmt::Debug for CompiledGraph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.dump())
    }
}
