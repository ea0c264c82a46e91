//! Every generated CUDA kernel source, for every ufunc with a device form and
//! every reduction kernel, for every device element type, compiles with NVRTC
//! and its PTX assembles with ptxas for sm_80 and sm_90 (neither needs a
//! GPU). The test command installs both from PyPI (`nvidia-cuda-nvrtc-cu12`,
//! `nvidia-cuda-nvcc-cu12`), points `CHUNKED_PTXAS` at ptxas and sets
//! `CHUNKED_REQUIRE_NVRTC=1`; without them the test says why it skips.

use chunked_array::{Array, Float, Integer, Operand};

/// (what, its kernel source) for the float ufuncs of `T`; every one must
/// have a device form.
fn float_sources<T: Float>() -> Vec<(String, Option<String>)> {
    let x = Array::<T>::ones(&[4, 3], 2).unwrap();
    let y = &x + &x;
    let one = |name: &str, a: Array<T>| (format!("{name} {}", T::DTYPE), a.cuda_kernel_source());
    let mut out = vec![
        one("floor", x.floor()),
        one("ceil", x.ceil()),
        one("trunc", x.trunc()),
        one("rint", x.rint()),
        one("sign", x.sign()),
        one("reciprocal", x.reciprocal()),
        one("square", x.square()),
        one("cbrt", x.cbrt()),
        one("exp2", x.exp2()),
        one("expm1", x.expm1()),
        one("log2", x.log2()),
        one("log10", x.log10()),
        one("log1p", x.log1p()),
        one("tan", x.tan()),
        one("arcsin", x.arcsin()),
        one("arccos", x.arccos()),
        one("arctan", x.arctan()),
        one("sinh", x.sinh()),
        one("cosh", x.cosh()),
        one("arcsinh", x.arcsinh()),
        one("arccosh", x.arccosh()),
        one("arctanh", x.arctanh()),
        one("degrees", x.degrees()),
        one("radians", x.radians()),
        one("real", x.real()),
        one("conj", x.conj()),
    ];
    for (name, r) in [
        ("hypot", x.hypot(&y)),
        ("arctan2", x.arctan2(&y)),
        ("copysign", x.copysign(&y)),
        ("nextafter", x.nextafter(&y)),
        ("logaddexp", x.logaddexp(&y)),
        ("logaddexp2", x.logaddexp2(&y)),
        ("heaviside", x.heaviside(&y)),
        ("fmax", x.fmax(&y)),
        ("fmin", x.fmin(&y)),
        ("floor_divide", x.floor_divide(&y)),
        ("remainder", x.remainder(&y)),
        ("fmod", x.fmod(&y)),
        ("remainder by a scalar", x.remainder(Operand::Scalar(T::ONE))),
    ] {
        out.push(one(name, r.unwrap()));
    }
    let mask = x.isfinite().logical_and(x.isinf().logical_not()).unwrap().logical_or(x.signbit()).unwrap();
    out.push(one("where over isfinite, isinf, signbit", chunked_array::where_(&mask, &x, &y).unwrap()));
    out
}

/// The same for the integer operations of `T` that wrap exactly in C.
fn integer_sources<T: Integer>() -> Vec<(String, Option<String>)> {
    let x = Array::<T>::ones(&[4, 3], 2).unwrap();
    let y = &x + &x;
    let one = |name: &str, a: Array<T>| (format!("{name} {}", T::DTYPE), a.cuda_kernel_source());
    vec![
        one("add, sub, mul", &(&x * &y) - &(&x + &y)),
        one("neg", -&x),
        one("square", x.square()),
        one("invert", x.invert()),
        one("bitwise", x.bitwise_and(&y).unwrap().bitwise_or(&x).unwrap().bitwise_xor(&y).unwrap()),
        one("maximum, minimum", x.maximum(&y).unwrap().minimum(&x).unwrap()),
        one("where over comparisons", chunked_array::where_(&x.lt(&y).unwrap(), &x, &y).unwrap()),
        one("to f64 and back", x.astype::<f64>().floor().astype::<i64>().astype::<T>()),
        one("from u8", x.astype::<u8>().astype::<T>()),
    ]
}

