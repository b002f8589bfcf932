//! The alert rules of `deploy/alerts.yml`: Prometheus's own checker takes them (`promtool check
//! rules`, where it is installed: always in CI); every alert has an expression, a `for`, a
//! severity, a summary and a runbook naming a section of `docs/RUNBOOK.md` that exists; every
//! metric an expression reads is one a real server serves; and every fault the operator must
//! hear of has its alert.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use noughts_tests::{WAIT, test_config};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use yaml_serde::Value;

/// A file of the repository.
fn repo_file(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
}

/// The alerts every fault an operator must hear of has, by name.
const EXPECTED: [&str; 8] = [
    "NoughtsNodeDown",
    "NoughtsDependencyDown",
    "NoughtsDependencySlow",
    "NoughtsNodeNotReady",
    "NoughtsLeasesLost",
    "NoughtsGamesPaused",
    "NoughtsStoreErrors",
    "NoughtsForgedMessages",
];

/// Series Prometheus makes itself, which no node serves.
const PROMETHEUS_OWN: [&str; 1] = ["up"];

/// The anchor GitHub gives a heading: lowercase, punctuation dropped, spaces as dashes.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The names a PromQL expression reads: every identifier that is not a function, a keyword, a
/// label's name or a string's content.
fn series_in(expr: &str) -> BTreeSet<String> {
    const NOT_SERIES: [&str; 12] = [
        "histogram_quantile",
        "sum",
        "by",
        "rate",
        "increase",
        "le",
        "instance",
        "dependency",
        "job",
        "without",
        "and",
        "or",
    ];
    let mut names = BTreeSet::new();
    let (mut word, mut in_string, mut in_braces) = (String::new(), false, false);
    for c in expr.chars().chain(std::iter::once(' ')) {
        if in_string {
            in_string = c != '"';
            continue;
        }
        if c.is_ascii_alphanumeric() || c == '_' || c == ':' {
            word.push(c);
            continue;
        }
        let starts_like_a_name = word.starts_with(|c: char| c.is_ascii_alphabetic());
        if starts_like_a_name && !in_braces && !NOT_SERIES.contains(&word.as_str()) {
            names.insert(std::mem::take(&mut word));
        }
        word.clear();
        match c {
            '"' => in_string = true,
            '{' => in_braces = true,
            '}' => in_braces = false,
            // A duration in brackets ([5m]) is no name.
            _ => {}
        }
    }
    names.retain(|name| {
        !name
            .chars()
            .all(|c| c.is_ascii_digit() || "smhdwy".contains(c))
    });
    names
}

/// The series names a real server's metrics port serves, counters and histograms with their
/// sample suffixes.
async fn served_names() -> BTreeSet<String> {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let metrics = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = metrics.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(noughts_server::run_with_metrics(
        listener,
        metrics,
        test_config(),
        async move {
            let _ = stopped.await;
        },
    ));
    // The probe runs at once; its series are there within a moment.
    let mut text = String::new();
    for _ in 0..100 {
        let mut stream = TcpStream::connect(at).await.unwrap();
        stream
            .write_all(
                format!("GET /metrics HTTP/1.1\r\nHost: {at}\r\nConnection: close\r\n\r\n")
                    .as_bytes(),
            )
            .await
            .unwrap();
        text.clear();
        tokio::time::timeout(WAIT, stream.read_to_string(&mut text))
            .await
            .expect("a scrape in time")
            .unwrap();
        if text.contains("noughts_dependency_latency_seconds_bucket") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = stop.send(());
    server.await.unwrap().unwrap();
    let mut names = BTreeSet::new();
    for line in text.lines() {
        if let Some(typed) = line.strip_prefix("# TYPE ") {
            let mut words = typed.split_whitespace();
            let (Some(name), Some(kind)) = (words.next(), words.next()) else {
                continue;
            };
            let suffixes: &[&str] = match kind {
                "counter" => &["_total"],
                "histogram" => &["_bucket", "_count", "_sum"],
                _ => &[""],
            };
            names.extend(suffixes.iter().map(|suffix| format!("{name}{suffix}")));
        } else if !line.starts_with('#') {
            let name = line.split(['{', ' ']).next().unwrap_or_default();
            names.insert(name.to_owned());
        }
    }
    names
}

#[test]
fn prometheus_s_checker_takes_the_rules() {
    if Command::new("promtool").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "promtool missing, and CI must check the alert rules with it"
        );
        eprintln!("SKIPPED: promtool is not installed (Debian's prometheus package has it)");
        return;
    }
    let checked = Command::new("promtool")
        .args(["check", "rules"])
        .arg(repo_file("deploy/alerts.yml"))
        .output()
        .expect("run promtool");
    assert!(
        checked.status.success(),
        "promtool refused the rules: {}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
}

