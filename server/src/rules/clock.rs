//! A game's chess clock: time left per side, and which side's time is running.
//!
//! The game decides when a clock starts: only once the side to move has been sent the update that
//! says so, and never while that side's player is disconnected.

use std::time::{Duration, Instant};

use noughts_protocol::{ClockSpec, Clocks, Mark};

/// Time controls for one game.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Clock {
    /// The time control, for snapshots and rematches.
    pub spec: ClockSpec,
    /// Time left for X and O, as of the last start or stop.
    left: [Duration; 2],
    /// The side whose time runs, and since when.
    running: Option<(Mark, Instant)>,
}

fn index(mark: Mark) -> usize {
    match mark {
        Mark::X => 0,
        Mark::O => 1,
    }
}

impl Clock {
    pub(crate) fn new(spec: ClockSpec) -> Clock {
        let initial = Duration::from_millis(spec.initial_ms);
        Clock {
            spec,
            left: [initial; 2],
            running: None,
        }
    }

    /// A clock as it stood after the last stored move: each side's time left, if it has moved.
    /// Nothing runs; time the server was down is not charged.
    pub(crate) fn restored(spec: ClockSpec, left_ms: [Option<u64>; 2]) -> Clock {
        let mut clock = Clock::new(spec);
        for (left, stored) in clock.left.iter_mut().zip(left_ms) {
            if let Some(ms) = stored {
                *left = Duration::from_millis(ms);
            }
        }
        clock
    }

    /// Time left for `mark` at `now`, in milliseconds.
    pub(crate) fn left_ms(&self, mark: Mark, now: Instant) -> u64 {
        u64::try_from(self.left(mark, now).as_millis()).unwrap_or(u64::MAX)
    }

    /// Starts `mark`'s time unless it already runs.
    pub(crate) fn start(&mut self, mark: Mark, now: Instant) {
        if self.running.is_none() {
            self.running = Some((mark, now));
        }
    }

    /// Stops whichever side's time runs, charging it the time since it started.
    pub(crate) fn stop(&mut self, now: Instant) {
        if let Some((mark, since)) = self.running.take() {
            let left = &mut self.left[index(mark)];
            *left = left.saturating_sub(now.saturating_duration_since(since));
        }
    }

    /// The side whose time runs.
    pub(crate) fn running(&self) -> Option<Mark> {
        self.running.map(|(mark, _)| mark)
    }

    /// When the running side runs out of time.
    pub(crate) fn flag_at(&self) -> Option<Instant> {
        self.running
            .map(|(mark, since)| since + self.left[index(mark)])
    }

    /// Charges `mark` for the move it just made. Returns false if its time had already run out
    /// (the move is then too late); otherwise adds the increment.
    pub(crate) fn charge_move(&mut self, mark: Mark, now: Instant) -> bool {
        if self.running() == Some(mark) {
            self.stop(now);
        }
        let left = &mut self.left[index(mark)];
        if left.is_zero() {
            return false;
        }
        *left += Duration::from_millis(self.spec.increment_ms);
        true
    }

    /// Time left for `mark` at `now`.
    fn left(&self, mark: Mark, now: Instant) -> Duration {
        let left = self.left[index(mark)];
        match self.running {
            Some((running, since)) if running == mark => {
                left.saturating_sub(now.saturating_duration_since(since))
            }
            _ => left,
        }
    }

    /// The clocks as the protocol shows them.
    pub(crate) fn snapshot(&self, now: Instant) -> Clocks {
        Clocks {
            x_ms: self.left_ms(Mark::X, now),
            o_ms: self.left_ms(Mark::O, now),
            running: self.running(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_the_mover_and_adds_the_increment() {
        let start = Instant::now();
        let mut clock = Clock::new(ClockSpec {
            initial_ms: 1_000,
            increment_ms: 100,
        });
        clock.start(Mark::X, start);
        assert_eq!(clock.flag_at(), Some(start + Duration::from_millis(1_000)));
        let later = start + Duration::from_millis(300);
        assert_eq!(clock.snapshot(later).x_ms, 700);
        assert!(clock.charge_move(Mark::X, later));
        assert_eq!(clock.snapshot(later).x_ms, 800);
        assert_eq!(clock.running(), None);
        clock.start(Mark::O, later);
        assert!(!clock.charge_move(Mark::O, later + Duration::from_secs(2)));
        assert_eq!(clock.snapshot(later).o_ms, 0);
    }
}
