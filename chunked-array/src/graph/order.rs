//! The static memory-aware task order (like `dask.order`), over the task
//! graph's dependency lists.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Lists of task numbers, one per task, stored as compressed rows: row `t` is
/// `items[start[t]..start[t + 1]]`.
#[derive(Debug, Clone)]
pub(crate) struct Rows {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Rows {
    /// No rows.
    pub(crate) fn new() -> Rows {
        Rows { start: vec![0], items: Vec::new() }
    }

    /// Appends the next row.
    pub(crate) fn push_row(&mut self, row: impl IntoIterator<Item = u32>) {
        self.items.extend(row);
        self.start.push(self.items.len() as u32);
    }

    /// Row `t`.
    #[inline]
    pub(crate) fn row(&self, t: usize) -> &[u32] {
        &self.items[self.start[t] as usize..self.start[t + 1] as usize]
    }

    /// The reverse relation over `n` tasks: row `d` lists every `t` whose row
    /// holds `d`, in increasing `t`, once per occurrence.
    pub(crate) fn transpose(&self, n: usize) -> Rows {
        let mut start = vec![0u32; n + 1];
        for &d in &self.items {
            start[d as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut items = vec![0; self.items.len()];
        for t in 0..n {
            for &d in self.row(t) {
                items[fill[d as usize] as usize] = t as u32;
                fill[d as usize] += 1;
            }
        }
        Rows { start, items }
    }
}

/// Simulates a one-worker run: among ready tasks, first those that free a held
/// block (the last reader of one of their inputs), then other readers, then
/// sources. Frees and sources go by task number (depth-first post-order);
/// other readers last-ready first, so the readers of a block just made run
/// before the work that makes the next one: a transpose of computed blocks
/// (every output reading a piece of every input) cuts each input into its
/// pieces while it is held, instead of holding all inputs until the first
/// output is whole. Returns every task once, inputs before readers.
pub(crate) fn memory_order(deps: &Rows, consumers: &Rows) -> Vec<u32> {
    const FREES: u8 = 0;
    const READS: u8 = 1;
    const SOURCE: u8 = 2;
    let n = deps.start.len() - 1;
    let mut readers_left: Vec<u32> = (0..n).map(|t| consumers.row(t).len() as u32).collect();
    let mut waiting: Vec<u32> = (0..n).map(|t| deps.row(t).len() as u32).collect();
    // (class, rank within the class, task)
    let mut ready: BinaryHeap<Reverse<(u8, u32, u32)>> =
        (0..n).filter(|&t| waiting[t] == 0).map(|t| Reverse((SOURCE, t as u32, t as u32))).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse((_, _, t))) = ready.pop() {
        order.push(t);
        let t = t as usize;
        for &d in deps.row(t) {
            readers_left[d as usize] -= 1;
        }
        for &c in consumers.row(t) {
            waiting[c as usize] -= 1;
            if waiting[c as usize] == 0 {
                let reads = deps.row(c as usize);
                let frees = reads
                    .iter()
                    .any(|&d| readers_left[d as usize] as usize == reads.iter().filter(|&&x| x == d).count());
                let rank = if frees { c } else { u32::MAX - order.len() as u32 };
                ready.push(Reverse((if frees { FREES } else { READS }, rank, c)));
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two sources each read by its own reducer, then a join: the order
    /// finishes one branch (source, its reader) before making the next source.
    #[test]
    fn finishes_a_branch_before_the_next_source() {
        let mut deps = Rows::new();
        deps.push_row([]); // 0: source a
        deps.push_row([]); // 1: source b
        deps.push_row([0]); // 2: reads a
        deps.push_row([1]); // 3: reads b
        deps.push_row([2, 3]); // 4: join
        let consumers = deps.transpose(5);
        assert_eq!(consumers.row(0), &[2]);
        assert_eq!(consumers.row(2), &[4]);
        assert_eq!(memory_order(&deps, &consumers), vec![0, 2, 1, 3, 4]);
    }

    /// A transpose of computed blocks: A and B are made from one source,
    /// and each output reads a piece of both. A's pieces run while A is
    /// held, before B is made, so that A and B are never held together.
    #[test]
    fn cuts_a_block_into_its_pieces_before_making_the_next() {
        let mut deps = Rows::new();
        deps.push_row([]); // 0: source
        deps.push_row([0]); // 1: A
        deps.push_row([0]); // 2: B
        deps.push_row([1]); // 3: piece 0 of A
        deps.push_row([2]); // 4: piece 0 of B
        deps.push_row([1]); // 5: piece 1 of A
        deps.push_row([2]); // 6: piece 1 of B
        deps.push_row([3, 4]); // 7: output 0
        deps.push_row([5, 6]); // 8: output 1
        let order = memory_order(&deps, &deps.transpose(9));
        let at = |t: u32| order.iter().position(|&x| x == t).unwrap();
        assert!(at(3) < at(2) && at(5) < at(2), "{order:?}");
        assert_eq!(order, vec![0, 1, 3, 5, 2, 4, 7, 6, 8]);
    }
}
