//! Messages between ranks: blocks, an error, and the end of a rank's sending.
//!
//! Every message is one byte vector on the scheduler's own communicator (a
//! duplicate of the world, so user messages never mix with ours): the payload,
//! then for blocks the task number, then a kind byte (a trailer, so that the
//! receiver takes the payload by truncating, without a copy). Sends are
//! non-blocking (a blocking send between two ranks that both send would
//! deadlock), so their buffers live in an [`Outbox`] until MPI is done with them.

use chunked_array::runtime::{TaskEvent, TierEvent, TierEventKind, TransferEvent};
use mpi::request::{Request, StaticScope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// The message tag of run number `run`. A rank may start its next run while
/// another still drains the last one (it has seen every rank close; the other
/// has not yet), so each run's messages carry their own tag: a block of the next
/// run waits in MPI until that run probes for it. No rank can be more than one
/// run ahead, so a few distinct tags would do; MPI guarantees at least 32767.
pub(crate) fn run_tag(run: u64) -> i32 {
    1 + (run % 16_384) as i32
}

/// What one message says.
pub(crate) enum Message {
    /// Task `task`'s block, as [`chunked_array::runtime::TaskGraph::encode_block`] made it.
    Block { task: usize, bytes: Vec<u8> },
    /// The sender failed; the text of its error.
    Failed(String),
    /// The sender will send nothing more in this run.
    Closed,
    /// What the sender did since its last report (for rank 0's observers).
    Progress(Report),
}

/// What a rank did since its last report to rank 0: tasks finished, blocks
/// moved between its memory tiers, blocks sent; times in nanoseconds since
/// its run started (clock ticks mean nothing on another node).
#[derive(Default)]
pub(crate) struct Report {
    pub tasks: Vec<TaskEvent>,
    pub tiers: Vec<TierEvent>,
    pub transfers: Vec<TransferEvent>,
}

impl Report {
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty() && self.tiers.is_empty() && self.transfers.is_empty()
    }
}

const BLOCK: u8 = 1;
const FAILED: u8 = 2;
const CLOSED: u8 = 3;
const PROGRESS: u8 = 4;
/// Words (u64) of one task event, one tier event and one transfer in a
/// progress message, which starts with the three counts.
const TASK_WORDS: usize = 9;
const TIER_WORDS: usize = 4;
const TRANSFER_WORDS: usize = 4;
/// One message's bytes, owned through the raw pointer `Box::into_raw` gave
/// (the `'static` slices MPI's non-blocking sends read are borrowed from it),
/// and freed through that pointer once every send of it completed.
struct Buffer {
    bytes: *mut [u8],
    pending: usize,
}

/// The sends in flight and their buffers.
pub(crate) struct Outbox {
    tag: i32,
    buffers: Vec<Option<Buffer>>,
    requests: Vec<(Request<'static, [u8], StaticScope>, usize)>,
    /// Bytes sent so far (for the statistics).
    pub sent_bytes: u64,
    /// Messages sent so far.
    pub sent_messages: u64,
}

impl Outbox {
    /// An outbox for the messages of the run with this tag.
    pub fn new(tag: i32) -> Outbox {
        Outbox { tag, buffers: Vec::new(), requests: Vec::new(), sent_bytes: 0, sent_messages: 0 }
    }

    /// Sends a block to each of `ranks`, from one buffer: the encoded block
    /// itself, with the trailer appended.
    pub fn send_block(
        &mut self,
        comm: &SimpleCommunicator,
        ranks: &[usize],
        task: usize,
        mut bytes: Vec<u8>,
    ) -> Result<(), String> {
        bytes.extend_from_slice(&(task as u64).to_le_bytes());
        bytes.push(BLOCK);
        self.send(comm, ranks, bytes)
    }

    /// Tells every rank in `ranks` that this one failed with `error`.
    pub fn send_failed(&mut self, comm: &SimpleCommunicator, ranks: &[usize], error: &str) -> Result<(), String> {
        let mut bytes = error.as_bytes().to_vec();
        bytes.push(FAILED);
        self.send(comm, ranks, bytes)
    }

    /// Sends rank `to` this rank's report.
    pub fn send_progress(&mut self, comm: &SimpleCommunicator, to: usize, report: &Report) -> Result<(), String> {
        let Report { tasks, tiers, transfers } = report;
        let words = 3 + TASK_WORDS * tasks.len() + TIER_WORDS * tiers.len() + TRANSFER_WORDS * transfers.len();
        let mut message = Vec::with_capacity(8 * words + 1);
        let mut put = |v: u64| message.extend_from_slice(&v.to_le_bytes());
        for n in [tasks.len(), tiers.len(), transfers.len()] {
            put(n as u64);
        }
        for e in tasks {
            for v in [e.task, e.worker, e.input_bytes, e.output_bytes, e.held_bytes, e.device_bytes, e.disk_bytes] {
                put(v as u64);
            }
            put(e.start);
            put(e.end);
        }
        for e in tiers {
            let kind = e.kind.index();
            for v in [e.task, kind, e.bytes] {
                put(v as u64);
            }
            put(e.at);
        }
        for e in transfers {
            for v in [e.task, e.to, e.bytes] {
                put(v as u64);
            }
            put(e.at);
        }
        message.push(PROGRESS);
        self.send(comm, &[to], message)
    }

    /// Tells every rank in `ranks` that this one sends nothing more.
    pub fn send_closed(&mut self, comm: &SimpleCommunicator, ranks: &[usize]) -> Result<(), String> {
        self.send(comm, ranks, vec![CLOSED])
    }

