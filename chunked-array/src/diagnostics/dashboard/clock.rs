//! The dashboard's time: seconds since it started, from [`Clock`] ticks at a
//! rate measured against the wall clock and refined while it runs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::events::Clock;

pub(crate) struct DashClock {
    tick0: u64,
    instant0: Instant,
    /// Seconds per tick, as f64 bits.
    rate: AtomicU64,
}

impl DashClock {
    /// A clock that starts now (a 2 ms measurement gives its first rate).
    pub fn start() -> DashClock {
        let (tick0, instant0) = (Clock::now(), Instant::now());
        while instant0.elapsed() < Duration::from_millis(2) {
            std::hint::spin_loop();
        }
        let clock = DashClock { tick0, instant0, rate: AtomicU64::new(0) };
        clock.recalibrate();
        clock
    }

    /// Measures the rate again over the whole time since the start.
    pub fn recalibrate(&self) {
        let ticks = Clock::now().saturating_sub(self.tick0).max(1) as f64;
        let rate = self.instant0.elapsed().as_secs_f64() / ticks;
        self.rate.store(rate.to_bits(), Ordering::Relaxed);
    }

    /// Seconds since the start at clock tick `tick`.
    pub fn seconds(&self, tick: u64) -> f64 {
        let rate = f64::from_bits(self.rate.load(Ordering::Relaxed));
        (tick as f64 - self.tick0 as f64) * rate
    }

    /// Seconds since the start, now.
    pub fn seconds_now(&self) -> f64 {
        self.instant0.elapsed().as_secs_f64()
    }
}
