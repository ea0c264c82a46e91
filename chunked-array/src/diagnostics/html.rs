//! The self-contained HTML report: data inline as JSON, drawn by a small script
//! on two canvases (no network, no libraries).

use crate::diagnostics::span::{Span, TierMark, json_string};

/// `own_rank`: the rank that recorded; the memory chart shows its blocks (other
/// ranks' tasks, from an MPI run profiled on rank 0, get rows of their own).
pub(crate) fn report(title: &str, spans: &[Span], marks: &[TierMark], limit: Option<usize>, own_rank: usize) -> String {
    let mut layers: Vec<&str> = Vec::new();
    let mut tasks = Vec::with_capacity(spans.len());
    // A row per (rank, worker), named w<k>, or r<rank>.w<k> when ranks differ.
    let mut rows: Vec<(usize, usize)> = spans.iter().map(|s| (s.rank, s.worker)).collect();
    rows.sort_unstable();
    rows.dedup();
    let many_ranks = rows.first().map(|r| r.0) != rows.last().map(|r| r.0);
    let labels: Vec<String> = rows
        .iter()
        .map(|&(r, w)| json_string(&if many_ranks { format!("r{r}.w{w}") } else { format!("w{w}") }))
        .collect();
    for s in spans {
        let l = layers.iter().position(|&x| x == s.layer).unwrap_or_else(|| {
            layers.push(&s.layer);
            layers.len() - 1
        });
        let row = rows.binary_search(&(s.rank, s.worker)).expect("every span has a row");
        // Held bytes only for this rank's tasks: -1 keeps the others off the memory chart.
        let held = if s.rank == own_rank { s.held_bytes as i64 } else { -1 };
        tasks.push(format!("[{row},{:.9},{:.9},{},{held},{}]", s.start, s.end, l, json_string(&s.key)));
    }
    let layer_json: Vec<String> = layers.iter().map(|l| json_string(l)).collect();
    let idle: Vec<String> = idle_per_row(spans, &rows).iter().map(|s| format!("{s:.9}")).collect();
    let marks: Vec<String> = marks
        .iter()
        .map(|m| format!("[{:.9},{},{},{}]", m.time, json_string(m.kind.name()), m.bytes, json_string(&m.key)))
        .collect();
    let data = format!(
        "{{\"layers\":[{}],\"rows\":[{}],\"idle\":[{}],\"tasks\":[{}],\"marks\":[{}],\"limit\":{}}}",
        layer_json.join(","),
        labels.join(","),
        idle.join(","),
        tasks.join(","),
        marks.join(","),
        limit.map_or("null".to_string(), |l| l.to_string())
    );
    TEMPLATE.replace("__TITLE__", &html_escape(title)).replace("__DATA__", &data.replace("</", "<\\/"))
}

