//! Creating arrays: from an ndarray, constants, ranges, identity, from a function.

use std::sync::Arc;

use ndarray::{ArrayD, Dimension, IxDyn, Slice};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{ChunkSpec, Chunks};
use crate::element::{Element, Float, Number};
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node};

/// Block `idx` with each element set to `f(global index)`.
pub(crate) fn fill_block<T: Element>(chunks: &Chunks, idx: &[usize], f: impl Fn(&[usize]) -> T) -> ArrayD<T> {
    let shape = chunks.block_shape(idx);
    let start = chunks.block_start(idx);
    let mut g = start.clone();
    ArrayD::from_shape_fn(IxDyn(&shape), |local| {
        for (a, (gi, s)) in g.iter_mut().zip(&start).enumerate() {
            *gi = s + local[a];
        }
        f(&g)
    })
}

struct FromNdarray<T> {
    data: Arc<ArrayD<T>>,
}
impl<T: Element> BlockOp for FromNdarray<T> {
    fn position_only(&self) -> bool {
        true
    }
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}
    fn run(&self, node: &Node, idx: &[usize], _: &[&Block]) -> Result<Block> {
        let start = node.chunks.block_start(idx);
        let shape = node.chunks.block_shape(idx);
        let view = self.data.slice_each_axis(|ax| {
            let a = ax.axis.index();
            Slice::from(start[a]..start[a] + shape[a])
        });
        Ok(Arc::new(crate::block::alloc::owned_block(view)))
    }
}

struct Full<T> {
    value: T,
}
impl<T: Element> BlockOp for Full<T> {
    fn position_only(&self) -> bool {
        true
    }
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}
    fn run(&self, node: &Node, idx: &[usize], _: &[&Block]) -> Result<Block> {
        Ok(Arc::new(crate::block::alloc::full_block(&node.chunks.block_shape(idx), self.value)))
    }
}

struct FromFn<T, F> {
    f: F,
    _t: std::marker::PhantomData<fn() -> T>,
}
impl<T: Element, F: Fn(&[usize]) -> T + Send + Sync + 'static> BlockOp for FromFn<T, F> {
    fn position_only(&self) -> bool {
        true
    }
    fn regenerates_cheaply(&self) -> bool {
        // The user's function may cost more than the disk.
        false
    }
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}
    fn run(&self, node: &Node, idx: &[usize], _: &[&Block]) -> Result<Block> {
        Ok(Arc::new(fill_block(&node.chunks, idx, &self.f)))
    }
}

/// `start + i * step` along a 1-d array.
struct Range<T> {
    start: T,
    step: T,
    /// Replaces the last element (linspace's `endpoint`), as NumPy does.
    last: Option<(usize, T)>,
}
impl<T: Number> BlockOp for Range<T> {
    fn position_only(&self) -> bool {
        true
    }
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}
    fn run(&self, node: &Node, idx: &[usize], _: &[&Block]) -> Result<Block> {
        let a = fill_block(&node.chunks, idx, |g| match self.last {
            Some((i, v)) if g[0] == i => v,
            _ => {
                if T::IS_FLOAT {
                    T::from_f64(self.start.to_f64() + g[0] as f64 * self.step.to_f64())
                } else {
                    self.start.add(T::from_i64(g[0] as i64).mul(self.step))
                }
            }
        });
        Ok(Arc::new(a))
    }
}

struct Eye<T> {
    k: isize,
    _t: std::marker::PhantomData<fn() -> T>,
}
impl<T: Number> BlockOp for Eye<T> {
    fn position_only(&self) -> bool {
        true
    }
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}
    fn run(&self, node: &Node, idx: &[usize], _: &[&Block]) -> Result<Block> {
        let shape = node.chunks.block_shape(idx);
        let start = node.chunks.block_start(idx);
        let mut a = crate::block::alloc::full_block(&shape, T::ZERO);
        for i in 0..shape[0] {
            // i128: row + k - column start cannot overflow for any k.
            let j = (start[0] + i) as i128 + self.k as i128 - start[1] as i128;
            if j >= 0 && j < shape[1] as i128 {
                a[[i, j as usize]] = T::ONE;
            }
        }
        Ok(Arc::new(a))
    }
}

