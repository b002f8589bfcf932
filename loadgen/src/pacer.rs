//! Precise move times for paced scenarios. tokio's timer fires up to a couple of milliseconds
//! late (it rounds deadlines up to whole milliseconds), which would be counted as the server's
//! latency; instead one thread sleeps to each scheduled time and rings that game's bell.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::{Instant, sleep_until};

/// How early a bell may ring and still count as on time.
const SLACK: Duration = Duration::from_micros(100);
/// If a bell goes unheard, the tokio timer takes over this long after the time.
const FALLBACK: Duration = Duration::from_millis(5);

/// The schedule of `count` paced games: game `i` moves at `start + period·i/count + k·period`.
#[derive(Debug)]
pub struct Pacer {
    bells: Vec<Arc<Notify>>,
}

impl Pacer {
    /// Starts the ringing thread; it stops by itself at `end`.
    pub fn start(count: usize, start: Instant, period: Duration, end: Instant) -> Pacer {
        let bells: Vec<Arc<Notify>> = (0..count).map(|_| Arc::new(Notify::new())).collect();
        let ringing = bells.clone();
        let (start, end) = (start.into_std(), end.into_std());
        std::thread::spawn(move || {
            let n = ringing.len().max(1) as u32;
            for slot in 0u64.. {
                let round = u32::try_from(slot / u64::from(n)).unwrap_or(u32::MAX);
                let game = (slot % u64::from(n)) as u32;
                let at = start + period * round + period * game / n;
                if at >= end || ringing.is_empty() {
                    break;
                }
                let now = std::time::Instant::now();
                if at > now {
                    std::thread::sleep(at - now);
                }
                ringing[game as usize].notify_one();
            }
        });
        Pacer { bells }
    }

    /// Game `i`'s bell.
    pub fn bell(&self, i: usize) -> Arc<Notify> {
        self.bells[i].clone()
    }

    /// The first move time of game `i` of `count`.
    pub fn first(start: Instant, period: Duration, i: usize, count: usize) -> Instant {
        start + period * i as u32 / count.max(1) as u32
    }
}

/// Precise alarms at any times, for scenarios whose moves are not on a fixed schedule (the site's
/// games start and end as players find each other): one thread sleeps to the earliest time asked
/// for and rings its bell. It stops when the last handle is dropped.
#[derive(Debug)]
pub struct Alarms {
    asks: std_mpsc::Sender<(std::time::Instant, Arc<Notify>)>,
}

impl Default for Alarms {
    fn default() -> Self {
        let (asks, asked) = std_mpsc::channel::<(std::time::Instant, Arc<Notify>)>();
        std::thread::spawn(move || {
            // Earliest first; the number breaks ties, so that bells need no order.
            let mut due: BinaryHeap<Reverse<(std::time::Instant, u64)>> = BinaryHeap::new();
            let mut bells: HashMap<u64, Arc<Notify>> = HashMap::new();
            let mut next = 0u64;
            loop {
                let asked = match due.peek() {
                    Some(Reverse((at, _))) => {
                        let wait = at.saturating_duration_since(std::time::Instant::now());
                        asked.recv_timeout(wait)
                    }
                    None => asked
                        .recv()
                        .map_err(|_| std_mpsc::RecvTimeoutError::Disconnected),
                };
                match asked {
                    Ok((at, bell)) => {
                        next += 1;
                        due.push(Reverse((at, next)));
                        bells.insert(next, bell);
                    }
                    Err(std_mpsc::RecvTimeoutError::Disconnected) => return,
                    Err(std_mpsc::RecvTimeoutError::Timeout) => {}
                }
                let now = std::time::Instant::now() + SLACK;
                while let Some(Reverse((at, n))) = due.peek().copied()
                    && at <= now
                {
                    due.pop();
                    if let Some(bell) = bells.remove(&n) {
                        bell.notify_one();
                    }
                }
            }
        });
        Alarms { asks }
    }
}

impl Alarms {
    /// Rings `bell` at `at`; wait for it with [`ring`].
    pub fn set(&self, at: Instant, bell: Arc<Notify>) {
        let _ = self.asks.send((at.into_std(), bell));
    }
}

/// Waits until `at`: at once if it has passed, else until the bell rings for it.
pub async fn ring(bell: &Notify, at: Instant) {
    loop {
        if Instant::now() + SLACK >= at {
            return;
        }
        tokio::select! {
            () = bell.notified() => {}
            () = sleep_until(at + FALLBACK) => return,
        }
    }
}
