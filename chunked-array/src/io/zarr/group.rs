//! Zarr groups: their metadata written (zarr-python's `open_group(mode="a")`),
//! their members listed or read from consolidated metadata, and the
//! consolidation itself (zarr-python's `consolidate_metadata`).

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::io::cloud::StorageOptions;
use crate::io::zarr::location::{Existing, Location};
use crate::io::zarr::metadata::format_of;
use crate::io::zarr::options::ZarrFormat;
use crate::io::zarr::untrusted::MAX_METADATA_BYTES;

/// The files that make a folder a member of its group.
const MEMBER_FILES: [&str; 3] = ["zarr.json", ".zarray", ".zgroup"];

/// Zarr v2's consolidated metadata file.
const V2_CONSOLIDATED: &str = ".zmetadata";

/// The most nodes one consolidation gathers.
const MAX_CONSOLIDATED_NODES: usize = 1 << 20;

/// How [`create_zarr_group`] writes a group.
///
/// ```
/// use chunked_array::io::zarr::{Value, ZarrFormat, ZarrGroupOptions};
/// let mut options = ZarrGroupOptions { zarr_format: ZarrFormat::V2, ..Default::default() };
/// options.attributes.insert("title".into(), Value::from("run 7"));
/// assert_eq!(options.attributes.len(), 1);
/// ```
#[derive(Debug, Clone, Default)]
pub struct ZarrGroupOptions {
    /// The format (default v3: `zarr.json`; v2: `.zgroup` and `.zattrs`).
    pub zarr_format: ZarrFormat,
    /// The group's attributes.
    pub attributes: Map<String, Value>,
    /// How an object store URL is reached (ignored for local paths).
    pub storage: StorageOptions,
}

/// Writes the metadata of group `group` ("" for the root) of the store at
/// `path` (a local path or a URL): a new group, or new attributes for a
/// group of the same format. The arrays and groups inside it are left as
/// they are.
///
/// ```
/// use chunked_array::io::zarr::{create_zarr_group, zarr_members, ZarrGroupOptions, ZarrReadOptions, ZarrWriteOptions};
/// use chunked_array::Array;
/// let dir = std::env::temp_dir().join(format!("chunked-doc-create-group-{}", std::process::id()));
/// create_zarr_group(&dir, "", &ZarrGroupOptions::default()).unwrap();
/// create_zarr_group(&dir, "run", &ZarrGroupOptions::default()).unwrap();
/// Array::<f64>::ones(&[4], 2).unwrap().to_zarr(&dir, "run/u", &ZarrWriteOptions::default()).unwrap();
/// assert_eq!(zarr_members(&dir, "", &ZarrReadOptions::default()).unwrap(), vec!["run"]);
/// assert!(create_zarr_group(&dir, "run/u", &ZarrGroupOptions::default()).is_err()); // an array
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
///
/// # Errors
/// [`Error::Io`] naming the path when it holds an array, or a group of the
/// other format, or cannot be written.
pub fn create_zarr_group(path: impl AsRef<Path>, group: &str, options: &ZarrGroupOptions) -> Result<()> {
    let location = Location::new(path.as_ref(), group, &options.storage)?;
    location.check_writable()?;
    if let Existing::Zarr(format) = location.existing()? {
        return Err(Error::io(location.name(), format!("holds a {format} array; a group is not written over it")));
    }
    let (own, other) = match options.zarr_format {
        ZarrFormat::V3 => ("zarr.json", ".zgroup"),
        ZarrFormat::V2 => (".zgroup", "zarr.json"),
    };
    if location.exists(other)? {
        return Err(Error::io(
            location.name_of(other),
            format!("is another format's group metadata; a {} group is not written beside it", options.zarr_format),
        ));
    }
    let pretty = |v: &Value| serde_json::to_vec_pretty(v).map_err(|e| Error::io(location.name(), e));
    match options.zarr_format {
        ZarrFormat::V3 => {
            let doc = json!({ "zarr_format": 3, "node_type": "group", "attributes": options.attributes });
            location.write_file(own, &pretty(&doc)?, false)
        }
        ZarrFormat::V2 => {
            location.write_file(".zattrs", &pretty(&Value::Object(options.attributes.clone()))?, false)?;
            location.write_file(own, &pretty(&json!({ "zarr_format": 2 }))?, false)
        }
    }
}

