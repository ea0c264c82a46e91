//! Element values as little-endian bytes, for blocks sent between processes.

/// A plain value that travels as a fixed number of little-endian bytes.
///
/// ```
/// use chunked_array::runtime::WireValue;
/// let mut bytes = Vec::new();
/// (7i32, true).put(&mut bytes);
/// assert_eq!(bytes, [7, 0, 0, 0, 1]);
/// assert_eq!(<(i32, bool)>::SIZE, 5);
/// assert_eq!(<(i32, bool)>::get(&bytes), Some((7, true)));
/// ```
pub trait WireValue: Copy + Send + Sync + 'static {
    /// Bytes of one value.
    const SIZE: usize;
    /// Appends the value's bytes.
    ///
    /// ```
    /// use chunked_array::runtime::WireValue;
    /// let mut out = vec![9u8];
    /// 258u64.put(&mut out);
    /// assert_eq!(out, [9, 2, 1, 0, 0, 0, 0, 0, 0]);
    /// ```
    fn put(&self, out: &mut Vec<u8>);
    /// The value from its `SIZE` bytes; `None` when they are not one.
    ///
    /// ```
    /// use chunked_array::runtime::WireValue;
    /// assert_eq!(f32::get(&1.5f32.to_le_bytes()), Some(1.5));
    /// assert_eq!(bool::get(&[2]), None);
    /// assert_eq!(i64::get(&[0; 3]), None);
    /// ```
    fn get(bytes: &[u8]) -> Option<Self>;
}

macro_rules! wire_number {
    ($($t:ty),*) => {$(
        impl WireValue for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Option<Self> {
                Some(<$t>::from_le_bytes(bytes.try_into().ok()?))
            }
        }
    )*};
}
wire_number!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);

impl WireValue for bool {
    const SIZE: usize = 1;
    fn put(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
    fn get(bytes: &[u8]) -> Option<Self> {
        match bytes {
            [0] => Some(false),
            [1] => Some(true),
            _ => None,
        }
    }
}

impl<A: WireValue, B: WireValue> WireValue for (A, B) {
    const SIZE: usize = A::SIZE + B::SIZE;
    fn put(&self, out: &mut Vec<u8>) {
        self.0.put(out);
        self.1.put(out);
    }
    fn get(bytes: &[u8]) -> Option<Self> {
        Some((A::get(&bytes[..A::SIZE])?, B::get(&bytes[A::SIZE..])?))
    }
}

impl<F: WireValue> WireValue for num_complex::Complex<F> {
    const SIZE: usize = 2 * F::SIZE;
    fn put(&self, out: &mut Vec<u8>) {
        self.re.put(out);
        self.im.put(out);
    }
    fn get(bytes: &[u8]) -> Option<Self> {
        if bytes.len() != Self::SIZE {
            return None;
        }
        Some(num_complex::Complex::new(F::get(&bytes[..F::SIZE])?, F::get(&bytes[F::SIZE..])?))
    }
}
