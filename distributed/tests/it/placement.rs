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
use chunked_distributed::{Gather, place_tasks, plan_run, rechunk_least_bytes, traffic};

fn graph(layers: &[Layer]) -> TaskGraph {
    Layer::task_graph(layers).unwrap()
}

/// What `build` makes with graphs shaped for `ranks` processes. The process
/// count is process-wide and the tests run on parallel threads: the tests
/// whose graphs depend on it take turns.
fn shaped_for<R>(ranks: usize, build: impl FnOnce() -> R) -> R {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = TURN.lock().unwrap_or_else(|p| p.into_inner());
    let before = chunked_array::runtime::process_count();
    chunked_array::runtime::set_process_count(ranks);
    let built = build();
    chunked_array::runtime::set_process_count(before);
    built
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

/// What crosses ranks in a TSQR graph placed over `ranks`: per layer name,
/// (messages, bytes) to consumers on other ranks (results gathered on rank 0
/// are not counted), and how many ranks run tasks.
fn crossings(g: &TaskGraph, ranks: usize) -> (std::collections::BTreeMap<String, (usize, usize)>, usize) {
    let owner = place_tasks(g, ranks);
    let mut per_layer = std::collections::BTreeMap::<String, (usize, usize)>::new();
    for t in 0..g.len() {
        let mut to: Vec<u32> = g.consumers(t).iter().map(|&c| owner[c as usize]).filter(|&r| r != owner[t]).collect();
        to.sort_unstable();
        to.dedup();
        if !to.is_empty() {
            let name = g.layer_name(t);
            let name = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '-').to_string();
            let e = per_layer.entry(name).or_default();
            e.0 += to.len();
            e.1 += to.len() * g.estimated_bytes(t);
        }
    }
    let active: std::collections::BTreeSet<u32> = owner.iter().copied().collect();
    (per_layer, active.len())
}

/// The rank counts the placement tests plan for: every count to 64, then
/// spread up to 1024.
fn rank_counts() -> Vec<usize> {
    (1..=64).chain([65, 96, 127, 128, 200, 255, 256, 300, 511, 512, 700, 1000, 1023, 1024]).collect()
}

/// Asserts that a TSQR's own traffic over `ranks` is the lower bound: one
/// k x n R factor up and one n x n piece down per rank beyond the first (W on
/// the Householder path, the plan on the direct one; the graph holds both,
/// and a run sends the empty blocks of the other), where k = min(rows, n).
fn assert_tsqr_at_bound(g: &TaskGraph, ranks: usize, n: usize, active_expected: usize) {
    let (per_layer, active) = crossings(g, ranks);
    assert_eq!(active, active_expected, "ranks with work of {ranks}");
    let square = n * n * 8;
    let mut up = (0, 0);
    for (name, &(messages, bytes)) in &per_layer {
        match name.as_str() {
            "tsqr-leaf" | "tsqr-r-part" => {
                up.0 += messages;
                up.1 += bytes;
            }
            "tsqr-w-part" | "tsqr-leaf-plan" => {
                assert_eq!((messages, bytes), (active - 1, (active - 1) * square), "{name} over {ranks} ranks");
            }
            // Column sums of Q gathered towards rank 0.
            "sum-partial" | "sum-combine" | "sum" => {}
            other => panic!("{other} crosses ranks over {ranks} ranks: {per_layer:?}"),
        }
    }
    assert_eq!(up.0, active - 1, "R factors sent up over {ranks} ranks: {per_layer:?}");
    // The plan goes down a binary tree of ranks: no rank sends more than two copies.
    let owner = place_tasks(g, ranks);
    let mut copies_sent = vec![0; ranks];
    for t in (0..g.len()).filter(|&t| g.layer_name(t) == "tsqr-leaf-plan" || g.layer_name(t) == "tsqr-q-plan") {
        copies_sent[owner[t] as usize] += g.consumers(t).iter().filter(|&&c| owner[c as usize] != owner[t]).count();
    }
    assert!(copies_sent.iter().all(|&c| c <= 2), "plan copies sent per rank over {ranks} ranks: {copies_sent:?}");
    assert!(up.1 <= (active - 1) * square, "{} bytes of R over {ranks} ranks", up.1);
}

/// TSQR over 1 to 1024 ranks: each rank reduces its own row blocks to one R,
/// the ranks' R factors meet in a tree over ranks, and one n x n piece per
/// rank comes down: the traffic is the lower bound for every rank count, and
/// every rank has work while the ranks are at most the row blocks.
#[test]
fn tsqr_moves_the_least_for_any_rank_count() {
    let n = 4;
    let a = RandomState::new(2).standard_normal::<f64>(&[1024 * 8, n], [8, n]).unwrap();
    for ranks in rank_counts() {
        for direct in [100.0, 0.0] {
            let options = chunked_linalg::TsqrOptions {
                processes: ranks,
                max_direct_condition: direct,
                ..chunked_linalg::TsqrOptions::default()
            };
            let f = chunked_linalg::tsqr(&a, &options).unwrap();
            let g = graph(&[f.q.sum(0).unwrap().layer(), f.r.layer()]);
            assert_tsqr_at_bound(&g, ranks, n, ranks.min(1024));
        }
    }
    // More ranks than row blocks: the ranks holding rows do the work.
    let small = RandomState::new(3).standard_normal::<f64>(&[40, n], [8, n]).unwrap();
    let options = chunked_linalg::TsqrOptions { processes: 16, ..chunked_linalg::TsqrOptions::default() };
    let f = chunked_linalg::tsqr(&small, &options).unwrap();
    assert_tsqr_at_bound(&graph(&[f.q.sum(0).unwrap().layer(), f.r.layer()]), 16, n, 5);
}

