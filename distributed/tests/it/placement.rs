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

use chunked_array::custom::{Deps, Layer, LayerOp};
use chunked_array::random::RandomState;
use chunked_array::runtime::{Block, Deliver, TaskGraph};
use chunked_array::{Array, Chunks, DType};
use chunked_distributed::{Gather, place_tasks, plan_run, traffic};

fn graph(layers: &[Layer]) -> TaskGraph {
    Layer::task_graph(layers).unwrap()
}

/// Sources spread evenly, elementwise work and first-level partials stay with
/// their block: only the reduction's partials cross ranks.
#[test]
fn elementwise_stays_with_its_source() {
    let x = RandomState::new(1).uniform::<f64>(&[1000, 10], [100, 10]).unwrap();
    let y = (&x * 2.0).exp().sum(None).unwrap();
    let g = graph(&[y.layer()]);
    for ranks in [1, 2, 3, 4, 7] {
        let owner = place_tasks(&g, ranks);
        let plan = plan_run(&g, ranks, Deliver::Result, Gather::Root);
        assert_eq!(owner.len(), g.len(), "one owner per task");
        for (t, &own) in owner.iter().enumerate() {
            let (_, block) = g.task_layer_block(t);
            if g.deps(t).is_empty() {
                assert_eq!(own as usize, owner_of(block, 10, ranks), "source {t} over {ranks} ranks");
            }
            if !plan.destinations[t].is_empty() {
                let name = g.layer_name(t);
                assert!(!name.starts_with("random"), "a source block travels: {name}");
            }
        }
        let sent: u64 = traffic(&g, ranks, Deliver::Result, Gather::Root).iter().map(|r| r.bytes).sum();
        // At most one 8-byte partial per block, and the result.
        assert!(sent <= 8 * 11, "{sent} bytes over {ranks} ranks");
    }
}

/// TSQR over ranks: R factors go up, and the root's plan (R⁻¹ here) or W
/// pieces come down; the row blocks and their factors never move, and the
/// volume grows with the ranks only.
#[test]
fn tsqr_moves_only_r_factors() {
    let a = RandomState::new(2).standard_normal::<f64>(&[64_000, 50], [1000, 50]).unwrap();
    let f = chunked_linalg::tsqr(&a, &chunked_linalg::TsqrOptions::default()).unwrap();
    let g = graph(&[f.q.sum(0).unwrap().layer(), f.r.layer()]);
    let r_bytes = 50 * 50 * 8;
    for ranks in [2, 4, 8, 16, 64] {
        let plan = plan_run(&g, ranks, Deliver::Result, Gather::Root);
        let mut crossings = 0;
        for t in 0..g.len() {
            if plan.destinations[t].is_empty() {
                continue;
            }
            let name = g.layer_name(t);
            assert!(
                [
                    "tsqr-leaf",
                    "tsqr-r-part",
                    "tsqr-w-part",
                    "tsqr-q-plan",
                    "tsqr-r",
                    "sum-partial",
                    "sum-combine",
                    "sum"
                ]
                .iter()
                .any(|l| name.starts_with(l)),
                "{name} sent over {ranks} ranks"
            );
            if ["tsqr-leaf", "tsqr-r-part", "tsqr-w-part", "tsqr-q-plan"].iter().any(|l| name.starts_with(l)) {
                assert!(g.estimated_bytes(t) <= r_bytes, "{name}: {} bytes", g.estimated_bytes(t));
                crossings += plan.destinations[t].len();
            }
        }
        // Contiguous row ranges split few tree nodes: at most three R/W
        // crossings per rank boundary up and three down (measured bound; the
        // pair tree of 64 leaves has 6 levels), and the plan goes once to
        // every other rank.
        assert!(crossings <= (2 * 3 + 1) * (ranks - 1), "{crossings} R/W/plan crossings over {ranks} ranks");
    }
}

/// A user's intermediate value with no wire format.
struct Note(f64);

impl chunked_array::runtime::BlockValue for Note {
    fn nbytes(&self) -> usize {
        8
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn into_any(self: std::sync::Arc<Self>) -> std::sync::Arc<dyn std::any::Any + Send + Sync> {
        self
    }
}

/// Each block's sum as a [`Note`].
struct MakeNote;
impl LayerOp for MakeNote {
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[idx[0], 0]);
    }
    fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        Ok(std::sync::Arc::new(Note(chunked_array::custom::block_array::<f64>(inputs[0])?.sum())))
    }
}

/// Block i: notes i and i + 1 (cyclically) added, as a 1-element array.
struct AddNeighbours(usize);
impl LayerOp for AddNeighbours {
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[idx[0]]);
        deps.push(0, &[(idx[0] + 1) % self.0]);
    }
    fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let v = |b: &Block| b.as_any().downcast_ref::<Note>().map_or(f64::NAN, |n| n.0);
        Ok(std::sync::Arc::new(ndarray::ArrayD::from_elem(ndarray::IxDyn(&[1]), v(inputs[0]) + v(inputs[1]))))
    }
}

/// Blocks that cannot travel (a custom layer's values without a wire format)
/// keep every task reading them on one rank, even where readers chain them all.
#[test]
fn untravelled_blocks_keep_their_readers() {
    let x = RandomState::new(3).standard_normal::<f64>(&[100, 4], [10, 4]).unwrap();
    let notes =
        Layer::new("note", DType::Intermediate, Chunks::from_lengths(vec![vec![1; 10]]), &[x.layer()], MakeNote);
    let pairs = Layer::new("pairs", DType::F64, Chunks::from_lengths(vec![vec![1; 10]]), &[notes], AddNeighbours(10));
    let g = graph(&[pairs]);
    let mut tied = 0;
    for ranks in [2, 3, 4] {
        let owner = place_tasks(&g, ranks);
        for t in 0..g.len() {
            for &d in g.deps(t) {
                if !g.can_travel(d as usize) {
                    tied += 1;
                    assert_eq!(
                        owner[t],
                        owner[d as usize],
                        "{} reads {} across ranks",
                        g.layer_name(t),
                        g.layer_name(d as usize)
                    );
                }
            }
        }
    }
    assert!(tied > 0, "the notes were expected to stay where they are made");
    // The chain ties every note and pair to one rank.
    let owner = place_tasks(&g, 4);
    let tied_ranks: std::collections::BTreeSet<u32> =
        (0..g.len()).filter(|&t| !g.deps(t).is_empty()).map(|t| owner[t]).collect();
    assert_eq!(tied_ranks.len(), 1, "{tied_ranks:?}");
}

/// LU's panels and pivot orders, and Cholesky's work blocks, travel: their
/// tasks spread over the ranks.
#[test]
fn lu_and_cholesky_work_spreads_over_ranks() {
    let a = RandomState::new(3).standard_normal::<f64>(&[128, 128], [32, 32]).unwrap();
    let (p, l, u) = chunked_linalg::lu(&a).unwrap();
    let spd = (&a.matmul(&a.t()).unwrap() + &(&Array::<f64>::eye(128, None, 0, 32).unwrap() * 128.0))
        .rechunk([32, 32])
        .unwrap();
    let c = chunked_linalg::cholesky(&spd, true).unwrap();
    for layers in [vec![p.layer(), l.layer(), u.layer()], vec![c.layer()]] {
        let g = graph(&layers);
        assert!((0..g.len()).all(|t| g.can_travel(t)));
        let owner = place_tasks(&g, 4);
        let used: std::collections::BTreeSet<u32> = owner.iter().copied().collect();
        assert!(used.len() > 1, "all {} tasks on one rank", g.len());
    }
}
