//! Where things are in a `.ron` file.
//!
//! serde and ron give the material's values but not where each one was written; the semantic
//! checks must point at the parameter, the default or the hint that is wrong, and naga's errors
//! in a `fragment` string must land on the right line of the `.ron`. So after ron has accepted
//! a file, this lenient little parser walks the same text once more and records the byte span
//! of every value, every field name and, for strings, which source byte each decoded byte came
//! from (escapes and all).

/// A byte range in the `.ron` text.
pub(crate) type Span = (usize, usize);

/// One value of the file, with its span and what is inside it.
#[derive(Debug, Default)]
pub(crate) struct Node {
    /// The whole value.
    pub span: Span,
    /// `Name` of `Name(...)` or of a bare identifier (`SourceColor`, `true`).
    pub name: Option<(String, Span)>,
    /// `field: value` entries of a struct-like `(...)`.
    pub fields: Vec<Field>,
    /// Items of a list, a tuple or an enum's tuple variant.
    pub items: Vec<Node>,
    /// For a string literal: the decoded text and, for each of its bytes, the source offset
    /// (one extra entry for the end).
    pub string: Option<StringLiteral>,
}

/// A `name: value` entry.
#[derive(Debug)]
pub(crate) struct Field {
    pub name: String,
    pub name_span: Span,
    pub value: Node,
}

/// A decoded string literal and where each decoded byte came from.
#[derive(Debug, Clone)]
pub(crate) struct StringLiteral {
    pub text: String,
    pub offsets: Vec<usize>,
}

impl Node {
    /// The field called `name`, if written.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The value of the field called `name`, looking through `Some(...)`.
    pub fn value(&self, name: &str) -> Option<&Node> {
        self.field(name).map(|f| f.value.unwrap_some())
    }

    /// `x` for `Some(x)`, otherwise the node itself.
    pub fn unwrap_some(&self) -> &Node {
        match (&self.name, self.items.as_slice()) {
            (Some((n, _)), [inner]) if n == "Some" => inner,
            _ => self,
        }
    }
}

const MAX_DEPTH: usize = 256;

