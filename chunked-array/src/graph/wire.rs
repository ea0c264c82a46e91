//! Blocks as bytes for another process of the same program (the MPI scheduler's
//! transfers between ranks).
//!
//! Blocks of elements travel as their dtype, shape and raw data. A layer of
//! intermediate values says how its blocks travel through [`Wire`] (its
//! `BlockOp::wire`); a layer without one keeps its blocks
//! in the process that made them, and the MPI placement runs their consumers
//! there too.

use std::sync::Arc;

use ndarray::{ArrayD, IxDyn};

use crate::block::Block;
use crate::element::{DType, Element, WireValue};

/// How the blocks of one layer of intermediate values become bytes and back.
///
/// ```
/// use std::sync::Arc;
/// use chunked_array::ndarray::{arr1, ArrayD};
/// use chunked_array::runtime::{Block, Wire};
/// let wire = Wire::values::<(f64, u64)>(); // (sum, count) partials of a mean
/// let partial: Block = Arc::new(arr1(&[(3.0, 2u64)]).into_dyn());
/// let bytes = (wire.encode)(&partial).unwrap();
/// let back = (wire.decode)(&bytes).unwrap();
/// let a = back.as_any().downcast_ref::<ArrayD<(f64, u64)>>().unwrap();
/// assert_eq!(a.as_slice().unwrap(), &[(3.0, 2)]);
/// ```
#[derive(Clone, Copy)]
pub struct Wire {
    /// The block as bytes; `None` when it is not of the layer's block type.
    pub encode: fn(&Block) -> Option<Vec<u8>>,
    /// The block from bytes that `encode` wrote (in any process of the same
    /// program); `None` when they do not describe one.
    pub decode: fn(&[u8]) -> Option<Block>,
}

impl std::fmt::Debug for Wire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Wire")
    }
}

impl Wire {
    /// Blocks that travel as their [`BlockValue::spill_image`](crate::block::BlockValue::spill_image)
    /// bytes; `decode` rebuilds one from them.
    ///
    /// ```
    /// use std::any::Any;
    /// use std::sync::Arc;
    /// use chunked_array::runtime::{Block, BlockValue, SpillImage, Wire};
    /// struct Count(u64);
    /// fn rebuild(b: &[u8]) -> Option<Block> {
    ///     Some(Arc::new(Count(u64::from_le_bytes(b.try_into().ok()?))))
    /// }
    /// impl BlockValue for Count {
    ///     fn nbytes(&self) -> usize { 8 }
    ///     fn as_any(&self) -> &dyn Any { self }
    ///     fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> { self }
    ///     fn spill_image(&self) -> Option<SpillImage> {
    ///         Some(SpillImage { bytes: self.0.to_le_bytes().to_vec(), rebuild })
    ///     }
    /// }
    /// let wire = Wire::spill_image(rebuild);
    /// let bytes = (wire.encode)(&(Arc::new(Count(5)) as Block)).unwrap();
    /// let back = (wire.decode)(&bytes).unwrap();
    /// assert_eq!(back.as_any().downcast_ref::<Count>().unwrap().0, 5);
    /// ```
    pub fn spill_image(decode: fn(&[u8]) -> Option<Block>) -> Wire {
        Wire { encode: |block| block.spill_image().map(|image| image.bytes), decode }
    }

    /// Blocks that are `ndarray` arrays of plain values `V` (reduction partials).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use chunked_array::ndarray::{arr1, ArrayD};
    /// use chunked_array::runtime::{Block, Wire};
    /// let wire = Wire::values::<i64>();
    /// let bytes = (wire.encode)(&(Arc::new(arr1(&[4i64, -5]).into_dyn()) as Block)).unwrap();
    /// let back = (wire.decode)(&bytes).unwrap();
    /// assert_eq!(back.as_any().downcast_ref::<ArrayD<i64>>().unwrap().as_slice().unwrap(), &[4, -5]);
    /// assert!((wire.encode)(&(Arc::new(arr1(&[1.0f64]).into_dyn()) as Block)).is_none()); // not i64
    /// ```
    pub fn values<V: WireValue>() -> Wire {
        Wire { encode: encode_values::<V>, decode: decode_values::<V> }
    }

