//! What a process costs: one reading of its CPU time and memory from `/proc`, and the usage
//! between two readings.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Clock ticks per second in `/proc/PID/stat` (`USER_HZ`, 100 on Linux).
const TICKS_PER_SEC: f64 = 100.0;

/// One reading of a process's CPU time and memory.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sample {
    /// User plus system CPU seconds since the process started.
    pub cpu_secs: f64,
    /// Resident memory now (`VmRSS`), KiB.
    pub rss_kib: u64,
    /// Peak resident memory (`VmHWM`), KiB.
    pub peak_rss_kib: u64,
}

impl Sample {
    /// Reads `/proc/PID/{stat,status}`; `None` if the process is gone or this is not Linux.
    pub fn of(pid: u32) -> Option<Sample> {
        let cpu_secs = ProcStat::of(pid)?.cpu_secs;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let kib = |key: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(key))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|n| n.parse().ok())
        };
        Some(Sample {
            cpu_secs,
            rss_kib: kib("VmRSS:")?,
            peak_rss_kib: kib("VmHWM:")?,
        })
    }
}

/// The CPU fields of `/proc/PID/stat`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProcStat {
    /// The parent's process id.
    pub ppid: u32,
    /// User plus system CPU seconds of the process.
    pub cpu_secs: f64,
    /// User plus system CPU seconds of its children that have ended and been waited for.
    pub children_cpu_secs: f64,
}

impl ProcStat {
    /// Reads `/proc/PID/stat`; `None` if the process is gone or this is not Linux.
    pub(crate) fn of(pid: u32) -> Option<ProcStat> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name may hold spaces and parentheses; the fields follow the last ')'.
        let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
        // The fields after the name: ppid is the 2nd; utime, stime, cutime and cstime the
        // 12th to 15th (fields 14 to 17 of the line).
        let ticks = |i: usize| Some(fields.get(i)?.parse::<f64>().ok()? / TICKS_PER_SEC);
        Some(ProcStat {
            ppid: fields.get(1)?.parse().ok()?,
            cpu_secs: ticks(11)? + ticks(12)?,
            children_cpu_secs: ticks(13)? + ticks(14)?,
        })
    }
}

/// A process's use of the machine over a window.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Usage {
    /// User plus system CPU seconds spent in the window.
    pub cpu_secs: f64,
    /// `cpu_secs` over the window: 1.0 is one core busy all the time.
    pub cores: f64,
    /// Resident memory at the end of the window, KiB.
    pub rss_kib: u64,
    /// Peak resident memory of the process's life, KiB.
    pub peak_rss_kib: u64,
}

impl Usage {
    /// The use between two samples of one process.
    pub fn between(start: Sample, end: Sample, window: Duration) -> Usage {
        let cpu_secs = (end.cpu_secs - start.cpu_secs).max(0.0);
        Usage {
            cpu_secs,
            cores: cpu_secs / window.as_secs_f64().max(1e-9),
            rss_kib: end.rss_kib,
            peak_rss_kib: end.peak_rss_kib,
        }
    }
}
