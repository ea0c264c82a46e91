//! The `.npy` format itself: the header (magic, version, the dictionary of
//! `descr`, `fortran_order` and `shape`) and the element encodings.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::element::{Complex, DType, Element};
use crate::error::{Error, Result};

const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// What a `.npy` header says.
///
/// ```
/// use chunked_array::io::{npy, WriteMode};
/// use chunked_array::{Array, DType};
/// let path = std::env::temp_dir().join(format!("chunked-doc-npy-header-{}.npy", std::process::id()));
/// Array::<f32>::ones(&[2, 5], 2).unwrap().to_npy(&path, WriteMode::Create).unwrap();
/// let h = npy::read_header(&path).unwrap();
/// assert_eq!((h.dtype, h.shape.clone(), h.big_endian, h.fortran_order), (DType::F32, vec![2, 5], false, false));
/// assert_eq!(std::fs::metadata(&path).unwrap().len(), h.data_offset + 40); // 10 f32 after the header
/// std::fs::remove_file(&path).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpyHeader {
    /// The element type.
    pub dtype: DType,
    /// Whether the data is big-endian.
    pub big_endian: bool,
    /// Whether the data is in Fortran (column-major) order.
    pub fortran_order: bool,
    /// The array's shape.
    pub shape: Vec<usize>,
    /// Where the data starts in the file.
    pub data_offset: u64,
}

/// Reads the header of the `.npy` file at `path`.
///
/// ```
/// use chunked_array::io::{npy, WriteMode};
/// use chunked_array::{Array, DType};
/// let path = std::env::temp_dir().join(format!("chunked-doc-read-header-{}.npy", std::process::id()));
/// Array::<i64>::zeros(&[3, 4], 2).unwrap().to_npy(&path, WriteMode::Create).unwrap();
/// let header = npy::read_header(&path).unwrap();
/// assert_eq!((header.dtype, header.shape), (DType::I64, vec![3, 4]));
/// assert_eq!(header.data_offset % 64, 0); // written 64-byte aligned
/// std::fs::remove_file(&path).unwrap();
/// ```
///
/// # Errors
/// [`Error::Io`] naming the file when it is missing, not a `.npy` file, holds a
/// data type that is no element type (`float16`, strings, records, ...), or is
/// shorter than its header says.
pub fn read_header(path: impl AsRef<Path>) -> Result<NpyHeader> {
    let path = path.as_ref();
    let file = File::open(path).map_err(|e| Error::io(path.display(), e))?;
    let len = file.metadata().map_err(|e| Error::io(path.display(), e))?.len();
    let header = parse_header(&file, len).map_err(|m| Error::io(path.display(), m))?;
    // parse_header checked that this product fits in an i64.
    let want = header
        .data_offset
        .saturating_add(header.shape.iter().map(|&n| n as u64).product::<u64>() * header.dtype.size() as u64);
    if len < want {
        return Err(Error::io(path.display(), format!("truncated: {len} bytes, the header needs {want}")));
    }
    Ok(header)
}

/// The header of `file`, which is `file_len` bytes long.
fn parse_header(file: &File, file_len: u64) -> std::result::Result<NpyHeader, String> {
    let mut pre = [0u8; 12];
    let got = read_up_to(file, &mut pre, 0).map_err(|e| e.to_string())?;
    if got < 10 || &pre[..6] != MAGIC {
        return Err("not a .npy file (no \\x93NUMPY magic)".into());
    }
    let (len, start) = match pre[6] {
        1 => (u16::from_le_bytes([pre[8], pre[9]]) as usize, 10),
        2 | 3 if got == 12 => (u32::from_le_bytes([pre[8], pre[9], pre[10], pre[11]]) as usize, 12),
        v => return Err(format!("unsupported .npy version {v}.{}", pre[7])),
    };
    // The header's length comes from the file: check it before allocating.
    if (start + len) as u64 > file_len {
        return Err(format!("truncated: the header needs {} bytes, the file has {file_len}", start + len));
    }
    let mut text = vec![0u8; len];
    file.read_exact_at(&mut text, start as u64).map_err(|e| format!("header: {e}"))?;
    let text = String::from_utf8(text).map_err(|_| "header is not text".to_string())?;
    let descr = dict_value(&text, "descr").ok_or("header has no 'descr'")?;
    let descr = descr.trim_matches(|c| c == '\'' || c == '"');
    let (big_endian, dtype) = parse_descr(descr).ok_or_else(|| format!("unsupported dtype '{descr}'"))?;
    let fortran_order = match dict_value(&text, "fortran_order").ok_or("header has no 'fortran_order'")? {
        "True" => true,
        "False" => false,
        v => return Err(format!("bad fortran_order {v}")),
    };
    let shape_text = dict_value(&text, "shape").ok_or("header has no 'shape'")?;
    let shape = shape_text
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.trim_end_matches('L').parse::<usize>().map_err(|_| format!("bad shape {shape_text}")))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    // The data's size must be a number of bytes a file can hold. Counting only
    // the non-zero lengths also refuses absurd shapes of zero elements (and is
    // the whole size when no length is zero).
    let fits = shape
        .iter()
        .filter(|&&n| n > 0)
        .try_fold(dtype.size() as u64, |bytes, &n| bytes.checked_mul(n as u64))
        .is_some_and(|bytes| bytes <= i64::MAX as u64);
    if !fits {
        return Err(format!("shape {shape_text} holds more bytes than a file can"));
    }
    Ok(NpyHeader { dtype, big_endian, fortran_order, shape, data_offset: (start + len) as u64 })
}

