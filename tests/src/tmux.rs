//! A tmux server of the test's own, to run the interactive `noughts` client in a real terminal,
//! type into it and read its screen back.

use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux server of our own (its own socket), so tests never touch the user's sessions.
#[derive(Debug)]
pub struct Tmux {
    socket: String,
    session: String,
}

impl Tmux {
    pub fn available() -> bool {
        Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    pub fn start(name: &str, width: u16, height: u16, command: &str) -> Tmux {
        let tmux = Tmux {
            socket: format!("noughts-test-{}-{name}", std::process::id()),
            session: name.to_owned(),
        };
        let status = tmux
            .cmd()
            .args(["new-session", "-d", "-s", name, "-x"])
            .arg(width.to_string())
            .arg("-y")
            .arg(height.to_string())
            .arg(command)
            .status()
            .unwrap();
        assert!(status.success(), "tmux starts");
        tmux
    }

    pub fn cmd(&self) -> Command {
        let mut command = Command::new("tmux");
        command.args(["-L", &self.socket]);
        command
    }

    pub fn capture(&self) -> String {
        let output = self
            .cmd()
            .args(["capture-pane", "-p", "-t", &self.session])
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    pub fn send(&self, keys: &str) {
        let status = self
            .cmd()
            .args(["send-keys", "-t", &self.session, keys])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits until the screen satisfies `test` and has settled (two captures a moment apart
    /// agree, so a half-drawn frame is never read), returning it; panics with the screen on
    /// timeout.
    pub async fn wait_for(&self, what: &str, test: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let screen = self.capture();
            if test(&screen) {
                tokio::time::sleep(Duration::from_millis(50)).await;
                if self.capture() == screen {
                    return screen;
                }
                continue;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; the screen:\n{screen}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub fn alive(&self) -> bool {
        self.cmd()
            .args(["has-session", "-t", &self.session])
            .output()
            .is_ok_and(|o| o.status.success())
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd().arg("kill-server").output();
    }
}