/// The members of the group at `location` found by listing it.
pub(super) fn listed_members(location: &Location) -> Result<Vec<String>> {
    let mut members: Vec<String> = match location.local_dir() {
        Some(dir) => {
            let mut found = Vec::new();
            for name in location.list(usize::MAX)? {
                if MEMBER_FILES.iter().any(|f| dir.join(&name).join(f).is_file()) {
                    found.push(name);
                }
            }
            found
        }
        None => location
            .list(usize::MAX)?
            .iter()
            .filter_map(|key| {
                key.split_once('/').filter(|(_, file)| MEMBER_FILES.contains(file)).map(|(c, _)| c.to_string())
            })
            .collect(),
    };
    members.sort();
    members.dedup();
    Ok(members)
}

/// A metadata document of `location` parsed as JSON, if it is there.
fn read_json(location: &Location, file: &str) -> Result<Option<Value>> {
    match location.read_metadata(file)? {
        None => Ok(None),
        Some(text) => serde_json::from_slice(&text).map(Some).map_err(|e| Error::io(location.name_of(file), e)),
    }
}

/// The members of group `group` named by the consolidated metadata of the
/// group or the nearest enclosing group that has some (`None` when none
/// has).
///
/// # Errors
/// [`Error::Io`] naming a consolidated metadata document that is not valid.
pub(super) fn consolidated_members(path: &Path, group: &str, storage: &StorageOptions) -> Result<Option<Vec<String>>> {
    let parts: Vec<&str> = group.split('/').filter(|p| !p.is_empty()).collect();
    for depth in (0..=parts.len()).rev() {
        let location = Location::new(path, &parts[..depth].join("/"), storage)?;
        let inside = parts[depth..].join("/");
        let prefix = if inside.is_empty() { String::new() } else { format!("{inside}/") };
        let child = |key: &str| -> Option<String> {
            let rest = key.strip_prefix(prefix.as_str())?;
            (!rest.is_empty() && !rest.contains('/')).then(|| rest.to_string())
        };
        let mut members: Vec<String> = if let Some(doc) = read_json(&location, "zarr.json")?
            && let Some(nodes) = doc.pointer("/consolidated_metadata/metadata")
        {
            let nodes = nodes.as_object().ok_or_else(|| {
                Error::io(location.name_of("zarr.json"), "its consolidated metadata is not a JSON object")
            })?;
            nodes.keys().filter_map(|k| child(k)).collect()
        } else if let Some(doc) = read_json(&location, V2_CONSOLIDATED)? {
            let nodes = doc
                .get("metadata")
                .and_then(Value::as_object)
                .ok_or_else(|| Error::io(location.name_of(V2_CONSOLIDATED), "holds no \"metadata\" object"))?;
            let node = |k: &String| k.strip_suffix("/.zarray").or_else(|| k.strip_suffix("/.zgroup")).and_then(child);
            nodes.keys().filter_map(node).collect()
        } else {
            continue;
        };
        members.sort();
        members.dedup();
        return Ok(Some(members));
    }
    Ok(None)
}

