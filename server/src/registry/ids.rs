//! Ids that are never given twice: players, games and seeks. A lone server counts them itself. A
//! node of a cluster takes them from the cluster in blocks, so no two nodes ever give the same id,
//! and keeps a spare block that is fetched in the background before the current one runs out.

use std::ops::Range;
use std::sync::{Mutex, MutexGuard};

use tokio::sync::Notify;

/// How many ids a node takes from the cluster at once.
pub(crate) const BLOCK: u64 = 1_000;

/// One kind of id.
#[derive(Debug)]
pub(crate) struct Ids {
    inner: Mutex<Blocks>,
    /// Woken when a spare block is wanted.
    want: Notify,
}

impl Default for Ids {
    fn default() -> Ids {
        Ids::new()
    }
}

#[derive(Debug)]
struct Blocks {
    /// The ids left to give from the current block.
    current: Range<u64>,
    /// The next block, once fetched; `None` on a lone server, which counts without end.
    spare: Option<Range<u64>>,
    /// Whether the ids come from the cluster in blocks.
    clustered: bool,
}

impl Ids {
    /// Ids counted from 1, as a lone server does.
    pub(crate) fn new() -> Ids {
        Ids {
            inner: Mutex::new(Blocks {
                current: 1..u64::MAX,
                spare: None,
                clustered: false,
            }),
            want: Notify::new(),
        }
    }

    fn inner(&self) -> MutexGuard<'_, Blocks> {
        self.inner
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// Goes on after `last` (given out before this server started), on a lone server.
    pub(crate) fn continue_after(&self, last: u64) {
        let mut inner = self.inner();
        if !inner.clustered && inner.current.start <= last {
            inner.current.start = last + 1;
        }
    }

    /// A fresh id; `None` only on a node of a cluster that has used up its blocks and could not
    /// get another (the cluster's Redis is out of reach).
    pub(crate) fn next(&self) -> Option<u64> {
        let mut inner = self.inner();
        if inner.current.is_empty() {
            let spare = inner.spare.take();
            self.want.notify_one();
            inner.current = spare?;
        }
        let id = inner.current.start;
        inner.current.start += 1;
        Some(id)
    }

    /// From now on, ids come from blocks the cluster gives: `first` is the first one.
    pub(crate) fn use_blocks(&self, first: Range<u64>) {
        let mut inner = self.inner();
        inner.clustered = true;
        inner.current = first;
        inner.spare = None;
        self.want.notify_one();
    }

    /// Keeps `block` as the next one.
    pub(crate) fn add_spare(&self, block: Range<u64>) {
        self.inner().spare = Some(block);
    }

    /// Waits until a spare block is wanted (none is held).
    pub(crate) async fn spare_wanted(&self) {
        loop {
            if self.inner().spare.is_none() {
                return;
            }
            self.want.notified().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_server_counts_on_after_what_was_stored() {
        let ids = Ids::new();
        assert_eq!(ids.next(), Some(1));
        ids.continue_after(41);
        assert_eq!(ids.next(), Some(42));
        ids.continue_after(5);
        assert_eq!(ids.next(), Some(43));
    }

    #[tokio::test]
    async fn a_node_gives_its_blocks_then_waits_for_the_next() {
        let ids = Ids::new();
        ids.use_blocks(10..12);
        ids.spare_wanted().await;
        assert_eq!((ids.next(), ids.next()), (Some(10), Some(11)));
        assert_eq!(ids.next(), None, "no spare yet: never a reused id");
        ids.add_spare(50..52);
        assert_eq!(ids.next(), Some(50));
        ids.continue_after(1_000);
        assert_eq!(
            ids.next(),
            Some(51),
            "blocks are not moved by the store's last id"
        );
        tokio::time::timeout(std::time::Duration::from_secs(1), ids.spare_wanted())
            .await
            .expect("the spare was used, so another is wanted");
    }
}
