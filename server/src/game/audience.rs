//! A game's audience: both seats' connections, the watchers here and their counts on other
//! nodes, the connections dropped during a send and the players' frames held back; and the
//! sending of one frame, serialised once by the actor, to them all.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use noughts_protocol::{Mark, PlayerId, SeatInfo, Variant};
use tokio::time::Instant;

use super::seat::{Held, Human, Watcher, index};
use crate::metrics::GaugeShare;
use crate::net::outbound::{ConnId, Frame, Outbound, fan_out};
use crate::rules::sitter::Sitter;

/// Everyone a game's updates go to: its seats' connections and its watchers, here and (as counts)
/// on other nodes; the connections that failed during a send, and the players' frames held back.
#[derive(Debug)]
pub(super) struct Audience {
    /// X's seat, then O's: sessions and connections.
    pub(super) seats: [Sitter<Human>; 2],
    /// Everyone watching, by connection, each with its own queue.
    watchers: HashMap<ConnId, Watcher>,
    /// Other nodes' watchers of this game, by node, with when each count came.
    remote_watchers: HashMap<String, (usize, Instant)>,
    /// Seats' connections that failed during a send; handled once the batch settles.
    dropped: Vec<(Mark, ConnId)>,
    /// The players' frames of a move that ends the game, held back to go out with `game_over`.
    held: Option<Held>,
    /// This game's part of the watchers gauge.
    counted: GaugeShare,
}

impl Audience {
    /// The audience of a game seated so, counted in `counted`.
    pub(super) fn new(seats: [Sitter<Human>; 2], counted: GaugeShare) -> Audience {
        Audience {
            seats,
            watchers: HashMap::new(),
            remote_watchers: HashMap::new(),
            dropped: Vec::new(),
            held: None,
            counted,
        }
    }

    /// Adds a watcher on connection `conn`.
    pub(super) fn add_watcher(&mut self, conn: ConnId, watcher: Watcher) {
        self.watchers.insert(conn, watcher);
    }

    /// Removes the watcher on connection `conn`, if there is one.
    pub(super) fn remove_watcher(&mut self, conn: ConnId) -> Option<Watcher> {
        self.watchers.remove(&conn)
    }

    /// Whether connection `conn` watches here.
    pub(super) fn is_watching(&self, conn: ConnId) -> bool {
        self.watchers.contains_key(&conn)
    }

    /// Everyone watching here.
    pub(super) fn watchers(&self) -> impl Iterator<Item = &Watcher> {
        self.watchers.values()
    }

    /// The watchers here, without other nodes'.
    pub(super) fn watchers_here(&self) -> usize {
        self.watchers.len()
    }

    /// Seat `mark`'s connection `conn` failed; handled once the batch settles.
    pub(super) fn drop_seat(&mut self, mark: Mark, conn: ConnId) {
        self.dropped.push((mark, conn));
    }

    /// The latest seat connection that failed and is not handled yet.
    pub(super) fn next_dropped(&mut self) -> Option<(Mark, ConnId)> {
        self.dropped.pop()
    }

    /// The seats with a connection that failed and is not handled yet.
    pub(super) fn dropped_marks(&self) -> Vec<Mark> {
        self.dropped.iter().map(|(mark, _)| *mark).collect()
    }

    /// Sends `frame` at once to every seat's connection and every watcher, holding nothing back
    /// and dropping nobody.
    pub(super) fn tell_everyone(&self, frame: &Frame) {
        for seat in &self.seats {
            if let Sitter::Human(Human { outs, .. }) = seat {
                for out in outs {
                    out.send(frame.clone());
                }
            }
        }
        for watcher in self.watchers.values() {
            watcher.out.send(frame.clone());
        }
    }

    /// Both seats as a listing shows them.
    pub(super) fn seat_infos(&self, variant: Variant) -> [SeatInfo; 2] {
        [self.seats[0].info(variant), self.seats[1].info(variant)]
    }

    /// The watchers here, and those other nodes counted within `fresh`.
    pub(super) fn watcher_count(&mut self, fresh: Duration) -> usize {
        let now = Instant::now();
        self.remote_watchers
            .retain(|_, (_, seen)| now.saturating_duration_since(*seen) < fresh);
        let remote: usize = self.remote_watchers.values().map(|(n, _)| n).sum();
        self.watchers.len() + remote
    }

    /// Node `node` now counts `count` watchers.
    pub(super) fn count_remote(&mut self, node: String, count: usize) {
        self.remote_watchers.insert(node, (count, Instant::now()));
    }

    /// Sets the watchers gauge to this node's watchers.
    pub(super) fn count_watchers(&mut self) {
        self.counted.set(self.watchers.len());
    }

    /// Holds the players' frames back until the next two sends are done (see [`Held`]).
    pub(super) fn hold(&mut self) {
        self.held = Some(Held::default());
    }

    /// Sends `frame` to `out`, the connection of seat `mark` (if it is one), or holds it back
    /// while frames are held; a seat's connection that fails is dropped.
    pub(super) fn send_to(&mut self, mark: Option<Mark>, out: &Outbound, frame: Frame) {
        match &mut self.held {
            Some(held) => held.frames.push((mark, out.clone(), frame)),
            None => {
                if !out.send(frame)
                    && let Some(mark) = mark
                {
                    self.dropped.push((mark, out.conn));
                }
            }
        }
    }

    /// Sends one frame to the seats that are to get it (`to_seats`, X's then O's) and to every
    /// watcher, except connection `skip_conn` and the watchers in `hidden`; whether a watcher
    /// was lost.
    pub(super) async fn send_all(
        &mut self,
        frame: &Frame,
        to_seats: [bool; 2],
        skip_conn: Option<ConnId>,
        hidden: &HashSet<PlayerId>,
    ) -> bool {
        for mark in [Mark::X, Mark::O] {
            if !to_seats[index(mark)] {
                continue;
            }
            if let Sitter::Human(Human { outs, .. }) = &self.seats[index(mark)] {
                let outs: Vec<Outbound> = outs
                    .iter()
                    .filter(|out| Some(out.conn) != skip_conn)
                    .cloned()
                    .collect();
                for out in &outs {
                    self.send_to(Some(mark), out, frame.clone());
                }
            }
        }
        if let Some(held) = &mut self.held {
            held.broadcasts += 1;
            if held.broadcasts == 2 {
                self.release();
            }
        }
        // Collected first: an iterator adapter's closures held across the fan-out's awaits would
        // keep the task from being `Send`.
        let watchers: Vec<(ConnId, &Outbound)> = self
            .watchers
            .iter()
            .filter(|(conn, watcher)| {
                Some(**conn) != skip_conn && !hidden.contains(&watcher.session.player)
            })
            .map(|(conn, watcher)| (*conn, &watcher.out))
            .collect();
        let gone = fan_out(watchers, frame).await;
        for conn in &gone {
            self.watchers.remove(conn);
        }
        !gone.is_empty()
    }

    /// Sends the players' frames held back (see `Held`): each connection's in one write.
    pub(super) fn release(&mut self) {
        let Some(held) = self.held.take() else {
            return;
        };
        let mut frames = held.frames;
        while let Some((mark, out, _)) = frames.first() {
            let (mark, out) = (*mark, out.clone());
            let (mine, rest): (Vec<_>, Vec<_>) = frames
                .into_iter()
                .partition(|(_, other, _)| other.conn == out.conn);
            frames = rest;
            let mine = mine.into_iter().map(|(_, _, frame)| frame).collect();
            if !out.send_many(mine)
                && let Some(mark) = mark
            {
                self.dropped.push((mark, out.conn));
            }
        }
    }
}
