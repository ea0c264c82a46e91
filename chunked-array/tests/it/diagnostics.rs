//! The profiler's record, its exports (checked by real clients where installed:
//! Python's json, a headless Chromium, Graphviz), and graph pictures.

use std::process::Command;

use chunked_array::diagnostics::Profiler;
use chunked_array::random::RandomState;
use chunked_array::{Context, Scheduler};

fn profiled_run() -> (Profiler, usize) {
    let profiler = Profiler::new();
    profiler.set_memory_limit(Some(4 << 20));
    let x = RandomState::new(1).uniform::<f64>(&[400, 300], [100, 100]).unwrap();
    let y = (&x - &x.mean(0).unwrap()).pow(2.0).unwrap().sum(None).unwrap();
    let ctx = Context::threads(2).with_profiler(&profiler);
    y.compute_on(&ctx).unwrap();
    let tasks = y.task_graph_dot(usize::MAX).unwrap().lines().filter(|l| l.contains("[label=")).count();
    (profiler, tasks)
}

/// A tall-to-wide rechunk under a memory limit a quarter of its data: it spills.
fn spilling_run(profiler: &Profiler) -> chunked_array::RunStats {
    let x = RandomState::new(4).uniform::<f64>(&[256, 256], [256, 16]).unwrap();
    let wide =
        (&x * 2.0).rechunk_with([16, 256], &chunked_array::RechunkOptions { block_size_limit: 64 << 10 }).unwrap();
    let ctx = Context::threads(2).with_profiler(profiler).with_memory_limit(128 << 10);
    wide.sum(0).unwrap().compute_stats(&ctx).unwrap().1
}

#[test]
fn spills_and_reads_back_show_in_the_profile() {
    let profiler = Profiler::new();
    let stats = spilling_run(&profiler);
    assert!(stats.tiers.spilled > 0);
    let marks = profiler.tier_marks();
    let count = |k| marks.iter().filter(|m| m.kind == k).count();
    use chunked_array::runtime::TierEventKind::{Recompute, Spill, Unspill};
    assert_eq!((count(Spill), count(Unspill), count(Recompute)), (stats.tiers.spilled, stats.tiers.unspilled, 0));
    assert_eq!(
        marks.iter().filter(|m| m.kind == Spill).map(|m| m.bytes as u64).sum::<u64>(),
        stats.tiers.spilled_bytes
    );
    let spans = profiler.spans();
    let (t0, t1) = (spans[0].start, spans.iter().map(|s| s.end).fold(0.0, f64::max));
    assert!(marks.iter().all(|m| m.time >= t0 && m.time <= t1 + 1e-3 && m.key.starts_with("('")), "{marks:?}");
    assert_eq!(profiler.memory_limit(), Some(128 << 10), "the run's limit, for the chart");
    let trace = profiler.chrome_trace();
    assert_eq!(trace.matches(r#""name":"spill""#).count(), stats.tiers.spilled);
    let page = profiler.html_report("spills");
    assert!(page.contains(r#""spill","#) && page.contains(r#""unspill","#));
}

#[test]
fn spans_cover_every_task() {
    let (profiler, tasks) = profiled_run();
    let spans = profiler.spans();
    assert_eq!(spans.len(), tasks);
    let threads = chunked_array::ThreadedScheduler::new(2).threads();
    for s in &spans {
        assert!(s.end >= s.start && s.start >= 0.0, "{s:?}");
        assert!(s.worker < threads, "{s:?}");
        assert!(s.key.starts_with("('") && s.key.contains('-'), "{s:?}");
    }
    assert!(spans.iter().any(|s| s.layer == "random_uniform" && s.output_bytes == 100 * 100 * 8));
    assert!(spans.iter().map(|s| s.held_bytes).max().unwrap() > 0);
    // Runs accumulate.
    let ctx = Context::sync().with_profiler(&profiler);
    RandomState::new(2).uniform::<f64>(&[10], 5).unwrap().compute_on(&ctx).unwrap();
    assert_eq!(profiler.spans().len(), tasks + 2);
    assert_eq!(chunked_array::SyncScheduler.name(), "sync");
}

#[test]
fn chrome_trace_is_json_that_python_reads() {
    let (profiler, tasks) = profiled_run();
    let trace = profiler.chrome_trace();
    let Ok(out) = Command::new("python3")
        .args(["-c", "import json,sys; d=json.load(sys.stdin); e=d['traceEvents']; print(sum(1 for x in e if x['ph']=='X'), sum(1 for x in e if x['ph']=='C'))"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(trace.as_bytes())?;
            c.wait_with_output()
        })
    else {
        crate::support::tool_missing("the JSON check: python3 is not installed");
        return;
    };
    assert!(out.status.success(), "python could not parse the trace");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), format!("{tasks} {tasks}"));
}

/// Renders the HTML report in a real headless browser: a non-blank screenshot
/// and no console errors.
#[test]
fn html_report_draws_in_a_browser() {
    let (profiler, _) = profiled_run();
    // And a run that spills, so that the tier marks are drawn too.
    let _ = spilling_run(&profiler);
    let dir = std::env::temp_dir().join(format!("chunked-html-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let html = dir.join("report.html");
    profiler.write_html(&html, "test <report>").unwrap();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("test &lt;report&gt;") && page.contains("Task stream") && page.contains("limit"));
    let target = format!("file://{}", html.display());
    let Some((png, log)) = crate::support::browser::screenshot(&target, &dir, &[]) else { return };
    let console = crate::support::browser::console_lines(&log);
    assert!(console.is_empty(), "console messages: {console:?}");
    if let Some((coloured, _)) = crate::support::browser::pixel_counts(&png, &[]) {
        assert!(coloured > 2000, "only {coloured} coloured pixels: the charts did not draw");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn svg_pictures_when_graphviz_is_installed() {
    let x = RandomState::new(0).uniform::<f64>(&[10, 10], 5).unwrap();
    let y = (&x + 1.0).sum(0).unwrap();
    match y.to_svg() {
        Ok(svg) => {
            assert!(svg.contains("<svg") && svg.contains("random_uniform"), "{svg}");
            let tasks = y.task_graph_svg(2).unwrap();
            assert!(tasks.contains("<svg") && tasks.contains("tasks)"), "collapsed layers: {tasks}");
        }
        Err(e) => {
            assert!(e.to_string().contains("graphviz"), "{e}");
            crate::support::tool_missing(&format!("the SVG check: {e}"));
        }
    }
}
