//! Marsaglia and Tsang's ziggurat (256 layers, 64-bit draws, NumPy's
//! `Generator` variant) for standard normal and standard exponential numbers:
//! most draws cost one 64-bit word, a table lookup and a multiply; the rest
//! fall back to an exact test under the density or to the tail.

use std::sync::LazyLock;

use crate::ops::random::distributions::unit_f64;

/// A source of random 32-bit words (an element's sequence).
pub(crate) trait WordSource {
    fn word(&mut self) -> u32;

    /// A uniform number in `[0, 1)` from the next two words.
    #[inline(always)]
    fn uniform(&mut self) -> f64 {
        let hi = self.word();
        unit_f64(hi, self.word())
    }
}

/// One ziggurat's tables: the acceptance bounds `k`, the widths `w` (the
/// layer's right edge over the draw's range) and the densities `f` at the
/// edges.
struct Tables {
    k: [u64; 256],
    w: [f64; 256],
    f: [f64; 256],
}

/// The normal's base-layer edge `r` and layer area `v` for 256 layers.
const NORMAL_R: f64 = 3.654_152_885_361_009;
const NORMAL_V: f64 = 4.928_673_233_99e-3;
/// The exponential's.
const EXP_R: f64 = 7.697_117_470_131_05;
const EXP_V: f64 = 3.949_659_822_581_557e-3;

/// Builds the tables of density `density` (decreasing on `[0, ∞)`, with
/// inverse `inverse`) for draws of `bits` bits (Marsaglia and Tsang's zigset).
fn tables(r: f64, v: f64, bits: u32, density: fn(f64) -> f64, inverse: fn(f64) -> f64) -> Tables {
    let m = (1u64 << bits) as f64;
    let mut t = Tables { k: [0; 256], w: [0.0; 256], f: [0.0; 256] };
    let q = v / density(r);
    t.k[0] = (r / q * m) as u64;
    t.w[0] = q / m;
    t.w[255] = r / m;
    t.f[0] = 1.0;
    t.f[255] = density(r);
    let (mut x, mut previous) = (r, r);
    for i in (1..255).rev() {
        x = inverse(v / x + density(x));
        t.k[i + 1] = (x / previous * m) as u64;
        previous = x;
        t.f[i] = density(x);
        t.w[i] = x / m;
    }
    t
}

static NORMAL: LazyLock<Tables> =
    LazyLock::new(|| tables(NORMAL_R, NORMAL_V, 52, |x| (-0.5 * x * x).exp(), |y| (-2.0 * y.ln()).sqrt()));
static EXPONENTIAL: LazyLock<Tables> = LazyLock::new(|| tables(EXP_R, EXP_V, 53, |x| (-x).exp(), |y| -y.ln()));

#[inline(always)]
fn word64(d: &mut impl WordSource) -> u64 {
    let hi = d.word() as u64;
    hi << 32 | d.word() as u64
}

/// A standard normal number.
#[inline(always)]
pub(crate) fn normal(d: &mut impl WordSource) -> f64 {
    let t = &*NORMAL;
    let r = word64(d);
    let idx = (r & 0xff) as usize;
    let r = r >> 8;
    let rabs = (r >> 1) & 0x000f_ffff_ffff_ffff;
    let x = if r & 1 == 1 { -(rabs as f64 * t.w[idx]) } else { rabs as f64 * t.w[idx] };
    if rabs < t.k[idx] { x } else { normal_slow(d, idx, rabs, x) }
}

/// The normal's rare cases: the tail beyond r (Marsaglia's method), the test
/// under the density, and the draws again after a rejection.
#[cold]
fn normal_slow(d: &mut impl WordSource, mut idx: usize, mut rabs: u64, mut x: f64) -> f64 {
    let t = &*NORMAL;
    loop {
        if idx == 0 {
            loop {
                let xx = -(-d.uniform()).ln_1p() / NORMAL_R;
                let yy = -(-d.uniform()).ln_1p();
                if yy + yy > xx * xx {
                    return if (rabs >> 8) & 1 == 1 { -(NORMAL_R + xx) } else { NORMAL_R + xx };
                }
            }
        }
        if (t.f[idx - 1] - t.f[idx]) * d.uniform() + t.f[idx] < (-0.5 * x * x).exp() {
            return x;
        }
        let r = word64(d);
        idx = (r & 0xff) as usize;
        let r = r >> 8;
        rabs = (r >> 1) & 0x000f_ffff_ffff_ffff;
        x = if r & 1 == 1 { -(rabs as f64 * t.w[idx]) } else { rabs as f64 * t.w[idx] };
        if rabs < t.k[idx] {
            return x;
        }
    }
}

/// A standard exponential number.
#[inline(always)]
pub(crate) fn exponential(d: &mut impl WordSource) -> f64 {
    let t = &*EXPONENTIAL;
    let r = word64(d) >> 3;
    let idx = (r & 0xff) as usize;
    let r = r >> 8;
    let x = r as f64 * t.w[idx];
    if r < t.k[idx] { x } else { exponential_slow(d, idx, x) }
}

/// The exponential's rare cases: the tail, the test under the density, and
/// the draws again after a rejection.
#[cold]
fn exponential_slow(d: &mut impl WordSource, mut idx: usize, mut x: f64) -> f64 {
    let t = &*EXPONENTIAL;
    loop {
        if idx == 0 {
            return EXP_R - (-d.uniform()).ln_1p();
        }
        if (t.f[idx - 1] - t.f[idx]) * d.uniform() + t.f[idx] < (-x).exp() {
            return x;
        }
        let r = word64(d) >> 3;
        idx = (r & 0xff) as usize;
        let r = r >> 8;
        x = r as f64 * t.w[idx];
        if r < t.k[idx] {
            return x;
        }
    }
}
