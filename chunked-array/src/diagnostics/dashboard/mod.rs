//! The live dashboard: an embedded HTTP server whose one page shows the runs
//! of a process while they go, as dask's dashboard does: the task stream (a
//! row per worker and rank, coloured by layer), progress per layer, memory
//! per tier against its limit, spills and transfers between ranks, and the
//! graph of the current compute collapsed per layer.

mod clock;
mod live;
mod server;
mod state;

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::events::{Observer, RunInfo, RunObserver};
use live::{Feed, LiveRun};
use server::Shared;
pub use state::PALETTE as LAYER_COLOURS;

/// The address a dashboard binds when given only a port, or nothing: loopback.
pub const DEFAULT_DASHBOARD_ADDRESS: &str = "127.0.0.1:8787";

/// How a [`Dashboard`] serves.
///
/// ```
/// use chunked_array::diagnostics::DashboardOptions;
/// let options = DashboardOptions { token: Some("s3cret".into()), ..DashboardOptions::default() };
/// assert_eq!(options.max_clients, 8);
/// ```
#[derive(Debug, Clone)]
pub struct DashboardOptions {
    /// A token every request must carry (`?token=...`), for shared machines:
    /// letters, digits, `-`, `_`, `.` and `~` only.
    pub token: Option<String>,
    /// Browsers connected at once; more are answered 503.
    pub max_clients: usize,
}

impl Default for DashboardOptions {
    fn default() -> Self {
        DashboardOptions { token: None, max_clients: 8 }
    }
}

/// A live dashboard: an HTTP server on its own threads that shows every run
/// it observes while it goes. It serves until the last clone is dropped, so
/// one dashboard shows the computes of a whole program.
///
/// Open [`Dashboard::url`] in a browser; `/state.json` is the same record as
/// JSON, `/events` the live stream of it (server-sent events). Attach it to a
/// context with [`crate::Context::with_dashboard`], or as an observer of any
/// context.
///
/// ```
/// # fn main() -> chunked_array::Result<()> {
/// use std::sync::Arc;
/// use chunked_array::{diagnostics::Dashboard, Array, Context};
/// let dashboard = Dashboard::start("127.0.0.1:0")?; // port 0: any free port
/// assert!(dashboard.url().starts_with("http://127.0.0.1:"));
/// let ctx = Context::threads(2).with_observer(Arc::new(dashboard.clone()));
/// let (_, stats) = Array::<f64>::ones(&[100], 10)?.sum(None)?.compute_stats(&ctx)?;
/// dashboard.refresh(); // what the publisher does a few times a second
/// assert!(dashboard.snapshot_json().contains(&format!("\"tasks_done\":{}", stats.tasks)));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Dashboard {
    handle: Arc<Handle>,
}

struct Handle {
    shared: Arc<Shared>,
    server: Arc<tiny_http::Server>,
    address: SocketAddr,
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.shared.stop();
        self.server.unblock();
    }
}

impl std::fmt::Debug for Dashboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Dashboard({})", self.handle.address)
    }
}

impl Dashboard {
    /// Starts a dashboard on `addr` (`host:port`; a bare port means
    /// loopback, `127.0.0.1:PORT`; port 0 takes any free one).
    ///
    /// ```
    /// use chunked_array::diagnostics::Dashboard;
    /// let dashboard = Dashboard::start("0").unwrap(); // loopback, any port
    /// assert!(dashboard.address().ip().is_loopback());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `addr` when it is not an address or
    /// cannot be bound (in use, not this machine's, no permission).
    pub fn start(addr: &str) -> Result<Dashboard> {
        Dashboard::start_with(addr, &DashboardOptions::default())
    }

    /// [`Dashboard::start`] with options (a token, how many browsers).
    ///
    /// ```
    /// use chunked_array::diagnostics::{Dashboard, DashboardOptions};
    /// let options = DashboardOptions { token: Some("k3y".into()), ..DashboardOptions::default() };
    /// let dashboard = Dashboard::start_with("127.0.0.1:0", &options).unwrap();
    /// assert!(dashboard.url().ends_with("/?token=k3y"));
    /// let bad = DashboardOptions { token: Some("a b".into()), ..DashboardOptions::default() };
    /// assert!(Dashboard::start_with("127.0.0.1:0", &bad).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `addr` when it cannot be bound, or
    /// naming the token when it holds characters a URL would have to escape.
    pub fn start_with(addr: &str, options: &DashboardOptions) -> Result<Dashboard> {
        if let Some(token) = &options.token {
            let plain = |c: char| c.is_ascii_alphanumeric() || "-_.~".contains(c);
            if token.is_empty() || !token.chars().all(plain) {
                return Err(Error::invalid("dashboard token", token, "use letters, digits, '-', '_', '.' or '~'"));
            }
        }
        let address = resolve(addr)?;
        let server = tiny_http::Server::http(address)
            .map_err(|e| Error::invalid("dashboard address", addr, format!("cannot be bound: {e}")))?;
        let address = server.server_addr().to_ip().unwrap_or(address);
        let server = Arc::new(server);
        let shared = Arc::new(Shared::new(options.token.clone(), options.max_clients.max(1)));
        let spawn = |name: &str, work: Box<dyn FnOnce() + Send>| {
            std::thread::Builder::new()
                .name(name.into())
                .spawn(work)
                .map_err(|e| Error::invalid("dashboard address", addr, format!("no thread for the server: {e}")))
        };
        let (s, sh) = (server.clone(), shared.clone());
        spawn("dashboard-accept", Box::new(move || server::accept_loop(s, sh)))?;
        let sh = shared.clone();
        spawn("dashboard-publish", Box::new(move || server::publish_loop(sh)))?;
        Ok(Dashboard { handle: Arc::new(Handle { shared, server, address }) })
    }

