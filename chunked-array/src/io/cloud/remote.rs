//! One object store prefix (the folder a URL names) and the requests the
//! readers and writers make under it, each bounded and each error naming the
//! object's URL.

use std::str::FromStr;
use std::sync::Arc;

use futures::StreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};
use url::Url;
use zarrs::storage::Bytes;

use crate::error::{Error, Result};
use crate::io::cloud::StorageOptions;
use crate::io::cloud::runtime::block_on;

/// An object store and the prefix inside it that a URL names.
#[derive(Debug)]
pub(crate) struct Remote {
    store: Arc<dyn ObjectStore>,
    /// The URL of the prefix, without a trailing '/'.
    url: String,
    prefix: String,
    read_only: bool,
    pub(crate) concurrency: usize,
}

fn parse_keys<K: FromStr>(url: &str, config: &std::collections::BTreeMap<String, String>) -> Result<Vec<(K, String)>> {
    config
        .iter()
        .map(|(key, value)| match key.to_ascii_lowercase().parse::<K>() {
            Ok(k) => Ok((k, value.clone())),
            Err(_) => Err(Error::invalid(
                "StorageOptions::config",
                key,
                format!("is not a configuration key of the store at {url}"),
            )),
        })
        .collect()
}

impl Remote {
    /// Connects (lazily: no request is made) to the store `url` names.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the URL when it does not parse, its
    /// scheme is not an object store's, it names no bucket, or an option
    /// does not apply; [`Error::Io`] when the store's client cannot be built.
    pub(crate) fn open(text: &str, options: &StorageOptions) -> Result<Remote> {
        let url = Url::parse(text).map_err(|e| Error::invalid("url", text, e.to_string()))?;
        let bad = |why: &str| Error::invalid("url", text, why.to_string());
        if options.concurrency == 0 {
            return Err(Error::invalid("StorageOptions::concurrency", 0, "at least one upload must be allowed"));
        }
        let bucket = url.host_str().filter(|h| !h.is_empty());
        let retry = options.retries.config();
        let timeout = format!("{}ms", options.timeout.as_millis().max(1));
        let built: std::result::Result<Arc<dyn ObjectStore>, object_store::Error> = match url.scheme() {
            "s3" | "s3a" => {
                use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
                let Some(bucket) = bucket else { return Err(bad("names no bucket (s3://bucket/path)")) };
                let mut b = AmazonS3Builder::from_env().with_bucket_name(bucket).with_retry(retry);
                b = b.with_config(AmazonS3ConfigKey::Client(object_store::ClientConfigKey::Timeout), &timeout);
                if let Some(endpoint) = &options.endpoint {
                    b = b.with_endpoint(endpoint).with_allow_http(endpoint.starts_with("http://"));
                }
                if let Some(region) = &options.region {
                    b = b.with_region(region);
                }
                for (k, v) in parse_keys::<AmazonS3ConfigKey>(text, &options.config)? {
                    b = b.with_config(k, v);
                }
                b.with_skip_signature(options.anonymous).build().map(|s| Arc::new(s) as _)
            }
            "gs" | "gcs" => {
                use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
                let Some(bucket) = bucket else { return Err(bad("names no bucket (gs://bucket/path)")) };
                let mut b = GoogleCloudStorageBuilder::from_env().with_bucket_name(bucket).with_retry(retry);
                b = b.with_config(GoogleConfigKey::Client(object_store::ClientConfigKey::Timeout), &timeout);
                for (k, v) in parse_keys::<GoogleConfigKey>(text, &options.config)? {
                    b = b.with_config(k, v);
                }
                b.with_skip_signature(options.anonymous).build().map(|s| Arc::new(s) as _)
            }
            "az" | "azure" | "abfs" | "abfss" => {
                use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
                if bucket.is_none() {
                    return Err(bad("names no container (az://container/path)"));
                }
                let mut b = MicrosoftAzureBuilder::from_env().with_url(text).with_retry(retry);
                b = b.with_config(AzureConfigKey::Client(object_store::ClientConfigKey::Timeout), &timeout);
                if let Some(endpoint) = &options.endpoint {
                    b = b.with_endpoint(endpoint.clone()).with_allow_http(endpoint.starts_with("http://"));
                }
                for (k, v) in parse_keys::<AzureConfigKey>(text, &options.config)? {
                    b = b.with_config(k, v);
                }
                b.with_skip_signature(options.anonymous).build().map(|s| Arc::new(s) as _)
            }
            "http" | "https" => {
                use object_store::http::HttpBuilder;
                let base = &url[..url::Position::BeforePath];
                let mut b = HttpBuilder::new().with_url(base).with_retry(retry);
                b = b.with_config(object_store::ClientConfigKey::Timeout, &timeout);
                b = b.with_config(object_store::ClientConfigKey::AllowHttp, (url.scheme() == "http").to_string());
                for (k, v) in parse_keys::<object_store::ClientConfigKey>(text, &options.config)? {
                    b = b.with_config(k, v);
                }
                b.build().map(|s| Arc::new(s) as _)
            }
            other => {
                return Err(bad(&format!(
                    "has the scheme {other:?}; object stores are s3://, gs://, az:// and http(s):// (read-only), local files file:// or a plain path"
                )));
            }
        };
        let store = built.map_err(|e| Error::io(text, e))?;
        let prefix = url.path().trim_matches('/').to_string();
        let read_only = matches!(url.scheme(), "http" | "https");
        let root = &url[..url::Position::BeforePath];
        let url = if prefix.is_empty() { root.to_string() } else { format!("{root}/{prefix}") };
        Ok(Remote { store, url, prefix, read_only, concurrency: options.concurrency })
    }

