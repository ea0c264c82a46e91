//! The dashboard's HTTP side: the accept loop (GET only, an optional token),
//! the page, `/state.json`, the server-sent event streams, and the publisher
//! that turns what runs report into deltas a few times a second.
//!
//! Nothing here blocks a task: workers only append to their feed's buffers;
//! the publisher hands each client its delta through a bounded queue and drops
//! a client whose queue is full (its browser reconnects and starts from a
//! snapshot).

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::diagnostics::dashboard::clock::DashClock;
use crate::diagnostics::dashboard::live::Feed;
use crate::diagnostics::dashboard::state::{Batch, State};

/// The page: HTML, CSS and script in one file, nothing fetched from elsewhere.
const PAGE: &str = include_str!("page.html");
/// Deltas a client may have queued before it counts as too slow.
const CLIENT_QUEUE: usize = 64;
/// Requests other than event streams served at once (each on its own thread).
const MAX_REQUESTS: usize = 32;
/// How often the publisher sends deltas while a browser is connected, and
/// drains the feeds while none is.
const PUBLISH_CONNECTED: Duration = Duration::from_millis(100);
const PUBLISH_IDLE: Duration = Duration::from_millis(250);
/// How long an idle event stream waits before a keep-alive comment (which
/// also finds browsers that went away).
const KEEP_ALIVE: Duration = Duration::from_secs(10);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What the server, the publisher and the runs' observers share.
pub(crate) struct Shared {
    pub clock: Arc<DashClock>,
    pub feeds: Mutex<Vec<Arc<Feed>>>,
    pub next_run: AtomicU64,
    pub state: Mutex<State>,
    clients: Mutex<Vec<SyncSender<Arc<str>>>>,
    pub stopped: AtomicBool,
    token: Option<String>,
    max_clients: usize,
    /// Event streams open now, requests being served, clients dropped as too slow.
    pub streams: AtomicUsize,
    requests: AtomicUsize,
    pub dropped: AtomicUsize,
}

impl Shared {
    pub fn new(token: Option<String>, max_clients: usize) -> Shared {
        Shared {
            clock: Arc::new(DashClock::start()),
            feeds: Mutex::new(Vec::new()),
            next_run: AtomicU64::new(1),
            state: Mutex::new(State::default()),
            clients: Mutex::new(Vec::new()),
            stopped: AtomicBool::new(false),
            token,
            max_clients,
            streams: AtomicUsize::new(0),
            requests: AtomicUsize::new(0),
            dropped: AtomicUsize::new(0),
        }
    }

    /// Drains every feed, folds the news into the state and sends it to the
    /// connected browsers.
    pub fn publish(&self) {
        self.clock.recalibrate();
        // The state's lock first: batches drained by two callers (the
        // publisher, a page request) go into the record in the order drained.
        let mut state = lock(&self.state);
        let mut batch = Batch::default();
        lock(&self.feeds).retain(|feed| !feed.drain_into(&mut batch, &self.clock));
        if batch.is_empty() {
            return;
        }
        let moved = state.apply(&batch);
        let mut clients = lock(&self.clients);
        if clients.is_empty() {
            return;
        }
        let delta: Arc<str> = state.delta_json(&batch, &moved, self.clock.seconds_now()).into();
        clients.retain(|client| match client.try_send(delta.clone()) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
                false
            }
            Err(TrySendError::Disconnected(_)) => false,
        });
    }

    /// The token requests must carry, if any.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// Stops the loops and ends every event stream.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
        lock(&self.clients).clear();
    }

    /// The whole state as JSON (what `/state.json` serves), with what the
    /// runs reported since the publisher's last tick taken in first.
    pub fn snapshot(&self) -> String {
        self.publish();
        lock(&self.state).snapshot_json(self.clock.seconds_now())
    }

    fn connected(&self) -> bool {
        !lock(&self.clients).is_empty()
    }
}

/// The publisher's loop, until the dashboard stops.
pub(crate) fn publish_loop(shared: Arc<Shared>) {
    while !shared.stopped.load(Ordering::Relaxed) {
        let period = if shared.connected() { PUBLISH_CONNECTED } else { PUBLISH_IDLE };
        std::thread::sleep(period);
        shared.publish();
    }
}

/// The accept loop, until the dashboard stops (`unblock` wakes it).
pub(crate) fn accept_loop(server: Arc<tiny_http::Server>, shared: Arc<Shared>) {
    while !shared.stopped.load(Ordering::Relaxed) {
        let Ok(request) = server.recv() else { break };
        if shared.stopped.load(Ordering::Relaxed) {
            break;
        }
        handle(request, &shared);
    }
}

fn header(name: &str, value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("ASCII header")
}

fn respond(request: tiny_http::Request, status: u16, content_type: &str, body: String) {
    let response = tiny_http::Response::from_string(body)
        .with_status_code(status)
        .with_header(header("Content-Type", content_type))
        .with_header(header("Cache-Control", "no-store"))
        .with_header(header("X-Content-Type-Options", "nosniff"))
        .with_header(header("Referrer-Policy", "no-referrer"))
        .with_header(header(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:",
        ));
    let response = if status == 405 { response.with_header(header("Allow", "GET, HEAD")) } else { response };
    let _ = request.respond(response);
}

