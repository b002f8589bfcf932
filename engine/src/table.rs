//! The search's transposition table: what was found about a position, kept by its key.

const EMPTY: u64 = 0;
pub(crate) const EXACT_BOUND: u64 = 1;
pub(crate) const LOWER: u64 = 2;
pub(crate) const UPPER: u64 = 3;

/// The transposition table: buckets of two slots. The first keeps the deepest result seen for
/// its index (a shallower one replaces it only when it is for the same position, or when the
/// kept one is from an earlier search), so the work of deep searches survives the many shallow
/// stores near the leaves and the table can be kept from move to move; the second always takes
/// the newest. A slot is a key word and a data word (score, depth, bound, best move, search
/// generation), zero when empty.
#[derive(Debug)]
pub(crate) struct Table {
    /// `[key, data]` pairs, two per bucket.
    slots: Vec<[u64; 2]>,
    /// `slots.len() - 2`: masks an index down to the first slot of its bucket.
    mask: usize,
    /// The search now storing: an entry of an earlier one gives way to any new one.
    pub(crate) generation: u8,
}

impl Table {
    pub(crate) fn new(bits: u32) -> Table {
        let bits = bits.max(1);
        Table {
            slots: vec![[0u64; 2]; 1 << bits],
            mask: (1 << bits) - 2,
            generation: 0,
        }
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        let mixed = (key ^ (key >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (mixed >> 20) as usize & self.mask
    }

    /// `(score, depth, bound, best)` stored for `key`.
    #[inline(always)]
    pub(crate) fn probe(&self, key: u64) -> Option<(i32, i32, u64, usize)> {
        let at = self.index(key);
        let [stored, data] = if self.slots[at][0] == key {
            self.slots[at]
        } else {
            self.slots[at + 1]
        };
        if stored != key || data & 0x3 << 24 == EMPTY {
            return None;
        }
        let score = (data & 0xffff) as u16 as i16 as i32;
        let depth = ((data >> 16) & 0xff) as i32;
        let bound = (data >> 24) & 0x3;
        let best = ((data >> 32) & 0xff) as usize;
        Some((score, depth, bound, best))
    }

    #[inline(always)]
    pub(crate) fn store(&mut self, key: u64, score: i32, depth: i32, bound: u64, best: usize) {
        let at = self.index(key);
        let data = (score as i16 as u16 as u64)
            | (depth.clamp(0, 255) as u64) << 16
            | bound << 24
            | (best as u64) << 32
            | u64::from(self.generation) << 40;
        let [kept, kept_data] = self.slots[at];
        let kept_depth = ((kept_data >> 16) & 0xff) as i32;
        let kept_old = (kept_data >> 40) as u8 != self.generation;
        if kept == key || kept_data & 0x3 << 24 == EMPTY || depth >= kept_depth || kept_old {
            self.slots[at] = [key, data];
            if self.slots[at + 1][0] == key {
                self.slots[at + 1] = [0, 0];
            }
        } else {
            self.slots[at + 1] = [key, data];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_search_keeps_the_table_but_lets_its_deep_entries_go() {
        let mut table = Table::new(4);
        let a = 1u64;
        table.store(a, 5, 10, EXACT_BOUND, 3);
        table.store(a, 6, 2, LOWER, 4);
        // A shallower result for the same position replaces it.
        assert_eq!(table.probe(a), Some((6, 2, LOWER, 4)));
        table.store(a, 5, 10, EXACT_BOUND, 3);
        // Within a search, a deep entry keeps its slot against shallower ones for other keys.
        let other = (2..1000u64)
            .find(|&k| table.index(k) == table.index(a))
            .unwrap();
        table.store(other, 1, 1, UPPER, 0);
        assert_eq!(table.probe(a), Some((5, 10, EXACT_BOUND, 3)));
        // The next search still finds it, until a new entry needs the slot.
        table.generation += 1;
        assert_eq!(table.probe(a), Some((5, 10, EXACT_BOUND, 3)));
        let third = (other + 1..2000u64)
            .find(|&k| table.index(k) == table.index(a))
            .unwrap();
        table.store(third, 1, 1, UPPER, 0);
        assert_eq!(table.probe(a), None);
        assert_eq!(table.probe(third), Some((1, 1, UPPER, 0)));
    }
}
