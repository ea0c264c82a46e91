//! What the live dashboard costs per task: the overhead benchmark (a sum of
//! `ones(N, chunks=C)`, a task per few elements) with the dashboard off, on
//! with no browser, on with an event-stream client that reads every delta,
//! and on with headless Chromium showing the page, the modes interleaved run
//! by run so that the machine's drift falls on all of them alike.
//!
//! `dashboard_overhead [--elements N] [--chunk C] [--reps R] [--modes off,idle,client,browser]`
//! prints one line per mode: best and median seconds, per-task microseconds
//! and the ratio of the best to the best with the dashboard off.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chunked_array::diagnostics::Dashboard;
use chunked_array::{Array, Context};

struct Options {
    elements: usize,
    chunk: usize,
    reps: usize,
    modes: Vec<String>,
}

fn parse() -> Result<Options, String> {
    let mut o = Options { elements: 1_000_000, chunk: 10, reps: 15, modes: Vec::new() };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let num = || value.parse::<usize>().map_err(|e| format!("{flag} {value}: {e}"));
        match flag.as_str() {
            "--elements" => o.elements = num()?,
            "--chunk" => o.chunk = num()?,
            "--reps" => o.reps = num()?.max(1),
            "--modes" => o.modes = value.split(',').map(String::from).collect(),
            other => return Err(format!("unknown option {other}")),
        }
    }
    if o.modes.is_empty() {
        o.modes = ["off", "idle", "client", "browser"].map(String::from).to_vec();
    }
    Ok(o)
}

/// A mode's context, and what keeps its client connected.
struct Mode {
    name: String,
    ctx: Context,
    dashboard: Option<Dashboard>,
    _client: Option<Client>,
    times: Vec<f64>,
}

enum Client {
    /// A thread that reads the event stream and throws it away.
    Reader(std::net::TcpStream),
    Browser(Child, std::path::PathBuf),
}

impl Drop for Client {
    fn drop(&mut self) {
        match self {
            Client::Reader(s) => {
                let _ = s.shutdown(std::net::Shutdown::Both);
            }
            Client::Browser(child, dir) => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }
}

fn reader(dashboard: &Dashboard) -> Client {
    use std::io::Write;
    let mut s = std::net::TcpStream::connect(dashboard.address()).expect("connect");
    write!(s, "GET /events HTTP/1.1\r\nHost: bench\r\n\r\n").expect("request");
    let mut stream = s.try_clone().expect("clone");
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        while matches!(stream.read(&mut buf), Ok(n) if n > 0) {}
    });
    Client::Reader(s)
}

fn browser(dashboard: &Dashboard) -> Option<Client> {
    let dir = std::env::temp_dir().join(format!("chunked-dashboard-bench-{}", std::process::id()));
    let child = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
        .args(["--window-size=1280,900", "--remote-debugging-port=0"])
        .arg(format!("--user-data-dir={}", dir.display()))
        .arg(dashboard.url())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    Some(Client::Browser(child, dir))
}

fn mode(name: &str) -> Option<Mode> {
    let ctx = Context::default();
    let (ctx, dashboard, client) = match name {
        "off" => (ctx, None, None),
        "idle" | "client" | "browser" => {
            let dashboard = Dashboard::start("127.0.0.1:0").expect("dashboard");
            let client = match name {
                "client" => Some(reader(&dashboard)),
                "browser" => Some(browser(&dashboard)?),
                _ => None,
            };
            let start = Instant::now();
            while client.is_some() && dashboard.clients() == 0 && start.elapsed() < Duration::from_secs(30) {
                std::thread::sleep(Duration::from_millis(20));
            }
            if client.is_some() && dashboard.clients() == 0 {
                eprintln!("{name}: no client connected");
                return None;
            }
            (ctx.with_observer(Arc::new(dashboard.clone())), Some(dashboard), client)
        }
        other => {
            eprintln!("unknown mode {other}");
            return None;
        }
    };
    Some(Mode { name: name.into(), ctx, dashboard, _client: client, times: Vec::new() })
}

fn main() -> std::process::ExitCode {
    let o = match parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return std::process::ExitCode::from(2);
        }
    };
    let sum = Array::<f64>::ones(&[o.elements], o.chunk).expect("ones").sum(None).expect("sum");
    let tasks = sum.num_tasks();
    let mut modes: Vec<Mode> = o.modes.iter().filter_map(|m| mode(m)).collect();
    for _ in 0..o.reps {
        for m in &mut modes {
            let start = Instant::now();
            let total = sum.compute_on(&m.ctx).expect("compute")[[]];
            m.times.push(start.elapsed().as_secs_f64());
            assert_eq!(total, o.elements as f64);
        }
    }
    println!("sum of ones({}, chunks={}): {tasks} tasks, {} runs per mode, interleaved", o.elements, o.chunk, o.reps);
    let best_off =
        modes.iter().find(|m| m.name == "off").map(|m| m.times.iter().copied().fold(f64::INFINITY, f64::min));
    for m in &mut modes {
        m.times.sort_by(f64::total_cmp);
        let (best, median) = (m.times[0], m.times[m.times.len() / 2]);
        let ratio = best_off.map_or(String::new(), |off| format!(", {:.3}x off", best / off));
        let clients = m.dashboard.as_ref().map_or(String::new(), |d| {
            format!(", {} clients at the end, {} dropped as too slow", d.clients(), d.dropped_clients())
        });
        println!(
            "{:8} best {best:.4} s, median {median:.4} s, {:.3} us per task{ratio}{clients}",
            m.name,
            best / tasks as f64 * 1e6
        );
    }
    std::process::ExitCode::SUCCESS
}
