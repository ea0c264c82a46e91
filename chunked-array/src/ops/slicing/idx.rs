//! Index expressions: [`Idx`], the ranges that convert into it, and the [`s!`]
//! macro that writes NumPy's `x[:5, 1::2, -1, None, ...]` as
//! `s![..5, 1..;2, -1, NewAxis, ...]`.
//!
//! [`s!`]: crate::s

use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

/// One entry of an index expression (NumPy's `x[...]`); [`s!`](crate::s)
/// builds a list of them.
///
/// ```
/// use chunked_array::{Array, Idx, s};
/// let x = Array::<i64>::arange(0, 10, 1, 4).unwrap();
/// assert_eq!(s![2..8;3], [Idx::stepped(Some(2), Some(8), 3)]);
/// let y = x.slice(&[Idx::stepped(Some(2), Some(8), 3)]).unwrap();
/// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[2, 5]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idx {
    /// `start:stop:step`; `None` bounds take NumPy's defaults (which depend on
    /// the sign of `step`); negative bounds count from the end.
    Slice {
        /// First index (default 0, or the last element for a negative step).
        start: Option<isize>,
        /// One past the last index (default the end, or before the first element
        /// for a negative step).
        stop: Option<isize>,
        /// Step (non-zero).
        step: isize,
    },
    /// One index: the axis is dropped. Negative counts from the end.
    Index(isize),
    /// A new axis of length 1 (NumPy's `None` / `np.newaxis`).
    NewAxis,
    /// As many full slices as needed (NumPy's `...`).
    Ellipsis,
}

impl Idx {
    /// The whole axis (`:`).
    ///
    /// ```
    /// use chunked_array::{Idx, s};
    /// assert_eq!(s![..], [Idx::FULL]);
    /// ```
    pub const FULL: Idx = Idx::Slice { start: None, stop: None, step: 1 };

    /// `start..stop` with step 1.
    ///
    /// ```
    /// use chunked_array::{Idx, s};
    /// assert_eq!(Idx::range(-3, -1), s![-3..-1][0]);
    /// ```
    pub fn range(start: isize, stop: isize) -> Idx {
        Idx::Slice { start: Some(start), stop: Some(stop), step: 1 }
    }

    /// `start:stop:step` with explicit optional bounds.
    ///
    /// ```
    /// use chunked_array::{Idx, s};
    /// assert_eq!(Idx::stepped(None, None, -1), s![..;-1][0]);
    /// ```
    pub fn stepped(start: Option<isize>, stop: Option<isize>, step: isize) -> Idx {
        Idx::Slice { start, stop, step }
    }

    /// A Rust range with a NumPy step: `Idx::with_step(a..b, s)` is NumPy's
    /// `a:b:s` (what `s![a..b;s]` writes). With a negative step the range runs
    /// from `a` down to `b`, as in NumPy, so `5..1` with step -2 takes 5 and 3
    /// (ndarray's `s!` instead reverses the ascending range `a..b`). An
    /// inclusive end (`a..=b`) includes `b` whatever the step's sign.
    ///
    /// ```
    /// use chunked_array::{Array, Idx};
    /// let x = Array::<i64>::arange(0, 8, 1, 3).unwrap();
    /// let down = x.slice(&[Idx::with_step(5..1, -2)]).unwrap();
    /// assert_eq!(down.compute().unwrap().as_slice().unwrap(), &[5, 3]);
    /// let to_first = x.slice(&[Idx::with_step(..=0, -3)]).unwrap();
    /// assert_eq!(to_first.compute().unwrap().as_slice().unwrap(), &[7, 4, 1]);
    /// ```
    pub fn with_step<R: SliceRange>(range: R, step: isize) -> Idx {
        let (start, end) = range.bounds();
        let stop = match end {
            None => None,
            Some(RangeEnd::Exclusive(e)) => Some(e),
            // The element before "one past -1" is the last one: no stop at all.
            Some(RangeEnd::Inclusive(-1)) if step > 0 => None,
            Some(RangeEnd::Inclusive(e)) if step > 0 => Some(e.saturating_add(1)),
            // Stepping down, -1 as a stop would mean the last element.
            Some(RangeEnd::Inclusive(0)) => None,
            Some(RangeEnd::Inclusive(e)) => Some(e.saturating_sub(1)),
        };
        Idx::Slice { start, stop, step }
    }
}

/// How a Rust range ends (see [`SliceRange::bounds`]).
///
/// ```
/// use chunked_array::{RangeEnd, SliceRange};
/// assert_eq!((..=3).bounds().1, Some(RangeEnd::Inclusive(3)));
/// assert_eq!((..3).bounds().1, Some(RangeEnd::Exclusive(3)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeEnd {
    /// `..b`: `b` is not taken.
    Exclusive(isize),
    /// `..=b`: `b` is taken.
    Inclusive(isize),
}

/// A Rust range usable as a slice in an index expression: `a..b`, `a..`,
/// `..b`, `..`, `a..=b`, `..=b`, over `i32`, `i64`, `isize` or `usize`.
///
/// ```
/// use chunked_array::{RangeEnd, SliceRange};
/// assert_eq!((2..=-1).bounds(), (Some(2), Some(RangeEnd::Inclusive(-1))));
/// assert_eq!((..).bounds(), (None, None));
/// ```
pub trait SliceRange {
    /// The start (`None`: NumPy's default) and the end.
    ///
    /// ```
    /// use chunked_array::{RangeEnd, SliceRange};
    /// assert_eq!((-3..).bounds(), (Some(-3), None));
    /// assert_eq!((1usize..4).bounds(), (Some(1), Some(RangeEnd::Exclusive(4))));
    /// ```
    fn bounds(self) -> (Option<isize>, Option<RangeEnd>);
}

