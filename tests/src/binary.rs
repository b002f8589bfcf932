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
