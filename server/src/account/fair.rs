//! The turns at hashing, shared fairly between addresses: a few hashes run at once, and those
//! waiting are served one address at a time in turn (round robin), each address's own in the
//! order they came. One address's flood of sign-ins then waits behind itself: another
//! address's sign-in waits for at most one hash of each address ahead of it, not for the flood.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use crate::net::network::Network;

/// The turns, a few at a time.
#[derive(Debug, Clone)]
pub(crate) struct FairTurns {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Turns free now. Above zero only while nobody waits (a turn given back goes to the next
    /// waiter first).
    free: usize,
    /// Each waiting address's waiters, oldest first.
    queues: HashMap<Network, VecDeque<oneshot::Sender<Turn>>>,
    /// The addresses with waiters, in the order they are served next.
    order: VecDeque<Network>,
}

/// A turn, given back when dropped.
#[derive(Debug)]
pub(crate) struct Turn {
    /// `None` once it has been handed on.
    inner: Option<Arc<Inner>>,
}

impl FairTurns {
    /// `turns` at once (at least one).
    pub(crate) fn new(turns: usize) -> FairTurns {
        FairTurns {
            inner: Arc::new(Inner {
                state: Mutex::new(State {
                    free: turns.max(1),
                    ..State::default()
                }),
            }),
        }
    }

    /// Waits for a turn for a request from `network`.
    pub(crate) async fn turn(&self, network: Network) -> Turn {
        let waiting = {
            let mut state = self.inner.lock();
            if state.free > 0 {
                state.free -= 1;
                return Turn {
                    inner: Some(self.inner.clone()),
                };
            }
            let (tell, waiting) = oneshot::channel();
            let queue = state.queues.entry(network).or_default();
            let first = queue.is_empty();
            queue.push_back(tell);
            if first {
                state.order.push_back(network);
            }
            waiting
        };
        // The sender is dropped unanswered only with the turns themselves.
        waiting.await.unwrap_or(Turn { inner: None })
    }

    /// How many requests wait, for each address (for tests and metrics).
    #[cfg(test)]
    fn waiting(&self, network: Network) -> usize {
        self.inner
            .lock()
            .queues
            .get(&network)
            .map_or(0, VecDeque::len)
    }
}

impl Inner {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A turn given back: to the next address's oldest waiter still waiting, else free.
    fn give_back(self: &Arc<Inner>) {
        let mut state = self.lock();
        loop {
            let Some(network) = state.order.pop_front() else {
                state.free += 1;
                return;
            };
            let Some(queue) = state.queues.get_mut(&network) else {
                continue;
            };
            let next = queue.pop_front();
            if queue.is_empty() {
                state.queues.remove(&network);
            } else {
                state.order.push_back(network);
            }
            let Some(next) = next else {
                continue;
            };
            let turn = Turn {
                inner: Some(self.clone()),
            };
            match next.send(turn) {
                Ok(()) => return,
                // That waiter is gone: the turn goes to the next one.
                Err(mut unsent) => drop(unsent.inner.take()),
            }
        }
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.take() {
            inner.give_back();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{IpAddr, Ipv4Addr};

    fn net(last: u8) -> Network {
        Network::of(IpAddr::V4(Ipv4Addr::new(192, 0, 2, last)))
    }

    #[tokio::test]
    async fn a_flood_from_one_address_waits_behind_itself() {
        let turns = FairTurns::new(1);
        let held = turns.turn(net(1)).await;
        let (done, mut order) = tokio::sync::mpsc::unbounded_channel();
        let mut tasks = Vec::new();
        for i in 0..20 {
            let (turns, done) = (turns.clone(), done.clone());
            tasks.push(tokio::spawn(async move {
                let _turn = turns.turn(net(1)).await;
                done.send(("flood", i)).unwrap();
            }));
            tokio::task::yield_now().await;
        }
        while turns.waiting(net(1)) < 20 {
            tokio::task::yield_now().await;
        }
        let (other, done2) = (turns.clone(), done.clone());
        tasks.push(tokio::spawn(async move {
            let _turn = other.turn(net(2)).await;
            done2.send(("other", 0)).unwrap();
        }));
        while turns.waiting(net(2)) < 1 {
            tokio::task::yield_now().await;
        }
        drop(held);
        for task in tasks {
            task.await.unwrap();
        }
        drop(done);
        let mut served = Vec::new();
        while let Some(next) = order.recv().await {
            served.push(next);
        }
        let place = served.iter().position(|(who, _)| *who == "other").unwrap();
        assert!(
            place <= 1,
            "the other address is served second at the latest: {served:?}"
        );
        let flood: Vec<i32> = served
            .iter()
            .filter(|s| s.0 == "flood")
            .map(|s| s.1)
            .collect();
        assert_eq!(
            flood,
            (0..20).collect::<Vec<_>>(),
            "one address's in the order they came"
        );
    }

    #[tokio::test]
    async fn a_waiter_that_gives_up_passes_its_turn_on() {
        let turns = FairTurns::new(1);
        let held = turns.turn(net(1)).await;
        let gone = {
            let turns = turns.clone();
            tokio::spawn(async move { turns.turn(net(2)).await })
        };
        while turns.waiting(net(2)) < 1 {
            tokio::task::yield_now().await;
        }
        gone.abort();
        let _ = gone.await;
        drop(held);
        let next = tokio::time::timeout(std::time::Duration::from_secs(5), turns.turn(net(3)));
        assert!(next.await.is_ok(), "the turn was not lost");
    }
}