fn read_up_to(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], offset + got as u64)? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

/// The text of `key`'s value in the header's Python dict literal.
fn dict_value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let at = text.find(&format!("'{key}'")).or_else(|| text.find(&format!("\"{key}\"")))?;
    let rest = text[at + key.len() + 2..].trim_start().strip_prefix(':')?.trim_start();
    let end = if rest.starts_with('(') { rest.find(')')? + 1 } else { rest.find([',', '}'])? };
    Some(rest[..end].trim())
}

fn parse_descr(descr: &str) -> Option<(bool, DType)> {
    let mut chars = descr.chars();
    let big = match chars.next()? {
        '<' | '|' | '=' => false,
        '>' => true,
        _ => return None,
    };
    let dtype = match chars.as_str() {
        "b1" => DType::Bool,
        "i1" => DType::I8,
        "i2" => DType::I16,
        "i4" => DType::I32,
        "i8" => DType::I64,
        "u1" => DType::U8,
        "u2" => DType::U16,
        "u4" => DType::U32,
        "u8" => DType::U64,
        "f4" => DType::F32,
        "f8" => DType::F64,
        "c8" => DType::Complex64,
        "c16" => DType::Complex128,
        _ => return None,
    };
    Some((big, dtype))
}

/// NumPy's type string of `dtype`, little-endian (`.npy`'s `descr`, Zarr
/// v2's `dtype`).
pub(crate) fn descr(dtype: DType) -> &'static str {
    match dtype {
        DType::I8 => "|i1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
        DType::U8 => "|u1",
        DType::U16 => "<u2",
        DType::U32 => "<u4",
        DType::U64 => "<u8",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::Complex64 => "<c8",
        DType::Complex128 => "<c16",
        DType::Bool | DType::Intermediate => "|b1",
    }
}

/// The header bytes for a little-endian C-order array (version 1.0, or 2.0 when
/// the header is too long for 1.0), padded so the data starts 64-byte aligned.
pub(super) fn header_bytes(dtype: DType, shape: &[usize]) -> Vec<u8> {
    let shape_text = match shape.len() {
        1 => format!("({},)", shape[0]),
        _ => format!("({})", shape.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let dict = format!("{{'descr': '{}', 'fortran_order': False, 'shape': {shape_text}, }}", descr(dtype));
    let (version, prefix) = if dict.len() + 11 <= u16::MAX as usize { (1u8, 10) } else { (2u8, 12) };
    let padded = (prefix + dict.len() + 1).div_ceil(64) * 64 - prefix;
    let mut out = Vec::with_capacity(prefix + padded);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(padded as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(padded as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(prefix + padded - 1, b' ');
    out.push(b'\n');
    out
}

/// Elements as `.npy` stores them.
pub(super) trait NpyElement: Element {
    fn decode(bytes: &[u8], big_endian: bool, out: &mut Vec<Self>);
    fn encode_le(values: impl Iterator<Item = Self>, out: &mut Vec<u8>);
}

macro_rules! npy_number {
    ($($t:ty),*) => {$(
        impl NpyElement for $t {
            fn decode(bytes: &[u8], big_endian: bool, out: &mut Vec<Self>) {
                const N: usize = std::mem::size_of::<$t>();
                let each = bytes.chunks_exact(N).map(|b| b.try_into().expect("chunks_exact"));
                if big_endian {
                    out.extend(each.map(<$t>::from_be_bytes));
                } else {
                    out.extend(each.map(<$t>::from_le_bytes));
                }
            }
            fn encode_le(values: impl Iterator<Item = Self>, out: &mut Vec<u8>) {
                for v in values {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
    )*};
}
npy_number!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);

impl<F: NpyElement> NpyElement for Complex<F>
where
    Complex<F>: Element,
{
    /// A complex value is its real then its imaginary part, each as `F` is stored.
    fn decode(bytes: &[u8], big_endian: bool, out: &mut Vec<Self>) {
        let mut parts = Vec::with_capacity(bytes.len() / std::mem::size_of::<F>());
        F::decode(bytes, big_endian, &mut parts);
        out.extend(parts.chunks_exact(2).map(|p| Complex::new(p[0], p[1])));
    }
    fn encode_le(values: impl Iterator<Item = Self>, out: &mut Vec<u8>) {
        F::encode_le(values.flat_map(|z| [z.re, z.im]), out);
    }
}

impl NpyElement for bool {
    fn decode(bytes: &[u8], _: bool, out: &mut Vec<Self>) {
        out.extend(bytes.iter().map(|&b| b != 0));
    }
    fn encode_le(values: impl Iterator<Item = Self>, out: &mut Vec<u8>) {
        out.extend(values.map(u8::from));
    }
}