    /// The address it serves on (with the port the system gave for port 0).
    ///
    /// ```
    /// use chunked_array::diagnostics::Dashboard;
    /// let dashboard = Dashboard::start("127.0.0.1:0").unwrap();
    /// assert_ne!(dashboard.address().port(), 0);
    /// ```
    pub fn address(&self) -> SocketAddr {
        self.handle.address
    }

    /// The page's URL, with the token if there is one.
    ///
    /// ```
    /// use chunked_array::diagnostics::Dashboard;
    /// let dashboard = Dashboard::start("127.0.0.1:0").unwrap();
    /// assert_eq!(dashboard.url(), format!("http://{}/", dashboard.address()));
    /// ```
    pub fn url(&self) -> String {
        match self.handle.shared.token() {
            Some(token) => format!("http://{}/?token={token}", self.handle.address),
            None => format!("http://{}/", self.handle.address),
        }
    }

    /// Browsers connected to the live stream now.
    ///
    /// ```
    /// use chunked_array::diagnostics::Dashboard;
    /// assert_eq!(Dashboard::start("127.0.0.1:0").unwrap().clients(), 0);
    /// ```
    pub fn clients(&self) -> usize {
        self.handle.shared.streams.load(Ordering::Relaxed)
    }

    /// Browsers dropped so far because they fell too far behind the stream.
    ///
    /// ```
    /// use chunked_array::diagnostics::Dashboard;
    /// assert_eq!(Dashboard::start("127.0.0.1:0").unwrap().dropped_clients(), 0);
    /// ```
    pub fn dropped_clients(&self) -> usize {
        self.handle.shared.dropped.load(Ordering::Relaxed)
    }

    /// Takes in what the runs reported since the last time and sends it to
    /// the browsers now (the dashboard's own thread does so a few times a
    /// second).
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use std::sync::Arc;
    /// use chunked_array::{diagnostics::Dashboard, Array, Context};
    /// let dashboard = Dashboard::start("127.0.0.1:0")?;
    /// let ctx = Context::sync().with_observer(Arc::new(dashboard.clone()));
    /// Array::<f64>::ones(&[4], 2)?.compute_on(&ctx)?;
    /// dashboard.refresh();
    /// assert!(dashboard.snapshot_json().contains("\"name\":\"ones\""));
    /// # Ok(()) }
    /// ```
    pub fn refresh(&self) {
        self.handle.shared.publish();
    }

    /// Everything the dashboard holds (what the runs reported up to now), as
    /// the JSON `/state.json` serves: the
    /// recent runs (`runs`: label, layers with `blocks` and `done`, `edges`,
    /// limits), the task spans (`spans`: `[run, rank, worker, layer, task,
    /// start, end]`, seconds since the dashboard started), memory per rank
    /// (`memory`: `[time, rank, host, device, disk]` bytes), tier moves
    /// (`marks`: `[time, run, rank, kind, bytes]`, kinds `disk-write`,
    /// `disk-read`, `device->host`, ...), transfers between ranks
    /// (`transfers`: `[time, from, to, bytes]`), their totals, and the layer
    /// colours (`palette`).
    ///
    /// ```
    /// use chunked_array::diagnostics::Dashboard;
    /// let json = Dashboard::start("127.0.0.1:0").unwrap().snapshot_json();
    /// assert!(json.starts_with("{\"kind\":\"snapshot\"") && json.contains("\"runs\":[]"));
    /// ```
    pub fn snapshot_json(&self) -> String {
        self.handle.shared.snapshot()
    }
}

/// `addr` as one socket address; a bare port is a loopback one.
fn resolve(addr: &str) -> Result<SocketAddr> {
    let text = addr.trim();
    let text = if text.is_empty() {
        DEFAULT_DASHBOARD_ADDRESS.to_string()
    } else if text.parse::<u16>().is_ok() {
        format!("127.0.0.1:{text}")
    } else {
        text.to_string()
    };
    let bad = |reason: String| Error::invalid("dashboard address", addr, reason);
    let mut found = text.to_socket_addrs().map_err(|e| bad(format!("is not host:port ({e})")))?;
    found.next().ok_or_else(|| bad("names no address".into()))
}

/// Each run gets a feed the publisher drains.
impl Observer for Dashboard {
    fn observe<'a>(&'a self, run: &RunInfo<'_>) -> Option<Box<dyn RunObserver + 'a>> {
        let shared = &self.handle.shared;
        let id = shared.next_run.fetch_add(1, Ordering::Relaxed);
        let feed = Arc::new(Feed::new(id, run, &shared.clock));
        lock(&shared.feeds).push(feed.clone());
        Some(Box::new(LiveRun { feed, clock: shared.clock.clone() }))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// On a rank other than 0 of a job whose rank 0 serves a dashboard: asks
/// for task times, which the rank's reports to rank 0 then carry.
pub(crate) struct ReportTimes;

struct WantsTiming;
impl RunObserver for WantsTiming {
    fn wants_timing(&self) -> bool {
        true
    }
}

impl Observer for ReportTimes {
    fn observe<'a>(&'a self, _run: &RunInfo<'_>) -> Option<Box<dyn RunObserver + 'a>> {
        Some(Box::new(WantsTiming))
    }
}
