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
}

/// Leaves of at most this many rows, or 10n where that is more. A tall leaf's
/// QR streams its panel from memory for every few columns, so ten short leaves
/// beat one tall one (BENCHMARKS.md, "Figures behind constants"). Leaves of
/// 10n rows and up keep the tree cheap against them.
pub(super) const LEAF_ROWS: usize = 10_000;

impl Tree {
    /// A leaf per row block.
    pub(super) fn new(row_lengths: &[usize], n: usize, arity: usize) -> Tree {
        Tree::with_leaf_cap(row_lengths, n, arity, usize::MAX)
    }

    /// Row blocks taller than `cap` split into near-equal leaves.
    pub(super) fn with_leaf_cap(row_lengths: &[usize], n: usize, arity: usize, cap: usize) -> Tree {
        let mut leaf_rows = Vec::new();
        let mut leaves_of_block = Vec::new();
        let mut leaves = Vec::new();
        for (block, &len) in row_lengths.iter().enumerate() {
            let pieces = len.div_ceil(cap.max(1)).max(1);
            let first = leaves.len();
            let mut start = 0;
            for p in 0..pieces {
                let rows = len / pieces + usize::from(p < len % pieces);
                leaf_rows.push(LeafRows { block, start });
                leaves.push(TreeNode { rows, k: rows.min(n), children: 0..0, parent: 0, offset_in_parent: 0 });
                start += rows;
            }
            leaves_of_block.push(first..leaves.len());
        }
        let mut levels = vec![leaves];
        while levels.last().expect("one level").len() > 1 {
            let below = levels.last_mut().expect("one level");
            let mut above = Vec::new();
            for (g, start) in (0..below.len()).step_by(arity).enumerate() {
                let children = start..(start + arity).min(below.len());
                let mut rows = 0;
                for c in children.clone() {
                    below[c].parent = g;
                    below[c].offset_in_parent = rows;
                    rows += below[c].k;
                }
                above.push(TreeNode { rows, k: rows.min(n), children, parent: 0, offset_in_parent: 0 });
            }
            levels.push(above);
        }
        Tree { n, levels, leaf_rows, leaves_of_block }
    }

    pub(super) fn top(&self) -> usize {
        self.levels.len() - 1
    }

    pub(super) fn root(&self) -> &TreeNode {
        &self.levels[self.top()][0]
    }
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
        let t = Tree::with_leaf_cap(&[25, 4, 0, 10], 2, 2, 10);
        let rows: Vec<usize> = t.levels[0].iter().map(|n| n.rows).collect();
        assert_eq!(rows, vec![9, 8, 8, 4, 0, 10]);
        let starts: Vec<(usize, usize)> = t.leaf_rows.iter().map(|l| (l.block, l.start)).collect();
        assert_eq!(starts, vec![(0, 0), (0, 9), (0, 17), (1, 0), (2, 0), (3, 0)]);
        assert_eq!(t.leaves_of_block, vec![0..3, 3..4, 4..5, 5..6]);
    }
}