impl SliceRange for RangeFull {
    fn bounds(self) -> (Option<isize>, Option<RangeEnd>) {
        (None, None)
    }
}

/// An index as `isize`; a `usize` past `isize::MAX` saturates, so it is out of
/// range for every axis and reported as such instead of wrapping negative.
///
/// ```
/// use chunked_array::{Idx, IndexValue};
/// let i: usize = 3;
/// assert_eq!(Idx::from(i), Idx::Index(i.to_index()));
/// ```
pub trait IndexValue: Copy {
    /// The value as a NumPy index.
    ///
    /// ```
    /// use chunked_array::IndexValue;
    /// assert_eq!(usize::MAX.to_index(), isize::MAX);
    /// assert_eq!((-2i32).to_index(), -2);
    /// ```
    fn to_index(self) -> isize;
}

macro_rules! index_types {
    ($($t:ty),*) => {$(
        impl IndexValue for $t {
            fn to_index(self) -> isize {
                isize::try_from(self).unwrap_or(isize::MAX)
            }
        }
        impl From<$t> for Idx {
            fn from(i: $t) -> Idx {
                Idx::Index(i.to_index())
            }
        }
        impl SliceRange for Range<$t> {
            fn bounds(self) -> (Option<isize>, Option<RangeEnd>) {
                (Some(self.start.to_index()), Some(RangeEnd::Exclusive(self.end.to_index())))
            }
        }
        impl SliceRange for RangeFrom<$t> {
            fn bounds(self) -> (Option<isize>, Option<RangeEnd>) {
                (Some(self.start.to_index()), None)
            }
        }
        impl SliceRange for RangeTo<$t> {
            fn bounds(self) -> (Option<isize>, Option<RangeEnd>) {
                (None, Some(RangeEnd::Exclusive(self.end.to_index())))
            }
        }
        impl SliceRange for RangeInclusive<$t> {
            fn bounds(self) -> (Option<isize>, Option<RangeEnd>) {
                (Some(self.start().to_index()), Some(RangeEnd::Inclusive(self.end().to_index())))
            }
        }
        impl SliceRange for RangeToInclusive<$t> {
            fn bounds(self) -> (Option<isize>, Option<RangeEnd>) {
                (None, Some(RangeEnd::Inclusive(self.end.to_index())))
            }
        }
    )*};
}
index_types!(i32, i64, isize, usize);

impl<R: SliceRange> From<R> for Idx {
    fn from(range: R) -> Idx {
        Idx::with_step(range, 1)
    }
}

/// An index expression with NumPy's meaning, as an array of [`Idx`]
/// (`[Idx; N]`, which [`Array::slice`](crate::Array::slice) takes).
///
/// | `s![...]` entry | NumPy | meaning |
/// |---|---|---|
/// | `3`, `-1` | `3`, `-1` | one index; the axis is dropped; negative counts from the end |
/// | `a..b`, `a..`, `..b`, `..` | `a:b`, `a:`, `:b`, `:` | a slice (bounds may be negative) |
/// | `a..=b` | `a:b+1` | a slice including `b` |
/// | `a..b;s`, `..;-1` | `a:b:s`, `::-1` | a stepped slice; with `s < 0` it runs from `a` down to `b` |
/// | `NewAxis` | `None` | a new axis of length 1 |
/// | `...` | `...` | as many `:` as needed |
///
/// Unlike ndarray's `s!`, a negative step keeps NumPy's meaning (`5..1;-2`
/// is NumPy's `5:1:-2`, elements 5 and 3), and `...` and `NewAxis` need no import.
///
/// ```
/// use chunked_array::{Array, s};
/// let x = Array::<i64>::from_fn(&[4, 6], [2, 4], |i| (10 * i[0] + i[1]) as i64).unwrap();
/// // NumPy: x[1:, ::-2]
/// let y = x.slice(s![1.., ..;-2]).unwrap().compute_as::<ndarray::Ix2>().unwrap();
/// assert_eq!(y, ndarray::array![[15, 13, 11], [25, 23, 21], [35, 33, 31]]);
/// // NumPy: x[-1, None, ..., :2]
/// let z = x.slice(s![-1, NewAxis, ..., ..2]).unwrap();
/// assert_eq!(z.shape(), vec![1, 2]);
/// ```
#[macro_export]
macro_rules! s {
    (@acc [$($done:expr),*]) => { [$($done),*] };
    (@acc [$($done:expr),*] ... $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($done,)* $crate::Idx::Ellipsis] $($($rest)*)?)
    };
    (@acc [$($done:expr),*] NewAxis $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($done,)* $crate::Idx::NewAxis] $($($rest)*)?)
    };
    (@acc [$($done:expr),*] $range:expr ; $step:expr $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($done,)* {
            // With a negative step, `5..1` runs down from 5: not an empty range.
            #[allow(clippy::reversed_empty_ranges)]
            let range = $range;
            $crate::Idx::with_step(range, $step)
        }] $($($rest)*)?)
    };
    (@acc [$($done:expr),*] $index:expr $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($done,)* <$crate::Idx as ::core::convert::From<_>>::from($index)] $($($rest)*)?)
    };
    ($($entries:tt)*) => { $crate::s!(@acc [] $($entries)*) };
}
