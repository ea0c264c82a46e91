//! Branch-free f64 forms of `expm1`, `log1p`, `ln`, `log2`, `log10`,
//! `cbrt`, `hypot`, `atan` and `atan2`, the transcendental ufuncs whose libm calls dominate a fused
//! chain (the complex `abs` and `log1p` are built on them too).
//!
//! A libm call per element keeps a tile loop scalar; these are straight-line
//! arithmetic on the value and its bits, with the special cases chosen by
//! selects at the end, so the per-width tile loops compile them to SIMD.
//! They follow fdlibm's reductions and polynomials (musl's `log1p` and
//! `log`, FreeBSD's `log2`, `log10` and `cbrt`, fdlibm's `atan` and `atan2`) and stay within an
//! ulp of glibc's results (the tests measure it over the whole exponent
//! range). No step uses a fused multiply-add, so every target computes the
//! same bits, and the device kernels' C forms of them
//! (`chunked_gpu::kernels::ELEMENTWISE_HELPERS`) repeat them step for step.
//! f32 computes them in f64 and rounds once.

const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
/// 1.5 · 2^52: adding it rounds a value below 2^51 to an integer, which the
/// low bits of the sum then hold.
pub(super) const ROUNDING_SHIFT: f64 = 6_755_399_441_055_744.0;
const MANTISSA_MASK: u64 = 0x000F_FFFF_FFFF_FFFF;

/// The integer `k` held in the low bits of `t = ROUNDING_SHIFT + k`.
#[inline(always)]
pub(super) fn shifted_integer(t: f64) -> i64 {
    t.to_bits().wrapping_sub(ROUNDING_SHIFT.to_bits()) as i64
}

/// `2^k` for `k` in [-1022, 1023].
#[inline(always)]
pub(super) fn two_to(k: i64) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `(hi, lo, k)` with `x = k·ln2 + (hi - lo)`, `k` the nearest integer to
/// `x / ln2` and `|hi - lo| ≤ ln2/2` (fdlibm's reduction; `lo` holds the
/// error of ln2's leading part), for `|x|` below 2^10 or so.
#[inline(always)]
pub(super) fn ln2_reduction(x: f64) -> (f64, f64, i64) {
    let t = x * std::f64::consts::LOG2_E + ROUNDING_SHIFT;
    let kf = t - ROUNDING_SHIFT;
    // kf·LN2_HI is exact: LN2_HI has 32 significant bits, |k| < 2^11.
    (x - kf * LN2_HI, kf * LN2_LO, shifted_integer(t))
}

/// `(r, t)` for a reduced argument `hi - lo` (|hi - lo| ≤ ln2/2): `r =
/// hi - lo` rounded, and `t` with `r + t = expm1(hi - lo)` to 0.1 ulp. `c`,
/// what the rounding of `r` lost, is carried into `t`: the Taylor series to
/// degree 13 (truncation below 0.1 ulp), its tail `expm1(r) - r` kept apart so
/// that `r`'s bits reach the caller's sum unrounded; `expm1(r + c) ≈ p + c·(1 + p)`.
#[inline(always)]
pub(super) fn expm1_parts(hi: f64, lo: f64) -> (f64, f64) {
    let r = hi - lo;
    let c = (hi - r) - lo;
    let q = 1.0 / 6_227_020_800.0;
    let q = 1.0 / 479_001_600.0 + r * q;
    let q = 1.0 / 39_916_800.0 + r * q;
    let q = 1.0 / 3_628_800.0 + r * q;
    let q = 1.0 / 362_880.0 + r * q;
    let q = 1.0 / 40_320.0 + r * q;
    let q = 1.0 / 5_040.0 + r * q;
    let q = 1.0 / 720.0 + r * q;
    let q = 1.0 / 120.0 + r * q;
    let q = 1.0 / 24.0 + r * q;
    let q = 1.0 / 6.0 + r * q;
    let q = 0.5 + r * q;
    let tail = (r * r) * q;
    (r, tail + (c + c * (r + tail)))
}