#[tokio::test]
async fn every_alert_is_whole_reads_served_series_and_has_its_runbook() {
    let rules = std::fs::read_to_string(repo_file("deploy/alerts.yml")).unwrap();
    let rules: Value = yaml_serde::from_str(&rules).expect("the rules are YAML");
    let runbook = std::fs::read_to_string(repo_file("docs/RUNBOOK.md")).unwrap();
    let sections: BTreeSet<String> = runbook
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
        .map(anchor)
        .collect();
    let served = served_names().await;
    let text = |value: &Value, what: &str| -> String {
        value
            .as_str()
            .map(str::to_owned)
            .or_else(|| value.as_u64().map(|n| n.to_string()))
            .unwrap_or_else(|| panic!("{what} is missing or not text: {value:?}"))
    };
    let mut alerts = BTreeSet::new();
    let groups = rules["groups"].as_sequence().expect("groups");
    for rule in groups
        .iter()
        .flat_map(|g| g["rules"].as_sequence().expect("rules"))
    {
        let name = text(&rule["alert"], "alert");
        let expr = text(&rule["expr"], &format!("{name}'s expr"));
        text(&rule["for"], &format!("{name}'s for"));
        let severity = text(&rule["labels"]["severity"], &format!("{name}'s severity"));
        assert!(
            ["page", "warn"].contains(&severity.as_str()),
            "{name}: {severity}"
        );
        let summary = text(
            &rule["annotations"]["summary"],
            &format!("{name}'s summary"),
        );
        assert!(!summary.trim().is_empty(), "{name}");
        let link = text(
            &rule["annotations"]["runbook"],
            &format!("{name}'s runbook"),
        );
        let section = link
            .strip_prefix("docs/RUNBOOK.md#")
            .unwrap_or_else(|| panic!("{name}'s runbook is not in docs/RUNBOOK.md: {link}"));
        assert!(
            sections.contains(section),
            "{name}'s runbook names no section of docs/RUNBOOK.md: {link} (it has {sections:?})"
        );
        for series in series_in(&expr) {
            assert!(
                served.contains(&series) || PROMETHEUS_OWN.contains(&series.as_str()),
                "{name} reads {series}, which no node serves; they serve {served:?}"
            );
        }
        alerts.insert(name);
    }
    for expected in EXPECTED {
        assert!(alerts.contains(expected), "no alert {expected}");
    }
}

#[test]
fn the_expressions_series_are_found() {
    let expr = r#"histogram_quantile(0.99, sum by (instance, dependency, le) (rate(noughts_dependency_latency_seconds_bucket[5m]))) > 0.25"#;
    assert_eq!(
        series_in(expr),
        BTreeSet::from(["noughts_dependency_latency_seconds_bucket".to_owned()])
    );
    assert_eq!(
        series_in(r#"noughts_dependency_up{dependency=~"redis|postgres"} == 0"#),
        BTreeSet::from(["noughts_dependency_up".to_owned()])
    );
    assert_eq!(
        series_in(r#"up{job="noughts"} == 0"#),
        BTreeSet::from(["up".to_owned()])
    );
    assert_eq!(anchor("NoughtsNodeDown"), "noughtsnodedown");
}
