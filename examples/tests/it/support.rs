//! What the example tests share.

/// Ends a test whose tool is missing: a failure where the tools are required
/// (`CI=true`, or `CHUNKED_REQUIRE_TOOLS=1`, which the test command sets as it
/// installs them), a note otherwise.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))] // its users are the MPI jobs'
pub fn tool_missing(why: &str) {
    let set = |name: &str, value: &str| std::env::var(name).is_ok_and(|v| v == value);
    assert!(!set("CI", "true") && !set("CHUNKED_REQUIRE_TOOLS", "1"), "{why}: required here (CI or the test command)");
    println!("skipping: {why}");
}
