//! Exact quantiles of a whole array in memory bounded by the block size: a
//! radix selection.
//!
//! Each float maps to an unsigned key in the same order (the sign bit flipped
//! for positive values, every bit for negative ones). Pass 0 counts, over all
//! blocks, how many keys start with each 16-bit digit (and how many values are
//! NaN); the counts say how many values there are, which ranks the quantiles
//! need, and in which digit's bucket each rank falls. Pass `p` counts, for each
//! wanted rank, the next 16 bits of the keys that share that rank's first `p`
//! digits. After `bits / 16` passes (4 for f64, 2 for f32) every wanted rank's
//! key is known exactly, and the quantile is interpolated from those values.
//!
//! A pass is a tree reduction: a task counts a group of blocks into
//! `ranks * 65536` counters and the counts are summed. A task holds its group
//! of input blocks and its counters, and nothing else: memory does not grow
//! with the array. The input is read once per pass; sources that regenerate
//! cheaply (random, constants) are made again rather than kept.

use std::any::Any;
use std::sync::Arc;

use ndarray::{ArrayD, IxDyn};

use super::{Pick, QuantileMethod, QuantileOptions, lerp, pick};
use crate::array::Array;
use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::{DType, Element, Float};
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};
use crate::ops::sorting::keys::{float_key, float_of_key};

const DIGIT: u32 = 16;
const RADIX: usize = 1 << DIGIT;
/// Input bytes a counting task reads at once (a group of small blocks).
const GROUP_BYTES: usize = 4 << 20;

/// A float as an order-preserving key (NaN has none).
trait Keyed: Copy + 'static {
    /// The key's width.
    const KEY_BITS: u32;
    fn key(self) -> Option<u64>;
    fn from_key(key: u64) -> Self;
}

impl Keyed for f64 {
    const KEY_BITS: u32 = 64;
    fn key(self) -> Option<u64> {
        (!self.is_nan()).then(|| float_key(self))
    }
    fn from_key(key: u64) -> f64 {
        float_of_key(key)
    }
}

impl Keyed for f32 {
    const KEY_BITS: u32 = 32;
    fn key(self) -> Option<u64> {
        let b = self.to_bits();
        (!self.is_nan()).then_some(u64::from(if b >> 31 == 1 { !b } else { b | 1 << 31 }))
    }
    fn from_key(key: u64) -> f32 {
        let key = key as u32;
        f32::from_bits(if key >> 31 == 1 { key & !(1 << 31) } else { !key })
    }
}

/// The key width of `T`'s values.
fn key_bits<T: Float>() -> Result<u32> {
    match T::DTYPE {
        DType::F64 => Ok(<f64 as Keyed>::KEY_BITS),
        DType::F32 => Ok(<f32 as Keyed>::KEY_BITS),
        other => Err(Error::invalid("dtype", other, "radix selection takes f32 or f64")),
    }
}

/// What the quantiles ask: the same for every task of the selection.
struct Plan {
    qs: Vec<f64>,
    opts: QuantileOptions,
    bits: u32,
}

/// One wanted rank's place: the rank (0-based among the sorted values), the
/// key digits found so far, and how many values lie in the buckets before it.
#[derive(Debug, Clone, Copy)]
struct Rank {
    rank: i64,
    prefix: u64,
    below: i64,
}

impl Rank {
    /// Into the bucket of `row` (the counts of the next digit among the keys
    /// with this prefix) that holds the rank.
    fn descend(&mut self, row: &[i64]) {
        let mut acc = self.below;
        for (digit, &count) in row.iter().enumerate() {
            if self.rank < acc + count {
                self.prefix = (self.prefix << DIGIT) | digit as u64;
                self.below = acc;
                return;
            }
            acc += count;
        }
        // Counts that disagree between passes (a source that is not
        // deterministic): the last bucket, so that the passes stay aligned.
        self.prefix = (self.prefix << DIGIT) | (RADIX as u64 - 1);
    }
}

impl Plan {
    /// Ranks per quantile: two where the method interpolates.
    fn per_q(&self) -> usize {
        match self.opts.method {
            QuantileMethod::Linear | QuantileMethod::Midpoint => 2,
            _ => 1,
        }
    }

    /// The ranks among `n` sorted values whose values the quantiles need, in
    /// the order [`Plan::finish`] reads them.
    fn ranks(&self, n: usize) -> Vec<i64> {
        let mut ranks = Vec::with_capacity(self.per_q() * self.qs.len());
        for &q in &self.qs {
            match (pick(n, q, self.opts.method), self.per_q()) {
                (Pick::At(k), 1) => ranks.push(k as i64),
                (Pick::At(k), _) => ranks.extend([k as i64; 2]),
                (Pick::Between(k, _), _) => ranks.extend([k as i64, (k + 1).min(n - 1) as i64]),
            }
        }
        ranks
    }

    /// The counters a pass's task fills: pass 0 one row and the NaN count,
    /// later passes one row per wanted rank.
    fn width(&self, pass: usize) -> usize {
        if pass == 0 { RADIX + 1 } else { self.per_q() * self.qs.len() * RADIX }
    }

