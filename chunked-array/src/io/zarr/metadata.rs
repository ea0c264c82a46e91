//! A written array's metadata in either Zarr format: its fill value, Zarr
//! v2's `.zarray` (data type string, numcodecs compressor) and the split of
//! its attributes into `.zattrs` when the metadata is published.

use serde_json::{Map, Value, json};
use zarrs::array::{ArrayMetadata, DataType};
use zarrs::metadata::FillValueMetadata;
use zarrs::metadata::v2::ArrayMetadataV2;

use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::io::zarr::options::{Compression, ZarrFormat, ZarrWriteOptions};

/// The attribute in which xarray keeps a Zarr v2 array's dimension names.
pub(super) const V2_DIMENSIONS: &str = "_ARRAY_DIMENSIONS";

/// The fill value's metadata: `options.fill_value`, checked against `T`'s
/// data type, or `T`'s zero (zarr-python's default).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the value when it is not one of `T`.
pub(super) fn fill_value_metadata<T: Element>(options: &ZarrWriteOptions) -> Result<FillValueMetadata> {
    let value = match &options.fill_value {
        Some(value) => value.clone(),
        None => zero_of(T::DTYPE),
    };
    let bad = |why: String| Error::invalid("fill_value", &value, format!("is not a {} fill value: {why}", T::DTYPE));
    let metadata: FillValueMetadata = serde_json::from_value(value.clone()).map_err(|e| bad(e.to_string()))?;
    zarr_data_type(T::DTYPE).fill_value(&metadata, zarrs::plugin::ZarrVersion::V3).map_err(|e| bad(e.to_string()))?;
    Ok(metadata)
}

/// The zero of `dtype` in Zarr's JSON (complex numbers as `[re, im]`).
fn zero_of(dtype: DType) -> Value {
    match dtype {
        DType::F32 | DType::F64 => json!(0.0),
        DType::Complex64 | DType::Complex128 => json!([0.0, 0.0]),
        DType::Bool | DType::Intermediate => json!(false),
        _ => json!(0),
    }
}

/// The zarrs data type of `dtype`.
pub(super) fn zarr_data_type(dtype: DType) -> DataType {
    use zarrs::array::data_type as dt;
    match dtype {
        DType::I8 => dt::int8(),
        DType::I16 => dt::int16(),
        DType::I32 => dt::int32(),
        DType::I64 => dt::int64(),
        DType::U8 => dt::uint8(),
        DType::U16 => dt::uint16(),
        DType::U32 => dt::uint32(),
        DType::U64 => dt::uint64(),
        DType::F32 => dt::float32(),
        DType::F64 => dt::float64(),
        DType::Complex64 => dt::complex64(),
        DType::Complex128 => dt::complex128(),
        DType::Bool | DType::Intermediate => dt::bool(),
    }
}

/// numcodecs' configuration of `compression` (Zarr v2's `compressor`).
fn v2_compressor(compression: Compression) -> Result<Value> {
    Ok(match compression {
        Compression::None => Value::Null,
        Compression::Zstd { level } => json!({ "id": "zstd", "level": level }),
        Compression::Gzip { level } => json!({ "id": "gzip", "level": level }),
        Compression::Blosc { compressor, level, shuffle } => {
            let cname = serde_json::to_value(compressor)
                .map_err(|e| Error::invalid("compression", compression, e.to_string()))?;
            let shuffle = match shuffle {
                zarrs::array::codec::BloscShuffleMode::NoShuffle => 0,
                zarrs::array::codec::BloscShuffleMode::Shuffle => 1,
                zarrs::array::codec::BloscShuffleMode::BitShuffle => 2,
            };
            json!({ "id": "blosc", "cname": cname, "clevel": level, "shuffle": shuffle, "blocksize": 0 })
        }
    })
}

/// Zarr v2 metadata of a `T` array: C order, "." chunk keys (zarr-python 2's
/// defaults), the dimension names as xarray's `_ARRAY_DIMENSIONS` attribute.
///
/// # Errors
/// [`Error::InvalidArgument`] for what Zarr v2 cannot store (sharding, a
/// checksum after compression), dimension names of the wrong count, or a
/// fill value that is not a `T`.
pub(super) fn v2_metadata<T: Element>(
    shape: &[usize],
    chunk_shape: &[usize],
    options: &ZarrWriteOptions,
) -> Result<ArrayMetadata> {
    if options.sharding.is_some() {
        return Err(Error::invalid("sharding", &options.sharding, "Zarr v2 has no sharding (write ZarrFormat::V3)"));
    }
    if options.checksum {
        return Err(Error::invalid(
            "checksum",
            true,
            "Zarr v2 has no checksum codec after compression (write ZarrFormat::V3)",
        ));
    }
    let mut attributes = options.attributes.clone();
    if let Some(names) = &options.dimension_names {
        check_dimension_names(names, shape.len())?;
        attributes.insert(V2_DIMENSIONS.into(), json!(names));
    }
    let fill = serde_json::to_value(fill_value_metadata::<T>(options)?)
        .map_err(|e| Error::invalid("fill_value", &options.fill_value, e.to_string()))?;
    let metadata = json!({
        "zarr_format": 2,
        "shape": shape,
        "chunks": chunk_shape,
        "dtype": crate::io::npy::format::descr(T::DTYPE),
        "compressor": v2_compressor(options.compression)?,
        "fill_value": fill,
        "order": "C",
        "filters": null,
        "dimension_separator": ".",
        "attributes": attributes,
    });
    let v2: ArrayMetadataV2 =
        serde_json::from_value(metadata).map_err(|e| Error::invalid("zarr_format", ZarrFormat::V2, e.to_string()))?;
    Ok(ArrayMetadata::V2(v2))
}

/// Checks that there is one dimension name per axis.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the names otherwise.
pub(super) fn check_dimension_names(names: &[String], ndim: usize) -> Result<()> {
    if names.len() != ndim {
        return Err(Error::invalid("dimension_names", names, format!("needs one name per axis ({ndim})")));
    }
    Ok(())
}

/// The format of a metadata document (`zarr.json`, `.zarray` or a pending
/// one), from its `zarr_format` field.
pub(super) fn format_of(text: &[u8]) -> Option<ZarrFormat> {
    let value: Value = serde_json::from_slice(text).ok()?;
    match value.get("zarr_format")?.as_u64()? {
        2 => Some(ZarrFormat::V2),
        3 => Some(ZarrFormat::V3),
        _ => None,
    }
}

/// The files of published metadata `text`: for Zarr v3, `zarr.json` as it
/// is; for Zarr v2, `.zarray` without the attributes, and `.zattrs` with
/// them when there are any (written first: an array appears with its
/// attributes).
///
/// # Errors
/// A message when `text` is not a JSON object.
pub(super) fn published_files(text: &[u8]) -> std::result::Result<Vec<(&'static str, Vec<u8>)>, String> {
    if format_of(text) != Some(ZarrFormat::V2) {
        return Ok(vec![("zarr.json", text.to_vec())]);
    }
    let mut zarray: Map<String, Value> = serde_json::from_slice(text).map_err(|e| e.to_string())?;
    let attributes = zarray.remove("attributes");
    let pretty = |m: &Map<String, Value>| serde_json::to_vec_pretty(m).map_err(|e| e.to_string());
    let mut files = Vec::new();
    if let Some(Value::Object(attributes)) = attributes.filter(|a| a.as_object().is_some_and(|o| !o.is_empty())) {
        files.push((".zattrs", pretty(&attributes)?));
    }
    files.push((".zarray", pretty(&zarray)?));
    Ok(files)
}