    /// Blocks that are `ndarray` arrays of elements `T`: their dtype, shape
    /// and raw data. Every layer of elements travels so; a layer of
    /// intermediate values whose blocks are arrays of elements (work blocks of
    /// a staged algorithm) says so with this.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use chunked_array::ndarray::{arr2, ArrayD};
    /// use chunked_array::runtime::{Block, Wire};
    /// let block: Block = Arc::new(arr2(&[[1.0f32, 2.0], [3.0, 4.0]]).into_dyn());
    /// let bytes = (Wire::elements::<f32>().encode)(&block).unwrap();
    /// let back = (Wire::elements::<f32>().decode)(&bytes).unwrap();
    /// assert_eq!(back.as_any().downcast_ref::<ArrayD<f32>>().unwrap().shape(), &[2, 2]);
    /// assert!((Wire::elements::<f64>().decode)(&bytes).is_none()); // the dtype is checked
    /// ```
    pub fn elements<T: Element>() -> Wire {
        Wire { encode: encode_elements, decode: decode_elements::<T> }
    }

    /// [`Wire::elements`] for a dtype known at run time.
    ///
    /// # Panics
    /// For [`DType::Intermediate`], which is no element type.
    pub(crate) fn of_dtype(dtype: DType) -> Wire {
        fn elements<T: Element>() -> Option<Wire> {
            Some(Wire::elements::<T>())
        }
        crate::block::dispatch_dtype!(dtype, elements::<_>()).expect("a dtype of elements")
    }
}

/// Shape header: ndim (one byte), then each length as a u64.
fn put_shape(shape: &[usize], out: &mut Vec<u8>) {
    out.push(shape.len() as u8);
    for &n in shape {
        out.extend_from_slice(&(n as u64).to_le_bytes());
    }
}

/// The shape and the bytes after it.
fn get_shape(bytes: &[u8]) -> Option<(Vec<usize>, &[u8])> {
    let (&ndim, mut rest) = bytes.split_first()?;
    let mut shape = Vec::with_capacity(ndim as usize);
    for _ in 0..ndim {
        let (n, tail) = rest.split_at_checked(8)?;
        shape.push(usize::try_from(u64::from_le_bytes(n.try_into().ok()?)).ok()?);
        rest = tail;
    }
    Some((shape, rest))
}

fn encode_values<V: WireValue>(block: &Block) -> Option<Vec<u8>> {
    let a = block.as_any().downcast_ref::<ArrayD<V>>()?;
    let mut out = Vec::with_capacity(1 + 8 * a.ndim() + a.len() * V::SIZE);
    put_shape(a.shape(), &mut out);
    for v in a.iter() {
        v.put(&mut out);
    }
    Some(out)
}

/// The shape and the data after it, checked to hold exactly the shape's
/// number of values of `value_size` bytes.
fn get_array(bytes: &[u8], value_size: usize) -> Option<(Vec<usize>, &[u8])> {
    let (shape, data) = get_shape(bytes)?;
    let len = shape.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n))?;
    (data.len() == len.checked_mul(value_size)?).then_some((shape, data))
}

fn decode_values<V: WireValue>(bytes: &[u8]) -> Option<Block> {
    let (shape, data) = get_array(bytes, V::SIZE)?;
    let values: Option<Vec<V>> = data.chunks_exact(V::SIZE.max(1)).take(shape.iter().product()).map(V::get).collect();
    Some(Arc::new(ArrayD::from_shape_vec(IxDyn(&shape), values?).ok()?))
}

/// A block of elements as bytes: dtype, shape, then the values in C order.
fn encode_elements(block: &Block) -> Option<Vec<u8>> {
    fn raw<T: Element>(block: &Block) -> Option<Vec<u8>> {
        let a = block.as_any().downcast_ref::<ArrayD<T>>()?;
        let standard = a.as_standard_layout();
        let values = standard.as_slice().expect("standard layout");
        // SAFETY: every element type is a plain number (or bool) without padding.
        let bytes = unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values)) };
        let mut out = Vec::with_capacity(2 + 8 * a.ndim() + bytes.len());
        out.push(T::DTYPE as u8);
        put_shape(a.shape(), &mut out);
        out.extend_from_slice(bytes);
        Some(out)
    }
    crate::block::dispatch_dtype!(crate::block::block_dtype(block), raw::<_>(block))
}

/// The block [`encode_elements`] wrote, checked to hold elements `T`.
fn decode_elements<T: Element>(bytes: &[u8]) -> Option<Block> {
    let (&tag, rest) = bytes.split_first()?;
    if tag != T::DTYPE as u8 {
        return None;
    }
    let (shape, data) = get_array(rest, std::mem::size_of::<T>())?;
    if T::DTYPE == DType::Bool && data.iter().any(|&b| b > 1) {
        return None;
    }
    let mut values = vec![T::default(); shape.iter().product()];
    // SAFETY: plain numbers without padding, filled from as many bytes (checked
    // by `get_array`); bools were checked to be 0 or 1 above.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), values.as_mut_ptr().cast::<u8>(), data.len()) };
    Some(Arc::new(ArrayD::from_shape_vec(IxDyn(&shape), values).ok()?))
}
