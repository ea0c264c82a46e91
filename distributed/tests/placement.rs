//! Placement covers every block exactly once, is balanced, and agrees with its inverse.

use chunked_distributed::{owned_range, owner_of};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn ranges_partition_and_invert(blocks in 0usize..500, ranks in 1usize..70) {
        let mut next = 0;
        for r in 0..ranks {
            let range = owned_range(blocks, ranks, r);
            prop_assert_eq!(range.start, next);
            prop_assert!(range.len() == blocks / ranks || range.len() == blocks / ranks + 1);
            for b in range.clone() {
                prop_assert_eq!(owner_of(b, blocks, ranks), r);
            }
            next = range.end;
        }
        prop_assert_eq!(next, blocks);
    }
}
