//! The hypergeometric sampler, by NumPy's choice of method: draws from the
//! urn one at a time for small samples (and samples within 10 of the whole
//! population, through the complement), Stadlober's ratio-of-uniforms HRUA
//! otherwise.

use std::sync::OnceLock;

use crate::ops::random::element_draws::ElementDraws;

/// An integer uniform on `[0, max]`, exact: Lemire's multiply-shift of a
/// 32-bit word, the products that would bias the result drawn again.
pub(crate) fn interval(d: &mut ElementDraws, max: u32) -> u32 {
    let range = max as u64 + 1;
    // 2^32 mod range: the low products below it are the biased ones.
    let threshold = (1u64 << 32) % range;
    loop {
        let product = d.word() as u64 * range;
        if product & 0xffff_ffff >= threshold {
            return (product >> 32) as u32;
        }
    }
}

/// `ln k!`: a table below 126, Stirling's series (three terms, exact to
/// doubles there) above.
fn ln_factorial(k: i64) -> f64 {
    const TABLE_LEN: usize = 126;
    static TABLE: OnceLock<[f64; TABLE_LEN]> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0.0; TABLE_LEN];
        for i in 1..TABLE_LEN {
            t[i] = t[i - 1] + (i as f64).ln();
        }
        t
    });
    if let Some(&v) = table.get(k as usize) {
        return v;
    }
    let k = k as f64;
    const HALF_LN_2PI: f64 = 0.918_938_533_204_672_8;
    (k + 0.5) * k.ln() - k + HALF_LN_2PI + (1.0 / k) * (1.0 / 12.0 - 1.0 / (360.0 * k * k))
}

/// Draws of the number of good items among `sample` drawn without
/// replacement from `good` good and `bad` bad ones (`good + bad < 2^32`).
pub(crate) struct Hypergeometric {
    good: i64,
    bad: i64,
    sample: i64,
    hrua: Option<Hrua>,
}

/// HRUA's constants (the names of Stadlober's thesis, 1989, p. 82): the
/// sample taken is the smaller of the sample and its complement, the good
/// items counted the rarer kind.
struct Hrua {
    /// min(good, bad), max(good, bad), min(sample, total - sample).
    rare: i64,
    common: i64,
    n: i64,
    /// Centre and half-width of the table-mountain hat, the support's end.
    a: f64,
    h: f64,
    b: f64,
    /// The log-pmf's unnormalized value at the mode.
    g: f64,
}

impl Hrua {
    fn new(good: i64, bad: i64, sample: i64) -> Hrua {
        let total = good + bad;
        let n = sample.min(total - sample);
        let (rare, common) = (good.min(bad), good.max(bad));
        let (p, q) = (rare as f64 / total as f64, common as f64 / total as f64);
        let a = n as f64 * p + 0.5;
        let var = (total - n) as f64 * n as f64 * p * q / (total - 1) as f64;
        let c = (var + 0.5).sqrt();
        // 2·sqrt(2/e) and 3 - 2·sqrt(3/e): the hat's scale for a unimodal pmf.
        let h = 1.715_527_769_921_413_5 * c + 0.898_916_162_058_898_8;
        let mode = ((n + 1) as f64 * (rare + 1) as f64 / (total + 2) as f64).floor() as i64;
        // Past 16 standard deviations the pmf is below what doubles resolve.
        let b = ((n.min(rare) + 1) as f64).min((a + 16.0 * c).floor());
        let mut out = Hrua { rare, common, n, a, h, b, g: 0.0 };
        out.g = out.log_weight(mode);
        out
    }

    fn log_weight(&self, k: i64) -> f64 {
        ln_factorial(k)
            + ln_factorial(self.rare - k)
            + ln_factorial(self.n - k)
            + ln_factorial(self.common - self.n + k)
    }

    fn sample(&self, d: &mut ElementDraws) -> i64 {
        loop {
            let u = d.uniform();
            let x = self.a + self.h * (d.uniform() - 0.5) / u;
            // Also refuses the infinities and NaN of u = 0.
            if !(0.0..self.b).contains(&x) {
                continue;
            }
            let k = x.floor() as i64;
            let t = self.g - self.log_weight(k);
            if u * (4.0 - u) - 3.0 <= t {
                return k;
            }
            if u * (u - t) >= 1.0 {
                continue;
            }
            if 2.0 * u.ln() <= t {
                return k;
            }
        }
    }
}

impl Hypergeometric {
    /// The sampler; the caller checks `good, bad, sample >= 0`,
    /// `sample <= good + bad` and `good + bad < 2^32`.
    pub(crate) fn new(good: i64, bad: i64, sample: i64) -> Hypergeometric {
        let hrua = (sample >= 10 && sample <= good + bad - 10).then(|| Hrua::new(good, bad, sample));
        Hypergeometric { good, bad, sample, hrua }
    }

    pub(crate) fn sample(&self, d: &mut ElementDraws) -> i64 {
        let Some(hrua) = &self.hrua else { return self.urn(d) };
        let mut k = hrua.sample(d);
        if self.good > self.bad {
            k = hrua.n - k;
        }
        if hrua.n < self.sample { self.good - k } else { k }
    }

    /// Items drawn one at a time (the complement when the sample is more
    /// than half the urn), until the sample or either kind runs out.
    fn urn(&self, d: &mut ElementDraws) -> i64 {
        let total = self.good + self.bad;
        let complement = self.sample > total / 2;
        let mut left = if complement { total - self.sample } else { self.sample };
        let (mut remaining, mut good_left) = (total, self.good);
        while left > 0 && good_left > 0 && remaining > good_left {
            remaining -= 1;
            if (interval(d, remaining as u32) as i64) < good_left {
                good_left -= 1;
            }
            left -= 1;
        }
        if remaining == good_left {
            // Only good items remain: the rest of the sample takes them.
            good_left -= left;
        }
        if complement { good_left } else { self.good - good_left }
    }
}
