//! The workspace's binaries (`noughts-server`, `noughts`, `noughts-loadgen`), for tests that run
//! them as processes. Each is built once per test process with the same cargo and profile that
//! run the tests, so a test never runs a stale binary.

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The path of the workspace binary `name`, built first if need be.
pub fn path(name: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    let built = BUILT.get_or_init(Mutex::default);
    let mut built = built
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let path = profile_dir().join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if !built.iter().any(|b| b == name) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let mut build = Command::new(cargo);
        build
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .args(["build", "--locked", "-p", package_of(name), "--bin", name]);
        // What cargo sets for this test process describes this package; a build script that
        // watches those variables (ring's does) would otherwise run again, and its crate and
        // every crate above it be built again, each time a test builds a binary and each time
        // cargo builds the tests after that.
        for (key, _) in std::env::vars_os() {
            let key = key.to_string_lossy();
            if is_package_variable(&key) {
                build.env_remove(key.as_ref());
            }
        }
        if profile_dir().ends_with("release") {
            build.arg("--release");
        }
        let status = build
            .status()
            .unwrap_or_else(|err| panic!("cannot run cargo to build {name}: {err}"));
        assert!(status.success(), "cargo could not build {name}");
        built.push(name.to_owned());
    }
    assert!(path.exists(), "{} was not built", path.display());
    path
}

/// Whether `key` is one of the variables cargo sets for a package's test or build script.
fn is_package_variable(key: &str) -> bool {
    [
        "CARGO_PKG_",
        "CARGO_MANIFEST_",
        "CARGO_CRATE_",
        "CARGO_BIN_",
    ]
    .iter()
    .any(|prefix| key.starts_with(prefix))
        || ["CARGO_PRIMARY_PACKAGE", "CARGO_TARGET_TMPDIR", "OUT_DIR"].contains(&key)
}

/// The workspace package that builds the binary `name`.
fn package_of(name: &str) -> &'static str {
    match name {
        "noughts" => "noughts-client",
        "noughts-echo" | "noughts-loadgen" => "noughts-loadgen",
        "noughts-engine" => "noughts-engine",
        "noughts-server" => "noughts-server",
        other => panic!("{other} is not a binary of this workspace"),
    }
}

/// `target/debug` (or `target/release`): where the test executable's own profile puts binaries.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    // target/<profile>/deps/<test>-<hash>
    exe.parent()
        .and_then(|deps| deps.parent())
        .expect("the test executable lives in target/<profile>/deps")
        .to_path_buf()
}
