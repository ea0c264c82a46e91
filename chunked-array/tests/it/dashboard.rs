//! The live dashboard: its event stream against the runs' own counts, its
//! endpoints and what they refuse, a slow client dropped without slowing the
//! run, and the page drawn by a headless browser while a compute runs.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use chunked_array::diagnostics::{Dashboard, DashboardOptions, LAYER_COLOURS};
use chunked_array::random::RandomState;
use chunked_array::{Array, Context, Error, RechunkOptions};
use serde_json::Value;

use crate::support::TempDir;

/// One HTTP request's status and body.
fn request(addr: SocketAddr, method: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

/// An event-stream client: every event's JSON, on a channel.
fn subscribe(addr: SocketAddr, query: &str) -> mpsc::Receiver<Value> {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "GET /events{query} HTTP/1.1\r\nHost: test\r\n\r\n").unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let lines = BufReader::new(s).lines();
        for line in lines.map_while(Result::ok) {
            if let Some(data) = line.strip_prefix("data: ")
                && tx.send(serde_json::from_str(data).expect("an event is JSON")).is_err()
            {
                return;
            }
        }
    });
    rx
}

/// A run as a client saw it: tasks, whether finished, each layer's (name,
/// blocks, done).
type RunSeen = (usize, bool, Vec<(String, usize, usize)>);

/// What a client saw, folded from its events.
#[derive(Default)]
struct Seen {
    runs: HashMap<u64, RunSeen>,
    /// Per run, the task numbers of its spans.
    tasks: HashMap<u64, Vec<u64>>,
    /// (run, kind, bytes) of each tier move.
    marks: Vec<(u64, String, u64)>,
    /// The largest disk bytes of a memory sample.
    disk_peak: u64,
}

impl Seen {
    fn take(&mut self, v: &Value) {
        for r in v["runs"].as_array().unwrap() {
            let layers = r["layers"].as_array().unwrap().iter();
            let layers =
                layers.map(|l| (l["name"].as_str().unwrap().to_string(), as_usize(&l["blocks"]), as_usize(&l["done"])));
            let entry = (as_usize(&r["tasks"]), !r["finished"].is_null(), layers.collect());
            self.runs.insert(r["id"].as_u64().unwrap(), entry);
        }
        for p in v["progress"].as_array().into_iter().flatten() {
            let run = self.runs.get_mut(&p["id"].as_u64().unwrap()).unwrap();
            run.1 = !p["finished"].is_null();
            for (layer, done) in run.2.iter_mut().zip(p["done"].as_array().unwrap()) {
                layer.2 = as_usize(done);
            }
        }
        for s in v["spans"].as_array().unwrap() {
            self.tasks.entry(s[0].as_u64().unwrap()).or_default().push(s[4].as_u64().unwrap());
        }
        for m in v["marks"].as_array().unwrap() {
            self.marks.push((m[1].as_u64().unwrap(), m[3].as_str().unwrap().to_string(), m[4].as_u64().unwrap()));
        }
        for m in v["memory"].as_array().unwrap() {
            self.disk_peak = self.disk_peak.max(m[4].as_u64().unwrap());
        }
    }

    fn finished(&self) -> usize {
        self.runs.values().filter(|r| r.1).count()
    }
}

fn as_usize(v: &Value) -> usize {
    v.as_u64().unwrap() as usize
}

/// Takes events until `done` holds (30 s at most).
fn follow(events: &mpsc::Receiver<Value>, seen: &mut Seen, done: impl Fn(&Seen) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done(seen) {
        let left = deadline.saturating_duration_since(Instant::now());
        let v = events.recv_timeout(left).expect("the dashboard's stream went quiet before the run ended");
        seen.take(&v);
    }
}

/// Tall blocks to wide ones under a limit a quarter of the data: it spills.
fn spilling() -> Array<f64> {
    let x: Array<f64> = RandomState::new(3).uniform(&[512, 512], [512, 32]).unwrap();
    let y = (&x * 2.0).rechunk_with([32, 512], &RechunkOptions { block_size_limit: 256 << 10 }).unwrap();
    y.sum(0).unwrap()
}

