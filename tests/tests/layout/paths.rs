//! Rule 7: a `#[path]` include stays inside its own crate, where the other rules can see it. The
//! one exception is the fuzz invariants, which cargo-fuzz builds on its own (so they cannot come
//! from a crate) and which the tests run on every `cargo test`: those includes are listed here,
//! and the crates the shared files name count as dependencies of the crate that includes them, so
//! that they too form no circle.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Component, Path, PathBuf};

use crate::{circles, code_of, crate_graph, relative, sources, workspace};

/// The includes allowed to reach outside their crate: (including file, included file).
const SHARED_INVARIANTS: [(&str, &str); 3] = [
    ("protocol/tests/fuzz_decode.rs", "fuzz/invariants/decode.rs"),
    ("tests/tests/fuzz_board.rs", "fuzz/invariants/board.rs"),
    ("tests/tests/fuzz_game.rs", "fuzz/invariants/game.rs"),
];

/// The file each `#[path = "…"]` of `file` leads to, relative to the workspace and with `..`
/// resolved.
fn includes(file: &Path) -> Vec<String> {
    let text = fs::read_to_string(file).unwrap();
    let code = code_of(&text);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("#[path") {
        let at = from + at;
        from = at + 1;
        // The literal itself was blanked in `code`; read it from the text, at the same place.
        let rest = &text[at..];
        let (Some(open), Some(end)) = (rest.find('"'), rest.find(']')) else {
            continue;
        };
        let Some(close) = rest[open + 1..].find('"') else {
            continue;
        };
        if open > end {
            continue;
        }
        let target = file
            .parent()
            .unwrap()
            .join(&rest[open + 1..open + 1 + close]);
        let mut clean = PathBuf::new();
        for part in target.components() {
            match part {
                Component::ParentDir => {
                    clean.pop();
                }
                Component::CurDir => {}
                other => clean.push(other),
            }
        }
        out.push(relative(&clean));
    }
    out
}

/// The crate a workspace file belongs to: its first folder.
fn crate_dir(path: &str) -> &str {
    path.split('/').next().unwrap_or_default()
}

/// A member folder's package name, from its manifest.
fn package(dir: &str) -> Option<String> {
    let manifest = fs::read_to_string(workspace().join(dir).join("Cargo.toml")).ok()?;
    let name = manifest.lines().find_map(|l| l.strip_prefix("name = "))?;
    Some(name.trim_matches('"').to_owned())
}

#[test]
fn no_path_include_reaches_outside_its_crate_but_the_listed_fuzz_invariants() {
    let mut outside = Vec::new();
    let mut seen = BTreeSet::new();
    for file in sources() {
        let from = relative(&file);
        for target in includes(&file) {
            if crate_dir(&from) == crate_dir(&target) {
                continue;
            }
            if SHARED_INVARIANTS.contains(&(from.as_str(), target.as_str())) {
                seen.insert((from.clone(), target));
            } else {
                outside.push(format!("{from} includes {target}"));
            }
        }
    }
    assert!(
        outside.is_empty(),
        "`#[path]` includes reaching outside their crate (depend on the crate, e.g. noughts-kit, \
         instead):\n{}",
        outside.join("\n")
    );
    let stale: Vec<_> = SHARED_INVARIANTS
        .iter()
        .filter(|(a, b)| !seen.contains(&(a.to_string(), b.to_string())))
        .collect();
    assert!(
        stale.is_empty(),
        "listed includes that no longer exist: {stale:?}"
    );
}

#[test]
fn the_shared_fuzz_invariants_form_no_circle_between_crates() {
    let mut graph = crate_graph();
    let crates: BTreeSet<String> = graph.keys().cloned().collect();
    for (from, shared) in SHARED_INVARIANTS {
        // The shared file and what it includes in turn, all compiled into the including crate.
        let mut files = vec![shared.to_owned()];
        let mut i = 0;
        while i < files.len() {
            for next in includes(&workspace().join(&files[i])) {
                if !files.contains(&next) {
                    files.push(next);
                }
            }
            i += 1;
        }
        let includer = package(crate_dir(from)).expect("the including crate's package");
        for file in &files {
            let code = code_of(&fs::read_to_string(workspace().join(file)).unwrap());
            for name in &crates {
                if *name != includer && code.contains(&format!("{}::", name.replace('-', "_"))) {
                    graph.get_mut(&includer).unwrap().insert(name.clone());
                }
            }
        }
    }
    let found = circles(&graph);
    assert!(
        found.is_empty(),
        "crates in a circle once the fuzz invariants' names are counted: {found:?}"
    );
}