    /// The count of values and where each wanted rank stands after the passes
    /// whose summed counts are `counts`; `None` when the answer is NaN (no
    /// values, or a NaN that is not skipped).
    fn locate(&self, counts: &[&[i64]]) -> Option<(usize, Vec<Rank>)> {
        let first = counts[0];
        let n: i64 = first[..RADIX].iter().sum();
        if n == 0 || (!self.opts.skip_nan && first[RADIX] > 0) {
            return None;
        }
        let mut ranks: Vec<Rank> =
            self.ranks(n as usize).into_iter().map(|rank| Rank { rank, prefix: 0, below: 0 }).collect();
        for (pass, counts) in counts.iter().enumerate() {
            for (j, r) in ranks.iter_mut().enumerate() {
                let row = if pass == 0 { &counts[..RADIX] } else { &counts[j * RADIX..(j + 1) * RADIX] };
                r.descend(row);
            }
        }
        Some((n as usize, ranks))
    }

    /// The quantiles from the keys of the wanted ranks (all passes done).
    fn finish<T: Float>(&self, located: Option<(usize, Vec<Rank>)>) -> ArrayD<T> {
        let Some((n, ranks)) = located else {
            return ArrayD::from_elem(IxDyn(&[self.qs.len()]), T::NAN);
        };
        let value = |j: usize| -> T {
            let key = ranks[j].prefix;
            // Element::cast by name: std may add float methods called `cast`.
            if self.bits == <f32 as Keyed>::KEY_BITS {
                Element::cast(f32::from_key(key))
            } else {
                Element::cast(f64::from_key(key))
            }
        };
        let out = self
            .qs
            .iter()
            .enumerate()
            .map(|(i, &q)| {
                let j = i * self.per_q();
                match pick(n, q, self.opts.method) {
                    Pick::At(_) => value(j),
                    Pick::Between(_, gamma) => lerp(value(j), value(j + 1), gamma),
                }
            })
            .collect();
        ArrayD::from_shape_vec(IxDyn(&[self.qs.len()]), out).expect("one value per q")
    }
}

/// Calls `f` with every value of `block`, in memory order.
fn for_each_value<K: Keyed>(block: &ArrayD<K>, mut f: impl FnMut(K)) {
    match block.as_slice_memory_order() {
        Some(values) => values.iter().for_each(|&v| f(v)),
        None => block.iter().for_each(|&v| f(v)),
    }
}

/// Pass 0 over one block: the count of keys per first digit, then of NaN.
fn count_first<K: Keyed>(block: &ArrayD<K>, counts: &mut [i64]) {
    let shift = K::KEY_BITS - DIGIT;
    for_each_value(block, |v| match v.key() {
        Some(key) => counts[(key >> shift) as usize] += 1,
        None => counts[RADIX] += 1,
    });
}

/// Pass `pass` (> 0) over one block: per wanted rank, the count of keys per
/// next digit among those with the rank's prefix.
fn count_next<K: Keyed>(block: &ArrayD<K>, ranks: &[Rank], pass: u32, counts: &mut [i64]) {
    let shift = K::KEY_BITS - DIGIT * pass;
    let digit_shift = shift - DIGIT;
    let mask = RADIX as u64 - 1;
    // Ranks often share a prefix (a median's two neighbours): count each
    // distinct prefix once.
    let mut prefixes: Vec<u64> = ranks.iter().map(|r| r.prefix).collect();
    prefixes.sort_unstable();
    prefixes.dedup();
    let mut local = vec![0_i64; prefixes.len() * RADIX];
    if let [only] = prefixes[..] {
        for_each_value(block, |v| {
            if let Some(key) = v.key().filter(|k| k >> shift == only) {
                local[((key >> digit_shift) & mask) as usize] += 1;
            }
        });
    } else {
        // Most values match no prefix: a scan of a few prefixes rejects them
        // with predictable branches, where a binary search's do not.
        let find = |p: u64| {
            if prefixes.len() <= 8 { prefixes.iter().position(|&q| q == p) } else { prefixes.binary_search(&p).ok() }
        };
        for_each_value(block, |v| {
            if let Some(key) = v.key()
                && let Some(i) = find(key >> shift)
            {
                local[i * RADIX + ((key >> digit_shift) & mask) as usize] += 1;
            }
        });
    }
    for (j, r) in ranks.iter().enumerate() {
        let i = prefixes.binary_search(&r.prefix).expect("every rank's prefix is listed");
        let row = &mut counts[j * RADIX..(j + 1) * RADIX];
        row.iter_mut().zip(&local[i * RADIX..(i + 1) * RADIX]).for_each(|(c, l)| *c += l);
    }
}