/// Indexes `text`, which ron has accepted. Returns `None` on anything it does not understand
/// (callers then point at the start of the file instead).
pub(crate) fn index(text: &str) -> Option<Node> {
    let mut p = Parser { text, bytes: text.as_bytes(), pos: 0 };
    p.skip_trivia();
    // `#![enable(...)]` extension attributes.
    while p.peek() == Some(b'#') {
        let close = p.text.get(p.pos..)?.find(']')?;
        p.pos += close + 1;
        p.skip_trivia();
    }
    p.value(0)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_trivia(&mut self) {
        loop {
            match (self.peek(), self.bytes.get(self.pos + 1).copied()) {
                (Some(c), _) if c.is_ascii_whitespace() => self.pos += 1,
                (Some(b'/'), Some(b'/')) => {
                    while let Some(c) = self.peek() {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                (Some(b'/'), Some(b'*')) => {
                    let mut depth = 0usize;
                    while self.pos < self.bytes.len() {
                        if self.bytes[self.pos..].starts_with(b"/*") {
                            depth += 1;
                            self.pos += 2;
                        } else if self.bytes[self.pos..].starts_with(b"*/") {
                            depth -= 1;
                            self.pos += 2;
                            if depth == 0 {
                                break;
                            }
                        } else {
                            self.pos += 1;
                        }
                    }
                }
                _ => return,
            }
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip_trivia();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Option<(String, Span)> {
        let start = self.pos;
        if self.bytes[self.pos..].starts_with(b"r#") {
            self.pos += 2;
        }
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
                self.pos += 1;
            } else {
                break;
            }
        }
        let name = self.text.get(start..self.pos)?;
        (self.pos > start).then(|| (name.trim_start_matches("r#").to_owned(), (start, self.pos)))
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_trivia();
        let start = self.pos;
        let c = self.peek()?;
        let mut node = Node::default();
        match c {
            b'"' => node.string = Some(self.string()?),
            b'r' if matches!(self.bytes.get(self.pos + 1), Some(b'"' | b'#')) && !self.raw_ident_ahead() => {
                node.string = Some(self.raw_string()?)
            }
            b'b' if self.bytes.get(self.pos + 1) == Some(&b'"') => {
                self.pos += 1;
                node.string = Some(self.string()?);
            }
            b'\'' => {
                self.pos += 1;
                while let Some(c) = self.peek() {
                    self.pos += 1;
                    if c == b'\\' {
                        self.pos += 1;
                    } else if c == b'\'' {
                        break;
                    }
                }
            }
            b'[' => {
                self.pos += 1;
                node.items = self.items(b']', depth)?;
            }
            b'{' => {
                self.pos += 1;
                loop {
                    if self.eat(b'}') {
                        break;
                    }
                    let key = self.value(depth + 1)?;
                    if !self.eat(b':') {
                        return None;
                    }
                    let value = self.value(depth + 1)?;
                    node.items.push(key);
                    node.items.push(value);
                    self.eat(b',');
                }
            }
            b'(' => {
                self.pos += 1;
                self.body(&mut node, depth)?;
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'r' => {
                node.name = Some(self.ident()?);
                self.skip_trivia();
                if self.peek() == Some(b'(') {
                    self.pos += 1;
                    self.body(&mut node, depth)?;
                }
            }
            c if c.is_ascii_digit() || c == b'-' || c == b'+' || c == b'.' => {
                self.pos += 1;
                while let Some(c) = self.peek() {
                    let exponent_sign =
                        (c == b'-' || c == b'+') && matches!(self.bytes[self.pos - 1], b'e' | b'E');
                    if c.is_ascii_alphanumeric() || c == b'.' || c == b'_' || exponent_sign {
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
            }
            _ => return None,
        }
        node.span = (start, self.pos);
        Some(node)
    }

    /// Whether `r#...` at the cursor is a raw identifier rather than a raw string.
    fn raw_ident_ahead(&self) -> bool {
        let rest = &self.bytes[self.pos..];
        rest.starts_with(b"r#") && rest.get(2).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
    }

    /// The inside of `(...)`: fields or items.
    fn body(&mut self, node: &mut Node, depth: usize) -> Option<()> {
        self.skip_trivia();
        let save = self.pos;
        let looks_like_field = self.peek().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_') && {
            let id = self.ident();
            let colon = id.is_some() && self.eat(b':') && self.peek() != Some(b':');
            self.pos = save;
            colon
        };
        if !looks_like_field {
            node.items = self.items(b')', depth)?;
            return Some(());
        }
        loop {
            if self.eat(b')') {
                return Some(());
            }
            self.skip_trivia();
            let (name, name_span) = self.ident()?;
            if !self.eat(b':') {
                return None;
            }
            let value = self.value(depth + 1)?;
            node.fields.push(Field { name, name_span, value });
            if !self.eat(b',') {
                return self.eat(b')').then_some(());
            }
        }
    }

    fn items(&mut self, close: u8, depth: usize) -> Option<Vec<Node>> {
        let mut items = Vec::new();
        loop {
            if self.eat(close) {
                return Some(items);
            }
            items.push(self.value(depth + 1)?);
            if !self.eat(b',') {
                return self.eat(close).then_some(items);
            }
        }
    }

    fn string(&mut self) -> Option<StringLiteral> {
        self.pos += 1; // the opening quote
        let mut text = String::new();
        let mut offsets = Vec::new();
        loop {
            let at = self.pos;
            let c = self.text.get(self.pos..)?.chars().next()?;
            self.pos += c.len_utf8();
            let decoded = match c {
                '"' => {
                    offsets.push(at);
                    return Some(StringLiteral { text, offsets });
                }
                '\\' => {
                    let e = self.text.get(self.pos..)?.chars().next()?;
                    self.pos += e.len_utf8();
                    match e {
                        'n' => Some('\n'),
                        't' => Some('\t'),
                        'r' => Some('\r'),
                        '0' => Some('\0'),
                        'b' => Some('\u{8}'),
                        'f' => Some('\u{c}'),
                        'x' => {
                            let hex = self.text.get(self.pos..self.pos + 2)?;
                            self.pos += 2;
                            u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)
                        }
                        'u' => {
                            let rest = self.text.get(self.pos..)?;
                            if rest.starts_with('{') {
                                let end = rest.find('}')?;
                                self.pos += end + 1;
                                u32::from_str_radix(rest.get(1..end)?, 16).ok().and_then(char::from_u32)
                            } else {
                                let hex = rest.get(..4)?;
                                self.pos += 4;
                                u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)
                            }
                        }
                        '\n' => {
                            // A line continuation: skip the newline and the next line's indent.
                            while self.peek().is_some_and(|c| c == b' ' || c == b'\t') {
                                self.pos += 1;
                            }
                            None
                        }
                        other => Some(other),
                    }
                }
                other => Some(other),
            };
            if let Some(d) = decoded {
                for _ in 0..d.len_utf8() {
                    offsets.push(at);
                }
                text.push(d);
            }
        }
    }

    fn raw_string(&mut self) -> Option<StringLiteral> {
        self.pos += 1; // r
        let hashes = self.bytes[self.pos..].iter().take_while(|&&c| c == b'#').count();
        self.pos += hashes;
        if self.peek() != Some(b'"') {
            return None;
        }
        self.pos += 1;
        let start = self.pos;
        let closing = format!("\"{}", "#".repeat(hashes));
        let len = self.text.get(start..)?.find(&closing)?;
        let text = self.text.get(start..start + len)?.to_owned();
        self.pos = start + len + closing.len();
        let offsets = (start..=start + len).collect();
        Some(StringLiteral { text, offsets })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_fields_items_and_strings() {
        let text = "#![enable(implicit_some)]\n// c\nMaterial(\n  name: \"a\\nb\", /* x */ list: [1, -2.5e-3, Foo(x: 1)],\n  s: r#\"q\"#, o: Some((a: 1)),\n)";
        let root = index(text).unwrap();
        assert_eq!(root.name.as_ref().unwrap().0, "Material");
        let name = root.value("name").unwrap().string.clone().unwrap();
        assert_eq!(name.text, "a\nb");
        assert_eq!(&text[name.offsets[2]..name.offsets[2] + 1], "b");
        let list = root.value("list").unwrap();
        assert_eq!(list.items.len(), 3);
        assert_eq!(&text[list.items[1].span.0..list.items[1].span.1], "-2.5e-3");
        assert_eq!(list.items[2].field("x").unwrap().name_span.0, text.find("x: 1").unwrap());
        assert_eq!(root.value("s").unwrap().string.as_ref().unwrap().text, "q");
        assert!(root.value("o").unwrap().field("a").is_some());
    }
}