    /// The URL of `name` (a '/'-separated path under the prefix).
    pub(crate) fn url_of(&self, name: &str) -> String {
        if name.is_empty() { self.url.clone() } else { format!("{}/{name}", self.url) }
    }

    fn path(&self, name: &str) -> ObjectPath {
        let joined = match (self.prefix.is_empty(), name.is_empty()) {
            (true, _) => name.to_string(),
            (false, true) => self.prefix.clone(),
            (false, false) => format!("{}/{name}", self.prefix),
        };
        ObjectPath::from(joined)
    }

    fn fail(&self, name: &str, e: impl std::fmt::Display) -> Error {
        Error::io(self.url_of(name), e)
    }

    /// The object `name`, or `None` when there is none; an object of more
    /// than `cap` bytes is an error before its body is read.
    ///
    /// # Errors
    /// [`Error::Io`] naming the object's URL for a failed request or an
    /// object over `cap`.
    pub(crate) fn get(&self, name: &str, cap: u64) -> Result<Option<Bytes>> {
        block_on(async {
            let got = match self.store.get_opts(&self.path(name), Default::default()).await {
                Err(object_store::Error::NotFound { .. }) => return Ok(None),
                Err(e) => return Err(self.fail(name, e)),
                Ok(got) => got,
            };
            let len = got.range.end - got.range.start;
            if len > cap {
                return Err(self.fail(name, format!("holds {len} bytes, more than the {cap} it may")));
            }
            // The declared length bounds the body, which is read to at most
            // that whatever the server sends; the buffer grows as bytes
            // arrive, past a first 64 MiB, so a declared length alone
            // allocates nothing.
            let mut body = Vec::with_capacity(len.min(64 << 20) as usize);
            let mut stream = got.into_stream();
            while let Some(part) = stream.next().await {
                let part = part.map_err(|e| self.fail(name, e))?;
                if (body.len() + part.len()) as u64 > len {
                    return Err(self.fail(name, format!("sent more than the {len} bytes it declared")));
                }
                body.extend_from_slice(&part);
            }
            if body.len() as u64 != len {
                return Err(self.fail(name, format!("sent {} of the {len} bytes it declared", body.len())));
            }
            Ok(Some(Bytes::from(body)))
        })
    }

    /// The bytes `ranges` of object `name` (of `size` bytes), or `None` when
    /// there is none. From a server that answers no range requests (some
    /// static http servers), the object is read whole (bounded by `size`)
    /// and the ranges cut from it.
    ///
    /// # Errors
    /// [`Error::Io`] naming the object's URL.
    pub(crate) fn get_ranges(
        &self,
        name: &str,
        ranges: &[std::ops::Range<u64>],
        size: u64,
    ) -> Result<Option<Vec<Bytes>>> {
        let mut parts = Vec::with_capacity(ranges.len());
        for range in ranges {
            let got = block_on(async { self.store.get_range(&self.path(name), range.clone()).await });
            match got {
                Err(object_store::Error::NotFound { .. }) => return Ok(None),
                Err(object_store::Error::NotSupported { .. }) => return self.cut_from_whole(name, ranges, size),
                Err(e) => return Err(self.fail(name, e)),
                Ok(b) => parts.push(b),
            }
        }
        Ok(Some(parts))
    }