/// The same for the complex operations with device forms (arithmetic,
/// transcendental ufuncs, powers, parts, modulus, angle, sign,
/// classification, conversions).
macro_rules! complex_sources {
    ($t:ty, $real:ty) => {{
        let x = Array::<$t>::ones(&[4, 3], 2).unwrap();
        let y = &x + &x;
        let r = x.real();
        let one = |name: &str, a: Option<String>| (format!("{name} {}", <$t as chunked_array::Element>::DTYPE), a);
        vec![
            one("add, sub, mul, div", (&(&(&x * &y) - &(&x + &y)) / &y).cuda_kernel_source()),
            one("neg, conj, square, reciprocal, sign", (-&x.conj().square().reciprocal().sign()).cuda_kernel_source()),
            one(
                "exp, log, sqrt, expm1, log1p",
                (&(&x.exp() + &x.log()) + &(&x.sqrt() * &(&x.expm1() - &x.log1p()))).cuda_kernel_source(),
            ),
            one(
                "exp2, log2, log10, sin, cos, tan, sinh, cosh, tanh",
                (&(&(&x.exp2() + &x.log2()) * &(&x.log10() - &x.sin()))
                    + &(&(&x.cos() * &x.tan()) + &(&(&x.sinh() - &x.cosh()) / &x.tanh())))
                    .cuda_kernel_source(),
            ),
            one(
                "arcsin, arccos, arctan, arcsinh, arccosh, arctanh, pow",
                (&(&(&x.arcsin() + &x.arccos()) * &x.arctan())
                    + &(&(&x.arcsinh() - &x.arccosh()) * &x.arctanh().pow(&y).unwrap()))
                    .cuda_kernel_source(),
            ),
            one("scalars", (&(&x * <$t>::new(0.5, 2.0)) - <$t>::new(1.0, -1.0)).cuda_kernel_source()),
            one("parts, abs, angle", (&(&x.real() - &x.imag()) + &(&x.abs() * &x.angle())).cuda_kernel_source()),
            one("classification and equality", {
                let mask = x.isnan().logical_or(&x.isinf()).unwrap().logical_xor(&x.isfinite()).unwrap();
                let mask = mask.logical_and(&x.eq(&y).unwrap()).unwrap().logical_or(&x.ne(&y).unwrap()).unwrap();
                chunked_array::where_(&mask, &x, &y).unwrap().cuda_kernel_source()
            }),
            one(
                "from and to reals",
                (&r + &x)
                    .astype::<$real>()
                    .astype::<chunked_array::Complex32>()
                    .astype::<chunked_array::Complex64>()
                    .cuda_kernel_source(),
            ),
            one("from integers", (&Array::<i16>::ones(&[4, 3], 2).unwrap().astype::<$t>() * &x).cuda_kernel_source()),
        ]
    }};
}

/// The reduction kernels for elements of `T`: sum, nansum and prod
/// accumulating in `S` (NumPy's widened sum type, and f64 for means of
/// integers), max and min in `T`.
fn reduction_sources<T: chunked_gpu::DeviceElement, S: chunked_gpu::DeviceElement>() -> Vec<(String, Option<String>)> {
    use chunked_gpu::reduce::{ReduceOp, source};
    let name = |op: ReduceOp, acc: &str| format!("{op:?} reduction of {} in {acc}", T::C_NAME);
    let mut out = Vec::new();
    for op in [ReduceOp::Sum, ReduceOp::NanSum, ReduceOp::Prod] {
        out.push((name(op, S::C_NAME), Some(source::<S>(op, T::C_TYPE))));
        out.push((name(op, "f64"), Some(source::<f64>(op, T::C_TYPE))));
    }
    for op in [ReduceOp::Max, ReduceOp::Min] {
        out.push((name(op, T::C_NAME), Some(source::<T>(op, T::C_TYPE))));
    }
    out
}

/// Sum, nansum and prod of complex elements, in their own type.
fn complex_reduction_sources<T: chunked_gpu::DeviceElement>() -> Vec<(String, Option<String>)> {
    use chunked_gpu::reduce::{ReduceOp, source};
    [ReduceOp::Sum, ReduceOp::NanSum, ReduceOp::Prod]
        .into_iter()
        .map(|op| (format!("{op:?} reduction of {}", T::C_NAME), Some(source::<T>(op, T::C_TYPE))))
        .collect()
}