impl<T: Element> Array<T> {
    /// Splits an in-memory array into blocks (dask's `from_array`). An owned
    /// array (`Array2`, `ArrayD`, ...) is moved, not copied; a view
    /// (`ArrayView`) is copied once, since the lazy array outlives the borrow; an
    /// `ArcArray` is taken without a copy when this is its only handle. Each
    /// block copies its part when computed.
    ///
    /// ```
    /// use chunked_array::{Array, ndarray};
    /// let a = ndarray::Array2::<f64>::ones((4, 6));
    /// let x = Array::from_ndarray(a.view(), [2, 3]).unwrap(); // a copy of the view
    /// assert_eq!(x.chunks().lengths(), &[vec![2, 2], vec![3, 3]]);
    /// let y = Array::from_ndarray(a, [2, 3]).unwrap(); // moved
    /// assert_eq!(y.sum(None).unwrap().compute_scalar().unwrap(), 24.0);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadChunks`] when the chunk spec does not fit the shape.
    pub fn from_ndarray<S, D>(data: ndarray::ArrayBase<S, D>, chunks: impl Into<ChunkSpec>) -> Result<Self>
    where
        S: ndarray::Data<Elem = T>,
        D: Dimension,
    {
        let data = data.into_owned().into_dyn();
        let chunks = chunks.into().resolve(data.shape(), T::DTYPE)?;
        Ok(Self::source("array", chunks, FromNdarray { data: Arc::new(data) }))
    }

    /// An array of the given shape over a vector's elements in C (row-major)
    /// order; the vector is moved, not copied.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[2, 3], vec![1i64, 2, 3, 4, 5, 6], [1, 3]).unwrap();
    /// assert_eq!(x.sum(Some(0)).unwrap().compute().unwrap().as_slice().unwrap(), &[5, 7, 9]);
    /// assert!(Array::from_vec(&[2, 2], vec![1, 2, 3], 2).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the length and the shape when they
    /// disagree; [`Error::BadChunks`].
    pub fn from_vec(shape: &[usize], data: Vec<T>, chunks: impl Into<ChunkSpec>) -> Result<Self> {
        let len = data.len();
        let array = ArrayD::from_shape_vec(IxDyn(shape), data)
            .map_err(|_| Error::invalid("data length", len, format!("does not fill shape {shape:?}")))?;
        Self::from_ndarray(array, chunks)
    }

    /// An array of the given shape over a copy of a slice, in C order.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_slice(&[3], &[1.5, 2.5, 3.0], 2).unwrap();
    /// assert_eq!(x.sum(None).unwrap().compute_scalar().unwrap(), 7.0);
    /// ```
    ///
    /// # Errors
    /// As [`Array::from_vec`].
    pub fn from_slice(shape: &[usize], data: &[T], chunks: impl Into<ChunkSpec>) -> Result<Self> {
        Self::from_vec(shape, data.to_vec(), chunks)
    }

    /// An array with every element equal to `value`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::full(&[2, 3], 7i64, [1, 3]).unwrap();
    /// assert_eq!(x.sum(None).unwrap().compute_scalar().unwrap(), 42);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadChunks`] when the chunk spec does not fit the shape.
    pub fn full(shape: &[usize], value: T, chunks: impl Into<ChunkSpec>) -> Result<Self> {
        let chunks = chunks.into().resolve(shape, T::DTYPE)?;
        Ok(Self::source("full", chunks, Full { value }))
    }

