//! Uploads that run while the store goes on computing: at most
//! [`StorageOptions::concurrency`](crate::io::cloud::StorageOptions::concurrency)
//! in flight per store, each holding its one encoded chunk.

use std::sync::{Arc, Mutex};

use object_store::PutPayload;
use tokio::sync::Semaphore;

use crate::error::{Error, Result};
use crate::io::cloud::remote::Remote;
use crate::io::cloud::runtime::{block_on, runtime};

/// The uploads of one store.
#[derive(Debug)]
pub(crate) struct Uploads {
    remote: Arc<Remote>,
    permits: Arc<Semaphore>,
    /// The permits there are: every upload is done once all are free.
    total: u32,
    /// The first failed upload's error.
    failed: Arc<Mutex<Option<Error>>>,
    /// Uploads run while the store computes; otherwise each within its task.
    background: bool,
}

impl Uploads {
    /// The uploads of a store to `remote`; with `background`, they run while
    /// the store goes on (a store over several processes uploads in its
    /// tasks, so that a rank's tasks end only once its chunks are stored).
    pub(crate) fn new(remote: Arc<Remote>, background: bool) -> Uploads {
        let total = u32::try_from(remote.concurrency).unwrap_or(u32::MAX).min(Semaphore::MAX_PERMITS as u32);
        Uploads { permits: Arc::new(Semaphore::new(total as usize)), total, remote, failed: Arc::default(), background }
    }

    fn first_error(&self) -> Result<()> {
        match self.failed.lock().expect("no upload panics holding the lock").as_ref() {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Writes object `name`: with `wait` (or for a store whose uploads do
    /// not run in the background) before returning; otherwise in the
    /// background, waiting while `concurrency` uploads are in flight.
    ///
    /// # Errors
    /// [`Error::Io`] with the error of an earlier upload of this store that
    /// failed (after its retries): the store stops at the first; with `wait`,
    /// this upload's error, naming the object's URL.
    pub(crate) fn start(&self, name: String, bytes: Vec<u8>, wait: bool) -> Result<()> {
        self.first_error()?;
        if wait || !self.background {
            return block_on(self.remote.put_async(&name, PutPayload::from(bytes), false));
        }
        let permit = block_on(self.permits.clone().acquire_owned()).expect("the semaphore is never closed");
        let (remote, failed) = (self.remote.clone(), self.failed.clone());
        runtime().spawn(async move {
            if let Err(e) = remote.put_async(&name, PutPayload::from(bytes), false).await {
                failed.lock().expect("no upload panics holding the lock").get_or_insert(e);
            }
            drop(permit);
        });
        Ok(())
    }

    /// Waits for every upload started.
    ///
    /// # Errors
    /// The first failed upload's error.
    pub(crate) fn finish(&self) -> Result<()> {
        let _every = block_on(self.permits.acquire_many(self.total)).expect("the semaphore is never closed");
        self.first_error()
    }
}
