//! The workspace's layout rules, checked on every test run so that they keep holding:
//!
//! 1. no import circle between the modules of a directory (a crate's `src/` or a directory module),
//!    the crate root or `mod.rs` counting as one of them, re-exports followed;
//! 2. no circle between workspace crates, dev-dependencies included;
//! 3. no `.rs` file over 700 lines and no function over 150;
//! 4. `dashmap` named in the server's `registry/` folder only;
//! 5. a `//!` comment atop every file, saying what it holds;
//! 6. ARCHITECTURE.md names every folder of sources, and nothing that does not exist;
//! 7. no `#[path]` include reaching outside its own crate, but for the fuzz invariants listed in
//!    `paths.rs`, which form no circle either;
//! 8. no function parameter that is a tuple standing for several values (`params.rs`).
//!
//! It reads the sources as text: comments and string literals are blanked out first, then paths
//! (`crate::…`, `super::…`, `self::…`, and a directory module's own children) are resolved to the
//! files they lead to.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

mod modules;
mod params;
mod paths;

use modules::Crate;

const MAX_FILE_LINES: usize = 700;
const MAX_FN_LINES: usize = 150;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

/// Every Rust source of the workspace, fuzz targets and benches included.
fn sources() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !matches!(name.as_str(), "target" | "node_modules" | ".git" | "corpus") {
                    walk(&path, out);
                }
            } else if name.ends_with(".rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    for dir in [
        "engine", "protocol", "server", "client", "kit", "tests", "loadgen", "fuzz", "bench",
    ] {
        walk(&workspace().join(dir), &mut out);
    }
    out.sort();
    out
}