/// Gathers the metadata of every array and group inside group `group` of
/// the store at `path` into the group's consolidated metadata, as
/// zarr-python's `consolidate_metadata` does: for a Zarr v3 group, its
/// `zarr.json`'s `consolidated_metadata`; for a Zarr v2 group, `.zmetadata`.
/// Readers of the store then find every node in one document, with no
/// listing (which an http(s) store cannot do); [`super::zarr_members`]
/// uses it. Returns the number of nodes gathered.
///
/// ```
/// use chunked_array::io::zarr::{consolidate_zarr_metadata, create_zarr_group, zarr_members};
/// use chunked_array::io::zarr::{ZarrGroupOptions, ZarrReadOptions, ZarrWriteOptions};
/// use chunked_array::io::cloud::StorageOptions;
/// use chunked_array::Array;
/// let dir = std::env::temp_dir().join(format!("chunked-doc-consolidate-{}", std::process::id()));
/// create_zarr_group(&dir, "", &ZarrGroupOptions::default()).unwrap();
/// Array::<f64>::ones(&[4], 2).unwrap().to_zarr(&dir, "a", &ZarrWriteOptions::default()).unwrap();
/// assert_eq!(consolidate_zarr_metadata(&dir, "", &StorageOptions::default()).unwrap(), 1);
/// assert_eq!(zarr_members(&dir, "", &ZarrReadOptions::default()).unwrap(), vec!["a"]);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
///
/// # Errors
/// [`Error::Io`] naming the group when it has no group metadata (see
/// [`create_zarr_group`]), a member of the other format, a metadata
/// document that is not valid JSON, or a result larger than a metadata
/// document may be.
pub fn consolidate_zarr_metadata(path: impl AsRef<Path>, group: &str, storage: &StorageOptions) -> Result<usize> {
    let path = path.as_ref();
    let location = Location::new(path, group, storage)?;
    location.check_writable()?;
    let format = match read_json(&location, "zarr.json")? {
        Some(doc) if doc.get("node_type").is_some_and(|t| t == "group") => ZarrFormat::V3,
        Some(_) => return Err(Error::io(location.name(), "is a Zarr array, not a group")),
        None if location.exists(".zgroup")? => ZarrFormat::V2,
        None => return Err(Error::io(location.name(), "has no group metadata (write it with create_zarr_group)")),
    };
    let mut nodes = Map::new();
    gather(path, group, "", format, storage, &mut nodes)?;
    let count = nodes.keys().filter(|k| format == ZarrFormat::V3 || !k.ends_with(".zattrs")).count();
    let (file, doc) = match format {
        ZarrFormat::V3 => {
            let mut doc = read_json(&location, "zarr.json")?.unwrap_or_default();
            doc["consolidated_metadata"] = json!({ "kind": "inline", "must_understand": false, "metadata": nodes });
            ("zarr.json", doc)
        }
        ZarrFormat::V2 => {
            nodes.insert(".zgroup".into(), read_json(&location, ".zgroup")?.unwrap_or(json!({ "zarr_format": 2 })));
            nodes.insert(".zattrs".into(), read_json(&location, ".zattrs")?.unwrap_or(json!({})));
            (V2_CONSOLIDATED, json!({ "metadata": nodes, "zarr_consolidated_format": 1 }))
        }
    };
    let text = serde_json::to_vec_pretty(&doc).map_err(|e| Error::io(location.name_of(file), e))?;
    if text.len() as u64 > MAX_METADATA_BYTES {
        return Err(Error::io(
            location.name_of(file),
            format!("would hold {} bytes, more than the {MAX_METADATA_BYTES} a metadata document may", text.len()),
        ));
    }
    location.write_file(file, &text, false)?;
    Ok(count)
}

/// Adds the metadata of every node inside `group/inside` to `nodes`, keyed
/// by its path below `group` (Zarr v2: with its file name).
fn gather(
    path: &Path,
    group: &str,
    inside: &str,
    format: ZarrFormat,
    storage: &StorageOptions,
    nodes: &mut Map<String, Value>,
) -> Result<()> {
    let join = |a: &str, b: &str| if a.is_empty() { b.to_string() } else { format!("{a}/{b}") };
    let here = Location::new(path, &join(group, inside), storage)?;
    for name in listed_members(&here)? {
        let rel = join(inside, &name);
        let member = Location::new(path, &join(group, &rel), storage)?;
        let is_group = match format {
            ZarrFormat::V3 => {
                let Some(mut doc) = read_json(&member, "zarr.json")? else {
                    return Err(other_format(&member, format));
                };
                let is_group = doc.get("node_type").is_some_and(|t| t == "group");
                if let Some(doc) = doc.as_object_mut() {
                    doc.remove("consolidated_metadata");
                }
                nodes.insert(rel.clone(), doc);
                is_group
            }
            ZarrFormat::V2 => {
                let (file, is_group) = match (member.exists(".zarray")?, member.exists(".zgroup")?) {
                    (true, _) => (".zarray", false),
                    (false, true) => (".zgroup", true),
                    (false, false) => return Err(other_format(&member, format)),
                };
                nodes.insert(format!("{rel}/{file}"), read_json(&member, file)?.unwrap_or_default());
                nodes.insert(format!("{rel}/.zattrs"), read_json(&member, ".zattrs")?.unwrap_or(json!({})));
                is_group
            }
        };
        if nodes.len() > MAX_CONSOLIDATED_NODES {
            return Err(Error::io(here.name(), format!("holds more than {MAX_CONSOLIDATED_NODES} nodes")));
        }
        if is_group {
            gather(path, group, &rel, format, storage, nodes)?;
        }
    }
    Ok(())
}

/// The error for a member in the other format than its group's.
fn other_format(member: &Location, format: ZarrFormat) -> Error {
    let found = member.read_metadata("zarr.json").ok().flatten().and_then(|t| format_of(&t));
    Error::io(
        member.name(),
        format!(
            "is a {} node inside a {format} group; consolidated metadata holds one format",
            found.map_or("Zarr v2".to_string(), |f| f.to_string())
        ),
    )
}
