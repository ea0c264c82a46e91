//! Launching generated elementwise kernels: a fused chain of elementwise
//! operations becomes one CUDA C++ kernel (its source written by the caller,
//! see chunked's `elementwise` module), compiled by NVRTC once per device and
//! cached by its source.
//!
//! The kernel's signature is fixed: `(OUT* out, unsigned long long n, int
//! ndim, const long long* meta, int contiguous, const T0* x0, const T1* x1,
//! ...)`, where `meta` holds the output block's shape and, per input, the
//! element offset of the block's first element and its element stride along
//! each output axis (0 for a broadcast axis).

use cudarc::driver::{LaunchArgs, PushKernelArg};

use crate::buffer::DeviceBuffer;
use crate::cuda::grid_stride;
use crate::device::Device;
use crate::element::DeviceElement;
use crate::{Error, Result, cuda_error};

/// Name of the generated kernel's entry point.
pub const ELEMENTWISE_ENTRY: &str = "chunked_elementwise";

pub use crate::cuda::CUDA_PRELUDE;

/// The helpers generated elementwise kernels call; a generated source starts
/// with them. Complex numbers are the structs `c64` and `c128` (the layout of
/// [`crate::ComplexBits`]) with operators of the CPU's arithmetic: num-complex's
/// product, and NumPy's (Smith's) division; `exp`, `log`, `sqrt`, `exp2`,
/// `log2`, `log10`, the trigonometric and hyperbolic functions and their
/// inverses repeat num-complex's steps (its plain division `nc_div` where it
/// divides), `expm1` and `log1p` NumPy's, `pow_of` the CPU's `npy_cpow`.
/// The real `exp`, `exp2`, `expm1`, `log1p`, `log`, `log2`, `log10`, `cbrt`,
/// `hypot`, `atan`, `atan2`, `logaddexp`, `logaddexp2`, `sinh`, `cosh`,
/// `tanh`, `asinh`, `acosh` and `atanh` are `vl_*`, the CPU's branch-free forms, which complex
/// `abs`, `angle` and `log1p` use too. The source lives in
/// `kernels/elementwise_helpers.cu`.
pub const ELEMENTWISE_HELPERS: &str = include_str!("kernels/elementwise_helpers.cu");

/// Compiles a generated kernel `source` (after [`CUDA_PRELUDE`]) with NVRTC,
/// without a GPU: a check that the source is valid CUDA C++.
///
/// ```
/// use chunked_gpu::kernels::check_compiles;
/// let source = "extern \"C\" __global__ void k(double* x) { x[0] = sq(2.0); }";
/// let helpers = format!("{}{source}", chunked_gpu::kernels::ELEMENTWISE_HELPERS);
/// match check_compiles(&helpers) {
///     Ok(()) => {}
///     Err(chunked_gpu::Error::NoDevice { reason }) => assert!(reason.contains("NVRTC")),
///     Err(e) => panic!("{e}"),
/// }
/// ```
///
/// # Errors
/// [`crate::Error::NoDevice`] when NVRTC is not installed;
/// [`crate::Error::Cuda`] with NVRTC's log when the source does not compile.
pub fn check_compiles(source: &str) -> Result<()> {
    crate::cuda::compile_ptx("a generated kernel", source, None).map(|_| ())
}

/// The GPU generations [`check_assembles`] builds machine code for.
///
/// ```
/// use chunked_gpu::kernels::GpuArch;
/// let names: Vec<&str> = GpuArch::ALL.iter().map(|a| a.machine_arch()).collect();
/// assert_eq!(names, ["sm_80", "sm_90"]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuArch {
    /// Ampere (A100): PTX for `compute_80`, machine code for `sm_80`.
    Sm80,
    /// Hopper (H100, H200): `compute_90` and `sm_90`.
    Sm90,
}

impl GpuArch {
    /// Every generation, oldest first.
    pub const ALL: [GpuArch; 2] = [GpuArch::Sm80, GpuArch::Sm90];