/// Seconds each row (a rank's worker) spent without a task between the
/// first task's start and the last task's end over all rows: the time a
/// rank waited for blocks from others, or had nothing ready.
pub(crate) fn idle_per_row(spans: &[Span], rows: &[(usize, usize)]) -> Vec<f64> {
    let first = spans.iter().map(|s| s.start).fold(f64::INFINITY, f64::min);
    let last = spans.iter().map(|s| s.end).fold(f64::NEG_INFINITY, f64::max);
    let mut busy = vec![0.0; rows.len()];
    for s in spans {
        if let Ok(row) = rows.binary_search(&(s.rank, s.worker)) {
            busy[row] += (s.end - s.start).max(0.0);
        }
    }
    busy.iter().map(|b| (last - first - b).max(0.0)).collect()
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

const TEMPLATE: &str = r##"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body{font-family:system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:18px;margin:0 0 8px}
h2{font-size:14px;margin:16px 0 4px}
canvas{border:1px solid #ccc;display:block}
#legend span{display:inline-block;margin-right:12px;font-size:12px}
#legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
#tip{position:fixed;background:#fff;border:1px solid #888;padding:2px 6px;font-size:12px;display:none;pointer-events:none}
#summary{font-size:12px;color:#555}
</style></head><body>
<h1>__TITLE__</h1>
<div id="summary"></div>
<h2>Task stream</h2>
<div id="idle" style="font-size:12px;color:#555"></div>
<canvas id="stream" width="1200" height="240"></canvas>
<div id="legend"></div>
<h2>Memory held in blocks</h2>
<canvas id="memory" width="1200" height="220"></canvas>
<div id="tip"></div>
<script>
"use strict";
const DATA = __DATA__;
const tasks = DATA.tasks;
const colour = i => "hsl(" + ((i * 137.508) % 360).toFixed(1) + ",65%,55%)";
const fmtBytes = b => { const u = ["B","kiB","MiB","GiB","TiB"]; let i = 0; while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; } return b.toFixed(i ? 2 : 0) + " " + u[i]; };
let t0 = Infinity, t1 = -Infinity, workers = 1, peak = 0;
for (const t of tasks) { t0 = Math.min(t0, t[1]); t1 = Math.max(t1, t[2]); workers = Math.max(workers, t[0] + 1); peak = Math.max(peak, t[4]); }
if (!tasks.length) { t0 = 0; t1 = 1; }
const span = Math.max(t1 - t0, 1e-9);
const count = k => DATA.marks.filter(m => m[1] === k).length;
// A limit far above what the run held (the default, a share of RAM) would
// flatten the chart: it is named, not drawn.
const drawLimit = DATA.limit !== null && DATA.limit <= 4 * Math.max(peak, 1);
document.getElementById("summary").textContent =
  tasks.length + " tasks on " + workers + " workers over " + (span * 1e3).toFixed(2) + " ms; peak " + fmtBytes(peak) +
  (DATA.limit !== null ? "; limit " + fmtBytes(DATA.limit) + (drawLimit ? "" : " (off the chart)") : "") +
  (DATA.marks.length ? "; " + count("spill") + " spilled, " + count("unspill") + " read back, " + count("recompute") + " recomputed, " + count("drop") + " dropped, " + count("regenerate") + " regenerated" : "");
document.getElementById("idle").textContent = "idle: " + DATA.rows.map((r, i) =>
  r + " " + DATA.idle[i].toFixed(3) + " s (" + (100 * DATA.idle[i] / span).toFixed(0) + "%)").join(", ");
const stream = document.getElementById("stream");
stream.height = Math.max(60, 24 * workers + 20);
const sc = stream.getContext("2d");
const W = stream.width - 60, rowH = (stream.height - 20) / workers;
const x = tt => 50 + (tt - t0) / span * W;
sc.fillStyle = "#fafafa"; sc.fillRect(0, 0, stream.width, stream.height);
sc.fillStyle = "#222"; sc.font = "11px sans-serif";
for (let w = 0; w < workers; w++) sc.fillText(DATA.rows[w] || ("w" + w), 4, 12 + rowH * (w + 0.5));
for (const t of tasks) {
  sc.fillStyle = colour(t[3]);
  sc.fillRect(x(t[1]), 4 + rowH * t[0], Math.max(1, x(t[2]) - x(t[1])), rowH - 4);
}
sc.fillStyle = "#222";
sc.fillText("0 ms", 50, stream.height - 4);
sc.fillText((span * 1e3).toFixed(2) + " ms", stream.width - 60, stream.height - 4);
const legend = document.getElementById("legend");
DATA.layers.forEach((name, i) => {
  const s = document.createElement("span");
  const sw = document.createElement("i"); sw.style.background = colour(i);
  s.appendChild(sw); s.appendChild(document.createTextNode(name)); legend.appendChild(s);
});
const memory = document.getElementById("memory");
const mc = memory.getContext("2d");
const H = memory.height - 40;
const yMax = Math.max(peak, drawLimit ? DATA.limit : 0, 1);
const y = b => 10 + H - b / yMax * H;
mc.fillStyle = "#fafafa"; mc.fillRect(0, 0, memory.width, memory.height);
const byEnd = tasks.filter(t => t[4] >= 0).sort((a, b) => a[2] - b[2]);
mc.strokeStyle = "#3366cc"; mc.lineWidth = 1.5; mc.beginPath(); mc.moveTo(x(t0), y(0));
let held = 0;
for (const t of byEnd) { mc.lineTo(x(t[2]), y(held)); held = t[4]; mc.lineTo(x(t[2]), y(held)); }
mc.stroke();
if (drawLimit) {
  mc.strokeStyle = "#cc3333"; mc.setLineDash([6, 4]); mc.beginPath();
  mc.moveTo(50, y(DATA.limit)); mc.lineTo(50 + W, y(DATA.limit)); mc.stroke(); mc.setLineDash([]);
  mc.fillStyle = "#cc3333"; mc.fillText("limit " + fmtBytes(DATA.limit), 54, y(DATA.limit) - 3);
}
// Spills (orange, down), unspills (green, up), recomputes (red), drops
// (grey) and regenerations (blue) along the bottom.
const markColour = { spill: "#e08a00", unspill: "#2a9d3c", recompute: "#cc3333", drop: "#888888", regenerate: "#3366cc" };
for (const m of DATA.marks) {
  const mx = x(m[0]), my = 10 + H + (m[1] === "unspill" || m[1] === "regenerate" ? 4 : m[1] === "spill" || m[1] === "drop" ? 10 : 16);
  mc.fillStyle = markColour[m[1]] || "#888";
  mc.fillRect(mx - 1, my, 2, 5);
}
mc.fillStyle = "#222"; mc.font = "11px sans-serif";
mc.fillText(fmtBytes(yMax), 4, 16); mc.fillText("0", 4, 10 + H);
const tip = document.getElementById("tip");
stream.addEventListener("mousemove", ev => {
  const r = stream.getBoundingClientRect();
  const px = ev.clientX - r.left, py = ev.clientY - r.top;
  const w = Math.floor((py - 4) / rowH);
  const tt = t0 + (px - 50) / W * span;
  const hit = tasks.find(t => t[0] === w && t[1] <= tt && tt <= t[2]);
  if (hit) { tip.style.display = "block"; tip.style.left = (ev.clientX + 12) + "px"; tip.style.top = (ev.clientY + 12) + "px";
    tip.textContent = hit[5] + ": " + ((hit[2] - hit[1]) * 1e3).toFixed(3) + " ms"; }
  else tip.style.display = "none";
});
document.body.dataset.drawn = "yes";
</script></body></html>
"##;

#[cfg(test)]
mod tests {
    use super::{Span, idle_per_row, report};

    fn span(rank: usize, start: f64, end: f64) -> Span {
        Span {
            key: format!("('t', [{rank}])"),
            layer: "t".into(),
            worker: 0,
            rank,
            start,
            end,
            input_bytes: 0,
            output_bytes: 0,
            held_bytes: 0,
        }
    }

    /// Rank 1 works 0-1 s and 3-4 s, rank 0 from 0 to 4 s: rank 1 idles 2 s.
    #[test]
    fn idle_time_per_rank() {
        let spans = [span(0, 0.0, 4.0), span(1, 0.0, 1.0), span(1, 3.0, 4.0)];
        let idle = idle_per_row(&spans, &[(0, 0), (1, 0)]);
        assert!((idle[0] - 0.0).abs() < 1e-12 && (idle[1] - 2.0).abs() < 1e-12, "{idle:?}");
        let html = report("x", &spans, &[], None, 0);
        assert!(html.contains("\"idle\":[0.000000000,2.000000000]"), "{html}");
    }
}