/// `exp(x) - 1`, accurate near zero. With `x = k·ln2 + r`, `|r| ≤ ln2/2`:
/// `expm1(r)` as `r` + tail ([`expm1_parts`]), then
/// `(2^k - 1 + 2^k·r) + 2^k·(expm1(r) - r)`, the first sum compensated.
#[inline(always)]
pub(crate) fn expm1(x: f64) -> f64 {
    // Past these bounds the result is -1 or +inf; clamping keeps k in range.
    let (hi, lo, k) = ln2_reduction(x.clamp(-40.0, 710.0));
    let (r, tail) = expm1_parts(hi, lo);
    let y = expm1_of_reduced(r, tail, k);
    let y = if x < -40.0 { -1.0 } else { y };
    // ±0, subnormals and values below 2^-54 are their own expm1; so is NaN.
    if x.abs() < f64::from_bits(0x3C90_0000_0000_0000) || x.is_nan() { x } else { y }
}

/// `2^k·(1 + r + tail) - 1` for `k` in [-58, 1024], `r + tail` being
/// `expm1` of the reduced argument.
#[inline(always)]
pub(super) fn expm1_of_reduced(r: f64, tail: f64, k: i64) -> f64 {
    // 2^(k-1) stays a normal number for every k here.
    let half_scale = two_to(k - 1);
    let scale = half_scale * 2.0;
    // (2^k - 1) + 2^k·r with its rounding error kept (Fast2Sum: the first
    // term is the larger for every k here), added back with the tail.
    let (lead, step) = (scale - 1.0, scale * r);
    let sum = lead + step;
    let lost = (lead - sum) + step;
    let moderate = sum + (scale * tail + lost);
    let p = r + tail;
    // Past 2^56 the -1 vanishes, and 2^1024 itself is not a double.
    let large = ((p + 1.0) * 2.0) * half_scale;
    if k > 56 { large } else { moderate }
}

/// fdlibm's coefficients of `log(1 + f) = f - f²/2 + s·(f²/2 + R(s²))`,
/// `s = f / (2 + f)`.
const LG: [f64; 7] = [
    f64::from_bits(0x3FE5_5555_5555_5593),
    f64::from_bits(0x3FD9_9999_9997_FA04),
    f64::from_bits(0x3FD2_4924_9422_9359),
    f64::from_bits(0x3FCC_71C5_1D8E_78AF),
    f64::from_bits(0x3FC7_4664_96CB_03DE),
    f64::from_bits(0x3FC3_9A09_D078_C69F),
    f64::from_bits(0x3FC2_F112_DF3E_5244),
];

/// `s·(f²/2 + R(s²))`, `s = f / (2 + f)`: `log(1 + f) - f + f²/2` for `1 + f`
/// in [√2/2, √2) (fdlibm's `k_log1p`), given `hfsq = f²/2`.
#[inline(always)]
fn log1p_kernel(f: f64, hfsq: f64) -> f64 {
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (LG[1] + w * (LG[3] + w * LG[5]));
    let t2 = z * (LG[0] + w * (LG[2] + w * (LG[4] + w * LG[6])));
    s * (hfsq + (t2 + t1))
}

/// `ln(2^dk · (1 + f)) + c` for `1 + f` in [√2/2, √2) (fdlibm's `log`
/// kernel): `f - f²/2 + s·(f²/2 + R(s²))`, `s = f / (2 + f)`.
#[inline(always)]
pub(super) fn ln_of_split(dk: f64, f: f64, c: f64) -> f64 {
    let hfsq = 0.5 * f * f;
    log1p_kernel(f, hfsq) + (dk * LN2_LO + c) - hfsq + f + dk * LN2_HI
}

/// Splits a positive normal `u` as `2^dk · m`, `m` in [√2/2, √2), returning
/// `(dk, m)`: adding 1 - √2/2 to the exponent field moves the split point.
#[inline(always)]
pub(super) fn split_at_sqrt2(u: f64) -> (f64, f64) {
    let bits = u.to_bits().wrapping_add((0x3FF0_0000 - 0x3FE6_A09E) << 32);
    // k as a double from its bits: 2^52 + k_biased, less 2^52 + 1023.
    let dk = f64::from_bits(0x4330_0000_0000_0000 | (bits >> 52)) - (4_503_599_627_370_496.0 + 1023.0);
    (dk, f64::from_bits((bits & MANTISSA_MASK) + (0x3FE6_A09E_u64 << 32)))
}

