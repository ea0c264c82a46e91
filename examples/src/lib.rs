//! Helpers shared by the example programs.

/// `200M`, `4G`, `512K` or a plain number of bytes.
///
/// ```
/// assert_eq!(chunked_examples::parse_bytes("200M"), Some(200 << 20));
/// assert_eq!(chunked_examples::parse_bytes("12"), Some(12));
/// assert_eq!(chunked_examples::parse_bytes("3X"), None);
/// ```
pub fn parse_bytes(v: &str) -> Option<usize> {
    let (digits, unit) = match v.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => v.split_at(i),
        None => (v, ""),
    };
    let scale: usize = match unit.to_ascii_uppercase().trim_end_matches(['B', 'I']) {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    digits.trim().parse::<usize>().ok()?.checked_mul(scale)
}
