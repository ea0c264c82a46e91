//! How a store at a URL is reached: endpoint, region, credentials, retries.

use std::collections::BTreeMap;
use std::time::Duration;

/// How an object store URL (`s3://`, `gs://`, `az://`, `http(s)://`) is
/// reached: dask's `storage_options`. Credentials come from the usual
/// environment variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
/// `AWS_SESSION_TOKEN`, `AWS_REGION`, `AWS_ENDPOINT_URL`;
/// `GOOGLE_SERVICE_ACCOUNT`; `AZURE_STORAGE_ACCOUNT_NAME`,
/// `AZURE_STORAGE_ACCOUNT_KEY`, ...) unless [`StorageOptions::config`] sets
/// them; local paths ignore these options.
///
/// ```
/// use chunked_array::io::cloud::StorageOptions;
/// let mut options = StorageOptions { endpoint: Some("http://127.0.0.1:9000".into()), ..Default::default() };
/// options.config.insert("aws_access_key_id".into(), "minio".into());
/// options.retries.max_retries = 3;
/// assert_eq!(options.concurrency, 16);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct StorageOptions {
    /// The service's address, for S3-compatible servers (MinIO, Ceph, moto) or
    /// emulators; `http://` endpoints are allowed plain HTTP.
    pub endpoint: Option<String>,
    /// The region (S3).
    pub region: Option<String>,
    /// Send unsigned requests (public buckets), without looking for credentials.
    pub anonymous: bool,
    /// Uploads in flight at once, per store: a writer whose chunk would
    /// exceed it waits. Each holds one encoded chunk, so a store's upload
    /// buffers stay under this many chunks. Reads are one request per task,
    /// as many as the scheduler runs at once.
    pub concurrency: usize,
    /// Retries of failed requests (server errors, throttling, dropped
    /// connections), with exponential backoff.
    pub retries: RetryOptions,
    /// The time one request may take before it counts as failed.
    pub timeout: Duration,
    /// Further settings by the `object_store` crate's configuration keys
    /// (`aws_access_key_id`, `aws_virtual_hosted_style_request`,
    /// `google_service_account`, `azure_storage_account_key`, ...); an unknown
    /// key is an error.
    pub config: BTreeMap<String, String>,
}

impl Default for StorageOptions {
    fn default() -> Self {
        StorageOptions {
            endpoint: None,
            region: None,
            anonymous: false,
            concurrency: 16,
            retries: RetryOptions::default(),
            timeout: Duration::from_secs(60),
            config: BTreeMap::new(),
        }
    }
}

/// Retries of failed object store requests: after `initial_backoff`, each
/// wait `multiplier` times longer (randomised), at most `max_backoff`; no
/// retry after `max_retries` of them or once `give_up_after` has passed.
///
/// ```
/// use chunked_array::io::cloud::RetryOptions;
/// use std::time::Duration;
/// let quick = RetryOptions { max_retries: 2, initial_backoff: Duration::from_millis(10), ..Default::default() };
/// assert!(quick.max_backoff > quick.initial_backoff);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryOptions {
    /// The most retries of one request (0: none).
    pub max_retries: usize,
    /// The first wait.
    pub initial_backoff: Duration,
    /// The longest wait.
    pub max_backoff: Duration,
    /// The growth of the wait per retry.
    pub multiplier: f64,
    /// No retry starts this long after the first attempt.
    pub give_up_after: Duration,
}

impl Default for RetryOptions {
    fn default() -> Self {
        RetryOptions {
            max_retries: 10,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(15),
            multiplier: 2.0,
            give_up_after: Duration::from_secs(180),
        }
    }
}

#[cfg(feature = "cloud")]
impl RetryOptions {
    pub(super) fn config(&self) -> object_store::RetryConfig {
        object_store::RetryConfig {
            backoff: object_store::BackoffConfig {
                init_backoff: self.initial_backoff,
                max_backoff: self.max_backoff,
                base: self.multiplier,
            },
            max_retries: self.max_retries,
            retry_timeout: self.give_up_after,
        }
    }
}