    /// `ranges` cut from object `name` read whole (at most `size` bytes).
    fn cut_from_whole(&self, name: &str, ranges: &[std::ops::Range<u64>], size: u64) -> Result<Option<Vec<Bytes>>> {
        let Some(whole) = self.get(name, size)? else { return Ok(None) };
        let mut parts = Vec::with_capacity(ranges.len());
        for range in ranges {
            if range.end > whole.len() as u64 {
                return Err(self.fail(name, format!("holds {} bytes, not the bytes {range:?}", whole.len())));
            }
            parts.push(whole.slice(range.start as usize..range.end as usize));
        }
        Ok(Some(parts))
    }

    /// The size of object `name`, or `None` when there is none.
    ///
    /// # Errors
    /// [`Error::Io`] naming the object's URL.
    pub(crate) fn size(&self, name: &str) -> Result<Option<u64>> {
        block_on(async {
            match self.store.head(&self.path(name)).await {
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(self.fail(name, e)),
                Ok(meta) => Ok(Some(meta.size)),
            }
        })
    }

    /// Checks that the store can be written (an http(s) store cannot).
    ///
    /// # Errors
    /// [`Error::Io`] naming `name`'s URL.
    pub(crate) fn writable(&self, name: &str) -> Result<()> {
        if self.read_only {
            return Err(self.fail(name, "an http(s) store is read-only"));
        }
        Ok(())
    }

    /// Writes object `name` in one request (an object appears whole or not at
    /// all). With `create`, only when there is none yet, where the store
    /// has conditional writes (S3, GCS, Azure): of two writers, one fails.
    ///
    /// # Errors
    /// [`Error::Io`] naming the object's URL (for `create`, when it exists).
    pub(crate) async fn put_async(&self, name: &str, bytes: PutPayload, create: bool) -> Result<()> {
        self.writable(name)?;
        let mode = if create { PutMode::Create } else { PutMode::Overwrite };
        let path = self.path(name);
        let put = self.store.put_opts(&path, bytes.clone(), PutOptions { mode, ..Default::default() }).await;
        match put {
            Ok(_) => Ok(()),
            Err(object_store::Error::AlreadyExists { .. }) => Err(self.fail(name, "already exists")),
            // A store without conditional writes: a plain write.
            Err(object_store::Error::NotImplemented { .. }) if create => {
                self.store.put(&path, bytes).await.map(|_| ()).map_err(|e| self.fail(name, e))
            }
            Err(e) => Err(self.fail(name, e)),
        }
    }

    /// [`Remote::put_async`], waiting for it.
    ///
    /// # Errors
    /// As [`Remote::put_async`].
    pub(crate) fn put(&self, name: &str, bytes: Vec<u8>, create: bool) -> Result<()> {
        block_on(self.put_async(name, PutPayload::from(bytes), create))
    }

    /// Deletes object `name` (nothing when there is none).
    ///
    /// # Errors
    /// [`Error::Io`] naming the object's URL.
    pub(crate) fn delete(&self, name: &str) -> Result<()> {
        self.writable(name)?;
        block_on(async {
            match self.store.delete(&self.path(name)).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(self.fail(name, e)),
            }
        })
    }

    /// The names (relative to `dir`) of every object under folder `dir`, at
    /// any depth; at most `limit` of them.
    ///
    /// # Errors
    /// [`Error::Io`] naming the folder's URL.
    pub(crate) fn list(&self, dir: &str, limit: usize) -> Result<Vec<String>> {
        let folder = self.path(dir);
        let base = folder.as_ref().len();
        block_on(async {
            let mut names = Vec::new();
            let mut listing = self.store.list(Some(&folder));
            while let Some(meta) = listing.next().await {
                let meta = meta.map_err(|e| self.fail(dir, e))?;
                let full = meta.location.as_ref();
                names.push(full.get(base..).unwrap_or("").trim_start_matches('/').to_string());
                if names.len() >= limit {
                    break;
                }
            }
            Ok(names)
        })
    }
}
