//! [`Encode`]: a delayed value as bytes, so that it can spill to disk when
//! memory is over the limit and travel to a task on another MPI rank.

use ndarray::{ArrayD, IxDyn};
use num_complex::Complex;

use crate::element::{Element, WireValue};

/// A value as bytes and back, for values of delayed tasks made
/// [`Delayed::encoded`](super::Delayed::encoded): such values spill to the
/// disk tier when memory is over the limit, and travel between the ranks of
/// an MPI run. Implemented for numbers, `bool`, `String`, `Vec`, `Option`,
/// pairs and triples of encodable values and `ndarray::ArrayD` of elements;
/// implement it for a type of your own to give it the same.
///
/// `decode` reads from the front of `bytes`, advancing it past what it used,
/// so that encodings compose; it returns `None` (never panics) when the bytes
/// do not describe a value, as bytes read back from disk or received from
/// another process may not.
///
/// ```
/// use chunked_array::delayed::Encode;
/// /// A fitted model: its coefficients and score.
/// #[derive(Debug, PartialEq)]
/// struct Fit { coef: Vec<f64>, score: f64 }
/// impl Encode for Fit {
///     fn encode(&self, out: &mut Vec<u8>) {
///         self.coef.encode(out);
///         self.score.encode(out);
///     }
///     fn decode(bytes: &mut &[u8]) -> Option<Self> {
///         Some(Fit { coef: Vec::decode(bytes)?, score: f64::decode(bytes)? })
///     }
/// }
/// let fit = Fit { coef: vec![1.0, -2.0], score: 0.5 };
/// let mut bytes = Vec::new();
/// fit.encode(&mut bytes);
/// assert_eq!(Fit::decode(&mut &bytes[..]), Some(fit));
/// assert_eq!(Fit::decode(&mut &bytes[..5]), None); // cut short
/// ```
pub trait Encode: Sized {
    /// Appends the value's bytes to `out`.
    ///
    /// ```
    /// use chunked_array::delayed::Encode;
    /// let mut out = Vec::new();
    /// 7u16.encode(&mut out);
    /// assert_eq!(out, [7, 0]);
    /// ```
    fn encode(&self, out: &mut Vec<u8>);
    /// The value at the front of `bytes`, which then starts after it; `None`
    /// when the bytes do not describe one.
    ///
    /// ```
    /// use chunked_array::delayed::Encode;
    /// let mut bytes: &[u8] = &[7, 0, 9];
    /// assert_eq!(u16::decode(&mut bytes), Some(7));
    /// assert_eq!(bytes, &[9]);
    /// ```
    fn decode(bytes: &mut &[u8]) -> Option<Self>;
}

/// The first `n` bytes of `bytes`, which then starts after them.
fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    let (head, tail) = bytes.split_at_checked(n)?;
    *bytes = tail;
    Some(head)
}

/// A length as a u64, checked against what `bytes` can still hold at
/// `min_item` bytes per item (a hostile length allocates nothing).
fn take_len(bytes: &mut &[u8], min_item: usize) -> Option<usize> {
    let n = usize::try_from(u64::decode(bytes)?).ok()?;
    (n.checked_mul(min_item)? <= bytes.len()).then_some(n)
}

macro_rules! encode_wire_value {
    ($($t:ty),*) => {$(
        impl Encode for $t {
            fn encode(&self, out: &mut Vec<u8>) {
                self.put(out);
            }
            fn decode(bytes: &mut &[u8]) -> Option<Self> {
                <$t as WireValue>::get(take(bytes, <$t as WireValue>::SIZE)?)
            }
        }
    )*};
}
encode_wire_value!(bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, Complex<f32>, Complex<f64>);

impl Encode for usize {
    fn encode(&self, out: &mut Vec<u8>) {
        (*self as u64).encode(out);
    }
    fn decode(bytes: &mut &[u8]) -> Option<Self> {
        usize::try_from(u64::decode(bytes)?).ok()
    }
}

impl Encode for String {
    fn encode(&self, out: &mut Vec<u8>) {
        (self.len() as u64).encode(out);
        out.extend_from_slice(self.as_bytes());
    }
    fn decode(bytes: &mut &[u8]) -> Option<Self> {
        let n = take_len(bytes, 1)?;
        String::from_utf8(take(bytes, n)?.to_vec()).ok()
    }
}