/// One pass's counts of a block of f32 or f64 values into `counts`.
fn count_block(block: &dyn Any, ranks: Option<&[Rank]>, pass: u32, counts: &mut [i64]) -> Result<()> {
    if let Some(b) = block.downcast_ref::<ArrayD<f64>>() {
        match ranks {
            None => count_first(b, counts),
            Some(ranks) => count_next(b, ranks, pass, counts),
        }
    } else if let Some(b) = block.downcast_ref::<ArrayD<f32>>() {
        match ranks {
            None => count_first(b, counts),
            Some(ranks) => count_next(b, ranks, pass, counts),
        }
    } else {
        return Err(Error::invalid("block", "not f32 or f64", "radix selection takes f32 or f64"));
    }
    Ok(())
}

/// The summed counts of earlier passes, as the inputs of a task.
fn summed_counts<'a>(node: &Node, inputs: &[&'a Block]) -> Result<Vec<&'a [i64]>> {
    inputs
        .iter()
        .map(|b| {
            block_as::<i64>(b, node, "summed counts")?
                .as_slice()
                .ok_or_else(|| Error::invalid("summed counts", "strided", "a sum's block is contiguous"))
        })
        .collect()
}

/// The layer of one pass: a task per group of input blocks, each making one
/// row of counts.
struct CountPass {
    plan: Arc<Plan>,
    pass: usize,
    groups: Arc<Vec<Vec<usize>>>,
}

impl BlockOp for CountPass {
    fn deps(&self, _: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.extend(self.groups[idx[0]].iter().map(|&b| (0, b)));
        out.extend((0..self.pass).map(|p| (1 + p, 0)));
    }

    fn scratch_bytes(&self, _: &Node, _: &[usize]) -> usize {
        self.plan.width(self.pass) * std::mem::size_of::<i64>()
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let (data, earlier) = inputs.split_at(self.groups[idx[0]].len());
        let width = self.plan.width(self.pass);
        let mut counts = vec![0_i64; width];
        let ranks = match self.pass {
            0 => None,
            _ => self.plan.locate(&summed_counts(node, earlier)?).map(|(_, ranks)| ranks),
        };
        // A NaN answer needs no further counts.
        if self.pass == 0 || ranks.is_some() {
            for block in data {
                count_block(block.as_any(), ranks.as_deref(), self.pass as u32, &mut counts)?;
            }
        }
        Ok(Arc::new(ArrayD::from_shape_vec(IxDyn(&[1, width]), counts).expect("width counts")))
    }
}

/// The last layer: the quantiles from every pass's summed counts.
struct Select<T> {
    plan: Arc<Plan>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Float> BlockOp for Select<T> {
    fn deps(&self, node: &Node, _: &[usize], out: &mut Vec<(usize, usize)>) {
        out.extend((0..node.inputs.len()).map(|p| (p, 0)));
    }

    fn run(&self, node: &Node, _: &[usize], inputs: &[&Block]) -> Result<Block> {
        let located = self.plan.locate(&summed_counts(node, inputs)?);
        Ok(Arc::new(self.plan.finish::<T>(located)))
    }
}

/// The linear numbers of `chunks`' blocks in groups of at most
/// [`GROUP_BYTES`] (a larger block alone).
fn group_blocks(chunks: &Chunks, item_bytes: usize) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut bytes = usize::MAX;
    for b in 0..chunks.num_blocks() {
        let size = chunks.block_shape(&chunks.unravel(b)).iter().product::<usize>() * item_bytes;
        if bytes.saturating_add(size) > GROUP_BYTES {
            groups.push(Vec::new());
            bytes = 0;
        }
        bytes += size;
        groups.last_mut().expect("a group was opened").push(b);
    }
    groups
}

/// The quantiles `qs` of all of `x`'s elements by radix selection (see the
/// module's docs), as an array of shape `[qs.len()]` in one block.
pub(super) fn radix_quantiles<T: Float>(x: &Array<T>, qs: &[f64], opts: &QuantileOptions) -> Result<Array<T>> {
    let bits = key_bits::<T>()?;
    let plan = Arc::new(Plan { qs: qs.to_vec(), opts: *opts, bits });
    let groups = Arc::new(group_blocks(x.chunks(), std::mem::size_of::<T>()));
    if groups.is_empty() {
        return Array::full(&[qs.len()], T::NAN, qs.len().max(1));
    }
    let mut sums: Vec<Arc<Node>> = Vec::new();
    for pass in 0..(bits / DIGIT) as usize {
        let chunks = Chunks::from_lengths(vec![vec![1; groups.len()], vec![plan.width(pass)]]);
        let inputs = std::iter::once(x.node.clone()).chain(sums.iter().cloned()).collect();
        let op = CountPass { plan: plan.clone(), pass, groups: groups.clone() };
        let counts: Array<i64> =
            Array::built(Node::new(format!("quantile-count-{pass}"), DType::I64, chunks, inputs, op))?;
        sums.push(counts.sum(0)?.node.clone());
    }
    let chunks = Chunks::from_lengths(vec![vec![qs.len()]]);
    let op = Select::<T> { plan, _t: std::marker::PhantomData };
    Array::built(Node::new("quantile-select", T::DTYPE, chunks, sums, op))
}
