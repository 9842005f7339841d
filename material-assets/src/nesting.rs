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
//! It sees GLSL before naga's preprocessor does, so a `#define` that expands to more than the
//! limits (or exponentially, through other macros) gets past it: a known gap of
//! [`ShaderMaterial::from_glsl`](crate::ShaderMaterial::from_glsl).

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