/// `1/u` to 7·10^-6 for `u` in [2^-1000, 2^1000], without a division: a first
/// guess from the exponent negated (5% off at most) and two Newton steps.
#[inline(always)]
fn rough_reciprocal(u: f64) -> f64 {
    let r = f64::from_bits(0x7FDE_6238_22FC_16E6_u64.wrapping_sub(u.to_bits()));
    let r = r * (2.0 - u * r);
    r * (2.0 - u * r)
}

/// `(dk, f, c)` with `ln(1 + x) = ln_of_split(dk, f, c)` for finite `x >
/// -1` (musl's reduction in `log1p`): `c` corrects for the rounding of `u =
/// 1 + x`. `c` is at most 2 ulps of the logarithm where it is added, so it
/// is divided by `u` through [`rough_reciprocal`] (whose error moves the
/// result by 1.5·10^-5 ulp at most), and the one division left is the
/// kernel's.
#[inline(always)]
pub(super) fn log1p_split(x: f64) -> (f64, f64, f64) {
    let u = 1.0 + x;
    let (dk, reduced) = split_at_sqrt2(u);
    let correction = (if dk >= 2.0 { 1.0 - (u - x) } else { x - (u - 1.0) }) * rough_reciprocal(u);
    let correction = if dk >= 54.0 { 0.0 } else { correction };
    // Where 1 + x is already in [√2/2, √2), x itself is f, exactly.
    let unsplit = dk == 0.0;
    (dk, if unsplit { x } else { reduced - 1.0 }, if unsplit { 0.0 } else { correction })
}

/// `ln(1 + x)`, accurate near zero (musl's `log1p` with its branches as
/// selects).
#[inline(always)]
pub(crate) fn log1p(x: f64) -> f64 {
    let (dk, f, c) = log1p_split(x);
    let y = ln_of_split(dk, f, c);
    let y = if x == f64::INFINITY { x } else { y };
    let y = if x == -1.0 { f64::NEG_INFINITY } else { y };
    let y = if x < -1.0 { f64::NAN } else { y };
    if x.abs() < f64::from_bits(0x3CA0_0000_0000_0000) || x.is_nan() { x } else { y }
}

/// Splits a non-negative `x` as `2^dk · (1 + f)`, `1 + f` in [√2/2, √2),
/// subnormals scaled by 2^54 first.
#[inline(always)]
fn split_positive(x: f64) -> (f64, f64) {
    let subnormal = x < f64::MIN_POSITIVE;
    let scaled = if subnormal { x * f64::from_bits(0x4350_0000_0000_0000) } else { x };
    let (dk, m) = split_at_sqrt2(scaled);
    (if subnormal { dk - 54.0 } else { dk }, m - 1.0)
}

/// A logarithm's value `y` of `x`, or its value at +inf, 0, negatives and NaN.
#[inline(always)]
fn with_log_specials(x: f64, y: f64) -> f64 {
    let y = if x == f64::INFINITY { x } else { y };
    let y = if x == 0.0 { f64::NEG_INFINITY } else { y };
    if x < 0.0 || x.is_nan() { f64::NAN } else { y }
}

/// The natural logarithm (fdlibm's `log`).
#[inline(always)]
pub(crate) fn ln(x: f64) -> f64 {
    let (dk, f) = split_positive(x);
    with_log_specials(x, ln_of_split(dk, f, 0.0))
}

/// `(dk, hi, lo)` with `x = 2^dk · (1 + f)` and `hi + lo = ln(1 + f)`, `hi`
/// holding `f - f²/2` to its upper 21 bits so that products with it by a
/// constant's upper part are exact (FreeBSD's `log2` and `log10`).
#[inline(always)]
fn ln_split_exactly(x: f64) -> (f64, f64, f64) {
    let (dk, f) = split_positive(x);
    let hfsq = 0.5 * f * f;
    let r = log1p_kernel(f, hfsq);
    let hi = f64::from_bits((f - hfsq).to_bits() & 0xFFFF_FFFF_0000_0000);
    (dk, hi, ((f - hi) - hfsq) + r)
}

