//! Keeping naga's front ends within a stack: user shader code is measured before naga sees it,
//! and naga runs on a thread whose stack is sized for what the measure lets through.
//!
//! naga's WGSL and GLSL parsers, its lowerer and its validator recurse once (or more) per
//! level of an expression (`!!!!x`, `a+a+a+...`, `v.x.x.x`), of an `else if` chain and of a
//! chain of declarations that name each other (`const c0 = c1; const c1 = c2; ...`). A file
//! within [`MAX_FILE_SIZE`](crate::format::MAX_FILE_SIZE) holds a hundred thousand of any of
//! them, far past any thread's stack: the process aborts, which no `catch_unwind` stops. So:
//!
//! ```text
//!  user code ──measure──▶ nests deeper than MAX_NESTING?      ─▶ MaterialError::TooMany
//!                         more than MAX_DECLARATIONS items?   ─▶ MaterialError::TooMany
//!            ──with_stack(naga parse + validate)──▶ a thread with NAGA_STACK bytes of stack
//! ```
//!
//! The measure is a light scan, not a parse: it over-counts (every operator of a statement
//! counts as a level), which only real shaders far beyond anything written by hand reach.
//! It sees GLSL before naga's preprocessor does, so macros are measured apart: each use of a
//! `#define` may expand to at most [`MAX_MACRO_EXPANSION`] tokens (counted without expanding,
//! so a macro that doubles at every step is refused in microseconds).

/// The most levels code may nest: braces, `else` chains and the operators, brackets and
/// accesses of one statement, together.
pub const MAX_NESTING: usize = 256;

/// The most module-scope declarations (functions, structs, constants, globals) in one module,
/// the engine library's included.
pub const MAX_DECLARATIONS: usize = 2048;

/// The stack naga runs on: room for [`MAX_NESTING`] levels of the deepest-recursing shape
/// (GLSL's constructors, a few kilobytes a level) many times over, even in an unoptimised
/// build. Only the pages used are ever touched.
const NAGA_STACK: usize = 64 << 20;

/// What in a text is past a limit, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Excess {
    /// The byte offset where the limit is passed.
    pub offset: usize,
    /// `MaterialError::TooMany`'s `what`.
    pub what: &'static str,
    /// The count there.
    pub count: usize,
    /// The limit.
    pub limit: usize,
}

