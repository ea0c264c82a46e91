//! Byte sizes as people write them: dask's `parse_bytes` and `format_bytes`.

use crate::error::{Error, Result};

/// Bytes per unit, matched case-insensitively as dask's `parse_bytes` does:
/// decimal units (kB, MB, ...) are powers of 1000, binary ones (KiB, MiB, ...)
/// powers of 1024.
const UNITS: [(&str, f64); 15] = [
    ("b", 1.0),
    ("kb", 1e3),
    ("mb", 1e6),
    ("gb", 1e9),
    ("tb", 1e12),
    ("pb", 1e15),
    ("kib", 1024.0),
    ("mib", 1048576.0),
    ("gib", 1073741824.0),
    ("tib", 1099511627776.0),
    ("pib", 1125899906842624.0),
    ("k", 1e3),
    ("m", 1e6),
    ("g", 1e9),
    ("t", 1e12),
];

/// Parses a byte size such as `"100MiB"`, `"1 GB"`, `"1.5e3 kB"` or `"4096"`
/// (dask's `parse_bytes`): a number, optional spaces, an optional unit.
///
/// ```
/// use chunked_array::parse_bytes;
/// assert_eq!(parse_bytes("100MiB").unwrap(), 100 << 20);
/// assert_eq!(parse_bytes("1 GB").unwrap(), 1_000_000_000);
/// assert_eq!(parse_bytes("MB").unwrap(), 1_000_000);
/// assert!(parse_bytes("12 parsecs").is_err());
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the string when it is not a non-negative
/// number followed by a known unit, or when the size overflows `usize`.
pub fn parse_bytes(text: &str) -> Result<usize> {
    let bad = |reason: &str| Error::invalid("byte size", text, reason);
    let s = text.trim();
    if s.is_empty() {
        return Err(bad("is empty"));
    }
    let split = s.find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E').unwrap_or(s.len());
    // A unit may start with 'e' only as part of the exponent; "1e3" is a number.
    let (number, unit) = (s[..split].trim(), s[split..].trim().to_ascii_lowercase());
    let value: f64 = if number.is_empty() {
        1.0
    } else {
        number.parse().map_err(|_| bad("is not a number with a unit such as \"100MiB\" or \"1 GB\""))?
    };
    let scale = if unit.is_empty() {
        1.0
    } else {
        UNITS
            .iter()
            .find(|(u, _)| *u == unit)
            .map(|&(_, s)| s)
            .ok_or_else(|| bad("has an unknown unit (B, kB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB)"))?
    };
    let bytes = value * scale;
    if !bytes.is_finite() || bytes < 0.0 {
        return Err(bad("is not a non-negative finite size"));
    }
    if bytes >= usize::MAX as f64 {
        return Err(bad("does not fit in usize"));
    }
    Ok(bytes as usize)
}

/// A byte count for people: `"762.94 MiB"` (binary units, as dask's repr).
///
/// ```
/// use chunked_array::human_bytes;
/// assert_eq!(human_bytes(512), "512 B");
/// assert_eq!(human_bytes(3 << 20), "3.00 MiB");
/// ```
pub fn human_bytes(bytes: usize) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 { format!("{bytes} B") } else { format!("{v:.2} {}", UNITS[u]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dask_sizes() {
        // dask.utils.parse_bytes's documented examples.
        assert_eq!(parse_bytes("100").unwrap(), 100);
        assert_eq!(parse_bytes("100 MB").unwrap(), 100_000_000);
        assert_eq!(parse_bytes("100M").unwrap(), 100_000_000);
        assert_eq!(parse_bytes("5kB").unwrap(), 5000);
        assert_eq!(parse_bytes("5.4 kB").unwrap(), 5400);
        assert_eq!(parse_bytes("1kiB").unwrap(), 1024);
        assert_eq!(parse_bytes("1e6").unwrap(), 1_000_000);
        assert_eq!(parse_bytes("1e6 kB").unwrap(), 1_000_000_000);
        assert_eq!(parse_bytes("MB").unwrap(), 1_000_000);
        assert_eq!(parse_bytes("123B").unwrap(), 123);
        assert_eq!(parse_bytes(" 2 GiB ").unwrap(), 2 << 30);
        for bad in ["", "auto", "5 foos", "-1 MB", "1..2 MB", "inf GB", "1e400"] {
            let err = parse_bytes(bad).unwrap_err().to_string();
            assert!(err.contains(&format!("{bad:?}")), "{bad:?}: {err}");
        }
    }

    #[test]
    fn formats_binary_units() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1024), "1.00 KiB");
        assert_eq!(human_bytes(800_000_000), "762.94 MiB");
    }
}