/// The SVD of a matrix of square blocks (the seeds' shape): row blocks merge
/// into leaves only within a rank, so no block of the input travels, every
/// rank has leaves up to one rank per row block, and the traffic is the bound.
#[test]
fn svd_leaves_stay_within_ranks() {
    let n = 4;
    let x = RandomState::new(4).uniform::<f64>(&[300 * n, n], [n, n]).unwrap();
    for ranks in (1..=40).chain([64, 100, 150, 299, 300]) {
        let svd = shaped_for(ranks, || chunked_linalg::svd(&x)).unwrap();
        let g = graph(&[svd.u.sum(0).unwrap().layer(), svd.s.layer(), svd.vt.layer()]);
        assert_tsqr_at_bound(&g, ranks, n, ranks);
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
    let (p, l, u) = shaped_for(1, || chunked_linalg::lu(&a)).unwrap();
    let spd = shaped_for(1, || {
        (&a.matmul(&a.t()).unwrap() + &(&Array::<f64>::eye(128, None, 0, 32).unwrap() * 128.0)).rechunk([32, 32])
    })
    .unwrap();
    let c = shaped_for(1, || chunked_linalg::cholesky(&spd, true)).unwrap();
    for layers in [vec![p.layer(), l.layer(), u.layer()], vec![c.layer()]] {
        let g = graph(&layers);
        assert!((0..g.len()).all(|t| g.can_travel(t)));
        let owner = place_tasks(&g, 4);
        let used: std::collections::BTreeSet<u32> = owner.iter().copied().collect();
        assert!(used.len() > 1, "all {} tasks on one rank", g.len());
    }
}

/// A rechunk over ranks moves each element that changes rank once, and only
/// those: the bytes that cross equal, for every new block, its elements whose
/// old block is on another rank than the one assembling it.
#[test]
fn rechunk_moves_each_element_that_changes_rank_once() {
    let x = RandomState::new(5).uniform::<f64>(&[60, 48], [7, 10]).unwrap();
    let y = &x * 2.0; // not a source: the rechunk must move data
    for (new, ranks) in [([60, 5], 2), ([60, 5], 3), ([12, 9], 4), ([5, 48], 5), ([13, 13], 8), ([60, 48], 3)] {
        let z = shaped_for(ranks, || y.rechunk(new)).unwrap();
        let g = graph(&[z.layer()]);
        let owner = place_tasks(&g, ranks);
        let mut moved = 0;
        for t in 0..g.len() {
            let mut to: Vec<u32> =
                g.consumers(t).iter().map(|&c| owner[c as usize]).filter(|&r| r != owner[t]).collect();
            to.sort_unstable();
            to.dedup();
            moved += to.len() * g.estimated_bytes(t);
        }
        // The least: per new block, the elements of each old block it overlaps
        // whose owner is not the rank that assembles it.
        let mut assembler = vec![0; z.chunks().num_blocks()];
        for &t in &g.output_tasks()[0] {
            assembler[g.task_layer_block(t as usize).1] = owner[t as usize] as usize;
        }
        let least = rechunk_least_bytes(y.chunks(), z.chunks(), 8, ranks, |b| assembler[b]) as usize;
        assert_eq!(moved, least, "rechunk to {new:?} over {ranks} ranks");
        // Persisted, each new block ends on its owner in the even spread:
        // assembled there, each element moves once, from its old owner to its new.
        let plan = plan_run(&g, ranks, Deliver::Owners, Gather::Root);
        let moved: usize = (0..g.len()).map(|t| plan.destinations[t].len() * g.estimated_bytes(t)).sum();
        let new_blocks = z.chunks().num_blocks();
        let least = rechunk_least_bytes(y.chunks(), z.chunks(), 8, ranks, |b| owner_of(b, new_blocks, ranks));
        assert_eq!(moved as u64, least, "rechunk to {new:?} over {ranks} ranks, persisted");
    }
}

/// Bytes each rank receives (blocks it reads from tasks on other ranks).
fn received_per_rank(g: &TaskGraph, owner: &[u32], ranks: usize) -> Vec<usize> {
    let mut received = vec![0; ranks];
    for t in 0..g.len() {
        let mut to: Vec<u32> = g.consumers(t).iter().map(|&c| owner[c as usize]).filter(|&r| r != owner[t]).collect();
        to.sort_unstable();
        to.dedup();
        for r in to {
            received[r as usize] += g.estimated_bytes(t);
        }
    }
    received
}

/// A large matmul over a rank count with a 2-D grid (rows x columns) puts its
/// block products on that grid: each rank receives exactly the blocks of its
/// band of `a`'s rows and its band of `b`'s columns that it does not hold,
/// each once (at most SUMMA's n²/rows + n²/columns), fewer bytes than the
/// placement by input bytes, where each rank reads nearly all of `b`. Over a prime count, or where the grid saves nothing, the graph is
/// the one-process one.
#[test]
fn matmul_over_a_grid_of_ranks_reads_bands() {
    let a = RandomState::new(6).uniform::<f64>(&[96, 96], [8, 8]).unwrap();
    let b = RandomState::new(7).uniform::<f64>(&[96, 96], [8, 8]).unwrap();
    let (a, b) = (&a * 1.0, &b * 1.0); // not sources, as a matmul of computed operands
    let graph_over = |ranks: usize| graph(&[shaped_for(ranks, || a.matmul(&b)).unwrap().layer()]);
    let flat = graph_over(1);
    let bytes = 96 * 96 * 8;
    for (ranks, rows, cols) in [(8, 2, 4), (9, 3, 3), (16, 4, 4), (36, 6, 6)] {
        let g = graph_over(ranks);
        let owner = place_tasks(&g, ranks);
        let products: Vec<usize> = (0..g.len()).filter(|&t| g.process_of(t, ranks).is_some()).collect();
        assert!(!products.is_empty(), "no products on the grid over {ranks} ranks");
        let received = received_per_rank(&g, &owner, ranks);
        // The widest bands: 12 row (column) blocks over the grid's rows (columns).
        let bands = bytes * 12usize.div_ceil(rows) / 12 + bytes * 12usize.div_ceil(cols) / 12;
        assert!(received.iter().all(|&r| r <= bands), "{ranks} ranks: {received:?} > {bands}");
        let by_input = received_per_rank(&flat, &place_tasks(&flat, ranks), ranks);
        let (grid_max, input_max) = (received.iter().max().unwrap(), by_input.iter().max().unwrap());
        println!("{ranks} ranks: at most {grid_max} bytes to a rank on the grid, {input_max} by input bytes");
        assert!(grid_max < input_max, "{ranks} ranks: grid {grid_max} vs by input bytes {input_max}");
        // Every rank of the grid makes products.
        let used: std::collections::BTreeSet<u32> = products.iter().map(|&t| owner[t]).collect();
        assert_eq!(used.len(), ranks);
        // And receives exactly the blocks of its bands it does not hold, once:
        // rank (p, q) of the grid reads a's row blocks of band p and b's column
        // blocks of band q, each 8 x 8 block of 512 bytes held by
        // owner_of(12 i + j, 144, ranks).
        let band = |k: usize, parts: usize| owned_range(12, parts, k);
        for (r, &got) in received.iter().enumerate() {
            let (p, q) = (r / cols, r % cols);
            let foreign_a = band(p, rows).flat_map(|i| (0..12).map(move |l| 12 * i + l));
            let foreign_b = band(q, cols).flat_map(|j| (0..12).map(move |l| 12 * l + j));
            let count =
                |blocks: &mut dyn Iterator<Item = usize>| blocks.filter(|&k| owner_of(k, 144, ranks) != r).count();
            let want = 512 * (count(&mut foreign_a.into_iter()) + count(&mut foreign_b.into_iter()));
            assert_eq!(got, want, "rank {r} of {ranks} receives");
        }
    }
    // 4 ranks: a 2 x 2 grid reads as much as the placement by input bytes; 7:
    // prime; 64: fewer than 2 x 2 blocks per rank of an 8 x 8 grid.
    for ranks in [4, 7, 64] {
        let g = graph_over(ranks);
        assert!((0..g.len()).all(|t| g.process_of(t, ranks).is_none()), "{ranks} ranks");
    }
}

/// A QR of a short-fat matrix over many ranks (sfqr): its first block keeps
/// at least m columns however the ranks split them, so R is upper
/// triangular and Q R is the matrix.
#[test]
fn short_fat_qr_over_many_ranks() {
    let w = RandomState::new(8).standard_normal::<f64>(&[10, 40], [10, 5]).unwrap();
    let whole = w.compute().unwrap().into_dimensionality::<ndarray::Ix2>().unwrap();
    for ranks in [1, 2, 8] {
        let (q, r) = shaped_for(ranks, || chunked_linalg::qr(&w)).unwrap();
        let ctx = chunked_array::Context::sync();
        let q = q.compute_on(&ctx).unwrap().into_dimensionality::<ndarray::Ix2>().unwrap();
        let r = r.compute_on(&ctx).unwrap().into_dimensionality::<ndarray::Ix2>().unwrap();
        let residual = (&q.dot(&r) - &whole).iter().fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(residual < 1e-12, "{ranks} ranks: |QR - A| = {residual:e}");
        assert!((0..10).all(|i| (0..i).all(|j| r[[i, j]] == 0.0)), "{ranks} ranks: R not upper triangular");
    }
}