/// 1/ln2 to 33 bits, and the rest.
const IVLN2_HI: f64 = f64::from_bits(0x3FF7_1547_6520_0000);
const IVLN2_LO: f64 = f64::from_bits(0x3DE7_05FC_2EEF_A200);
/// 1/ln10 to 33 bits, and the rest.
const IVLN10_HI: f64 = f64::from_bits(0x3FDB_CB7B_1520_0000);
const IVLN10_LO: f64 = f64::from_bits(0x3DBB_9438_CA9A_ADD5);
/// log10(2) to 33 bits, and the rest.
const LOG10_2_HI: f64 = f64::from_bits(0x3FD3_4413_509F_6000);
const LOG10_2_LO: f64 = f64::from_bits(0x3D59_FEF3_11F1_2B36);

/// The base-2 logarithm (FreeBSD's `log2`, within an ulp; exact at powers
/// of two): `dk + (hi + lo)/ln2`, the sum with `dk` compensated.
#[inline(always)]
pub(crate) fn log2(x: f64) -> f64 {
    let (dk, hi, lo) = ln_split_exactly(x);
    let val_hi = hi * IVLN2_HI;
    let val_lo = (lo + hi) * IVLN2_LO + lo * IVLN2_HI;
    let w = dk + val_hi;
    with_log_specials(x, (val_lo + ((dk - w) + val_hi)) + w)
}

/// The base-10 logarithm (FreeBSD's `log10`, within an ulp):
/// `dk·log10(2) + (hi + lo)/ln10`, the leading sum compensated.
#[inline(always)]
pub(crate) fn log10(x: f64) -> f64 {
    let (dk, hi, lo) = ln_split_exactly(x);
    let val_hi = hi * IVLN10_HI;
    let y2 = dk * LOG10_2_HI;
    let val_lo = dk * LOG10_2_LO + (lo + hi) * IVLN10_LO + lo * IVLN10_HI;
    let w = y2 + val_hi;
    with_log_specials(x, (val_lo + ((y2 - w) + val_hi)) + w)
}

/// FreeBSD's coefficients of `1/cbrt(x)` near the first estimate (to 2^-23.5).
const CBRT_P: [f64; 5] = [
    f64::from_bits(0x3FFE_03E6_0F61_E692),
    f64::from_bits(0xBFFE_28E0_92F0_2420),
    f64::from_bits(0x3FF9_F160_4A49_D6C2),
    f64::from_bits(0xBFE8_44CB_BEE7_51D9),
    f64::from_bits(0x3FC2_B000_D4E4_EDD7),
];

/// The cube root (FreeBSD's `cbrt`, within 0.667 ulp): a first estimate from
/// the exponent divided by 3, a polynomial step to 23 bits, rounded to 22,
/// then one Newton step in double.
#[inline(always)]
pub(crate) fn cbrt(x: f64) -> f64 {
    let high = |v: f64| (v.to_bits() >> 32) as u32 & 0x7FFF_FFFF;
    // Subnormals: the estimate is taken from x·2^54, with a bias less 54/3.
    let subnormal = high(x) < 0x0010_0000;
    let scaled = if subnormal { x * f64::from_bits(0x4350_0000_0000_0000) } else { x };
    let bias: u32 = if subnormal { 696_219_795 } else { 715_094_163 };
    let estimate = high(scaled) / 3 + bias;
    let t = f64::from_bits((x.to_bits() & (1 << 63)) | (u64::from(estimate) << 32));
    let r = (t * t) * (t / x);
    let t = t * ((CBRT_P[0] + r * (CBRT_P[1] + r * CBRT_P[2])) + ((r * r) * r) * (CBRT_P[3] + r * CBRT_P[4]));
    // Away from zero to 22 bits, so that t·t is exact and below the root.
    let t = f64::from_bits(t.to_bits().wrapping_add(0x8000_0000) & !((1u64 << 30) - 1));
    let s = t * t;
    let r = x / s;
    let w = t + t;
    let r = (r - t) / (w + r);
    let y = t + t * r;
    // ±0, ±inf and NaN are their own cube roots.
    if x == 0.0 || !x.is_finite() { x + x } else { y }
}