fn relative(path: &Path) -> String {
    path.strip_prefix(workspace())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The source with comments, strings and character literals replaced by spaces (newlines kept),
/// so that braces and paths inside them count for nothing.
fn code_of(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, s: &[u8]| {
        for &b in s {
            out.push(if b == b'\n' { '\n' } else { ' ' });
        }
    };
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            let mut j = 0;
            while j < rest.len() {
                if rest[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, &rest[..j]);
            i += j;
        } else if let Some(len) = raw_string(rest) {
            blank(&mut out, &rest[..len]);
            i += len;
        } else if rest[0] == b'"' || rest.starts_with(b"b\"") {
            let start = usize::from(rest[0] == b'b');
            let mut j = start + 1;
            while j < rest.len() && rest[j] != b'"' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest[0] == b'\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            let len = if rest.get(1) == Some(&b'\\') {
                rest.iter()
                    .skip(2)
                    .position(|&b| b == b'\'')
                    .map_or(1, |p| p + 3)
            } else if rest.get(2) == Some(&b'\'') {
                3
            } else {
                // Multi-byte characters: find a closing quote within a few bytes.
                match rest.iter().skip(1).take(5).position(|&b| b == b'\'') {
                    Some(p) if !rest[1..=p].iter().any(|b| b.is_ascii_alphanumeric()) => p + 2,
                    _ => 1,
                }
            };
            blank(&mut out, &rest[..len]);
            i += len;
        } else {
            let ch = text[i..].chars().next().expect("a character");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// The length of a raw string literal (`r"…"`, `r#"…"#`, `br"…"`) at the start of `s`.
fn raw_string(s: &[u8]) -> Option<usize> {
    let mut j = 0;
    if s.first() == Some(&b'b') {
        j += 1;
    }
    if s.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = s[j..].iter().take_while(|&&b| b == b'#').count();
    j += hashes;
    if s.get(j) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = &s[j + 1..];
    let end = body
        .windows(close.len())
        .position(|w| w == close.as_slice())?;
    Some(j + 1 + end + close.len())
}

fn line_of(code: &str, at: usize) -> usize {
    code[..at].bytes().filter(|&b| b == b'\n').count() + 1
}

/// Every function with a body: its name and how many lines it spans.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(p) = code[i..].find("fn ") {
        let at = i + p;
        i = at + 3;
        let word_start =
            at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        if !word_start {
            continue;
        }
        let name: String = code[at + 3..]
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        // The body opens at the first `{` outside parentheses; a `;` first means no body.
        let mut depth = 0i32;
        let mut open = None;
        for (j, &b) in bytes.iter().enumerate().skip(at) {
            match b {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b';' if depth == 0 => break,
                b'{' if depth == 0 => {
                    open = Some(j);
                    break;
                }
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let mut braces = 0i32;
        let mut close = None;
        for (j, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => braces += 1,
                b'}' => {
                    braces -= 1;
                    if braces == 0 {
                        close = Some(j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(close) = close else { continue };
        let start = line_of(code, at);
        found.push((name, start, line_of(code, close) - start + 1));
    }
    found
}

#[test]
fn no_file_over_700_lines_and_no_function_over_150() {
    let mut offenders = Vec::new();
    for path in sources() {
        let text = fs::read_to_string(&path).expect("read a source");
        let lines = text.lines().count();
        if lines > MAX_FILE_LINES {
            offenders.push(format!("{}: {lines} lines", relative(&path)));
        }
        for (name, line, length) in functions(&code_of(&text)) {
            if length > MAX_FN_LINES {
                offenders.push(format!(
                    "{}:{line}: fn {name} is {length} lines",
                    relative(&path)
                ));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "over the size limits ({MAX_FILE_LINES} lines a file, {MAX_FN_LINES} a function):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn dashmap_is_named_in_the_registry_alone() {
    let named: Vec<String> = sources()
        .into_iter()
        .filter(|path| relative(path).starts_with("server/src/"))
        .filter(|path| !relative(path).starts_with("server/src/registry/"))
        .filter(|path| code_of(&fs::read_to_string(path).unwrap()).contains("dashmap"))
        .map(|path| relative(&path))
        .collect();
    assert!(
        named.is_empty(),
        "dashmap is named outside the registry: {named:?}"
    );
}

#[test]
fn every_file_opens_with_what_it_holds() {
    let bare: Vec<String> = sources()
        .into_iter()
        .filter(|path| {
            let text = fs::read_to_string(path).unwrap();
            !text.trim_start().starts_with("//!")
        })
        .map(|path| relative(&path))
        .collect();
    assert!(bare.is_empty(), "files without a `//!` opening: {bare:?}");
}

/// The workspace crates each crate depends on, dev- and build-dependencies included.
fn crate_graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    let members: Vec<String> = root
        .lines()
        .find(|l| l.trim_start().starts_with("members"))
        .expect("a members list")
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    let mut names = BTreeMap::new();
    for member in &members {
        let manifest = fs::read_to_string(workspace().join(member).join("Cargo.toml")).unwrap();
        let name = manifest
            .lines()
            .find_map(|l| l.strip_prefix("name = "))
            .expect("a package name")
            .trim_matches('"')
            .to_owned();
        names.insert(member.clone(), (name, manifest));
    }
    let all: BTreeSet<String> = names.values().map(|(n, _)| n.clone()).collect();
    let mut graph = BTreeMap::new();
    for (name, manifest) in names.values() {
        let mut deps = BTreeSet::new();
        let mut in_deps = false;
        for line in manifest.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                in_deps = line.ends_with("dependencies]");
                continue;
            }
            let dep = line.split(['=', '.', ' ']).next().unwrap_or_default();
            if in_deps && all.contains(dep) && dep != name {
                deps.insert(dep.to_owned());
            }
        }
        graph.insert(name.clone(), deps);
    }
    graph
}

/// The circles of a directed graph, each as the path that closes it.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        found: &mut Vec<Vec<String>>,
    ) {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut circle = path[at..].to_vec();
            circle.push(node.to_owned());
            found.push(circle);
            return;
        }
        if done.contains(node) {
            return;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            visit(next, graph, path, done, found);
        }
        path.pop();
        done.insert(node.to_owned());
    }
    let mut done = BTreeSet::new();
    let mut found = Vec::new();
    for node in graph.keys() {
        visit(node, graph, &mut Vec::new(), &mut done, &mut found);
    }
    found
}

#[test]
fn no_circle_between_workspace_crates() {
    let found = circles(&crate_graph());
    assert!(
        found.is_empty(),
        "crates depending on each other in a circle: {found:?}"
    );
}

#[test]
fn no_import_circle_between_the_modules_of_a_directory() {
    let roots = [
        "engine/src/lib.rs",
        "engine/src/main.rs",
        "protocol/src/lib.rs",
        "server/src/lib.rs",
        "server/src/main.rs",
        "client/src/lib.rs",
        "client/src/main.rs",
        "kit/src/lib.rs",
        "tests/src/lib.rs",
        "loadgen/src/lib.rs",
        "loadgen/src/main.rs",
    ];
    let mut found = Vec::new();
    for root in roots {
        let krate = Crate::read(&workspace().join(root));
        let arrows = krate.arrows();
        // Within each directory: its modules (the root or mod.rs included), each child directory
        // standing for everything under it.
        let parents: BTreeSet<Vec<String>> = krate
            .files
            .keys()
            .filter(|m| {
                krate
                    .files
                    .keys()
                    .any(|o| o.len() > m.len() && o.starts_with(m))
            })
            .cloned()
            .collect();
        for parent in &parents {
            let node = |module: &Vec<String>| -> Option<String> {
                if module == parent {
                    return Some("(mod)".to_owned());
                }
                (module.len() > parent.len() && module.starts_with(parent))
                    .then(|| module[parent.len()].clone())
            };
            let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for (from, targets) in &arrows {
                let Some(a) = node(from) else { continue };
                for target in targets {
                    if let Some(b) = node(target)
                        && a != b
                    {
                        graph.entry(a.clone()).or_default().insert(b);
                    }
                }
            }
            for circle in circles(&graph) {
                found.push(format!("{root} {parent:?}: {}", circle.join(" -> ")));
            }
        }
    }
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

#[test]
fn the_architecture_map_names_every_folder_and_nothing_that_does_not_exist() {
    let map = fs::read_to_string(workspace().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let named: BTreeSet<String> = map
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|word| word.contains('/') && !word.contains(' ') && !word.contains("://"))
        .filter(|word| !word.starts_with("//"))
        .map(str::to_owned)
        .collect();
    let missing: Vec<&String> = named
        .iter()
        .filter(|path| !workspace().join(path).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names what does not exist: {missing:?}"
    );
    // The folders that hold the crates' sources, each named as `folder/`.
    let folders: BTreeSet<String> = sources()
        .into_iter()
        .map(|path| relative(&path))
        .filter(|path| {
            [
                "engine/src/",
                "protocol/src/",
                "server/src/",
                "client/src/",
                "kit/src/",
                "tests/src/",
                "tests/tests/",
                "loadgen/src/",
            ]
            .iter()
            .any(|dir| path.starts_with(dir))
        })
        .filter_map(|path| Some(format!("{}/", Path::new(&path).parent()?.display())))
        .collect();
    let unmapped: Vec<&String> = folders.iter().filter(|f| !named.contains(*f)).collect();
    assert!(
        unmapped.is_empty(),
        "ARCHITECTURE.md's code map leaves out the folders {unmapped:?}"
    );
}