fn all_sources() -> Vec<(String, Option<String>)> {
    let mut all = float_sources::<f32>();
    all.extend(complex_sources!(chunked_array::Complex32, f32));
    all.extend(complex_sources!(chunked_array::Complex64, f64));
    all.extend(complex_reduction_sources::<chunked_array::Complex32>());
    all.extend(complex_reduction_sources::<chunked_array::Complex64>());
    all.extend(float_sources::<f64>());
    all.extend(integer_sources::<i8>());
    all.extend(integer_sources::<i16>());
    all.extend(integer_sources::<i32>());
    all.extend(integer_sources::<i64>());
    all.extend(integer_sources::<u8>());
    all.extend(integer_sources::<u16>());
    all.extend(integer_sources::<u32>());
    all.extend(integer_sources::<u64>());
    all.extend(reduction_sources::<f32, f32>());
    all.extend(reduction_sources::<f64, f64>());
    all.extend(reduction_sources::<i8, i64>());
    all.extend(reduction_sources::<i16, i64>());
    all.extend(reduction_sources::<i32, i64>());
    all.extend(reduction_sources::<i64, i64>());
    all.extend(reduction_sources::<u8, u64>());
    all.extend(reduction_sources::<u16, u64>());
    all.extend(reduction_sources::<u32, u64>());
    all.extend(reduction_sources::<u64, u64>());
    all
}

#[test]
fn every_ufunc_with_a_device_form_has_one() {
    let missing: Vec<String> = all_sources().into_iter().filter(|(_, s)| s.is_none()).map(|(w, _)| w).collect();
    // A float-to-int conversion saturates on the CPU and is undefined in C:
    // that chain alone runs on the host.
    let expected: Vec<String> = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
        .iter()
        .map(|t| format!("to f64 and back {t}"))
        .collect();
    assert_eq!(missing, expected);
}

/// `ptxas` from `CHUNKED_PTXAS` (the test command points it at the
/// `nvidia-cuda-nvcc-cu12` wheel's), if set.
fn ptxas() -> Option<std::path::PathBuf> {
    std::env::var_os("CHUNKED_PTXAS").map(std::path::PathBuf::from)
}

#[test]
fn every_generated_kernel_compiles_with_nvrtc_and_assembles_for_sm_80_and_sm_90() {
    use chunked_gpu::kernels::{GpuArch, check_assembles, check_compiles};
    let required = std::env::var_os("CHUNKED_REQUIRE_NVRTC").is_some_and(|v| v == "1");
    let sources: Vec<(String, String)> = all_sources().into_iter().filter_map(|(w, s)| Some((w, s?))).collect();
    assert!(sources.len() > 100, "{} sources", sources.len());
    let ptxas = ptxas();
    assert!(ptxas.is_some() || !required, "CHUNKED_REQUIRE_NVRTC is set but CHUNKED_PTXAS is not");
    if let Some(p) = &ptxas {
        // What NVRTC passes and only the assembler refuses: more static shared
        // memory than a block may have (48 KiB).
        let too_big = "extern \"C\" __global__ void k(double* x) { __shared__ double s[20000]; s[threadIdx.x] = 1.0; __syncthreads(); x[0] = s[3]; }";
        match check_assembles(too_big, GpuArch::Sm90, p) {
            Err(chunked_gpu::Error::Cuda { call, message }) => assert!(call.contains("ptxas"), "{call}: {message}"),
            Err(chunked_gpu::Error::NoDevice { reason }) if !required => {
                return println!("skipping: {reason} (the test command installs NVRTC and ptxas)");
            }
            other => panic!("160 KB of shared memory assembled: {other:?}"),
        }
    }
    let mut failures = Vec::new();
    for (what, source) in &sources {
        // With ptxas: PTX for each generation, assembled; without: NVRTC alone.
        let checks: Vec<chunked_gpu::Result<()>> = match &ptxas {
            Some(p) => GpuArch::ALL.iter().map(|&arch| check_assembles(source, arch, p)).collect(),
            None => vec![check_compiles(source)],
        };
        for check in checks {
            match check {
                Ok(()) => {}
                Err(chunked_gpu::Error::NoDevice { reason }) if !required => {
                    println!(
                        "skipping: {reason} (the test command installs NVRTC and ptxas and sets CHUNKED_REQUIRE_NVRTC=1)"
                    );
                    return;
                }
                Err(e) => failures.push(format!("{what}: {e}\n{source}")),
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} kernels fail:\n{}", failures.len(), sources.len(), failures.join("\n\n"));
}
