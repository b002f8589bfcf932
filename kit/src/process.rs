//! A server started as a child process — `noughts-server`, or any program that prints a line
//! `… listening on ws://HOST:PORT` (the echo baseline, a peer's server) — and the addresses it
//! prints: where clients connect, then, when asked for, `metrics at URL`. Its
//! standard output is read on a thread of its own and kept drained, so that the child never
//! blocks on a full pipe.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What a started server said.
#[derive(Debug)]
pub struct Listening {
    /// The URL clients connect to (`ws://…` or `wss://…`).
    pub url: String,
    /// Its metrics URL (`http://HOST:PORT/metrics`), when asked for.
    pub metrics: Option<String>,
}

/// Why a server did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot start {program}: {error}")]
    Spawn {
        program: String,
        error: std::io::Error,
    },
    /// It said nothing of where it listens in time (the last line it said, if any).
    #[error("{program} did not say where it listens (it said {said:?})")]
    NotListening {
        program: String,
        said: Option<String>,
    },
    #[error("{program} did not say where its metrics are (it said {said:?})")]
    NoMetrics {
        program: String,
        said: Option<String>,
    },
}

/// Starts `command` (its standard input closed, its standard output read here) and waits up to
/// `within` for where it listens, and for where its metrics are if `metrics`. The child is
/// killed if it does not say.
pub fn start(
    command: &mut Command,
    metrics: bool,
    within: Duration,
) -> Result<(Child, Listening), StartError> {
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|error| StartError::Spawn {
            program: program.clone(),
            error,
        })?;
    let Some(stdout) = child.stdout.take() else {
        unreachable!("standard output is piped")
    };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            // Keep reading after the addresses, so the child never blocks on a full pipe.
            let _ = tx.send(line);
        }
    });
    // Lines before the addresses (a banner) are passed over.
    let deadline = Instant::now() + within;
    let mut said = None;
    let next = |said: &mut Option<String>| {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .ok();
        said.clone_from(&line);
        line
    };
    let url = loop {
        match next(&mut said) {
            Some(line) => match listening_url(&line) {
                Some(url) => break url,
                None => continue,
            },
            None => {
                stop(&mut child);
                return Err(StartError::NotListening { program, said });
            }
        }
    };
    let metrics = if metrics {
        loop {
            match next(&mut said) {
                Some(line) => match line.trim().strip_prefix("metrics at ") {
                    Some(url) => break Some(url.to_owned()),
                    None => continue,
                },
                None => {
                    stop(&mut child);
                    return Err(StartError::NoMetrics { program, said });
                }
            }
        }
    } else {
        None
    };
    Ok((child, Listening { url, metrics }))
}

fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// The URL of a line `… listening on URL`.
fn listening_url(line: &str) -> Option<String> {
    let (_, url) = line.trim().split_once(" listening on ")?;
    (url.starts_with("ws://") || url.starts_with("wss://")).then(|| url.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_is_read_from_the_listening_line() {
        assert_eq!(
            listening_url("noughts server listening on ws://127.0.0.1:7878\n").as_deref(),
            Some("ws://127.0.0.1:7878")
        );
        assert_eq!(
            listening_url("colyseus listening on wss://localhost:1").as_deref(),
            Some("wss://localhost:1")
        );
        assert_eq!(listening_url("listening on http://x"), None);
        assert_eq!(listening_url("ready"), None);
    }
}
