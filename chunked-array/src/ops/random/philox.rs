//! The Philox4x32-10 counter-based generator (Salmon et al., SC'11): one
//! counter per call in scalar code, and batches of counters in AVX2 and AVX-512
//! lanes where the CPU has them.

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Philox4x32 with 10 rounds (Salmon et al., SC'11), as in Random123 and cuRAND.
///
/// ```
/// use chunked_array::random::philox4x32_10;
/// // Random123's known-answer vector for a zero counter and key.
/// assert_eq!(philox4x32_10([0; 4], [0; 2]), [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]);
/// ```
#[inline(always)]
pub fn philox4x32_10(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let mut c = ctr;
    let mut k = key;
    for r in 0..10 {
        if r > 0 {
            k[0] = k[0].wrapping_add(W0);
            k[1] = k[1].wrapping_add(W1);
        }
        let p0 = M0 as u64 * c[0] as u64;
        let p1 = M1 as u64 * c[2] as u64;
        c = [(p1 >> 32) as u32 ^ c[1] ^ k[0], p1 as u32, (p0 >> 32) as u32 ^ c[3] ^ k[1], p0 as u32];
    }
    c
}

/// Counters generated per batch: the words of a batch fit in L1.
pub(crate) const BATCH: usize = 64;

/// The four words of `BATCH` consecutive counters from `first`, word-major.
pub(crate) type Words = [[u32; BATCH]; 4];

pub(crate) fn philox_batch(first: u64, stream: [u32; 2], key: [u32; 2], out: &mut Words) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU supports AVX-512F (checked just above).
        unsafe { philox_batch_avx512(first, stream, key, out) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { philox_batch_avx2(first, stream, key, out) };
        return;
    }
    for (c, j) in (first..first + BATCH as u64).enumerate() {
        let w = philox4x32_10([j as u32, (j >> 32) as u32, stream[0], stream[1]], key);
        for k in 0..4 {
            out[k][c] = w[k];
        }
    }
}

/// Eight counters per 256-bit register: `_mm256_mul_epu32` multiplies the even
/// 32-bit lanes, so odd lanes are shifted down, multiplied, and blended back.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn philox_batch_avx2(first: u64, stream: [u32; 2], key: [u32; 2], out: &mut Words) {
    use std::arch::x86_64::*;
    // SAFETY (whole body): AVX2 is enabled for this function; loads and stores are
    // unaligned ones within `out` and local arrays of 8 u32.
    unsafe {
        const ODD: i32 = 0b1010_1010;
        let m0 = _mm256_set1_epi64x(M0 as i64);
        let m1 = _mm256_set1_epi64x(M1 as i64);
        // (lo, hi) words of the 64-bit products of the 8 lanes of `x` with `m`.
        let mulhilo = |x: __m256i, m: __m256i| -> (__m256i, __m256i) {
            let even = _mm256_mul_epu32(x, m);
            let odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(x), m);
            let lo = _mm256_blend_epi32::<ODD>(even, _mm256_slli_epi64::<32>(odd));
            let hi = _mm256_blend_epi32::<ODD>(_mm256_srli_epi64::<32>(even), odd);
            (lo, hi)
        };
        for g in 0..BATCH / 8 {
            let mut lo = [0u32; 8];
            let mut hi = [0u32; 8];
            for l in 0..8 {
                let j = first + (g * 8 + l) as u64;
                lo[l] = j as u32;
                hi[l] = (j >> 32) as u32;
            }
            let mut c0 = _mm256_loadu_si256(lo.as_ptr() as *const __m256i);
            let mut c1 = _mm256_loadu_si256(hi.as_ptr() as *const __m256i);
            let mut c2 = _mm256_set1_epi32(stream[0] as i32);
            let mut c3 = _mm256_set1_epi32(stream[1] as i32);
            let mut k = key;
            for r in 0..10 {
                if r > 0 {
                    k[0] = k[0].wrapping_add(W0);
                    k[1] = k[1].wrapping_add(W1);
                }
                let (lo0, hi0) = mulhilo(c0, m0);
                let (lo1, hi1) = mulhilo(c2, m1);
                let k0 = _mm256_set1_epi32(k[0] as i32);
                let k1 = _mm256_set1_epi32(k[1] as i32);
                c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), k0);
                c1 = lo1;
                c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), k1);
                c3 = lo0;
            }
            for (w, v) in out.iter_mut().zip([c0, c1, c2, c3]) {
                _mm256_storeu_si256(w[g * 8..].as_mut_ptr() as *mut __m256i, v);
            }
        }
    }
}

/// Sixteen counters per 512-bit register, as [`philox_batch_avx2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn philox_batch_avx512(first: u64, stream: [u32; 2], key: [u32; 2], out: &mut Words) {
    use std::arch::x86_64::*;
    // SAFETY (whole body): AVX-512F is enabled for this function; loads and stores
    // are unaligned ones within `out` and local arrays of 16 u32.
    unsafe {
        const ODD: __mmask16 = 0xAAAA;
        let m0 = _mm512_set1_epi64(M0 as i64);
        let m1 = _mm512_set1_epi64(M1 as i64);
        let mulhilo = |x: __m512i, m: __m512i| -> (__m512i, __m512i) {
            let even = _mm512_mul_epu32(x, m);
            let odd = _mm512_mul_epu32(_mm512_srli_epi64::<32>(x), m);
            let lo = _mm512_mask_blend_epi32(ODD, even, _mm512_slli_epi64::<32>(odd));
            let hi = _mm512_mask_blend_epi32(ODD, _mm512_srli_epi64::<32>(even), odd);
            (lo, hi)
        };
        for g in 0..BATCH / 16 {
            let mut lo = [0u32; 16];
            let mut hi = [0u32; 16];
            for l in 0..16 {
                let j = first + (g * 16 + l) as u64;
                lo[l] = j as u32;
                hi[l] = (j >> 32) as u32;
            }
            let mut c0 = _mm512_loadu_si512(lo.as_ptr() as *const __m512i);
            let mut c1 = _mm512_loadu_si512(hi.as_ptr() as *const __m512i);
            let mut c2 = _mm512_set1_epi32(stream[0] as i32);
            let mut c3 = _mm512_set1_epi32(stream[1] as i32);
            let mut k = key;
            for r in 0..10 {
                if r > 0 {
                    k[0] = k[0].wrapping_add(W0);
                    k[1] = k[1].wrapping_add(W1);
                }
                let (lo0, hi0) = mulhilo(c0, m0);
                let (lo1, hi1) = mulhilo(c2, m1);
                c0 = _mm512_xor_si512(_mm512_xor_si512(hi1, c1), _mm512_set1_epi32(k[0] as i32));
                c1 = lo1;
                c2 = _mm512_xor_si512(_mm512_xor_si512(hi0, c3), _mm512_set1_epi32(k[1] as i32));
                c3 = lo0;
            }
            for (w, v) in out.iter_mut().zip([c0, c1, c2, c3]) {
                _mm512_storeu_si512(w[g * 16..].as_mut_ptr() as *mut __m512i, v);
            }
        }
    }
}
