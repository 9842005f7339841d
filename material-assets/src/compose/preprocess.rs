//! The preprocessor: `#include`, and `#ifdef` / `#ifndef` / `#else` / `#endif` / `#define` /
//! `#undef` for variants. Line-based; every line it copies is recorded in the
//! [`ComposedSource`]'s map so naga's spans lead back to the file and line they came from.
//!
//! * `#include <name.wgsl>` searches the engine library, then the including file's folder,
//!   then the project folders, in that order; `#include "name.wgsl"` starts with the including
//!   file's folder.
//! * Each file is included once per module (later includes of it are skipped); including a
//!   file that is still being included is a cycle, reported at the `#include` that closes it.
//! * Every project file read is listed in [`ComposedSource::files`] for hot reload.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{ComposedSource, Origin};
use crate::MaterialError;
use crate::format::load::{read_limited, text_of};
use crate::library;
use crate::source::{Location, SourceText};

/// How deep includes may nest.
const MAX_INCLUDE_DEPTH: usize = 32;

pub(crate) struct Preprocessor<'a> {
    pub defines: HashSet<String>,
    pub include_dirs: &'a [PathBuf],
    pub out: ComposedSource,
    done: HashSet<String>,
    stack: Vec<(String, String)>,
}

struct Cond {
    active: bool,
    parent_active: bool,
    seen_else: bool,
    at: Location,
}

impl<'a> Preprocessor<'a> {
    pub fn new(defines: impl IntoIterator<Item = String>, include_dirs: &'a [PathBuf]) -> Self {
        Self {
            defines: defines.into_iter().collect(),
            include_dirs,
            out: ComposedSource::default(),
            done: HashSet::new(),
            stack: Vec::new(),
        }
    }

    /// Appends text that comes from nowhere a user can edit.
    pub fn generated(&mut self, text: &str) {
        self.out.text.push_str(text);
        if !text.ends_with('\n') {
            self.out.text.push('\n');
        }
    }

    /// Includes library file `name` as if by `#include <name>` at the top level.
    pub fn library(&mut self, name: &str) -> Result<(), MaterialError> {
        let key = format!("lib:{name}");
        if self.done.contains(&key) {
            return Ok(());
        }
        let text = library::file(name).ok_or_else(|| MaterialError::IncludeNotFound {
            at: Location::file(library::display_path(name)),
            name: name.to_owned(),
            searched: vec!["the engine library".into()],
        })?;
        let source = SourceText::new(library::display_path(name), text);
        self.file(key, library::display_path(name), Origin::Text(source), None)
    }

    /// Processes one origin (a file or user code), `dir` being where its own includes start.
    pub fn file(
        &mut self,
        key: String,
        display: String,
        origin: Origin,
        dir: Option<PathBuf>,
    ) -> Result<(), MaterialError> {
        self.done.insert(key.clone());
        self.stack.push((key, display));
        let result = self.lines(origin, dir);
        self.stack.pop();
        result
    }