/// Where `text` (WGSL or GLSL) first nests deeper than [`MAX_NESTING`] or declares more than
/// [`MAX_DECLARATIONS`] things at module scope. `nested_comments`: WGSL's block comments
/// nest, GLSL's do not.
pub(crate) fn excess(text: &str, nested_comments: bool) -> Option<Excess> {
    let bytes = text.as_bytes();
    // For each open brace (and the module), how many `else`s its current statement chains.
    let mut elses: Vec<usize> = vec![0];
    let mut statement = 0;
    let mut declarations = 0;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let next = bytes.get(i + 1).copied();
        match b {
            b'/' if next == Some(b'/') => {
                i = bytes[i..].iter().position(|&c| c == b'\n').map_or(bytes.len(), |n| i + n);
                continue;
            }
            b'/' if next == Some(b'*') => {
                let mut depth = 0usize;
                while i < bytes.len() {
                    if bytes[i..].starts_with(b"/*") && (depth == 0 || nested_comments) {
                        depth += 1;
                        i += 2;
                    } else if bytes[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                continue;
            }
            b'{' => {
                elses.push(0);
                statement = 0;
            }
            b'}' => {
                if elses.len() > 1 {
                    elses.pop();
                }
                declarations += usize::from(elses.len() == 1);
                statement = 0;
            }
            b';' => {
                if let Some(chain) = elses.last_mut() {
                    *chain = 0;
                }
                declarations += usize::from(elses.len() == 1);
                statement = 0;
            }
            b'e' if bytes[i..].starts_with(b"else")
                && !bytes.get(i + 4).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_')) =>
            {
                if let Some(chain) = elses.last_mut() {
                    *chain += 1;
                }
            }
            b'(' | b'[' | b'.' | b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^' | b'!' | b'~'
            | b'<' | b'>' | b'=' | b'?' => statement += 1,
            _ => {}
        }
        let nesting = elses.len() + elses.iter().sum::<usize>() + statement - 1;
        if nesting > MAX_NESTING {
            return Some(Excess { offset: i, what: "nesting levels", count: nesting, limit: MAX_NESTING });
        }
        if declarations > MAX_DECLARATIONS {
            let (what, limit) = ("module-scope declarations", MAX_DECLARATIONS);
            return Some(Excess { offset: i, what, count: declarations, limit });
        }
        i += 1;
    }
    None
}

/// Runs `f` (naga's parse and validation) on a thread with [`NAGA_STACK`] bytes of stack, or
/// on this one if no thread can be made. A panic in `f` carries on in the caller.
pub(crate) fn with_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let mut f = Some(f);
    let spawned = std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("f3d-naga".into())
            .stack_size(NAGA_STACK)
            .spawn_scoped(scope, || f.take().map(|f| f()));
        thread.ok().map(|t| t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    });
    match (spawned.flatten(), f) {
        (Some(r), _) => r,
        // The thread could not be made, so `f` was never taken.
        (None, Some(f)) => f(),
        (None, None) => unreachable!("the thread took `f` and returned its result"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_nesting_and_declarations() {
        assert_eq!(excess("fn f() -> f32 { return -(1.0 + 2.0) * v.x; }", true), None);
        let deep = format!("fn f() -> f32 {{ return {}1.0; }}", "!".repeat(300));
        let at = deep.find('!').unwrap() + 255;
        assert_eq!(excess(&deep, true).map(|e| (e.what, e.offset)), Some(("nesting levels", at)));
        let chain = format!("fn f() {{ {} {{}} }}", "if a {} else ".repeat(300));
        assert_eq!(excess(&chain, true).map(|e| e.what), Some("nesting levels"));
        let consts: String = (0..3000).map(|i| format!("const c{i} = c{};\n", i + 1)).collect();
        assert_eq!(excess(&consts, true).map(|e| e.what), Some("module-scope declarations"));
        // Comments and statements in sequence do not add up.
        let long = format!("/* {} */ fn f() {{ {} }}", "(((".repeat(200), "a = -b.x;\n".repeat(1000));
        assert_eq!(excess(&long, true), None);
    }

    #[test]
    fn runs_on_a_large_stack() {
        fn depth(n: u64) -> u64 {
            let pad = std::hint::black_box([n; 64]);
            if n == 0 { 0 } else { 1 + depth(n - 1) + pad[0] - n }
        }
        assert_eq!(with_stack(|| depth(20_000)), 20_000);
    }
}

/// The most tokens one use of a GLSL macro may expand to, macros inside it included: far more
/// than any hand-written macro, and few enough that what it expands to stays within naga's
/// stack even if every token is an operator.
pub const MAX_MACRO_EXPANSION: usize = 1024;

/// Where a GLSL `text` first uses a macro (`#define`) that expands to more than
/// [`MAX_MACRO_EXPANSION`] tokens: `#define A1 A0 A0`, `#define A2 A1 A1`, … doubles at each
/// step, and `#define F(a) a+a` does so at each nested use, so a short file can ask naga's
/// preprocessor for millions of tokens and its parser for as many levels. The count follows
/// the C preprocessor's rules closely enough to bound it from above: object-like and
/// function-like macros, arguments substituted by their expanded size, a macro not
/// re-expanded inside itself; every definition of a name counts as its largest, whatever
/// `#if` would choose.
pub(crate) fn macro_excess(text: &str) -> Option<Excess> {
    let lines = logical_lines(text);
    let mut macros = macros::Table::default();
    for (_, line) in &lines {
        if let Some(def) = macros::definition(line) {
            macros.define(def);
        }
    }
    if macros.is_empty() {
        return None;
    }
    for (offset, line) in &lines {
        let directive = line.trim_start().strip_prefix('#').map(str::trim_start);
        // Definitions are not uses; `#if`/`#elif` lines expand their macros too.
        if directive.is_some_and(|d| !d.starts_with("if") && !d.starts_with("elif")) {
            continue;
        }
        let tokens = macros::tokens(line, *offset);
        if let Some((at, count)) = macros.largest_use(&tokens) {
            return Some(Excess {
                offset: at,
                what: "tokens from one macro use",
                count,
                limit: MAX_MACRO_EXPANSION,
            });
        }
    }
    None
}

/// `text`'s lines with `\`-newline continuations joined, each with its starting byte offset
/// (comments left in: the tokeniser skips them within a line; a block comment spanning lines
/// at worst makes its words count as tokens, which only over-counts).
fn logical_lines(text: &str) -> Vec<(usize, std::borrow::Cow<'_, str>)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut joined: Option<(usize, String)> = None;
    for line in text.split_inclusive('\n') {
        let offset = start;
        start += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        if let Some(cont) = body.strip_suffix('\\') {
            joined.get_or_insert_with(|| (offset, String::new())).1.push_str(cont);
            continue;
        }
        match joined.take() {
            Some((at, mut s)) => {
                s.push_str(body);
                out.push((at, std::borrow::Cow::Owned(s)));
            }
            None => out.push((offset, std::borrow::Cow::Borrowed(body))),
        }
    }
    if let Some((at, s)) = joined {
        out.push((at, std::borrow::Cow::Owned(s)));
    }
    out
}

mod macros {
    use std::collections::HashMap;

    use super::MAX_MACRO_EXPANSION;

    /// What a use counts as when its macros call each other deeper than [`MAX_DEPTH`].
    const PAST: u64 = MAX_MACRO_EXPANSION as u64 + 1;

    /// Macros calling macros deeper than this count as past the limit.
    const MAX_DEPTH: usize = 64;

    /// A token: an identifier (its text) or anything else (`None`), at a byte offset.
    pub(super) struct Token<'a> {
        /// The identifier, for words.
        word: Option<&'a str>,
        /// The character, for punctuation (`b'0'` for numbers, 0 for words).
        punct: u8,
        /// Where it starts in the file.
        offset: usize,
    }

    /// The tokens of one line (`offset`: the line's start in the file), comments skipped.
    pub(super) fn tokens(line: &str, offset: usize) -> Vec<Token<'_>> {
        let bytes = line.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii_whitespace() {
                i += 1;
            } else if bytes[i..].starts_with(b"//") {
                break;
            } else if bytes[i..].starts_with(b"/*") {
                i = line[i + 2..].find("*/").map_or(bytes.len(), |e| i + 2 + e + 2);
            } else if b.is_ascii_alphabetic() || b == b'_' {
                let end = line[i..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map_or(bytes.len(), |e| i + e);
                out.push(Token { word: Some(&line[i..end]), punct: 0, offset: offset + i });
                i = end;
            } else if b.is_ascii_digit() {
                let end = line[i..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
                    .map_or(bytes.len(), |e| i + e);
                out.push(Token { word: None, punct: b'0', offset: offset + i });
                i = end;
            } else {
                out.push(Token { word: None, punct: b, offset: offset + i });
                i += line[i..].chars().next().map_or(1, char::len_utf8);
            }
        }
        out
    }

    /// A `#define`: its name, its parameters if function-like, its body's tokens.
    pub(super) struct Definition {
        name: String,
        params: Option<Vec<String>>,
        body: Vec<(Option<String>, u8)>,
    }

    /// The definition on `line`, if it is a `#define`.
    pub(super) fn definition(line: &str) -> Option<Definition> {
        let rest = line.trim_start().strip_prefix('#')?.trim_start().strip_prefix("define")?;
        if !rest.starts_with([' ', '\t']) {
            return None;
        }
        let rest = rest.trim_start();
        let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let (name, mut rest) = rest.split_at(end);
        if name.is_empty() {
            return None;
        }
        // Function-like only when `(` follows the name directly.
        let params = if let Some(after) = rest.strip_prefix('(') {
            let close = after.find(')')?;
            rest = &after[close + 1..];
            Some(after[..close].split(',').map(|p| p.trim().to_owned()).filter(|p| !p.is_empty()).collect())
        } else {
            None
        };
        let body = tokens(rest, 0).into_iter().map(|t| (t.word.map(str::to_owned), t.punct)).collect();
        Some(Definition { name: name.to_owned(), params, body })
    }

    /// Every macro of a file, and the expanded sizes found so far.
    #[derive(Default)]
    pub(super) struct Table {
        /// Each name's definitions (a name may be defined again, under different `#if`s).
        defs: HashMap<String, Vec<Definition>>,
        /// Sizes of object-like macros, and of function-like ones by their arguments' sizes.
        sizes: HashMap<(String, Vec<u64>), u64>,
    }

    impl Table {
        pub(super) fn define(&mut self, def: Definition) {
            self.defs.entry(def.name.clone()).or_default().push(def);
        }

        pub(super) fn is_empty(&self) -> bool {
            self.defs.is_empty()
        }

        /// The first macro use in `tokens` that expands past the limit: where, and to how many
        /// tokens.
        pub(super) fn largest_use(&mut self, tokens: &[Token<'_>]) -> Option<(usize, usize)> {
            let mut i = 0;
            while i < tokens.len() {
                let start = i;
                let size = self.expand_one(tokens, &mut i, &mut Vec::new(), 0);
                if size > MAX_MACRO_EXPANSION as u64 {
                    return Some((tokens[start].offset, usize::try_from(size).unwrap_or(usize::MAX)));
                }
            }
            None
        }

        /// The size of the token at `tokens[*i]` once expanded (a macro with its arguments, if
        /// function-like), advancing `*i` past what it consumed.
        fn expand_one(
            &mut self,
            tokens: &[Token<'_>],
            i: &mut usize,
            active: &mut Vec<String>,
            depth: usize,
        ) -> u64 {
            let t = &tokens[*i];
            *i += 1;
            let Some(word) = t.word else { return 1 };
            let Some(defs) = self.defs.get(word) else { return 1 };
            if active.iter().any(|a| a == word) {
                return 1;
            }
            if depth > MAX_DEPTH {
                return PAST;
            }
            let function_like = defs.iter().any(|d| d.params.is_some());
            let mut args = Vec::new();
            if function_like {
                if tokens.get(*i).is_none_or(|t| t.punct != b'(') {
                    return 1;
                }
                *i += 1;
                let mut level = 0;
                let mut arg = 0u64;
                while let Some(t) = tokens.get(*i) {
                    match t.punct {
                        b'(' => level += 1,
                        b')' if level == 0 => {
                            *i += 1;
                            break;
                        }
                        b')' => level -= 1,
                        b',' if level == 0 => {
                            args.push(arg);
                            arg = 0;
                            *i += 1;
                            continue;
                        }
                        _ => {}
                    }
                    arg = arg.saturating_add(self.expand_one(tokens, i, active, depth + 1));
                }
                args.push(arg);
            }
            let key = (word.to_owned(), args.clone());
            if let Some(&size) = self.sizes.get(&key) {
                return size;
            }
            active.push(word.to_owned());
            let mut largest = 0;
            let count = self.defs[word].len();
            for d in 0..count {
                let size = self.body_size(word, d, &args, active, depth + 1);
                largest = largest.max(size);
            }
            active.pop();
            self.sizes.insert(key, largest);
            largest
        }

        /// The expanded size of definition `d` of `name`, its parameters standing for
        /// arguments of the sizes `args`.
        fn body_size(
            &mut self,
            name: &str,
            d: usize,
            args: &[u64],
            active: &mut Vec<String>,
            depth: usize,
        ) -> u64 {
            let def = &self.defs[name][d];
            let params = def.params.clone().unwrap_or_default();
            let owned: Vec<(Option<String>, u8)> = def.body.clone();
            let tokens: Vec<Token<'_>> =
                owned.iter().map(|(w, p)| Token { word: w.as_deref(), punct: *p, offset: 0 }).collect();
            let mut size = 0u64;
            let mut i = 0;
            while i < tokens.len() {
                if let Some(p) = tokens[i].word.and_then(|w| params.iter().position(|p| p == w)) {
                    size = size.saturating_add(args.get(p).copied().unwrap_or(1));
                    i += 1;
                } else {
                    size = size.saturating_add(self.expand_one(&tokens, &mut i, active, depth));
                }
            }
            size
        }
    }
}
