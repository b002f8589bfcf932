//! A crate read as modules: the module path of every file, and which modules each one's code
//! names, following `pub use` re-exports of a module into its children.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use crate::code_of;

/// One crate's modules: the module path of every file (`[]` for the root) and the file's code,
/// read once, comments and strings blanked.
pub(crate) struct Crate {
    pub(crate) files: BTreeMap<Vec<String>, String>,
}

impl Crate {
    pub(crate) fn read(root: &Path) -> Crate {
        let mut files = BTreeMap::new();
        let mut pending = vec![(Vec::new(), root.to_path_buf())];
        while let Some((module, file)) = pending.pop() {
            let code = code_of(&fs::read_to_string(&file).unwrap());
            let dir = if module.is_empty() || file.file_name().is_some_and(|n| n == "mod.rs") {
                file.parent().unwrap().to_path_buf()
            } else {
                file.with_extension("")
            };
            for child in declared_modules(&code) {
                let candidates = [
                    dir.join(format!("{child}.rs")),
                    dir.join(&child).join("mod.rs"),
                ];
                if let Some(found) = candidates.into_iter().find(|c| c.exists()) {
                    let mut path = module.clone();
                    path.push(child);
                    pending.push((path, found));
                }
            }
            files.insert(module, code);
        }
        Crate { files }
    }

    /// The module a path such as `a::b::Item` leads to from `from`, following `pub use` re-exports
    /// of a module into its children.
    fn resolve(&self, from: &[String], path: &[&str]) -> Option<Vec<String>> {
        let mut at: Vec<String> = match path.first()? {
            &"crate" => Vec::new(),
            &"self" => from.to_vec(),
            &"super" => from[..from.len().checked_sub(1)?].to_vec(),
            first
                if self
                    .files
                    .contains_key(&[from, &[first.to_string()]].concat()) =>
            {
                from.to_vec()
            }
            _ => return None,
        };
        let mut rest = &path[usize::from(matches!(path[0], "crate" | "self" | "super"))..];
        while let Some(first) = rest.first() {
            if *first == "super" {
                at.pop();
                rest = &rest[1..];
                continue;
            }
            let mut next = at.clone();
            next.push((*first).to_owned());
            if self.files.contains_key(&next) {
                at = next;
                rest = &rest[1..];
            } else {
                // An item of `at`, perhaps re-exported from one of its children.
                if let Some(child) = reexporter(&self.files[&at], first)
                    && self
                        .files
                        .contains_key(&[at.clone(), vec![child.clone()]].concat())
                {
                    at.push(child);
                }
                break;
            }
        }
        Some(at)
    }

    /// Which modules each module's file names, as module paths.
    pub(crate) fn arrows(&self) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
        let mut arrows = BTreeMap::new();
        for (module, code) in &self.files {
            let code = without_inline_modules(code);
            let mut to = BTreeSet::new();
            for path in paths(&code) {
                let parts: Vec<&str> = path.split("::").collect();
                if let Some(target) = self.resolve(module, &parts)
                    && &target != module
                {
                    to.insert(target);
                }
            }
            arrows.insert(module.clone(), to);
        }
        arrows
    }
}

/// The code without its inline modules (`mod tests { … }`), whose paths start from elsewhere and
/// which are not part of the layout.
fn without_inline_modules(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = find_inline_module(rest) {
        out.push_str(&rest[..at]);
        let open = at + rest[at..].find('{').expect("an inline module's brace");
        let mut depth = 0;
        let mut end = rest.len();
        for (i, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn find_inline_module(code: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(p) = code[from..].find("mod ") {
        let at = from + p;
        from = at + 4;
        if at > 0
            && (code.as_bytes()[at - 1].is_ascii_alphanumeric() || code.as_bytes()[at - 1] == b'_')
        {
            continue;
        }
        let after: String = code[at + 4..]
            .chars()
            .skip_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if after.trim_start().starts_with('{') {
            return Some(at);
        }
    }
    None
}

/// The modules a file declares with `mod name;` (not inline `mod name { … }`).
fn declared_modules(code: &str) -> Vec<String> {
    code.lines()
        .filter_map(|line| {
            let line = line.trim();
            let line = line
                .strip_prefix("pub(crate) ")
                .or_else(|| line.strip_prefix("pub(super) "))
                .or_else(|| line.strip_prefix("pub "))
                .unwrap_or(line);
            let name = line.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_owned())
        })
        .collect()
}

/// The child module from which `code` re-exports `item` (`pub use child::…::item`).
fn reexporter(code: &str, item: &str) -> Option<String> {
    for statement in code.split(';') {
        let statement = statement.trim();
        let Some(rest) = statement
            .strip_prefix("pub use ")
            .or_else(|| statement.strip_prefix("pub(crate) use "))
        else {
            continue;
        };
        let rest = rest.trim_start_matches("self::");
        let words: Vec<&str> = rest
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        if words.len() > 1 && words[1..].contains(&item) {
            return Some(words[0].to_owned());
        }
    }
    None
}

/// Every path in `code` that starts at `crate`, `self` or `super`, or at a name followed by `::`,
/// with `use` groups (`a::{b, c::d}`) expanded.
fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for statement in code.split(';') {
        if let Some(at) = statement.find("use ") {
            let before = &statement[..at];
            if before.trim().is_empty()
                || before.trim_end().ends_with("pub")
                || before.trim_end().ends_with(')')
            {
                expand(statement[at + 4..].trim(), "", &mut out);
                continue;
            }
        }
        let bytes = statement.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b':')
            {
                i += 1;
            }
            let word = &statement[start..i];
            let preceded =
                start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
            if !preceded && word.contains("::") {
                out.push(word.trim_end_matches(':').to_owned());
            }
            i = i.max(start + 1);
        }
    }
    out
}

fn expand(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let prefix = join(prefix, head);
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&inner[start..i], &prefix, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand(&inner[start..], &prefix, out);
    } else if !tree.is_empty() {
        let item = tree.split(" as ").next().unwrap_or(tree).trim();
        out.push(join(prefix, item));
    }
}

fn join(prefix: &str, rest: &str) -> String {
    match (prefix.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_owned(),
        (_, true) => prefix.to_owned(),
        _ => format!("{prefix}::{rest}"),
    }
}
