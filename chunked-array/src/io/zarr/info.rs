//! What a stored Zarr array's metadata says (shape, chunks, type,
//! attributes, dimension names), and the members of a group.

use std::path::Path;

use serde_json::{Map, Value};

use crate::element::DType;
use crate::error::Result;
use crate::io::zarr::ZarrReadOptions;
use crate::io::zarr::group::{consolidated_members, listed_members};
use crate::io::zarr::location::{Location, stored_chunk_shape, zarr_data_type};
use crate::io::zarr::metadata::V2_DIMENSIONS;

/// A stored Zarr array's metadata (zarr-python's `zarr.open_array(..).attrs`,
/// `.shape`, `.chunks`, `.dtype`, `.metadata.dimension_names`).
///
/// ```
/// use chunked_array::io::zarr::{zarr_info, Value, ZarrReadOptions, ZarrWriteOptions};
/// use chunked_array::{Array, DType};
/// let dir = std::env::temp_dir().join(format!("chunked-doc-zarr-info-{}", std::process::id()));
/// let mut options = ZarrWriteOptions { dimension_names: Some(vec!["time".into(), "x".into()]), ..Default::default() };
/// options.attributes.insert("units".into(), Value::from("K"));
/// Array::<f32>::zeros(&[10, 4], [5, 4]).unwrap().to_zarr(&dir, "t", &options).unwrap();
/// let info = zarr_info(&dir, "t", &ZarrReadOptions::default()).unwrap();
/// assert_eq!((info.shape, info.chunks, info.dtype), (vec![10, 4], vec![5, 4], Some(DType::F32)));
/// assert_eq!(info.attributes["units"], "K");
/// assert_eq!(info.dimension_names, Some(vec![Some("time".to_string()), Some("x".to_string())]));
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ZarrArrayInfo {
    /// The array's shape.
    pub shape: Vec<usize>,
    /// The stored chunk (or shard) shape.
    pub chunks: Vec<usize>,
    /// The element type, or `None` for a data type no element type stores
    /// (strings, say).
    pub dtype: Option<DType>,
    /// The user attributes (`.attrs`; Zarr v2's `.zattrs`).
    pub attributes: Map<String, Value>,
    /// The axes' names, each possibly unnamed: Zarr v3's `dimension_names`,
    /// or for Zarr v2 xarray's `_ARRAY_DIMENSIONS` attribute.
    pub dimension_names: Option<Vec<Option<String>>>,
    /// 2 or 3.
    pub zarr_format: u8,
}

/// The metadata of Zarr array `array` of the store at `path` (a local path
/// or a URL), without reading any chunk.
///
/// ```
/// use chunked_array::io::zarr::{zarr_info, ZarrReadOptions, ZarrWriteOptions};
/// use chunked_array::Array;
/// let dir = std::env::temp_dir().join(format!("chunked-doc-zarr-info-fn-{}", std::process::id()));
/// Array::<u8>::zeros(&[7], 3).unwrap().to_zarr(&dir, "b", &ZarrWriteOptions::default()).unwrap();
/// let info = zarr_info(&dir, "b", &ZarrReadOptions::default()).unwrap();
/// assert_eq!((info.shape, info.chunks, info.zarr_format), (vec![7], vec![3], 3));
/// assert!(zarr_info(&dir, "missing", &ZarrReadOptions::default()).is_err());
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
///
/// # Errors
/// As [`super::from_zarr_with`] for a missing, foreign or interrupted
/// array (unless `options` allow the latter).
pub fn zarr_info(path: impl AsRef<Path>, array: &str, options: &ZarrReadOptions) -> Result<ZarrArrayInfo> {
    let (location, za) = super::open_checked(path.as_ref(), array, options)?;
    let stored = za.data_type().clone();
    let v2 = matches!(za.metadata(), zarrs::array::ArrayMetadata::V2(_));
    let names = match za.dimension_names() {
        Some(names) => Some(names.to_vec()),
        None if v2 => v2_dimension_names(za.attributes(), za.shape().len()),
        None => None,
    };
    Ok(ZarrArrayInfo {
        shape: za.shape().iter().map(|&n| n as usize).collect(),
        chunks: stored_chunk_shape(&za, &location)?,
        dtype: DType::ALL.into_iter().find(|&d| zarr_data_type(d) == stored),
        attributes: za.attributes().clone(),
        dimension_names: names,
        zarr_format: if v2 { 2 } else { 3 },
    })
}

/// A Zarr v2 array's dimension names from xarray's `_ARRAY_DIMENSIONS`
/// attribute, when it holds one string per axis.
fn v2_dimension_names(attributes: &Map<String, Value>, ndim: usize) -> Option<Vec<Option<String>>> {
    let names = attributes.get(V2_DIMENSIONS)?.as_array()?;
    let names: Option<Vec<Option<String>>> = names.iter().map(|n| n.as_str().map(|s| Some(s.to_string()))).collect();
    names.filter(|n| n.len() == ndim)
}

/// The names of the arrays and groups directly inside group `group` ("" for
/// the root) of the store at `path` (a local path or a URL), sorted: Zarr v3
/// and v2 members alike. As xarray's `open_zarr`, the consolidated metadata
/// of the group or of an enclosing group names them when there is some
/// (see [`super::consolidate_zarr_metadata`]; no listing is needed, which an
/// http(s) store cannot do, and members added since are not seen); otherwise
/// the group is listed.
///
/// ```
/// use chunked_array::io::zarr::{zarr_members, ZarrReadOptions, ZarrWriteOptions};
/// use chunked_array::io::Store;
/// use chunked_array::Array;
/// let dir = std::env::temp_dir().join(format!("chunked-doc-zarr-members-{}", std::process::id()));
/// let x = Array::<f64>::ones(&[4], 2).unwrap();
/// let options = ZarrWriteOptions::default();
/// let mut store = Store::new();
/// store.zarr(&x, &dir, "run/u", &options).unwrap().zarr(&(&x * 2.0), &dir, "run/v", &options).unwrap();
/// store.run().unwrap();
/// assert_eq!(zarr_members(&dir, "run", &ZarrReadOptions::default()).unwrap(), vec!["u", "v"]);
/// assert_eq!(zarr_members(&dir, "", &ZarrReadOptions::default()).unwrap(), Vec::<String>::new()); // "run" has no group metadata
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
///
/// # Errors
/// [`Error::Io`](crate::error::Error::Io) naming the group when it cannot be
/// listed, or a consolidated metadata document that is not valid.
pub fn zarr_members(path: impl AsRef<Path>, group: &str, options: &ZarrReadOptions) -> Result<Vec<String>> {
    if let Some(members) = consolidated_members(path.as_ref(), group, &options.storage)? {
        return Ok(members);
    }
    listed_members(&Location::new(path.as_ref(), group, &options.storage)?)
}