#[test]
fn the_stream_reports_every_task_and_every_spill_of_each_compute() {
    let dashboard = Dashboard::start("127.0.0.1:0").unwrap();
    let events = subscribe(dashboard.address(), "");
    let mut seen = Seen::default();
    let snapshot = events.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(snapshot["kind"], "snapshot");
    seen.take(&snapshot);
    let spill = TempDir::new("dashboard-spill");
    let ctx = Context::threads(2).with_memory_limit(512 << 10).with_spill_dir(spill.path());
    let ctx = ctx.with_observer(Arc::new(dashboard.clone()));
    let (_, stats) = spilling().compute_stats(&ctx).unwrap();
    follow(&events, &mut seen, |s| s.finished() == 1);
    let (&run, (tasks, _, layers)) = seen.runs.iter().next().unwrap();
    assert_eq!(*tasks, stats.tasks);
    let reported = &seen.tasks[&run];
    assert_eq!(reported.len(), stats.tasks, "a span per task");
    assert_eq!(reported.iter().collect::<HashSet<_>>().len(), stats.tasks, "each task once");
    assert!(layers.iter().all(|(_, blocks, done)| blocks == done), "every layer complete: {layers:?}");
    assert_eq!(layers.iter().map(|l| l.1).sum::<usize>(), stats.tasks);
    let kind = |k: &str| seen.marks.iter().filter(|m| m.0 == run && m.1 == k).map(|m| m.2).collect::<Vec<_>>();
    let (writes, reads) = (kind("disk-write"), kind("disk-read"));
    assert!(stats.tiers.spilled > 0, "the workload spills: {stats:?}");
    assert_eq!((writes.len(), reads.len()), (stats.tiers.spilled, stats.tiers.unspilled));
    assert_eq!(writes.iter().sum::<u64>(), stats.tiers.spilled_bytes);
    assert!(seen.disk_peak > 0, "memory samples show the disk tier");

    // It stays up between computes: a second one shows as a run of its own.
    let small = Array::<f64>::ones(&[100], 10).unwrap().sum(None).unwrap();
    let (_, second) = small.compute_stats(&ctx).unwrap();
    follow(&events, &mut seen, |s| s.finished() == 2);
    let id = *seen.runs.keys().find(|&&id| id != run).unwrap();
    assert_eq!(seen.tasks[&id].len(), second.tasks);
    let (status, body) = request(dashboard.address(), "GET", "/state.json");
    let state: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((status, state["runs"].as_array().unwrap().len()), (200, 2));
}

#[test]
fn endpoints_answer_get_only_with_the_token() {
    let options = DashboardOptions { token: Some("k3y".into()), ..DashboardOptions::default() };
    let dashboard = Dashboard::start_with("127.0.0.1:0", &options).unwrap();
    let addr = dashboard.address();
    let (status, page) = request(addr, "GET", "/?token=k3y");
    assert_eq!(status, 200);
    assert!(page.contains("<canvas") && !page.contains("http://") && !page.contains("https://"), "self-contained");
    assert_eq!(request(addr, "GET", "/").0, 403);
    assert_eq!(request(addr, "GET", "/state.json?token=k3x").0, 403);
    assert_eq!(request(addr, "POST", "/state.json?token=k3y").0, 405);
    assert_eq!(request(addr, "GET", "/nothing?token=k3y").0, 404);
    let (status, body) = request(addr, "GET", "/state.json?token=k3y");
    assert_eq!(status, 200);
    let state: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(state["palette"].as_array().unwrap().len(), LAYER_COLOURS.len());

    // An address that cannot be bound is an error naming it, before any work.
    let taken = addr.to_string();
    let err = Context::sync().with_dashboard(&taken).unwrap_err();
    assert!(matches!(&err, Error::InvalidArgument { value, .. } if value.contains(&taken)), "{err}");
    for bad in ["not an address", "127.0.0.1:99999", "256.1.1.1:80"] {
        assert!(Dashboard::start(bad).unwrap_err().to_string().contains(bad), "{bad}");
    }
    let ctx = Context::sync().with_dashboard("0").unwrap(); // a bare port: loopback
    assert!(ctx.dashboard().unwrap().address().ip().is_loopback());
}

#[test]
fn a_client_that_stops_reading_is_dropped() {
    let dashboard = Dashboard::start("127.0.0.1:0").unwrap();
    let ctx = Context::threads(2).with_observer(Arc::new(dashboard.clone()));
    let mut stalled = TcpStream::connect(dashboard.address()).unwrap();
    write!(stalled, "GET /events HTTP/1.1\r\nHost: test\r\n\r\n").unwrap();
    let started = Instant::now();
    while dashboard.clients() == 0 && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(dashboard.clients(), 1);
    // Each compute's delta carries a span per task; the client reads none of
    // them, so its queue and its socket's buffers fill, and it goes.
    let x = Array::<f64>::ones(&[20_000], 10).unwrap().sum(None).unwrap();
    let mut computes = 0;
    while dashboard.dropped_clients() == 0 && computes < 2_000 {
        x.compute_on(&ctx).unwrap();
        dashboard.refresh();
        computes += 1;
    }
    assert_eq!(dashboard.dropped_clients(), 1, "dropped after {computes} computes");
    assert_eq!(x.compute_on(&ctx).unwrap()[[]], 20_000.0, "the runs go on");
    drop(stalled);
}

