// The helpers every generated elementwise kernel starts with (`ELEMENTWISE_HELPERS`).
template <typename T> __device__ inline T sq(T x) { return x * x; }
template <typename T> __device__ inline T cube(T x) { return x * x * x; }
template <typename T> __device__ inline T max_nan(T a, T b) { return (isnan(a) || isnan(b)) ? nan_of(a) : (a > b ? a : b); }
template <typename T> __device__ inline T min_nan(T a, T b) { return (isnan(a) || isnan(b)) ? nan_of(a) : (a < b ? a : b); }
template <typename T> __device__ inline T max_of(T a, T b) { return a > b ? a : b; }
template <typename T> __device__ inline T min_of(T a, T b) { return a < b ? a : b; }
template <typename T> __device__ inline T clip_to(T lo, T hi, T x) { return x < lo ? lo : (x > hi ? hi : x); }
template <typename T> __device__ inline T sign_of(T x) { return x > 0 ? (T)1 : (x < 0 ? (T)-1 : (x == 0 ? (T)0 : x)); }
template <typename T> __device__ inline T heaviside_of(T x, T h0) { return x < 0 ? (T)0 : (x > 0 ? (T)1 : (x == 0 ? h0 : x)); }
template <typename T> __device__ inline T floor_div(T a, T b) {
    T m = fmod(a, b);
    if (b == 0) return a / b;
    T div = (a - m) / b;
    if (m != 0 && ((b < 0) != (m < 0))) div -= 1;
    if (div != 0) { T f = floor(div); return div - f > (T)0.5 ? f + 1 : f; }
    return copysign((T)0, a / b);
}
template <typename T> __device__ inline T py_mod(T a, T b) {
    T m = fmod(a, b);
    if (b == 0) return m;
    if (m != 0) return ((b < 0) != (m < 0)) ? m + b : m;
    return copysign((T)0, b);
}
__device__ inline double ln2_of(double) { return bits_f64(0x3FE62E42FEFA39EFull); }
__device__ inline float ln2_of(float) { return bits_f32(0x3F317218u); }
__device__ inline double ln10_of(double) { return bits_f64(0x40026BB1BBB55516ull); }
__device__ inline float ln10_of(float) { return bits_f32(0x40135D8Eu); }
__device__ inline double inf_of(double) { return bits_f64(0x7FF0000000000000ull); }
__device__ inline float inf_of(float) { return bits_f32(0x7F800000u); }
// The CPU's branch-free expm1, log1p, log, cbrt, hypot, atan and atan2 (chunked-array's
// `element/math/vector_libm.rs`), step for step; float computes in double.
__device__ inline double vl_two_to(long long k) { return bits_f64((unsigned long long)(k + 1023) << 52); }
__device__ inline double vl_expm1_parts(double hi, double lo, double* r_out) {
    double r = hi - lo, c = (hi - r) - lo;
    *r_out = r;
    double q = 1.0 / 6227020800.0;
    q = 1.0 / 479001600.0 + r * q; q = 1.0 / 39916800.0 + r * q; q = 1.0 / 3628800.0 + r * q;
    q = 1.0 / 362880.0 + r * q; q = 1.0 / 40320.0 + r * q; q = 1.0 / 5040.0 + r * q; q = 1.0 / 720.0 + r * q;
    q = 1.0 / 120.0 + r * q; q = 1.0 / 24.0 + r * q; q = 1.0 / 6.0 + r * q; q = 0.5 + r * q;
    double tail = (r * r) * q;
    return tail + (c + c * (r + tail));
}
__device__ inline long long vl_ln2_reduction(double x, double* hi, double* lo) {
    const double shift = 6755399441055744.0;
    double t = x * bits_f64(0x3FF71547652B82FEull) + shift, kf = t - shift;
    *hi = x - kf * bits_f64(0x3FE62E42FEE00000ull); *lo = kf * bits_f64(0x3DEA39EF35793C76ull);
    return (long long)(f64_bits(t) - f64_bits(shift));
}
__device__ inline double vl_expm1_of_reduced(double r, double tail, long long k) {
    double half_scale = vl_two_to(k - 1), scale = half_scale * 2.0;
    double lead = scale - 1.0, step = scale * r, sum = lead + step, lost = (lead - sum) + step;
    double moderate = sum + (scale * tail + lost);
    double p = r + tail;
    double large = ((p + 1.0) * 2.0) * half_scale;
    return k > 56 ? large : moderate;
}
__device__ inline double vl_expm1(double x) {
    double hi, lo;
    long long k = vl_ln2_reduction(fmin(fmax(x, -40.0), 710.0), &hi, &lo);
    double r, tail = vl_expm1_parts(hi, lo, &r);
    double y = vl_expm1_of_reduced(r, tail, k);
    y = x < -40.0 ? -1.0 : y;
    return (fabs(x) < bits_f64(0x3C90000000000000ull) || isnan(x)) ? x : y;
}
__device__ inline double vl_log1p_kernel(double f, double hfsq) {
    double s = f / (2.0 + f), z = s * s, w = z * z;
    double t1 = w * (bits_f64(0x3FD999999997FA04ull) + w * (bits_f64(0x3FCC71C51D8E78AFull) + w * bits_f64(0x3FC39A09D078C69Full)));
    double t2 = z * (bits_f64(0x3FE5555555555593ull) + w * (bits_f64(0x3FD2492494229359ull)
        + w * (bits_f64(0x3FC7466496CB03DEull) + w * bits_f64(0x3FC2F112DF3E5244ull))));
    return s * (hfsq + (t2 + t1));
}
__device__ inline double vl_ln_of_split(double dk, double f, double c) {
    double hfsq = 0.5 * f * f;
    return vl_log1p_kernel(f, hfsq) + (dk * bits_f64(0x3DEA39EF35793C76ull) + c) - hfsq + f + dk * bits_f64(0x3FE62E42FEE00000ull);
}
__device__ inline double vl_split_dk(double u, double* m) {
    unsigned long long b = f64_bits(u) + ((0x3FF00000ull - 0x3FE6A09Eull) << 32);
    *m = bits_f64((b & 0x000FFFFFFFFFFFFFull) + (0x3FE6A09Eull << 32));
    return bits_f64(0x4330000000000000ull | (b >> 52)) - (4503599627370496.0 + 1023.0);
}
__device__ inline double vl_rough_reciprocal(double u) {
    double r = bits_f64(0x7FDE623822FC16E6ull - f64_bits(u));
    r = r * (2.0 - u * r);
    return r * (2.0 - u * r);
}
__device__ inline double vl_log1p_split(double x, double* f, double* c) {
    double u = 1.0 + x, reduced;
    double dk = vl_split_dk(u, &reduced);
    double correction = (dk >= 2.0 ? 1.0 - (u - x) : x - (u - 1.0)) * vl_rough_reciprocal(u);
    correction = dk >= 54.0 ? 0.0 : correction;
    bool unsplit = dk == 0.0;
    *f = unsplit ? x : reduced - 1.0;
    *c = unsplit ? 0.0 : correction;
    return dk;
}
__device__ inline double vl_log1p(double x) {
    double f, c, dk = vl_log1p_split(x, &f, &c);
    double y = vl_ln_of_split(dk, f, c);
    y = x == inf_of(x) ? x : y;
    y = x == -1.0 ? -inf_of(x) : y;
    y = x < -1.0 ? nan_of(x) : y;
    return (fabs(x) < bits_f64(0x3CA0000000000000ull) || isnan(x)) ? x : y;
}
__device__ inline double vl_log_or_log1p(double v, bool log1p_form) {
    double f1, c1, dk1 = vl_log1p_split(v, &f1, &c1), m, dk2 = vl_split_dk(v, &m);
    return log1p_form ? vl_ln_of_split(dk1, f1, c1) : vl_ln_of_split(dk2, m - 1.0, 0.0);
}
__device__ inline double vl_asinh(double x) {
    double a = fabs(x), t = a * a, root = sqrt(1.0 + t);
    bool small = a < bits_f64(0x4000000100000000ull), huge = a > 268435456.0;
    double q = (small ? t : 1.0) / (small ? 1.0 + root : root + a);
    double w = vl_log_or_log1p(small ? a + q : (huge ? a : 2.0 * a + q), small);
    w = huge ? w + bits_f64(0x3FE62E42FEFA39EFull) : w;
    w = (a < bits_f64(0x3E30000000000000ull) || !isfinite(a)) ? a : w;
    return isnan(x) ? x : copysign(w, x);
}
__device__ inline double vl_acosh(double x) {
    double t = x - 1.0;
    bool small = x < bits_f64(0x4000000100000000ull), huge = x >= 268435456.0;
    double root = sqrt(small ? 2.0 * t + t * t : x * x - 1.0);
    double w = vl_log_or_log1p(small ? t + root : (huge ? x : 2.0 * x - 1.0 / (x + root)), small);
    w = huge ? w + bits_f64(0x3FE62E42FEFA39EFull) : w;
    w = x == inf_of(x) ? x : w;
    return (x < 1.0 || isnan(x)) ? nan_of(x) : w;
}
__device__ inline double vl_with_log_specials(double x, double y) {
    y = x == inf_of(x) ? x : y;
    y = x == 0.0 ? -inf_of(x) : y;
    return (x < 0.0 || isnan(x)) ? nan_of(x) : y;
}
__device__ inline double vl_split_positive(double x, double* f) {
    bool subnormal = x < bits_f64(0x0010000000000000ull);
    double m, dk = vl_split_dk(subnormal ? x * bits_f64(0x4350000000000000ull) : x, &m);
    *f = m - 1.0;
    return subnormal ? dk - 54.0 : dk;
}
__device__ inline double vl_log(double x) {
    double f, dk = vl_split_positive(x, &f);
    return vl_with_log_specials(x, vl_ln_of_split(dk, f, 0.0));
}
__device__ inline double vl_ln_split_exactly(double x, double* hi, double* lo) {
    double f, dk = vl_split_positive(x, &f);
    double hfsq = 0.5 * f * f, r = vl_log1p_kernel(f, hfsq);
    *hi = bits_f64(f64_bits(f - hfsq) & 0xFFFFFFFF00000000ull);
    *lo = ((f - *hi) - hfsq) + r;
    return dk;
}
__device__ inline double vl_log2(double x) {
    double hi, lo, dk = vl_ln_split_exactly(x, &hi, &lo);
    double val_hi = hi * bits_f64(0x3FF7154765200000ull);
    double val_lo = (lo + hi) * bits_f64(0x3DE705FC2EEFA200ull) + lo * bits_f64(0x3FF7154765200000ull);
    double w = dk + val_hi;
    return vl_with_log_specials(x, (val_lo + ((dk - w) + val_hi)) + w);
}
__device__ inline double vl_log10(double x) {
    double hi, lo, dk = vl_ln_split_exactly(x, &hi, &lo);
    double val_hi = hi * bits_f64(0x3FDBCB7B15200000ull), y2 = dk * bits_f64(0x3FD34413509F6000ull);
    double val_lo = dk * bits_f64(0x3D59FEF311F12B36ull) + (lo + hi) * bits_f64(0x3DBB9438CA9AADD5ull)
        + lo * bits_f64(0x3FDBCB7B15200000ull);
    double w = y2 + val_hi;
    return vl_with_log_specials(x, (val_lo + ((y2 - w) + val_hi)) + w);
}
__device__ inline double vl_atan_of_magnitude(double a) {
    const double hi[4] = {bits_f64(0x3FDDAC670561BB4Full), bits_f64(0x3FE921FB54442D18ull), bits_f64(0x3FEF730BD281F69Bull), bits_f64(0x3FF921FB54442D18ull)};
    const double lo[4] = {bits_f64(0x3C7A2B7F222F65E2ull), bits_f64(0x3C81A62633145C07ull), bits_f64(0x3C7007887AF0CBBDull), bits_f64(0x3C91A62633145C07ull)};
    double num = a, den = 1.0, h = 0.0, l = 0.0;
    if (a >= 7.0 / 16.0) { num = 2.0 * a - 1.0; den = 2.0 + a; h = hi[0]; l = lo[0]; }
    if (a >= 11.0 / 16.0) { num = a - 1.0; den = a + 1.0; h = hi[1]; l = lo[1]; }
    if (a >= 19.0 / 16.0) { num = a - 1.5; den = 1.0 + 1.5 * a; h = hi[2]; l = lo[2]; }
    if (a >= 39.0 / 16.0) { num = -1.0; den = a; h = hi[3]; l = lo[3]; }
    double t = num / den, z = t * t, w = z * z;
    double s1 = z * (bits_f64(0x3FD555555555550Dull) + w * (bits_f64(0x3FC24924920083FFull) + w * (bits_f64(0x3FB745CDC54C206Eull)
        + w * (bits_f64(0x3FB10D66A0D03D51ull) + w * (bits_f64(0x3FA97B4B24760DEBull) + w * bits_f64(0x3F90AD3AE322DA11ull))))));
    double s2 = w * (bits_f64(0xBFC999999998EBC4ull) + w * (bits_f64(0xBFBC71C6FE231671ull) + w * (bits_f64(0xBFB3B0F2AF749A6Dull)
        + w * (bits_f64(0xBFADDE2D52DEFD9Aull) + w * bits_f64(0xBFA2B4442C6A6C2Full)))));
    double y = h - ((t * (s1 + s2) - l) - t);
    return isnan(a) ? a : y;
}
__device__ inline double vl_atan(double x) { double y = vl_atan_of_magnitude(fabs(x)); return signbit(x) ? -y : y; }
__device__ inline double vl_atan2(double y, double x) {
    const double pi = bits_f64(0x400921FB54442D18ull), quarter = bits_f64(0x3FE921FB54442D18ull);
    double z = vl_atan_of_magnitude(fabs(y) / fabs(x));
    double base = signbit(x) ? pi - (z - bits_f64(0x3CA1A62633145C07ull)) : z;
    base = (isinf(y) && isinf(x)) ? (signbit(x) ? 3.0 * quarter : quarter) : base;
    base = (x == 0.0 || (isinf(y) && isfinite(x))) ? bits_f64(0x3FF921FB54442D18ull) : base;
    double r = signbit(y) ? -base : base;
    r = y == 0.0 ? (signbit(x) ? copysign(pi, y) : y) : r;
    return (isnan(x) || isnan(y)) ? x + y : r;
}
__device__ inline unsigned vl_high(double v) { return (unsigned)(f64_bits(v) >> 32) & 0x7FFFFFFFu; }
__device__ inline double vl_cbrt(double x) {
    bool subnormal = vl_high(x) < 0x00100000u;
    double scaled = subnormal ? x * bits_f64(0x4350000000000000ull) : x;
    unsigned estimate = vl_high(scaled) / 3u + (subnormal ? 696219795u : 715094163u);
    double t = bits_f64((f64_bits(x) & (1ull << 63)) | ((unsigned long long)estimate << 32));
    double r = (t * t) * (t / x);
    t = t * ((bits_f64(0x3FFE03E60F61E692ull) + r * (bits_f64(0xBFFE28E092F02420ull) + r * bits_f64(0x3FF9F1604A49D6C2ull)))
        + ((r * r) * r) * (bits_f64(0xBFE844CBBEE751D9ull) + r * bits_f64(0x3FC2B000D4E4EDD7ull)));
    t = bits_f64((f64_bits(t) + 0x80000000ull) & ~((1ull << 30) - 1));
    double s = t * t;
    r = x / s;
    double w = t + t;
    r = (r - t) / (w + r);
    double y = t + t * r;
    return (x == 0.0 || !isfinite(x)) ? x + x : y;
}
__device__ inline double vl_hypot(double a, double b) {
    a = fabs(a); b = fabs(b);
    double larger = a > b ? a : b;
    bool big = larger > bits_f64(0x5F30000000000000ull), small = larger < bits_f64(0x20B0000000000000ull);
    double scale = big ? vl_two_to(-600) : (small ? vl_two_to(600) : 1.0);
    double unscale = big ? vl_two_to(600) : (small ? vl_two_to(-600) : 1.0);
    double sa = a * scale, sb = b * scale;
    double y = sqrt(sa * sa + sb * sb) * unscale;
    y = (isnan(a) || isnan(b)) ? nan_of(a) : y;
    return (a == inf_of(a) || b == inf_of(b)) ? inf_of(a) : y;
}
// chunked-array's `element/math/vector_exp.rs`, step for step (the exponential
// family and the hyperbolic functions).
__device__ inline double vl_scaled_exp_of_reduced(double r, double tail, long long k) {
    double lead = 1.0 + r;
    double y = lead + (((1.0 - lead) + r) + tail);
    long long k1 = k >> 1;
    return (y * vl_two_to(k1)) * vl_two_to(k - k1);
}
__device__ inline double vl_scaled_exp(double hi, double lo, long long k) {
    double r, tail = vl_expm1_parts(hi, lo, &r);
    return vl_scaled_exp_of_reduced(r, tail, k);
}
__device__ inline double vl_exp(double x) {
    double hi, lo;
    long long k = vl_ln2_reduction(fmin(fmax(x, -746.0), 710.0), &hi, &lo);
    double y = vl_scaled_exp(hi, lo, k);
    return isnan(x) ? x : y;
}
__device__ inline void vl_split(double v, double* high, double* low) {
    double c = 134217729.0 * v;
    *high = c - (c - v); *low = v - *high;
}
__device__ inline double vl_exp2(double x) {
    const double shift = 6755399441055744.0, ln2 = bits_f64(0x3FE62E42FEFA39EFull);
    double xc = fmin(fmax(x, -1080.0), 1025.0);
    double t = xc + shift, kf = t - shift, f = xc - kf;
    double hi = f * ln2, ah, al, bh, bl;
    vl_split(f, &ah, &al); vl_split(ln2, &bh, &bl);
    double e = ((ah * bh - hi) + ah * bl + al * bh) + al * bl;
    double y = vl_scaled_exp(hi, -(e + f * bits_f64(0x3C7ABC9E3B39803Full)), (long long)(f64_bits(t) - f64_bits(shift)));
    return isnan(x) ? x : y;
}
__device__ inline double vl_logaddexp(double a, double b) {
    double d = a - b, larger = d > 0.0 ? a : b;
    double y = larger + vl_log1p(vl_exp(-fabs(d)));
    y = isnan(d) ? d : y;
    return a == b ? a + ln2_of(a) : y;
}
__device__ inline double vl_logaddexp2(double a, double b) {
    double d = a - b, larger = d > 0.0 ? a : b;
    double y = larger + vl_log1p(vl_exp2(-fabs(d))) * bits_f64(0x3FF71547652B82FEull);
    y = isnan(d) ? d : y;
    return a == b ? a + 1.0 : y;
}
__device__ inline long long vl_reduced_magnitude(double a, double* r, double* tail) {
    double hi, lo;
    long long k = vl_ln2_reduction(fmin(a, 711.0), &hi, &lo);
    *tail = vl_expm1_parts(hi, lo, r);
    return k;
}
__device__ inline double vl_sinh(double x) {
    double a = fabs(x), r, tail;
    long long k = vl_reduced_magnitude(a, &r, &tail);
    double t = vl_expm1_of_reduced(r, tail, k);
    bool small = a < 1.0;
    double q = (small ? -(t * t) : t) / (t + 1.0);
    double y = (small ? 2.0 * t : t) + q;
    y = a < 22.0 ? 0.5 * y : vl_scaled_exp_of_reduced(r, tail, k - 1);
    return isnan(x) ? x : copysign(y, x);
}
__device__ inline double vl_cosh(double x) {
    double r, tail;
    long long k = vl_reduced_magnitude(fabs(x), &r, &tail);
    double t = r + tail, w = 1.0 + t;
    double half = vl_scaled_exp_of_reduced(r, tail, k - 1);
    double y = (k == 0 ? 1.0 : half) + (k == 0 ? t * t : 0.25) / (k == 0 ? w + w : half);
    return isnan(x) ? x : y;
}
__device__ inline double vl_tanh(double x) {
    double a = fabs(x);
    bool from_one = a >= 1.0;
    double t = vl_expm1(2.0 * fmin(a, 22.0));
    double q = (from_one ? -2.0 : t) / (t + 2.0);
    double y = (from_one ? 1.0 : 0.0) + q;
    y = a >= 22.0 ? 1.0 : y;
    return isnan(x) ? x : copysign(y, x);
}
__device__ inline float vl_exp(float x) { return (float)vl_exp((double)x); }
__device__ inline double vl_atanh(double x) {
    double a = fabs(x), t = a + a;
    bool small = a < 0.5;
    double q = (small ? t * a : t) / (1.0 - a);
    double y = 0.5 * vl_log1p((small ? t : 0.0) + q);
    y = a < bits_f64(0x3E30000000000000ull) ? a : y;
    return copysign(y, x);
}
__device__ inline float vl_atanh(float x) { return (float)vl_atanh((double)x); }
__device__ inline float vl_asinh(float x) { return (float)vl_asinh((double)x); }
__device__ inline float vl_acosh(float x) { return (float)vl_acosh((double)x); }
__device__ inline float vl_sinh(float x) { return (float)vl_sinh((double)x); }
__device__ inline float vl_cosh(float x) { return (float)vl_cosh((double)x); }
__device__ inline float vl_tanh(float x) { return (float)vl_tanh((double)x); }
__device__ inline float vl_exp2(float x) { return (float)vl_exp2((double)x); }
__device__ inline float vl_logaddexp(float a, float b) { return (float)vl_logaddexp((double)a, (double)b); }
__device__ inline float vl_logaddexp2(float a, float b) { return (float)vl_logaddexp2((double)a, (double)b); }
__device__ inline float vl_expm1(float x) { return (float)vl_expm1((double)x); }
__device__ inline float vl_log1p(float x) { return (float)vl_log1p((double)x); }
__device__ inline float vl_cbrt(float x) { return (float)vl_cbrt((double)x); }
__device__ inline float vl_hypot(float a, float b) { return (float)vl_hypot((double)a, (double)b); }
__device__ inline float vl_log(float x) { return (float)vl_log((double)x); }
__device__ inline float vl_log2(float x) { return (float)vl_log2((double)x); }
__device__ inline float vl_log10(float x) { return (float)vl_log10((double)x); }
__device__ inline float vl_atan(float x) { return (float)vl_atan((double)x); }
__device__ inline float vl_atan2(float y, float x) { return (float)vl_atan2((double)y, (double)x); }
struct c64 { float re, im; };
struct c128 { double re, im; };
__device__ inline c64 mk_c64(float re, float im) { c64 z; z.re = re; z.im = im; return z; }
__device__ inline c128 mk_c128(double re, double im) { c128 z; z.re = re; z.im = im; return z; }
template <typename T> __device__ inline c64 to_c64(T x) { return mk_c64((float)(double)x, 0.0f); }
__device__ inline c64 to_c64(c64 z) { return z; }
__device__ inline c64 to_c64(c128 z) { return mk_c64((float)z.re, (float)z.im); }
template <typename T> __device__ inline c128 to_c128(T x) { return mk_c128((double)x, 0.0); }
__device__ inline c128 to_c128(c64 z) { return mk_c128((double)z.re, (double)z.im); }
__device__ inline c128 to_c128(c128 z) { return z; }
#define CHUNKED_COMPLEX(C, F) \
__device__ inline C operator+(C a, C b) { return mk_##C(a.re + b.re, a.im + b.im); } \
__device__ inline C operator-(C a, C b) { return mk_##C(a.re - b.re, a.im - b.im); } \
__device__ inline C operator-(C a) { return mk_##C(-a.re, -a.im); } \
__device__ inline C operator*(C a, C b) { return mk_##C(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); } \
__device__ inline C operator/(C a, C b) { \
    F ar = a.re, ai = a.im, br = b.re, bi = b.im; \
    if (fabs(br) >= fabs(bi)) { \
        if (br == 0 && bi == 0) return mk_##C(ar / fabs(br), ai / fabs(br)); \
        F rat = bi / br; F scl = (F)1 / (br + bi * rat); \
        return mk_##C((ar + ai * rat) * scl, (ai - ar * rat) * scl); \
    } \
    F rat = br / bi; F scl = (F)1 / (bi + br * rat); \
    return mk_##C((ar * rat + ai) * scl, (ai * rat - ar) * scl); \
} \
__device__ inline bool operator==(C a, C b) { return a.re == b.re && a.im == b.im; } \
__device__ inline bool operator!=(C a, C b) { return !(a == b); } \
__device__ inline C conj_of(C z) { return mk_##C(z.re, -z.im); } \
__device__ inline F abs_of(C z) { return (F)vl_hypot((double)z.re, (double)z.im); } \
__device__ inline F angle_of(C z) { return (F)vl_atan2((double)z.im, (double)z.re); } \
__device__ inline C sign_of(C z) { F m = abs_of(z); return m == 0 ? mk_##C(0, 0) : mk_##C(z.re / m, z.im / m); } \
__device__ inline bool isnan_of(C z) { return isnan(z.re) || isnan(z.im); } \
__device__ inline bool isfinite_of(C z) { return isfinite(z.re) && isfinite(z.im); } \
__device__ inline bool isinf_of(C z) { return isinf(z.re) || isinf(z.im); } \
__device__ inline C exp_of(C z) { \
    F re = z.re, im = z.im; \
    if (isinf(re)) { \
        if (re < 0) { if (!isfinite(im)) return mk_##C(0, 0); } \
        else if (im == 0 || !isfinite(im)) { if (isinf(im)) im = nan_of(im); return mk_##C(re, im); } \
    } else if (isnan(re) && im == 0) { return z; } \
    F r = exp(re); \
    return mk_##C(r * cos(im), r * sin(im)); \
} \
__device__ inline C log_of(C z) { return mk_##C(log(hypot(z.re, z.im)), atan2(z.im, z.re)); } \
__device__ inline C sqrt_of(C z) { \
    if (z.im == 0) { \
        if (!signbit(z.re)) return mk_##C(sqrt(z.re), z.im); \
        F im = sqrt(-z.re); \
        return signbit(z.im) ? mk_##C(0, -im) : mk_##C(0, im); \
    } \
    if (z.re == 0) { F x = sqrt(fabs(z.im) / 2); return signbit(z.im) ? mk_##C(x, -x) : mk_##C(x, x); } \
    F s = sqrt(hypot(z.re, z.im)), h = atan2(z.im, z.re) / 2; \
    return mk_##C(s * cos(h), s * sin(h)); \
} \
__device__ inline C expm1_of(C z) { F h = sin(z.im / 2); return mk_##C(expm1(z.re) * cos(z.im) - 2 * h * h, exp(z.re) * sin(z.im)); } \
__device__ inline C log1p_of(C z) { \
    F x = z.re + 1; \
    return mk_##C((F)vl_log(vl_hypot((double)x, (double)z.im)), (F)vl_atan2((double)z.im, (double)x)); \
} \
__device__ inline C nc_div(C a, C b) { \
    F n = b.re * b.re + b.im * b.im; \
    return mk_##C((a.re * b.re + a.im * b.im) / n, (a.im * b.re - a.re * b.im) / n); \
} \
__device__ inline C unscale(C z, F t) { return mk_##C(z.re / t, z.im / t); } \
__device__ inline C exp2_of(C z) { F r = exp2(z.re), t = z.im * ln2_of(z.re); return mk_##C(r * cos(t), r * sin(t)); } \
__device__ inline C log2_of(C z) { return unscale(log_of(z), ln2_of(z.re)); } \
__device__ inline C log10_of(C z) { return unscale(log_of(z), ln10_of(z.re)); } \
__device__ inline C sin_of(C z) { return mk_##C(sin(z.re) * cosh(z.im), cos(z.re) * sinh(z.im)); } \
__device__ inline C cos_of(C z) { return mk_##C(cos(z.re) * cosh(z.im), -sin(z.re) * sinh(z.im)); } \
__device__ inline C tan_of(C z) { F a = z.re + z.re, b = z.im + z.im; return unscale(mk_##C(sin(a), sinh(b)), cos(a) + cosh(b)); } \
__device__ inline C sinh_of(C z) { return mk_##C(sinh(z.re) * cos(z.im), cosh(z.re) * sin(z.im)); } \
__device__ inline C cosh_of(C z) { return mk_##C(cosh(z.re) * cos(z.im), sinh(z.re) * sin(z.im)); } \
__device__ inline C tanh_of(C z) { F a = z.re + z.re, b = z.im + z.im; return unscale(mk_##C(sinh(a), sin(b)), cosh(a) + cos(b)); } \
__device__ inline C arcsin_of(C z) { C i = mk_##C(0, 1), one = mk_##C(1, 0); return -i * log_of(sqrt_of(one - z * z) + i * z); } \
__device__ inline C arccos_of(C z) { C i = mk_##C(0, 1), one = mk_##C(1, 0); return -i * log_of(i * sqrt_of(one - z * z) + z); } \
__device__ inline C arctan_of(C z) { \
    C i = mk_##C(0, 1), one = mk_##C(1, 0), two = one + one; \
    if (z == i) return mk_##C(0, inf_of(z.re)); \
    if (z == -i) return mk_##C(0, -inf_of(z.re)); \
    return nc_div(log_of(one + i * z) - log_of(one - i * z), two * i); \
} \
__device__ inline C arcsinh_of(C z) { C one = mk_##C(1, 0); return log_of(z + sqrt_of(one + z * z)); } \
__device__ inline C arccosh_of(C z) { \
    C one = mk_##C(1, 0), two = one + one; \
    return two * log_of(sqrt_of(nc_div(z + one, two)) + sqrt_of(nc_div(z - one, two))); \
} \
__device__ inline C arctanh_of(C z) { \
    C one = mk_##C(1, 0), two = one + one; \
    if (z == one) return mk_##C(inf_of(z.re), 0); \
    if (z == -one) return mk_##C(-inf_of(z.re), 0); \
    return nc_div(log_of(one + z) - log_of(one - z), two); \
} \
__device__ inline C pow_of(C a, C b) { \
    C one = mk_##C(1, 0); \
    if (b.re == 0 && b.im == 0) return one; \
    if (a.re == 0 && a.im == 0) return (b.re > 0 && b.im == 0) ? mk_##C(0, 0) : mk_##C(nan_of(a.re), nan_of(a.re)); \
    if (b.im == 0 && b.re == trunc(b.re) && fabs(b.re) < 100) { \
        unsigned n = (unsigned)fabs(b.re); \
        C acc = one, base = a; \
        for (; n > 0; n >>= 1) { if (n & 1) acc = acc * base; base = base * base; } \
        return b.re < 0 ? one / acc : acc; \
    } \
    return exp_of(b * log_of(a)); \
}
CHUNKED_COMPLEX(c64, float)
CHUNKED_COMPLEX(c128, double)
