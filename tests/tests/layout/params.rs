//! Rule 8: no function parameter is a tuple standing for several values, whether it destructures
//! one (`(a, b): (A, B)`) or has a bare tuple for its type (`(A, B)`, `&(A, B)`, `&mut (A, B)`).
//! Several values get a named struct, or are passed one by one. A tuple inside another type
//! (`&[(f64, f64)]`, `Result<(A, B), E>`) is a value of that type and is not counted; a type
//! alias that names a tuple (`type Pair = (A, B)`) is a tuple under another name and is counted.

use std::collections::BTreeSet;
use std::fs;

use crate::{code_of, line_of, relative, sources};

/// The closing bracket matching the opening one at `open`, counting `()`, `[]`, `{}` and `<>`
/// (an arrow's `>` in `->` or `=>` not counting).
fn matching(code: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (j, &b) in code.iter().enumerate().skip(open) {
        let arrow = b == b'>' && j > 0 && matches!(code[j - 1], b'-' | b'=');
        match b {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' | b'>' if !arrow => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return Some(j);
        }
    }
    None
}

/// `text` split at the commas outside any bracket.
fn split_top(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (j, &b) in bytes.iter().enumerate() {
        let arrow = b == b'>' && j > 0 && matches!(bytes[j - 1], b'-' | b'=');
        match b {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' | b'>' if !arrow => depth -= 1,
            b',' if depth == 0 => {
                parts.push(&text[start..j]);
                start = j + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// `text` without the references, lifetimes and `mut` it starts with.
fn unreferenced(text: &str) -> &str {
    let mut text = text.trim_start();
    loop {
        let stripped = text
            .strip_prefix('&')
            .or_else(|| text.strip_prefix("mut "))
            .map(str::trim_start);
        let lifetime = text
            .strip_prefix('\'')
            .map(|rest| rest.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_'));
        match stripped.or(lifetime) {
            Some(rest) => text = rest.trim_start(),
            None => return text,
        }
    }
}

/// Whether `text` (a pattern or a type, references stripped) is a tuple of two or more.
fn is_tuple(text: &str) -> bool {
    let text = unreferenced(text);
    if !text.starts_with('(') {
        return false;
    }
    let Some(close) = matching(text.as_bytes(), 0) else {
        return false;
    };
    split_top(&text[1..close])
        .iter()
        .filter(|part| !part.trim().is_empty())
        .count()
        >= 2
}

/// The colon between a parameter's pattern and its type: the first one outside brackets that is
/// not half of a `::`.
fn type_colon(param: &str) -> Option<usize> {
    let bytes = param.as_bytes();
    let mut depth = 0i32;
    for (j, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' | b'>' => depth -= 1,
            b':' if depth == 0 => {
                let double = bytes.get(j + 1) == Some(&b':') || (j > 0 && bytes[j - 1] == b':');
                if !double {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// The names of the type aliases in `code` that stand for a tuple (`type Pair = (A, B);`).
fn tuple_aliases(code: &str) -> BTreeSet<String> {
    let bytes = code.as_bytes();
    let mut found = BTreeSet::new();
    let mut i = 0;
    while let Some(p) = code[i..].find("type ") {
        let at = i + p;
        i = at + 5;
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let rest = &code[at + 5..];
        let name: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let Some(end) = rest.find(';') else { continue };
        let Some((_, aliased)) = rest[..end].split_once('=') else {
            continue;
        };
        if !name.is_empty() && is_tuple(aliased) {
            found.insert(name);
        }
    }
    found
}

/// Every function whose parameters include a tuple, or a type in `aliases` that names one: its
/// name, the line it starts on, and the offending parameter as written.
fn tuple_parameters(code: &str, aliases: &BTreeSet<String>) -> Vec<(String, usize, String)> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(p) = code[i..].find("fn ") {
        let at = i + p;
        i = at + 3;
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let rest = code[at + 3..].trim_start();
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        let mut after = code.len() - rest.len() + name.len();
        while bytes.get(after).is_some_and(u8::is_ascii_whitespace) {
            after += 1;
        }
        if bytes.get(after) == Some(&b'<') {
            let Some(close) = matching(bytes, after) else {
                continue;
            };
            after = close + 1;
            while bytes.get(after).is_some_and(u8::is_ascii_whitespace) {
                after += 1;
            }
        }
        if bytes.get(after) != Some(&b'(') {
            continue;
        }
        let Some(close) = matching(bytes, after) else {
            continue;
        };
        for param in split_top(&code[after + 1..close]) {
            let param = param.trim();
            let Some(colon) = type_colon(param) else {
                continue;
            };
            let ty = &param[colon + 1..];
            if is_tuple(&param[..colon])
                || is_tuple(ty)
                || aliases.contains(unreferenced(ty).trim())
            {
                let written = param.split_whitespace().collect::<Vec<_>>().join(" ");
                found.push((name.clone(), line_of(code, at), written));
            }
        }
    }
    found
}

#[test]
fn no_function_takes_a_tuple_standing_for_several_values() {
    let codes: Vec<(String, String)> = sources()
        .iter()
        .map(|path| {
            let text = fs::read_to_string(path).expect("read a source");
            (relative(path), code_of(&text))
        })
        .collect();
    let aliases: BTreeSet<String> = codes
        .iter()
        .flat_map(|(_, code)| tuple_aliases(code))
        .collect();
    let mut offenders = Vec::new();
    for (path, code) in &codes {
        for (name, line, param) in tuple_parameters(code, &aliases) {
            offenders.push(format!("{path}:{line}: fn {name}: {param}"));
        }
    }
    assert!(
        offenders.is_empty(),
        "functions taking a tuple for several values (name them in a struct, or pass them one \
         by one):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_tuple_rule_tells_a_tuple_parameter_from_a_tuple_inside_a_type() {
    let flagged = |code: &str| -> Vec<String> {
        tuple_parameters(code, &tuple_aliases(code))
            .into_iter()
            .map(|(name, line, _)| format!("{name}:{line}"))
            .collect()
    };
    let bad = "fn a(x: u8, (b, c): (u8, u8)) {}\n\
               pub(crate) async fn d<T: Into<u8>>(\n    e: T,\n    f: (Option<&str>, Vec<u8>),\n) {}\n\
               fn g(h: &(u8, u8)) -> u8 { 0 }\n\
               fn i<'a>(j: &'a mut (u8, u8));\n\
               fn k(&(l, m): &(u8, u8)) {}\n\
               pub(super) type Pair = (GameId, Kind);\n\
               fn n(&mut self, o: Pair) {}\n";
    assert_eq!(flagged(bad), ["a:1", "d:2", "g:6", "i:7", "k:8", "n:10"]);
    let fine = "fn a(points: &[(f64, f64)], b: Result<(u8, u8), ()>, c: ()) -> (u8, u8) {}\n\
                fn d(e: impl Fn((u8, u8)) -> u8, f: Vec<(u8, u8)>, g: HashMap<u8, (u8, u8)>) {}\n\
                fn h(&self, i: &mut [(u8, u8)], j: Option<(u8, u8)>, k: (u8,)) {}\n\
                let l = |(m, n): (u8, u8)| m + n; fn o(p: fn(u8, u8) -> u8) {}\n\
                type Pairs = Vec<(u8, u8)>;\n\
                fn q(r: Pairs, s: Option<Pair>) {}\n";
    assert_eq!(flagged(fine), Vec::<String>::new());
}