    /// NVRTC's name of its virtual architecture.
    ///
    /// ```
    /// assert_eq!(chunked_gpu::kernels::GpuArch::Sm90.virtual_arch(), "compute_90");
    /// ```
    pub fn virtual_arch(self) -> &'static str {
        match self {
            GpuArch::Sm80 => "compute_80",
            GpuArch::Sm90 => "compute_90",
        }
    }

    /// ptxas's name of its machine code.
    ///
    /// ```
    /// assert_eq!(chunked_gpu::kernels::GpuArch::Sm80.machine_arch(), "sm_80");
    /// ```
    pub fn machine_arch(self) -> &'static str {
        match self {
            GpuArch::Sm80 => "sm_80",
            GpuArch::Sm90 => "sm_90",
        }
    }
}

/// Compiles a generated kernel `source` (after [`CUDA_PRELUDE`]) with NVRTC
/// to PTX for `arch`'s virtual architecture, then assembles that PTX into
/// machine code with the `ptxas` at `ptxas`, without a GPU: what the driver
/// would do on a device of that generation, so that register, resource and
/// instruction errors that NVRTC leaves to the driver show here.
///
/// ```
/// use chunked_gpu::kernels::{check_assembles, GpuArch, ELEMENTWISE_HELPERS};
/// let source = format!("{ELEMENTWISE_HELPERS}extern \"C\" __global__ void k(double* x) {{ x[0] = sq(2.0); }}");
/// match check_assembles(&source, GpuArch::Sm90, std::path::Path::new("ptxas")) {
///     Ok(()) => {}
///     Err(chunked_gpu::Error::NoDevice { reason }) => assert!(reason.contains("NVRTC") || reason.contains("ptxas")),
///     Err(e) => panic!("{e}"),
/// }
/// ```
///
/// # Errors
/// [`crate::Error::NoDevice`] when NVRTC is not installed or `ptxas` does not
/// run; [`crate::Error::Cuda`] with NVRTC's or ptxas's log when the source
/// does not compile or its PTX does not assemble.
pub fn check_assembles(source: &str, arch: GpuArch, ptxas: &std::path::Path) -> Result<()> {
    let ptx = crate::cuda::compile_ptx("a generated kernel", source, Some(arch.virtual_arch()))?;
    let dir = tempfile::tempdir().map_err(|e| Error::NoDevice { reason: format!("no temporary directory: {e}") })?;
    let (input, output) = (dir.path().join("kernel.ptx"), dir.path().join("kernel.cubin"));
    std::fs::write(&input, ptx.to_src())
        .map_err(|e| Error::NoDevice { reason: format!("cannot write {}: {e}", input.display()) })?;
    let run = std::process::Command::new(ptxas)
        .arg(format!("-arch={}", arch.machine_arch()))
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .map_err(|e| Error::NoDevice { reason: format!("ptxas ({}) does not run: {e}", ptxas.display()) })?;
    if run.status.success() {
        return Ok(());
    }
    Err(Error::Cuda {
        call: format!("ptxas -arch={}", arch.machine_arch()),
        message: format!("{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr)),
    })
}

/// A device buffer of any element type, as a kernel argument.
///
/// ```
/// use chunked_gpu::kernels::KernelInput;
/// let dev = chunked_gpu::Device::emulated(1 << 10);
/// let (x, n) = (dev.zeros::<f64>(2).unwrap(), dev.zeros::<i32>(2).unwrap());
/// let inputs: [&dyn KernelInput; 2] = [&x, &n]; // mixed element types
/// assert!(inputs.iter().all(|i| i.device().same(&dev)));
/// ```
pub trait KernelInput: Sync {
    /// Pushes the buffer as the launch's next argument.
    #[doc(hidden)]
    fn push<'a>(&'a self, args: &mut LaunchArgs<'a>);
    /// The device it lives on.
    ///
    /// ```
    /// use chunked_gpu::kernels::KernelInput;
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let buf = dev.zeros::<u8>(4).unwrap();
    /// assert!(KernelInput::device(&buf).same(&dev));
    /// ```
    fn device(&self) -> &Device;
}

impl<T: DeviceElement> KernelInput for DeviceBuffer<T> {
    fn push<'a>(&'a self, args: &mut LaunchArgs<'a>) {
        args.arg(self.cuda().expect("CUDA buffer on a CUDA device"));
    }
    fn device(&self) -> &Device {
        DeviceBuffer::device(self)
    }
}