/// Loads the page in headless Chromium while a compute runs (tasks that
/// sleep until the screenshot is taken): the task stream draws in the
/// layers' colours.
#[test]
fn the_page_draws_the_task_stream_in_a_browser() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let dashboard = Dashboard::start("127.0.0.1:0").unwrap();
    let ctx = Context::threads(2).with_observer(Arc::new(dashboard.clone()));
    let shot_taken = Arc::new(AtomicBool::new(false));
    let taken = shot_taken.clone();
    let slow = Array::<f64>::ones(&[6000], 1).unwrap().map_blocks(
        move |b, _| {
            if !taken.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(10));
            }
            b.to_owned()
        },
        None,
    );
    let total = slow.unwrap().sum(None).unwrap();
    let run = std::thread::spawn(move || total.compute_on(&ctx).unwrap()[[]]);
    std::thread::sleep(Duration::from_millis(1000)); // tasks have finished, more run
    let dir = TempDir::new("dashboard-browser");
    let shot = crate::support::browser::screenshot(&dashboard.url(), dir.path(), &[]);
    let during = !run.is_finished();
    shot_taken.store(true, Ordering::Relaxed);
    assert_eq!(run.join().unwrap(), 6000.0);
    assert!(during, "the screenshot was taken while the compute ran");
    let Some((png, log)) = shot else { return };
    let console = crate::support::browser::console_lines(&log);
    assert!(console.is_empty(), "console messages: {console:?}");
    // Colours go to layers in the order data flows, so on a new dashboard
    // `ones` has the first and the map the second. The map's tasks fill the
    // two rows of the task stream (two 13-pixel rows some 1200 pixels wide)
    // less the gaps between tasks, which a loaded machine widens; its layer's
    // progress bar, the only other place of that colour, is 10 pixels high
    // in a table cell and barely started, far under 4000 pixels.
    let rgb = |hex: &str| {
        let v = u32::from_str_radix(&hex[1..], 16).unwrap();
        [(v >> 16) as u8, (v >> 8) as u8, v as u8]
    };
    let colours: Vec<[u8; 3]> = LAYER_COLOURS[..2].iter().map(|c| rgb(c)).collect();
    if let Some((_, hits)) = crate::support::browser::pixel_counts(&png, &colours) {
        assert!(hits[1] > 4_000 && hits[0] > 100, "layer colours drawn: {hits:?}");
    }
}

/// The device tier shows too: blocks of an emulated device under a 400 KB
/// limit move to the host (`device->host`), and the memory samples' device
/// column holds what the device held.
#[test]
fn device_moves_and_device_bytes_show_in_the_record() {
    let device = chunked_array::device::Device::emulated(64 << 20);
    let dashboard = Dashboard::start("127.0.0.1:0").unwrap();
    // Centering holds every block until the column means are known.
    let x = RandomState::new(9).uniform::<f64>(&[1000, 800], [100, 200]).unwrap().to_device(&device);
    let z = &x - &x.mean(0).unwrap();
    let y = (&z * &z).sum(0).unwrap();
    let ctx = Context::threads(2).with_device_memory_limit(400 << 10).with_observer(Arc::new(dashboard.clone()));
    let (_, stats) = y.compute_stats(&ctx).unwrap();
    let state: Value = serde_json::from_str(&dashboard.snapshot_json()).unwrap();
    assert!(stats.tiers.device_spilled > 0, "{stats:?}");
    assert_eq!(as_usize(&state["tier_totals"]["device->host"][0]), stats.tiers.device_spilled);
    assert_eq!(as_usize(&state["runs"][0]["device_limit"]), 400 << 10);
    let samples = state["memory"].as_array().unwrap();
    let device_peak = samples.iter().map(|m| as_usize(&m[3])).max().unwrap();
    assert!(device_peak > 0 && device_peak <= stats.tiers.device_peak_bytes, "{device_peak} {stats:?}");
}
