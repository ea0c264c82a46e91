//! The progress bar (indicatif): tasks done of total, bytes computed, rate and ETA.

use std::sync::atomic::{AtomicU64, Ordering};

use indicatif::{ProgressDrawTarget, ProgressStyle};

use crate::events::{Observer, RunInfo, RunObserver, TaskEvent};
use crate::graph::task::TaskGraph;
use crate::units::human_bytes;

/// When a computation shows a progress bar.
///
/// ```
/// # fn main() -> chunked_array::Result<()> {
/// use chunked_array::{diagnostics::Progress, Array, Context};
/// assert_eq!(Progress::default(), Progress::Auto); // a bar when stderr is a terminal
/// let ctx = Context::sync().with_progress(Progress::Never);
/// assert_eq!(Array::<f64>::ones(&[6], 2)?.sum(None)?.compute_on(&ctx)?[[]], 6.0);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Progress {
    /// When stderr is a terminal (the default).
    #[default]
    Auto,
    /// Always (drawn on stderr even when it is not a terminal).
    Always,
    /// Never.
    Never,
}

/// In a run over several processes, rank 0 draws one bar for all of them.
impl Observer for Progress {
    fn observe<'a>(&'a self, run: &RunInfo<'_>) -> Option<Box<dyn RunObserver + 'a>> {
        if run.rank != 0 {
            return None;
        }
        ProgressBar::new(*self, run.label).map(|b| Box::new(b) as Box<dyn RunObserver>)
    }
}

/// A bar for one run.
struct ProgressBar {
    bar: indicatif::ProgressBar,
    bytes: AtomicU64,
}

impl ProgressBar {
    fn new(mode: Progress, label: &str) -> Option<ProgressBar> {
        let target = match mode {
            Progress::Never => return None,
            Progress::Auto if !std::io::IsTerminal::is_terminal(&std::io::stderr()) => return None,
            Progress::Auto => ProgressDrawTarget::stderr(),
            Progress::Always if std::io::IsTerminal::is_terminal(&std::io::stderr()) => ProgressDrawTarget::stderr(),
            // Not a terminal but asked for: plain lines, a few per second.
            Progress::Always => ProgressDrawTarget::term_like_with_hz(Box::new(PlainStderr), 2),
        };
        let bar = indicatif::ProgressBar::with_draw_target(Some(0), target);
        let style = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} tasks, {msg} ({per_sec}, ETA {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(label.to_string());
        Some(ProgressBar { bar, bytes: AtomicU64::new(0) })
    }
}

/// Stderr without cursor control: each redraw is a new line (logs, CI).
#[derive(Debug)]
struct PlainStderr;

impl indicatif::TermLike for PlainStderr {
    fn width(&self) -> u16 {
        120
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        eprintln!("{s}");
        Ok(())
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        if !s.trim().is_empty() {
            eprintln!("{s}");
        }
        Ok(())
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        Ok(())
    }
}

impl RunObserver for ProgressBar {
    fn run_started(&self, graph: &TaskGraph, _workers: usize) {
        self.bar.set_length(graph.len() as u64);
        self.bar.set_position(0);
    }
    #[inline]
    fn task_done(&self, event: &TaskEvent) {
        let total = self.bytes.fetch_add(event.output_bytes as u64, Ordering::Relaxed) + event.output_bytes as u64;
        self.bar.inc(1);
        if self.bar.position().is_multiple_of(64) {
            self.bar.set_message(human_bytes(total as usize));
        }
    }
    fn remote_tasks(&self, _rank: usize, events: &[TaskEvent]) {
        let bytes: u64 = events.iter().map(|e| e.output_bytes as u64).sum();
        let total = self.bytes.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.bar.inc(events.len() as u64);
        self.bar.set_message(human_bytes(total as usize));
    }
    fn run_finished(&self, _graph: &TaskGraph) {
        self.bar.set_message(human_bytes(self.bytes.load(Ordering::Relaxed) as usize));
        self.bar.finish();
    }
}