    fn send(&mut self, comm: &SimpleCommunicator, ranks: &[usize], bytes: Vec<u8>) -> Result<(), String> {
        if ranks.is_empty() {
            return Ok(());
        }
        if i32::try_from(bytes.len()).is_err() {
            return Err(format!(
                "a message of {} bytes is over MPI's limit of {} bytes per message: use smaller chunks",
                bytes.len(),
                i32::MAX
            ));
        }
        let len = bytes.len() as u64;
        let owned: *mut [u8] = Box::into_raw(bytes.into_boxed_slice());
        // SAFETY: `owned` is live until `done` frees it, which happens only
        // after every send reading this slice has completed.
        let leaked: &'static [u8] = unsafe { &*owned };
        let slot = self.buffers.iter().position(Option::is_none).unwrap_or_else(|| {
            self.buffers.push(None);
            self.buffers.len() - 1
        });
        self.buffers[slot] = Some(Buffer { bytes: owned, pending: ranks.len() });
        for &r in ranks {
            let request = comm.process_at_rank(r as i32).immediate_send_with_tag(StaticScope, leaked, self.tag);
            self.requests.push((request, slot));
            self.sent_bytes += len;
            self.sent_messages += 1;
        }
        Ok(())
    }

    /// Frees the buffers of completed sends; returns without waiting.
    pub fn progress(&mut self) {
        for (request, slot) in std::mem::take(&mut self.requests) {
            match request.test() {
                Ok(_) => self.done(slot),
                Err(request) => self.requests.push((request, slot)),
            }
        }
    }

    /// Waits for every send. Only safe once every receiver drains its messages
    /// (after a [`Message::Closed`] protocol), else it could wait forever.
    pub fn finish(&mut self) {
        while let Some((request, slot)) = self.requests.pop() {
            request.wait();
            self.done(slot);
        }
    }

    fn done(&mut self, slot: usize) {
        let buffer = self.buffers[slot].as_mut().expect("buffer of a pending send");
        buffer.pending -= 1;
        if buffer.pending == 0 {
            let buffer = self.buffers[slot].take().expect("checked");
            // SAFETY: `Box::into_raw` in `send` gave this pointer; every send that
            // read the slice borrowed from it completed.
            drop(unsafe { Box::from_raw(buffer.bytes) });
        }
    }
}

impl Drop for Outbox {
    /// Waits for the sends left (a run that returns normally has none): MPI may
    /// still read their buffers, which must not be freed before.
    fn drop(&mut self) {
        self.finish();
    }
}

/// The next message of the run with tag `tag` from any rank, `None` when none
/// has arrived. Returns the sender's rank and the message.
pub(crate) fn receive(comm: &SimpleCommunicator, tag: i32) -> Option<(usize, Result<Message, String>)> {
    let (bytes, status) = comm.any_process().immediate_matched_probe_with_tag(tag)?.matched_receive_vec::<u8>();
    let from = status.source_rank() as usize;
    Some((from, parse(bytes, from)))
}

fn parse(mut bytes: Vec<u8>, from: usize) -> Result<Message, String> {
    let n = bytes.len();
    match bytes.last() {
        Some(&BLOCK) if n >= 9 => {
            let task = u64::from_le_bytes(bytes[n - 9..n - 1].try_into().expect("8 bytes")) as usize;
            bytes.truncate(n - 9);
            Ok(Message::Block { task, bytes })
        }
        Some(&FAILED) => Ok(Message::Failed(String::from_utf8_lossy(&bytes[..n - 1]).into_owned())),
        Some(&CLOSED) if n == 1 => Ok(Message::Closed),
        Some(&PROGRESS) => parse_report(&bytes[..n - 1], from).map(Message::Progress),
        _ => Err(format!("a message of {n} bytes that is not the scheduler's")),
    }
}

/// A progress report's body, every count checked against its length.
fn parse_report(bytes: &[u8], from: usize) -> Result<Report, String> {
    let bad = || format!("a progress report of {} bytes that does not add up", bytes.len() + 1);
    if !bytes.len().is_multiple_of(8) || bytes.len() < 24 {
        return Err(bad());
    }
    let words: Vec<u64> = bytes.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes"))).collect();
    let (tasks, tiers, transfers) = (words[0] as usize, words[1] as usize, words[2] as usize);
    let want = tasks
        .checked_mul(TASK_WORDS)
        .zip(tiers.checked_mul(TIER_WORDS))
        .zip(transfers.checked_mul(TRANSFER_WORDS))
        .and_then(|((a, b), c)| a.checked_add(b)?.checked_add(c)?.checked_add(3));
    if want != Some(words.len()) {
        return Err(bad());
    }
    let (task_words, rest) = words[3..].split_at(TASK_WORDS * tasks);
    let (tier_words, transfer_words) = rest.split_at(TIER_WORDS * tiers);
    let tasks = task_words
        .chunks_exact(TASK_WORDS)
        .map(|w| TaskEvent {
            task: w[0] as usize,
            worker: w[1] as usize,
            input_bytes: w[2] as usize,
            output_bytes: w[3] as usize,
            held_bytes: w[4] as usize,
            device_bytes: w[5] as usize,
            disk_bytes: w[6] as usize,
            start: w[7],
            end: w[8],
        })
        .collect();
    let tiers = tier_words
        .chunks_exact(TIER_WORDS)
        .map(|w| {
            let kind = *TierEventKind::ALL.get(w[1] as usize).ok_or_else(bad)?;
            Ok(TierEvent { task: w[0] as usize, kind, bytes: w[2] as usize, at: w[3] })
        })
        .collect::<Result<_, String>>()?;
    let transfers = transfer_words
        .chunks_exact(TRANSFER_WORDS)
        .map(|w| TransferEvent { task: w[0] as usize, from, to: w[1] as usize, bytes: w[2] as usize, at: w[3] })
        .collect();
    Ok(Report { tasks, tiers, transfers })
}