    /// An array of `T::default()` (0, or false).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::zeros(&[3], 2).unwrap();
    /// assert_eq!(x.compute().unwrap().as_slice().unwrap(), &[0.0; 3]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadChunks`] when the chunk spec does not fit the shape.
    pub fn zeros(shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Self> {
        let chunks = chunks.into().resolve(shape, T::DTYPE)?;
        Ok(Self::source("zeros", chunks, Full { value: T::default() }))
    }

    /// An array whose element at global index `i` is `f(i)`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::from_fn(&[2, 3], [1, 2], |i| (10 * i[0] + i[1]) as i64).unwrap();
    /// assert_eq!(x.compute().unwrap().as_slice().unwrap(), &[0, 1, 2, 10, 11, 12]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadChunks`] when the chunk spec does not fit the shape.
    pub fn from_fn(
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
        f: impl Fn(&[usize]) -> T + Send + Sync + 'static,
    ) -> Result<Self> {
        let chunks = chunks.into().resolve(shape, T::DTYPE)?;
        Ok(Self::source("from_fn", chunks, FromFn { f, _t: std::marker::PhantomData }))
    }

    /// An array of zeros (NumPy's and dask's `empty`: chunked has no
    /// uninitialized arrays, so its contents are defined).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f32>::empty(&[2, 3], 2).unwrap();
    /// assert_eq!(x.sum(None).unwrap().compute_scalar().unwrap(), 0.0);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadChunks`] when the chunk spec does not fit the shape.
    pub fn empty(shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Self> {
        Self::zeros(shape, chunks)
    }

    /// [`Array::empty`] with `like`'s shape and blocks (dask's `empty_like`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::ones(&[4], 3).unwrap();
    /// let e = Array::<i16>::empty_like(&x).unwrap();
    /// assert_eq!((e.shape(), e.chunks()), (x.shape(), x.chunks()));
    /// ```
    ///
    /// # Errors
    /// Deferred errors of `like`.
    pub fn empty_like<U: Element>(like: &Array<U>) -> Result<Self> {
        Self::zeros_like(like)
    }

    /// `value` everywhere, with `like`'s shape and blocks (dask's `full_like`;
    /// the element type is `T`, so `Array::<f32>::full_like(&x, ..)` changes it).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::ones(&[5, 4], [2, 3]).unwrap();
    /// let y = Array::<f32>::full_like(&x, 0.5).unwrap();
    /// assert_eq!((y.shape(), y.chunks()), (x.shape(), x.chunks()));
    /// assert_eq!(y.sum(None).unwrap().compute_scalar().unwrap(), 10.0);
    /// ```
    ///
    /// # Errors
    /// Deferred errors of `like`.
    pub fn full_like<U: Element>(like: &Array<U>, value: T) -> Result<Self> {
        like.check()?;
        Self::full(&like.shape(), value, like.chunks())
    }

    /// Zeros with `like`'s shape and blocks (dask's `zeros_like`, and
    /// `empty_like`: chunked has no uninitialized arrays).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::ones(&[3], 2).unwrap();
    /// assert_eq!(Array::<u8>::zeros_like(&x).unwrap().compute().unwrap().as_slice().unwrap(), &[0, 0, 0]);
    /// ```
    ///
    /// # Errors
    /// Deferred errors of `like`.
    pub fn zeros_like<U: Element>(like: &Array<U>) -> Result<Self> {
        Self::full_like(like, T::default())
    }
}

impl<T: Number> Array<T> {
    /// An array of ones.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::ones(&[2, 2], 1).unwrap();
    /// assert_eq!(x.sum(None).unwrap().compute_scalar().unwrap(), 4);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadChunks`] when the chunk spec does not fit the shape.
    pub fn ones(shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Self> {
        let chunks = chunks.into().resolve(shape, T::DTYPE)?;
        Ok(Self::source("ones", chunks, Full { value: T::ONE }))
    }

    /// Ones with `like`'s shape and blocks (dask's `ones_like`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::zeros(&[2, 2], 1).unwrap();
    /// assert_eq!(Array::<i32>::ones_like(&x).unwrap().sum(None).unwrap().compute_scalar().unwrap(), 4);
    /// ```
    ///
    /// # Errors
    /// Deferred errors of `like`.
    pub fn ones_like<U: Element>(like: &Array<U>) -> Result<Self> {
        Self::full_like(like, T::ONE)
    }

    /// Values from `start` up to (excluding) `stop` by `step`, NumPy's `arange`:
    /// `ceil((stop - start) / step)` elements, element `i` = `start + i * step`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// // NumPy: np.arange(1.0, 2.0, 0.25)
    /// let x = Array::<f64>::arange(1.0, 2.0, 0.25, 2).unwrap();
    /// assert_eq!(x.compute().unwrap().as_slice().unwrap(), &[1.0, 1.25, 1.5, 1.75]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a zero or NaN step; [`Error::BadChunks`].
    pub fn arange(start: T, stop: T, step: T, chunks: impl Into<ChunkSpec>) -> Result<Self> {
        let s = step.to_f64();
        if s == 0.0 || s.is_nan() {
            return Err(Error::invalid("step", step, "must be non-zero"));
        }
        let len = if T::IS_FLOAT {
            // An infinite step takes one element when the range is not empty in
            // its direction (NumPy's `arange(0, 1, inf)` is `[0.]`).
            let span = stop.to_f64() - start.to_f64();
            let n = if s.is_infinite() && span.is_finite() {
                f64::from(span * s.signum() > 0.0)
            } else {
                (span / s).ceil()
            };
            if !n.is_finite() {
                return Err(Error::invalid("stop", stop, "gives an infinite length"));
            }
            if n >= usize::MAX as f64 {
                return Err(Error::invalid("stop", stop, format!("gives {n:e} elements, more than fit in usize")));
            }
            n.max(0.0) as usize
        } else {
            // Integers count exactly (through f64, 2^53 + 1 elements came out one short).
            let (span, step_i) = (i128::from(stop.to_i64()) - i128::from(start.to_i64()), i128::from(step.to_i64()));
            let (q, r) = (span / step_i, span % step_i);
            let n = if r != 0 && (r > 0) == (step_i > 0) { q + 1 } else { q };
            usize::try_from(n.max(0))
                .map_err(|_| Error::invalid("stop", stop, format!("gives {n} elements, more than fit in usize")))?
        };
        let chunks = chunks.into().resolve(&[len], T::DTYPE)?;
        // With an infinite step the one element is `start` (0 * inf would be NaN).
        let last = s.is_infinite().then_some((0, start));
        Ok(Self::source("arange", chunks, Range { start, step, last }))
    }

    /// The `n x m` identity-like matrix with ones on diagonal `k` (NumPy's `eye`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// // NumPy: np.eye(2, 3, k=1)
    /// let x = Array::<f64>::eye(2, Some(3), 1, 2).unwrap();
    /// assert_eq!(x.compute().unwrap().as_slice().unwrap(), &[0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadChunks`] when the chunk spec does not fit the shape.
    pub fn eye(n: usize, m: Option<usize>, k: isize, chunks: impl Into<ChunkSpec>) -> Result<Self> {
        let shape = [n, m.unwrap_or(n)];
        let chunks = chunks.into().resolve(&shape, T::DTYPE)?;
        Ok(Self::source("eye", chunks, Eye::<T> { k, _t: std::marker::PhantomData }))
    }
}

impl<T: Float> Array<T> {
    /// `num` evenly spaced values over `[start, stop]` (or `[start, stop)` without
    /// `endpoint`), NumPy's `linspace`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::linspace(0.0, 1.0, 5, true, 2).unwrap();
    /// assert_eq!(x.compute().unwrap().as_slice().unwrap(), &[0.0, 0.25, 0.5, 0.75, 1.0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadChunks`] when the chunk spec does not fit the shape.
    pub fn linspace(start: T, stop: T, num: usize, endpoint: bool, chunks: impl Into<ChunkSpec>) -> Result<Self> {
        let div = if endpoint { num.saturating_sub(1) } else { num };
        let step = if div > 0 { (stop.to_f64() - start.to_f64()) / div as f64 } else { 0.0 };
        let last = (endpoint && num > 1).then(|| (num - 1, stop));
        let chunks = chunks.into().resolve(&[num], T::DTYPE)?;
        Ok(Self::source("linspace", chunks, Range { start, step: T::from_f64(step), last }))
    }
}