/// `sqrt(a² + b²)` without overflow or underflow: both scaled by a power of
/// two when the larger is beyond 2^±500, so the squares stay normal.
#[inline(always)]
pub(crate) fn hypot(a: f64, b: f64) -> f64 {
    let (a, b) = (a.abs(), b.abs());
    let larger = if a > b { a } else { b };
    let big = larger > f64::from_bits(0x5F30_0000_0000_0000);
    let small = larger < f64::from_bits(0x20B0_0000_0000_0000);
    let (scale, unscale) = if big {
        (two_to(-600), two_to(600))
    } else if small {
        (two_to(600), two_to(-600))
    } else {
        (1.0, 1.0)
    };
    let (sa, sb) = (a * scale, b * scale);
    let y = (sa * sa + sb * sb).sqrt() * unscale;
    // An infinite side wins over a NaN one, as C's hypot.
    let y = if a.is_nan() || b.is_nan() { f64::NAN } else { y };
    if a == f64::INFINITY || b == f64::INFINITY { f64::INFINITY } else { y }
}

/// fdlibm's `atan(c)` and its tail for c = 1/2, 1, 3/2, ∞.
const ATAN_HI: [f64; 4] = [
    f64::from_bits(0x3FDD_AC67_0561_BB4F),
    f64::from_bits(0x3FE9_21FB_5444_2D18),
    f64::from_bits(0x3FEF_730B_D281_F69B),
    f64::from_bits(0x3FF9_21FB_5444_2D18),
];
const ATAN_LO: [f64; 4] = [
    f64::from_bits(0x3C7A_2B7F_222F_65E2),
    f64::from_bits(0x3C81_A626_3314_5C07),
    f64::from_bits(0x3C70_0788_7AF0_CBBD),
    f64::from_bits(0x3C91_A626_3314_5C07),
];
/// fdlibm's coefficients of `atan(t) = t - t·(s1 + s2)` for |t| ≤ 7/16.
const AT: [f64; 11] = [
    f64::from_bits(0x3FD5_5555_5555_550D),
    f64::from_bits(0xBFC9_9999_9998_EBC4),
    f64::from_bits(0x3FC2_4924_9200_83FF),
    f64::from_bits(0xBFBC_71C6_FE23_1671),
    f64::from_bits(0x3FB7_45CD_C54C_206E),
    f64::from_bits(0xBFB3_B0F2_AF74_9A6D),
    f64::from_bits(0x3FB1_0D66_A0D0_3D51),
    f64::from_bits(0xBFAD_DE2D_52DE_FD9A),
    f64::from_bits(0x3FA9_7B4B_2476_0DEB),
    f64::from_bits(0xBFA2_B444_2C6A_6C2F),
    f64::from_bits(0x3F90_AD3A_E322_DA11),
];
const PI: f64 = f64::from_bits(0x4009_21FB_5444_2D18);
const PI_LO: f64 = f64::from_bits(0x3CA1_A626_3314_5C07);

/// `atan(a)` for `a ≥ 0` (fdlibm's): `a` is reduced around 0, 1/2, 1, 3/2
/// or ∞ (`atan(c) + atan((a - c) / (1 + c·a))`); the interval's numerator
/// and denominator are selected first, so one division serves them all.
#[inline(always)]
fn atan_of_magnitude(a: f64) -> f64 {
    let beyond = |bound: f64, n: f64, d: f64, k: usize, prev: (f64, f64, f64, f64)| {
        if a >= bound { (n, d, ATAN_HI[k], ATAN_LO[k]) } else { prev }
    };
    // Below 7/16: t = a / 1, with no atan(c) to add.
    let r = beyond(7.0 / 16.0, 2.0 * a - 1.0, 2.0 + a, 0, (a, 1.0, 0.0, 0.0));
    let r = beyond(11.0 / 16.0, a - 1.0, a + 1.0, 1, r);
    let r = beyond(19.0 / 16.0, a - 1.5, 1.0 + 1.5 * a, 2, r);
    let (num, den, hi, lo) = beyond(39.0 / 16.0, -1.0, a, 3, r);
    let t = num / den;
    let z = t * t;
    let w = z * z;
    let s1 = z * (AT[0] + w * (AT[2] + w * (AT[4] + w * (AT[6] + w * (AT[8] + w * AT[10])))));
    let s2 = w * (AT[1] + w * (AT[3] + w * (AT[5] + w * (AT[7] + w * AT[9]))));
    // Below 7/16 (hi = lo = 0) this is fdlibm's t - t·(s1 + s2), rounded alike.
    let y = hi - ((t * (s1 + s2) - lo) - t);
    if a.is_nan() { a } else { y }
}

