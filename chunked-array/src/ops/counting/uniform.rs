//! The counting kernel of equal bins: NumPy's bin of each value, decided by
//! the edges alone, without a branch or a table load per value.
//!
//! A batch of values first becomes bin numbers: the scaled offset is the
//! guess, and the edges on either side are made again exactly as `linspace`
//! makes them (`lo + i * step`, the same operations, so the same bits) to
//! move the guess by one where rounding put it across an edge. Values
//! outside the range and NaN go to an extra bin. The bins are then counted
//! into interleaved tables, so that runs of equal bins do not wait on one
//! counter.

use crate::element::Element;

/// Values binned at once.
const BATCH: usize = 256;
/// Four interleaved count tables for up to this many bins (one above).
const MAX_INTERLEAVED_BINS: usize = 1 << 16;

/// Equal bins over `[lo, hi]`: `n` bins of width `step`.
#[derive(Clone, Copy)]
pub(super) struct Uniform {
    pub lo: f64,
    pub hi: f64,
    pub step: f64,
    pub scale: f64,
    pub n: usize,
}

impl Uniform {
    /// The bin of each value of `batch` (`n` outside the edges or NaN).
    /// Bins are whole numbers held in `f64` until the end: adding 2^52 then
    /// leaves one in the low bits, which vectorizes where a float-to-integer
    /// conversion does not.
    #[inline(always)]
    fn bins<T: Element>(&self, batch: &[T], out: &mut [u32; BATCH]) {
        const ROUND: f64 = 4_503_599_627_370_496.0; // 2^52
        let (lo, hi, step) = (self.lo, self.hi, self.step);
        let top = (self.n - 1) as f64;
        let outside = self.n as f64;
        for (o, x) in out.iter_mut().zip(batch) {
            let v = x.to_f64();
            // The scalar rule's guess; `max` takes 0 for NaN, which is
            // outside anyway.
            let i = ((v - lo) * self.scale).max(0.0).min(top).floor();
            let next = i + 1.0;
            let upper = if next < outside { lo + next * step } else { f64::INFINITY };
            let bin = if v < lo + i * step {
                i - 1.0
            } else if v >= upper {
                next
            } else {
                i
            };
            let bin = if v >= lo && v <= hi { bin } else { outside };
            *o = (bin + ROUND).to_bits() as u32;
        }
    }

    /// Adds the count of `values` in each bin to `counts` (`n` of them).
    #[inline(always)]
    fn count_portable<T: Element>(&self, values: &[T], counts: &mut [i64]) {
        let width = self.n + 1;
        let mut bins = [0u32; BATCH];
        if self.n > MAX_INTERLEAVED_BINS {
            let mut table = vec![0u64; width];
            for batch in values.chunks(BATCH) {
                self.bins(batch, &mut bins);
                bins[..batch.len()].iter().for_each(|&b| table[b as usize] += 1);
            }
            counts.iter_mut().zip(&table).for_each(|(c, &t)| *c += t as i64);
            return;
        }
        let mut local = vec![0u64; 4 * width];
        let [t0, t1, t2, t3] = local.chunks_exact_mut(width).collect::<Vec<_>>().try_into().expect("four tables");
        for batch in values.chunks(BATCH) {
            self.bins(batch, &mut bins);
            let filled = &bins[..batch.len()];
            let mut quads = filled.chunks_exact(4);
            for q in &mut quads {
                t0[q[0] as usize] += 1;
                t1[q[1] as usize] += 1;
                t2[q[2] as usize] += 1;
                t3[q[3] as usize] += 1;
            }
            quads.remainder().iter().for_each(|&b| t0[b as usize] += 1);
        }
        for (i, c) in counts.iter_mut().enumerate().take(self.n) {
            *c += (t0[i] + t1[i] + t2[i] + t3[i]) as i64;
        }
    }

    /// [`Uniform::count_portable`] compiled for AVX2.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn count_avx2<T: Element>(&self, values: &[T], counts: &mut [i64]) {
        self.count_portable(values, counts);
    }

    /// Adds the count of `values` in each bin to `counts`, with the widest
    /// vectors the CPU has.
    pub fn count<T: Element>(&self, values: &[T], counts: &mut [i64]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked above.
            return unsafe { self.count_avx2(values, counts) };
        }
        self.count_portable(values, counts);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Binning, Bins};

    /// Every edge, a ulp either side, NaN, infinities and the ends, against
    /// the scalar rules of [`Binning::bin`].
    #[test]
    fn batches_bin_as_the_edges_say() {
        for (n, range) in
            [(10, (0.0, 1.0)), (100, (-3.5, 7.25)), (7, (1e12, 1e12 + 3.0)), (3, (2.0, 2.0)), (1, (0.0, 1.0))]
        {
            let binning = Binning::new(Bins::Count(n), Some(range)).unwrap();
            let uniform = binning.uniform.expect("equal bins");
            let mut values = vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0];
            for &e in &binning.edges {
                values.extend([e, e.next_up(), e.next_down(), e + 0.25 * uniform.step]);
            }
            let mut want = vec![0i64; n];
            values.iter().filter_map(|&v| binning.bin(v)).for_each(|i| want[i] += 1);
            let mut got = vec![0i64; n];
            uniform.count(&values, &mut got);
            assert_eq!(got, want, "{n} bins over {range:?}");
            let mut portable = vec![0i64; n];
            uniform.count_portable(&values, &mut portable);
            assert_eq!(portable, want);
        }
    }
}