    fn lines(&mut self, origin: Origin, dir: Option<PathBuf>) -> Result<(), MaterialError> {
        let text = origin.text().to_owned();
        let origin_index = self.out.origins.len();
        self.out.origins.push(origin);
        let mut conds: Vec<Cond> = Vec::new();
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let active = conds.last().is_none_or(|c| c.active);
            let trimmed = line.trim();
            let at = |this: &Self, col: usize, len: usize| {
                this.out.origins[origin_index].location(start + col, len)
            };
            if let Some(directive) = trimmed.strip_prefix('#') {
                let indent = line.len() - line.trim_start().len();
                // `# include <x>` is allowed; `word` is then a prefix of `directive`.
                let directive = directive.trim_start();
                let word = directive.split_whitespace().next().unwrap_or("");
                let arg = directive.get(word.len()..).unwrap_or("").trim();
                match word {
                    "ifdef" | "ifndef" => {
                        let defined = self.defines.contains(arg);
                        conds.push(Cond {
                            active: active && (defined == (word == "ifdef")),
                            parent_active: active,
                            seen_else: false,
                            at: at(self, indent, trimmed.len()),
                        });
                    }
                    "else" => match conds.last_mut() {
                        Some(c) if !c.seen_else => {
                            c.seen_else = true;
                            c.active = c.parent_active && !c.active;
                        }
                        _ => {
                            return Err(MaterialError::Directive {
                                at: at(self, indent, trimmed.len()),
                                message: "`#else` without a matching `#ifdef` or `#ifndef`".into(),
                            });
                        }
                    },
                    "endif" => {
                        if conds.pop().is_none() {
                            return Err(MaterialError::Directive {
                                at: at(self, indent, trimmed.len()),
                                message: "`#endif` without a matching `#ifdef` or `#ifndef`".into(),
                            });
                        }
                    }
                    _ if !active => {}
                    "define" => {
                        self.defines.insert(arg.to_owned());
                    }
                    "undef" => {
                        self.defines.remove(arg);
                    }
                    "include" => {
                        let at = at(self, indent, trimmed.len());
                        self.include(arg, at, dir.as_deref())?;
                    }
                    _ => {
                        return Err(MaterialError::Directive {
                            at: at(self, indent, trimmed.len()),
                            message: format!(
                                "unknown directive `#{word}`; f3d understands #include, #ifdef, #ifndef, #else, #endif, #define and #undef"
                            ),
                        });
                    }
                }
                self.out.text.push('\n');
                continue;
            }
            if active {
                self.out.copy(origin_index, start, line);
            } else {
                self.out.text.push('\n');
            }
        }
        if !text.ends_with('\n') {
            self.out.text.push('\n');
        }
        match conds.pop() {
            Some(c) => Err(MaterialError::Directive {
                at: c.at,
                message: "`#ifdef`/`#ifndef` without `#endif`".into(),
            }),
            None => Ok(()),
        }
    }

    fn include(&mut self, arg: &str, at: Location, dir: Option<&Path>) -> Result<(), MaterialError> {
        let (name, quoted) = match (
            arg.strip_prefix('<').and_then(|a| a.strip_suffix('>')),
            arg.strip_prefix('"').and_then(|a| a.strip_suffix('"')),
        ) {
            (Some(n), _) => (n.trim(), false),
            (_, Some(n)) => (n.trim(), true),
            _ => {
                return Err(MaterialError::Directive {
                    at,
                    message: format!(
                        "`#include {arg}`: write `#include <name.wgsl>` or `#include \"name.wgsl\"`"
                    ),
                });
            }
        };
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            return Err(MaterialError::Directive {
                at,
                message: format!("includes nest deeper than {MAX_INCLUDE_DEPTH}"),
            });
        }
        let mut searched = Vec::new();
        let mut candidates: Vec<PathBuf> = Vec::new();
        if quoted {
            candidates.extend(dir.map(|d| d.join(name)));
        }
        if !quoted && library::file(name).is_some() {
            return self.enter(format!("lib:{name}"), library::display_path(name), at, |_| {
                library::file(name)
                    .map(|text| (Origin::Text(SourceText::new(library::display_path(name), text)), None))
                    .ok_or_else(|| MaterialError::IncludeNotFound {
                        at: Location::file(name),
                        name: name.into(),
                        searched: vec![],
                    })
            });
        }
        searched.push("the engine library".to_owned());
        candidates.extend(dir.map(|d| d.join(name)));
        candidates.extend(self.include_dirs.iter().map(|d| d.join(name)));
        let mut seen = HashSet::new();
        for path in candidates {
            if !seen.insert(path.clone()) {
                continue;
            }
            if path.is_file() {
                let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone()).display().to_string();
                let display = path.display().to_string();
                return self.enter(key, display, at, |_| {
                    let bytes = read_limited(&path, "include", None)?;
                    let text = text_of(&path, &bytes, "include")?;
                    Ok((Origin::Text(SourceText::new(&path, text)), path.parent().map(Path::to_path_buf)))
                });
            }
            searched.push(path.display().to_string());
        }
        Err(MaterialError::IncludeNotFound { at, name: name.to_owned(), searched })
    }

    fn enter(
        &mut self,
        key: String,
        display: String,
        at: Location,
        load: impl FnOnce(&mut Self) -> Result<(Origin, Option<PathBuf>), MaterialError>,
    ) -> Result<(), MaterialError> {
        if let Some(i) = self.stack.iter().position(|(k, _)| *k == key) {
            let mut chain: Vec<String> = self.stack[i..].iter().map(|(_, d)| d.clone()).collect();
            chain.push(display);
            return Err(MaterialError::IncludeCycle { at, chain });
        }
        if self.done.contains(&key) {
            return Ok(());
        }
        let (origin, dir) = load(self)?;
        if let Origin::Text(t) = &origin
            && !key.starts_with("lib:")
        {
            self.out.files.push(t.path().to_owned());
        }
        self.file(key, display, origin, dir)
    }
}