impl<T: Encode> Encode for Vec<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        (self.len() as u64).encode(out);
        for item in self {
            item.encode(out);
        }
    }
    fn decode(bytes: &mut &[u8]) -> Option<Self> {
        // Each item takes at least one byte (a type encoded in none cannot
        // be told apart from a hostile length).
        let n = take_len(bytes, 1)?;
        (0..n).map(|_| T::decode(bytes)).collect()
    }
}

impl<T: Encode> Encode for Option<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        self.is_some().encode(out);
        if let Some(v) = self {
            v.encode(out);
        }
    }
    fn decode(bytes: &mut &[u8]) -> Option<Self> {
        if bool::decode(bytes)? { T::decode(bytes).map(Some) } else { Some(None) }
    }
}

impl<A: Encode, B: Encode> Encode for (A, B) {
    fn encode(&self, out: &mut Vec<u8>) {
        self.0.encode(out);
        self.1.encode(out);
    }
    fn decode(bytes: &mut &[u8]) -> Option<Self> {
        Some((A::decode(bytes)?, B::decode(bytes)?))
    }
}

impl<A: Encode, B: Encode, C: Encode> Encode for (A, B, C) {
    fn encode(&self, out: &mut Vec<u8>) {
        self.0.encode(out);
        self.1.encode(out);
        self.2.encode(out);
    }
    fn decode(bytes: &mut &[u8]) -> Option<Self> {
        Some((A::decode(bytes)?, B::decode(bytes)?, C::decode(bytes)?))
    }
}

impl<T: Element> Encode for ArrayD<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        self.shape().to_vec().encode(out);
        out.reserve(self.len() * T::SIZE);
        for v in self.iter() {
            v.put(out);
        }
    }
    fn decode(bytes: &mut &[u8]) -> Option<Self> {
        let shape = Vec::<usize>::decode(bytes)?;
        let n = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))?;
        let data = take(bytes, n.checked_mul(T::SIZE)?)?;
        let values = data.chunks_exact(T::SIZE).map(T::get).collect::<Option<Vec<T>>>()?;
        ArrayD::from_shape_vec(IxDyn(&shape), values).ok()
    }
}

/// The value's bytes.
pub(crate) fn to_bytes<T: Encode>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    value.encode(&mut out);
    out
}

/// The value the whole of `bytes` describes (trailing bytes are an error).
pub(crate) fn from_bytes<T: Encode>(mut bytes: &[u8]) -> Option<T> {
    let value = T::decode(&mut bytes)?;
    bytes.is_empty().then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Encode + PartialEq + std::fmt::Debug>(v: T) {
        let bytes = to_bytes(&v);
        assert_eq!(from_bytes::<T>(&bytes), Some(v));
        for cut in 0..bytes.len() {
            assert!(from_bytes::<T>(&bytes[..cut]).is_none(), "cut at {cut} of {}", bytes.len());
        }
    }

    #[test]
    fn values_round_trip_and_cut_bytes_are_refused() {
        round_trip((3usize, -1.5f64, String::from("fit ä")));
        round_trip(vec![Some(1u32), None, Some(u32::MAX)]);
        round_trip(vec![Complex::new(1.0f32, -0.0)]);
        round_trip(ndarray::arr2(&[[1i16, 2], [3, -4]]).into_dyn());
        round_trip(ArrayD::<f64>::zeros(IxDyn(&[0, 3])));
    }

    #[test]
    fn hostile_lengths_allocate_nothing() {
        let mut bytes = (u64::MAX).to_le_bytes().to_vec();
        bytes.push(1);
        assert!(from_bytes::<Vec<u8>>(&bytes).is_none());
        assert!(from_bytes::<String>(&bytes).is_none());
        let mut shape = Vec::new();
        vec![usize::MAX, 2].encode(&mut shape);
        assert!(from_bytes::<ArrayD<f64>>(&shape).is_none());
        assert!(from_bytes::<bool>(&[2]).is_none());
        assert!(from_bytes::<u8>(&[1, 2]).is_none()); // trailing bytes
    }
}