/// The arctangent (fdlibm's `atan`; odd, as it).
#[inline(always)]
pub(crate) fn atan(x: f64) -> f64 {
    let y = atan_of_magnitude(x.abs());
    if x.is_sign_negative() { -y } else { y }
}

/// The angle of (x, y) in (-π, π] (fdlibm's `atan2`: `atan(|y / x|)`, moved
/// to the quadrant of the signs, with C's values at zeros and infinities).
#[inline(always)]
pub(crate) fn atan2(y: f64, x: f64) -> f64 {
    let z = atan_of_magnitude(y.abs() / x.abs());
    let base = if x.is_sign_negative() { PI - (z - PI_LO) } else { z };
    // Zeros, infinities: the ratio is 0/0, ∞/∞ or rounds π - π/2 up.
    let quarter = f64::from_bits(0x3FE9_21FB_5444_2D18);
    let both_infinite = if x.is_sign_negative() { 3.0 * quarter } else { quarter };
    let base = if y.is_infinite() && x.is_infinite() { both_infinite } else { base };
    let base = if x == 0.0 || (y.is_infinite() && x.is_finite()) { ATAN_HI[3] } else { base };
    let signed = if y.is_sign_negative() { -base } else { base };
    let at_zero = if x.is_sign_negative() { PI.copysign(y) } else { y };
    let signed = if y == 0.0 { at_zero } else { signed };
    if x.is_nan() || y.is_nan() { x + y } else { signed }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Distance in units in the last place (NaNs equal, and so are ±0).
    pub(in super::super) fn ulps(a: f64, b: f64) -> u64 {
        if a.is_nan() && b.is_nan() {
            return 0;
        }
        let key = |v: f64| {
            let bits = v.to_bits() as i64;
            if bits < 0 { i64::MIN - bits } else { bits }
        };
        (key(a) as i128 - key(b) as i128).unsigned_abs().min(u64::MAX as u128) as u64
    }

    /// Values across the exponent range, both signs, and the special cases.
    pub(in super::super) fn samples() -> Vec<f64> {
        let mut v = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 5e-324, -5e-324, f64::MAX, f64::MIN];
        v.extend([1.0, -1.0, 0.5, -0.5, 709.78, 709.79, 710.0, -37.0, -40.0, -745.0, 1e-300, 2.2e-308, 1e300]);
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let magnitude = ((state >> 11) as f64 / (1u64 << 53) as f64) * 24.0 - 12.0;
            let sign = if state & 1 == 0 { 1.0 } else { -1.0 };
            v.push(sign * 2f64.powf(magnitude));
            v.push(f64::from_bits(state & !(0x7FF << 52) | (((state >> 20) % 2046 + 1) << 52)));
        }
        v
    }

    pub(in super::super) fn worst(f: fn(f64) -> f64, oracle: fn(f64) -> f64) -> (u64, f64) {
        samples().into_iter().map(|x| (ulps(f(x), oracle(x)), x)).max_by_key(|p| p.0).unwrap()
    }

    #[test]
    fn expm1_is_within_an_ulp_of_glibc() {
        let (u, x) = worst(expm1, f64::exp_m1);
        assert!(u <= 1, "expm1({x:e}): {} against {}, {u} ulps", expm1(x), x.exp_m1());
        assert_eq!(expm1(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(expm1(f64::NEG_INFINITY), -1.0);
        assert_eq!(expm1(709.8), f64::INFINITY);
    }

    #[test]
    fn log1p_is_within_an_ulp_of_glibc() {
        let (u, x) = worst(log1p, f64::ln_1p);
        assert!(u <= 1, "log1p({x:e}): {} against {}, {u} ulps", log1p(x), x.ln_1p());
        assert_eq!(log1p(-1.0), f64::NEG_INFINITY);
        assert!(log1p(-1.5).is_nan());
        assert_eq!(log1p(-0.0).to_bits(), (-0.0f64).to_bits());
    }

    #[test]
    fn ln_and_atan_are_within_an_ulp_of_glibc() {
        let (u, x) = worst(ln, f64::ln);
        assert!(u <= 1, "ln({x:e}): {} against {}, {u} ulps", ln(x), x.ln());
        let (u, x) = worst(atan, f64::atan);
        assert!(u <= 1, "atan({x:e}): {} against {}, {u} ulps", atan(x), x.atan());
        assert_eq!((ln(0.0), ln(1.0).to_bits(), ln(f64::INFINITY)), (f64::NEG_INFINITY, 0, f64::INFINITY));
        assert!(ln(-1e-300).is_nan() && ln(f64::NEG_INFINITY).is_nan());
        assert_eq!(atan(-0.0).to_bits(), (-0.0f64).to_bits());
    }

    #[test]
    fn atan2_is_within_an_ulp_of_glibc_and_exact_at_zeros_and_infinities() {
        let xs = samples();
        let (u, y, x) = xs
            .iter()
            .zip(xs.iter().skip(7).chain(xs.iter().take(7)))
            .map(|(&y, &x)| (ulps(atan2(y, x), y.atan2(x)), y, x))
            .max_by_key(|p| p.0)
            .unwrap();
        assert!(u <= 1, "atan2({y:e}, {x:e}): {} against {}, {u} ulps", atan2(y, x), y.atan2(x));
        let special = [0.0, -0.0, 1.0, -1.0, 5e-324, -2.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
        for y in special {
            for x in special {
                let (got, want) = (atan2(y, x), y.atan2(x));
                assert!(
                    got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(),
                    "atan2({y}, {x}): {got} against {want}"
                );
            }
        }
    }

    #[test]
    fn log2_and_log10_are_close_to_glibc_and_exact_at_powers() {
        let (u, x) = worst(log2, f64::log2);
        assert!(u <= 1, "log2({x:e}): {} against {}, {u} ulps", log2(x), x.log2());
        // glibc's log10 (fdlibm's older form) is 1.5 ulps from the exact value
        // at places, FreeBSD's within 0.63 (both measured against mpmath).
        let (u, x) = worst(log10, f64::log10);
        assert!(u <= 2, "log10({x:e}): {} against {}, {u} ulps", log10(x), x.log10());
        for k in -1074..=1023 {
            let power = if k < -1022 { f64::from_bits(1 << (k + 1074)) } else { two_to(k.into()) };
            assert_eq!(log2(power), k as f64, "log2(2^{k})");
        }
        for k in 0..=22 {
            assert_eq!(log10(10f64.powi(k)), k as f64, "log10(1e{k})");
        }
        for f in [log2, log10] {
            assert_eq!((f(0.0), f(-0.0), f(f64::INFINITY)), (f64::NEG_INFINITY, f64::NEG_INFINITY, f64::INFINITY));
            assert_eq!(f(1.0).to_bits(), 0);
            assert!(f(-5e-324).is_nan() && f(f64::NEG_INFINITY).is_nan() && f(f64::NAN).is_nan());
        }
    }

    #[test]
    fn cbrt_is_within_an_ulp_of_glibc() {
        let (u, x) = worst(cbrt, f64::cbrt);
        assert!(u <= 1, "cbrt({x:e}): {} against {}, {u} ulps", cbrt(x), x.cbrt());
        assert_eq!(cbrt(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(cbrt(-27.0), -3.0);
    }

    #[test]
    fn hypot_is_within_an_ulp_of_glibc() {
        let xs = samples();
        let (u, a, b) = xs
            .iter()
            .zip(xs.iter().rev())
            .map(|(&a, &b)| (ulps(hypot(a, b), a.hypot(b)), a, b))
            .max_by_key(|p| p.0)
            .unwrap();
        assert!(u <= 1, "hypot({a:e}, {b:e}): {} against {}, {u} ulps", hypot(a, b), a.hypot(b));
        assert_eq!(hypot(f64::NAN, f64::NEG_INFINITY), f64::INFINITY);
        assert!(hypot(f64::NAN, 1.0).is_nan());
        assert_eq!(hypot(f64::from_bits(3), f64::from_bits(4)), f64::from_bits(5));
    }
}
