//! The reduction tree of a TSQR, shared by the host and the device TSQR: its
//! leaves (row blocks, or near-equal parts of tall ones) and the levels of
//! stacked R factors above them, up to the root.

use std::ops::Range;

/// One node of the reduction tree.
#[derive(Debug, Clone)]
pub(super) struct TreeNode {
    /// Rows of the matrix this node factors (a row block, or stacked triangles).
    pub(super) rows: usize,
    /// min(rows, n): rows of its R.
    pub(super) k: usize,
    /// Its children in the level below (empty for leaves).
    pub(super) children: Range<usize>,
    /// Its parent in the level above, and where its R starts in the parent's stack.
    pub(super) parent: usize,
    pub(super) offset_in_parent: usize,
}

/// Where a leaf's rows are: a row block of the input, from row `start` of it.
#[derive(Debug, Clone, Copy)]
pub(super) struct LeafRows {
    pub(super) block: usize,
    pub(super) start: usize,
}

#[derive(Debug)]
pub(super) struct Tree {
    pub(super) n: usize,
    /// `levels[0]`: leaves (row blocks, or parts of them); the last level has
    /// one node, the root.
    pub(super) levels: Vec<Vec<TreeNode>>,
    /// Per leaf, its rows of the input.
    pub(super) leaf_rows: Vec<LeafRows>,
    /// Per row block of the input, its leaves.
    pub(super) leaves_of_block: Vec<Range<usize>>,
    /// The ranks holding rows, in the order of their first row block, and
    /// per row block the position of its rank in this list.
    pub(super) ranks: Vec<usize>,
    pub(super) rank_of_block: Vec<usize>,
}

/// Where the copy of the root's plan for the `k`-th rank holding rows sits in
/// the broadcast to those ranks, a binary tree (copy k is made from copy
/// (k - 1) / 2): (level, position in the level), level l holding copies
/// 2^l - 1 .. 2^(l+1) - 1.
pub(super) fn broadcast_slot(k: usize) -> (usize, usize) {
    let level = (k + 1).ilog2() as usize;
    (level, k + 1 - (1 << level))
}

/// Leaves of at most this many rows, or 10n where that is more. A tall leaf's
/// QR streams its panel from memory for every few columns, so ten short leaves
/// beat one tall one (BENCHMARKS.md, "Figures behind constants"). Leaves of
/// 10n rows and up keep the tree cheap against them.
pub(super) const LEAF_ROWS: usize = 10_000;

impl Tree {
    /// A leaf per row block, all on one rank.
    pub(super) fn new(row_lengths: &[usize], n: usize, arity: usize) -> Tree {
        Tree::grouped(row_lengths, &vec![0; row_lengths.len()], n, arity, usize::MAX)
    }

    /// Row blocks taller than `cap` split into near-equal leaves; `owners[b]`
    /// is the rank that holds row block `b`. Groups of `arity` nodes are
    /// factored level by level, first only among the nodes of one rank (a
    /// rank whose nodes are already one passes its node up unchanged), then,
    /// once every rank has one node, among the ranks' nodes in order. Each
    /// rank's rows thus reduce to one R on that rank before anything travels.
    pub(super) fn grouped(row_lengths: &[usize], owners: &[usize], n: usize, arity: usize, cap: usize) -> Tree {
        let mut leaf_rows = Vec::new();
        let mut leaves_of_block = Vec::new();
        let mut leaves = Vec::new();
        let mut groups = Vec::new();
        for (block, &len) in row_lengths.iter().enumerate() {
            let pieces = len.div_ceil(cap.max(1)).max(1);
            let first = leaves.len();
            let mut start = 0;
            for p in 0..pieces {
                let rows = len / pieces + usize::from(p < len % pieces);
                leaf_rows.push(LeafRows { block, start });
                leaves.push(TreeNode { rows, k: rows.min(n), children: 0..0, parent: 0, offset_in_parent: 0 });
                groups.push(owners.get(block).copied().unwrap_or(0));
                start += rows;
            }
            leaves_of_block.push(first..leaves.len());
        }
        let mut levels = vec![leaves];
        while levels.last().expect("one level").len() > 1 {
            let below = levels.last_mut().expect("one level");
            let mut above = Vec::new();
            let mut above_groups = Vec::new();
            for run in combined_runs(&groups) {
                for start in run.clone().step_by(arity) {
                    let children = start..(start + arity).min(run.end);
                    let mut rows = 0;
                    for c in children.clone() {
                        below[c].parent = above.len();
                        below[c].offset_in_parent = rows;
                        rows += below[c].k;
                    }
                    above.push(TreeNode { rows, k: rows.min(n), children, parent: 0, offset_in_parent: 0 });
                    above_groups.push(groups[start]);
                }
            }
            levels.push(above);
            groups = above_groups;
        }
        let mut ranks: Vec<usize> = Vec::new();
        let mut position = std::collections::HashMap::new();
        let rank_of_block = (0..row_lengths.len())
            .map(|b| {
                let r = owners.get(b).copied().unwrap_or(0);
                *position.entry(r).or_insert_with(|| {
                    ranks.push(r);
                    ranks.len() - 1
                })
            })
            .collect();
        Tree { n, levels, leaf_rows, leaves_of_block, ranks, rank_of_block }
    }