/// Runs the generated elementwise kernel `source` (starting with
/// [`ELEMENTWISE_HELPERS`]) over `out`'s elements.
///
/// ```
/// use chunked_gpu::kernels::{launch_elementwise, ELEMENTWISE_ENTRY, ELEMENTWISE_HELPERS};
/// use chunked_gpu::{Device, Error};
/// # fn main() -> chunked_gpu::Result<()> {
/// let source = format!(r#"{ELEMENTWISE_HELPERS}
/// extern "C" __global__ void {ELEMENTWISE_ENTRY}(double* out, unsigned long long n, int ndim,
///         const long long* meta, int contiguous, const double* x0) {{
///     for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
///         out[i] = sq(x0[i]);
/// }}"#);
/// let dev = Device::cuda(0).unwrap_or_else(|_| Device::emulated(1 << 20)); // emulated: no NVRTC
/// let (x, mut out) = (dev.upload(&[1.0f64, 2.0, 3.0])?, dev.zeros::<f64>(3)?);
/// // 1-d block of 3; the input starts at element 0 with stride 1.
/// match launch_elementwise(&source, &mut out, 1, &[3, 0, 1], true, &[&x]) {
///     Ok(()) => assert_eq!(out.download()?, vec![1.0, 4.0, 9.0]),
///     Err(e) => assert!(dev.is_emulated() && matches!(e, Error::Unsupported { .. }), "{e}"),
/// }
/// # Ok(()) }
/// ```
///
/// # Errors
/// [`crate::Error::Unsupported`] on an emulated device or with inputs on
/// another device; [`crate::Error::NoDevice`] without NVRTC; [`crate::Error::Cuda`]
/// when compiling or launching fails (the compile log is in the message).
pub fn launch_elementwise<O: DeviceElement>(
    source: &str,
    out: &mut DeviceBuffer<O>,
    ndim: usize,
    meta: &[i64],
    contiguous: bool,
    inputs: &[&dyn KernelInput],
) -> Result<()> {
    let device = out.device().clone();
    if let Some(other) = inputs.iter().find(|i| !i.device().same(&device)) {
        return Err(device.unsupported(format!(
            "an elementwise kernel on {} reading a buffer on {}",
            device.describe(),
            other.device().describe()
        )));
    }
    let state = device.cuda_state("elementwise kernel")?;
    if meta.len() != ndim + inputs.len() * (ndim + 1) {
        return Err(device.unsupported(format!(
            "elementwise kernel metadata of {} values for {ndim} axes and {} inputs",
            meta.len(),
            inputs.len()
        )));
    }
    if out.is_empty() {
        return Ok(());
    }
    let function = state.function("elementwise", source, ELEMENTWISE_ENTRY)?;
    let meta_dev = state.upload(meta)?;
    let n = out.len() as u64;
    let dims = ndim as i32;
    let flag = contiguous as i32;
    let cfg = grid_stride(n);
    let slice = out.cuda_mut().expect("CUDA buffer on a CUDA device");
    let mut launch = state.stream.launch_builder(&function);
    launch.arg(slice).arg(&n).arg(&dims).arg(&meta_dev).arg(&flag);
    for input in inputs {
        input.push(&mut launch);
    }
    // SAFETY: the generated kernel reads each input at the offsets `meta`
    // gives, which the caller computed from the inputs' shapes, and writes
    // `n` elements of `out`.
    unsafe { launch.launch(cfg) }.map_err(cuda_error("cuLaunchKernel elementwise"))?;
    Ok(())
}