/// Whether `query` carries `token` (compared in constant time), or no token is set.
fn authorized(query: &str, token: Option<&str>) -> bool {
    let Some(token) = token else { return true };
    query.split('&').filter_map(|pair| pair.strip_prefix("token=")).any(|given| {
        given.len() == token.len() && given.bytes().zip(token.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    })
}

fn handle(request: tiny_http::Request, shared: &Arc<Shared>) {
    let get = matches!(request.method(), tiny_http::Method::Get | tiny_http::Method::Head);
    if !get {
        return respond(request, 405, "text/plain", "only GET requests\n".into());
    }
    let url = request.url().to_string();
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    if !authorized(query, shared.token.as_deref()) {
        return respond(request, 403, "text/plain", "this dashboard needs its token: ?token=...\n".into());
    }
    match path {
        "/events" => {
            if shared.streams.fetch_add(1, Ordering::AcqRel) >= shared.max_clients {
                shared.streams.fetch_sub(1, Ordering::AcqRel);
                return respond(request, 503, "text/plain", "too many dashboard clients\n".into());
            }
            let shared = shared.clone();
            let spawned = std::thread::Builder::new().name("dashboard-stream".into()).spawn({
                let shared = shared.clone();
                move || {
                    stream(request, &shared);
                    shared.streams.fetch_sub(1, Ordering::AcqRel);
                }
            });
            if spawned.is_err() {
                shared.streams.fetch_sub(1, Ordering::AcqRel);
            }
        }
        "/" | "/index.html" | "/state.json" => {
            if shared.requests.fetch_add(1, Ordering::AcqRel) >= MAX_REQUESTS {
                shared.requests.fetch_sub(1, Ordering::AcqRel);
                return respond(request, 503, "text/plain", "too many requests\n".into());
            }
            let shared = shared.clone();
            let page = path != "/state.json";
            let spawned = std::thread::Builder::new().name("dashboard-request".into()).spawn({
                let shared = shared.clone();
                move || {
                    if page {
                        respond(request, 200, "text/html; charset=utf-8", page_with(&shared.snapshot()));
                    } else {
                        respond(request, 200, "application/json", shared.snapshot());
                    }
                    shared.requests.fetch_sub(1, Ordering::AcqRel);
                }
            });
            if spawned.is_err() {
                shared.requests.fetch_sub(1, Ordering::AcqRel);
            }
        }
        _ => respond(request, 404, "text/plain", format!("no page {path}\n")),
    }
}

/// The page with the state so far in it, so that it draws as it loads (and
/// a screenshot of it shows the record); `<` is escaped so that no string in
/// the record can end the script.
fn page_with(snapshot: &str) -> String {
    PAGE.replacen("/*STATE*/null", &snapshot.replace('<', "\\u003c"), 1)
}

fn write_event(out: &mut dyn Write, kind: &str, data: &str) -> std::io::Result<()> {
    write!(out, "event: {kind}\ndata: {data}\n\n")?;
    out.flush()
}

/// One browser's event stream: a snapshot, then every delta, until it goes
/// away, falls too far behind, or the dashboard stops.
fn stream(request: tiny_http::Request, shared: &Shared) {
    let (sender, receiver) = sync_channel::<Arc<str>>(CLIENT_QUEUE);
    shared.publish();
    // Under the state's lock, so that no delta falls between the snapshot and
    // the first delta this client gets.
    let snapshot = {
        let state = lock(&shared.state);
        lock(&shared.clients).push(sender);
        state.snapshot_json(shared.clock.seconds_now())
    };
    let mut out = request.into_writer();
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\
                X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n";
    if out.write_all(head.as_bytes()).is_err() || write_event(&mut out, "snapshot", &snapshot).is_err() {
        return;
    }
    drop(snapshot);
    loop {
        let written = match receiver.recv_timeout(KEEP_ALIVE) {
            Ok(delta) => write_event(&mut out, "delta", &delta),
            Err(RecvTimeoutError::Timeout) => out.write_all(b": keep-alive\n\n").and_then(|()| out.flush()),
            Err(RecvTimeoutError::Disconnected) => return,
        };
        if written.is_err() || shared.stopped.load(Ordering::Relaxed) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{authorized, page_with};

    #[test]
    fn no_string_of_the_record_ends_the_page_script() {
        let page = page_with(r#"{"label":"</script><script>alert(1)</script>"}"#);
        assert_eq!(page.matches("</script>").count(), 1, "only the page's own");
        assert!(page.contains(r#"const INITIAL = {"label":"\u003c/script>"#));
    }

    #[test]
    fn the_token_must_match_exactly() {
        assert!(authorized("", None));
        assert!(authorized("x=1&token=abc", Some("abc")));
        assert!(!authorized("token=abd", Some("abc")));
        assert!(!authorized("token=ab", Some("abc")));
        assert!(!authorized("", Some("abc")));
        assert!(!authorized("xtoken=abc", Some("abc")));
    }
}