    pub(super) fn top(&self) -> usize {
        self.levels.len() - 1
    }

    pub(super) fn root(&self) -> &TreeNode {
        &self.levels[self.top()][0]
    }
}

/// The runs of a level's nodes that the level above combines: the runs of
/// one rank's nodes while some rank has more than one, then the whole level.
fn combined_runs(groups: &[usize]) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let mut start = 0;
    while start < groups.len() {
        let end = start + groups[start..].iter().take_while(|&&g| g == groups[start]).count();
        runs.push(start..end);
        start = end;
    }
    if runs.iter().all(|r| r.len() == 1) { std::iter::once(0..groups.len()).collect() } else { runs }
}

#[cfg(test)]
mod tests {
    use super::Tree;

    #[test]
    fn tree_groups_children_and_offsets() {
        let t = Tree::new(&[5, 5, 2, 5, 5], 3, 2);
        assert_eq!(t.levels.len(), 4);
        assert_eq!(t.levels[0].iter().map(|n| n.k).collect::<Vec<_>>(), vec![3, 3, 2, 3, 3]);
        assert_eq!(t.levels[1].iter().map(|n| n.rows).collect::<Vec<_>>(), vec![6, 5, 3]);
        assert_eq!(t.levels[0][3].offset_in_parent, 2);
        assert_eq!(t.levels[0][4].parent, 2);
        assert_eq!(t.root().rows, 6);
        assert_eq!(t.root().k, 3);
    }

    #[test]
    fn tall_blocks_split_into_near_equal_leaves() {
        let t = Tree::grouped(&[25, 4, 0, 10], &[0; 4], 2, 2, 10);
        let rows: Vec<usize> = t.levels[0].iter().map(|n| n.rows).collect();
        assert_eq!(rows, vec![9, 8, 8, 4, 0, 10]);
        let starts: Vec<(usize, usize)> = t.leaf_rows.iter().map(|l| (l.block, l.start)).collect();
        assert_eq!(starts, vec![(0, 0), (0, 9), (0, 17), (1, 0), (2, 0), (3, 0)]);
        assert_eq!(t.leaves_of_block, vec![0..3, 3..4, 4..5, 5..6]);
    }

    #[test]
    fn broadcast_slots_fill_levels_of_a_binary_tree() {
        let slots: Vec<(usize, usize)> = (0..8).map(super::broadcast_slot).collect();
        assert_eq!(slots, vec![(0, 0), (1, 0), (1, 1), (2, 0), (2, 1), (2, 2), (2, 3), (3, 0)]);
        let t = Tree::grouped(&[4; 5], &[3, 3, 1, 1, 0], 4, 2, 100);
        assert_eq!((t.ranks.clone(), t.rank_of_block.clone()), (vec![3, 1, 0], vec![0, 0, 1, 1, 2]));
    }

    #[test]
    fn each_rank_reduces_its_leaves_before_the_ranks_combine() {
        // Ranks 0, 0, 0, 1, 1, 2: rank 0 has three leaves, rank 1 two, rank 2 one.
        let t = Tree::grouped(&[4; 6], &[0, 0, 0, 1, 1, 2], 4, 2, 100);
        let children = |l: usize| t.levels[l].iter().map(|n| n.children.clone()).collect::<Vec<_>>();
        // Level 1 pairs within ranks; rank 2's leaf passes up alone.
        assert_eq!(children(1), vec![0..2, 2..3, 3..5, 5..6]);
        // Level 2: rank 0 still has two nodes, the others pass up.
        assert_eq!(children(2), vec![0..2, 2..3, 3..4]);
        // Level 3: one node per rank, so the ranks combine in pairs.
        assert_eq!(children(3), vec![0..2, 2..3]);
        assert_eq!(children(4), vec![0..2]);
        assert_eq!(t.top(), 4);
    }
}
