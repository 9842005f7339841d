//! Source texts and locations in them: the one place that turns byte offsets into the
//! `path:line:col` every diagnostic of this crate carries, and renders the excerpt with a caret.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A text a diagnostic can point into: a `.ron` file, a `fragment_file`, a project include or a
/// file of the engine library. Cheap to clone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceText {
    path: PathBuf,
    text: Arc<str>,
    line_starts: Arc<[usize]>,
}

impl SourceText {
    /// Indexes `text`, which was read from `path` (a display name for library files).
    pub fn new(path: impl Into<PathBuf>, text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self { path: path.into(), text, line_starts: starts.into() }
    }

    /// Where it came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The location of byte `offset` (clamped to the text), `length` bytes long.
    pub fn location(&self, offset: usize, length: usize) -> Location {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset).saturating_sub(1);
        let start = self.line_starts.get(line).copied().unwrap_or(0);
        let end = self.line_starts.get(line + 1).map_or(self.text.len(), |&e| e.saturating_sub(1));
        let line_text = self.text.get(start..end).unwrap_or("").trim_end_matches('\r').to_owned();
        let before = self.text.get(start..offset).unwrap_or("");
        // A line's text leaves out a CR before its end; an offset past that CR (a file that
        // ends in one) is the end of the line.
        let column = (before.chars().count() + 1).min(line_text.chars().count() + 1);
        let rest = line_text.chars().count().saturating_sub(column - 1);
        let length = self
            .text
            .get(offset..offset + length.min(self.text.len() - offset))
            .map_or(1, |s| s.split('\n').next().unwrap_or("").chars().count());
        Location {
            path: self.path.clone(),
            line: line as u32 + 1,
            column: column as u32,
            length: length.clamp(1, rest.max(1)) as u32,
            line_text,
        }
    }

    /// The location of 1-based `line` and `column` (in characters), as ron reports them.
    pub fn location_at(&self, line: usize, column: usize) -> Location {
        let Some(&start) = self.line_starts.get(line.saturating_sub(1)) else {
            return self.location(self.text.len(), 0);
        };
        let line_text = &self.text[start..];
        let offset = line_text
            .char_indices()
            .take_while(|(_, c)| *c != '\n')
            .nth(column.saturating_sub(1))
            .map_or_else(|| line_text.find('\n').unwrap_or(line_text.len()), |(i, _)| i);
        self.location(start + offset, 1)
    }
}

/// A place in a source text: `path:line:column`, with the line's text for the excerpt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file (or a library file's display name such as `<f3d>/lit.wgsl`).
    pub path: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// How many characters the caret underlines (at least 1).
    pub length: u32,
    /// The text of the line, for the excerpt.
    pub line_text: String,
}

impl Location {
    /// A location with no text behind it (a file that could not be read): line 1, column 1.
    pub fn file(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into(), line: 1, column: 1, length: 1, line_text: String::new() }
    }

    /// The rustc-style excerpt: the line with its number, and a caret line under the span.
    pub fn excerpt(&self) -> String {
        if self.line_text.is_empty() {
            return String::new();
        }
        let number = self.line.to_string();
        let pad = " ".repeat(number.len());
        let text: String = self.line_text.chars().map(|c| if c == '\t' { ' ' } else { c }).collect();
        let lead = " ".repeat(self.column.saturating_sub(1) as usize);
        let carets = "^".repeat(self.length.max(1) as usize);
        format!("{pad} |\n{number} | {text}\n{pad} | {lead}{carets}\n")
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.path.display(), self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_lines_and_columns() {
        let s = SourceText::new("a.ron", "ab\ncdé f\n");
        let l = s.location(7, 1);
        assert_eq!((l.line, l.column, l.line_text.as_str()), (2, 4, "cdé f"));
        assert_eq!(s.location(0, 2).to_string(), "a.ron:1:1");
        assert_eq!(s.location(999, 1).line, 3);
        assert_eq!(s.location_at(2, 3).column, 3);
        assert!(s.location(7, 1).excerpt().contains("2 | cdé f\n  |    ^"));
        let cr = SourceText::new("cr.wgsl", "ab\r");
        assert_eq!((cr.location(3, 1).column, cr.location(3, 1).line_text.as_str()), (3, "ab"));
    }
}
