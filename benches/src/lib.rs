//! Benchmarks of chunked: `benches/` holds the criterion benches, `src/bin` the reports.
