//! Headless Chromium for the tests that check pages draw: a screenshot of a
//! file or URL, and its pixels counted by colour (Python's zlib decodes the PNG).

use std::path::{Path, PathBuf};
use std::process::Command;

/// A screenshot of `target` (a `file://` or `http://` URL) in `dir`, and the
/// browser's log; `None` when no Chromium is installed (outside CI).
pub fn screenshot(target: &str, dir: &Path, extra: &[&str]) -> Option<(PathBuf, String)> {
    let Some(browser) = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| Command::new(b).arg("--version").output().is_ok())
    else {
        super::tool_missing("the browser check: no chromium installed (scripts/test.sh installs it)");
        return None;
    };
    let png = dir.join("shot.png");
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1280,900",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .args(extra)
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(target)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(png.exists(), "no screenshot; browser said: {log}");
    Some((png, log))
}

/// The console messages in a browser log.
pub fn console_lines(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

/// Pixels of `png` that are strongly coloured (channels more than 60 apart),
/// and per colour of `colours` the pixels within 6 of it on every channel;
/// `None` when Python is missing (outside CI).
pub fn pixel_counts(png: &Path, colours: &[[u8; 3]]) -> Option<(usize, Vec<usize>)> {
    let wanted: Vec<String> = colours.iter().map(|c| format!("({},{},{})", c[0], c[1], c[2])).collect();
    let script = r#"
import sys, zlib, struct
data = open(sys.argv[1], 'rb').read()
wanted = eval('[' + sys.argv[2] + ']')
pos, idat, w, h = 8, b'', 0, 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos+8]); body = data[pos+8:pos+8+n]; pos += 12 + n
    if kind == b'IHDR': w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    if kind == b'IDAT': idat += body
raw = zlib.decompress(idat)
bpp = 4 if ctype == 6 else 3
stride = w * bpp + 1
prev = bytearray(w * bpp)
coloured = 0
hits = [0] * len(wanted)
for r in range(h):
    f = raw[r*stride]; line = bytearray(raw[r*stride+1:(r+1)*stride])
    for i in range(len(line)):
        a = line[i-bpp] if i >= bpp else 0; b = prev[i]; c = prev[i-bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p-a), abs(p-b), abs(p-c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for i in range(0, len(line), bpp):
        rr, gg, bb = line[i], line[i+1], line[i+2]
        if max(rr, gg, bb) - min(rr, gg, bb) > 60: coloured += 1
        for k, (wr, wg, wb) in enumerate(wanted):
            if abs(rr - wr) <= 6 and abs(gg - wg) <= 6 and abs(bb - wb) <= 6: hits[k] += 1
    prev = line
print(coloured, *hits)
"#;
    let out = Command::new("python3").args(["-c", script]).arg(png).arg(wanted.join(",")).output();
    match out {
        Ok(o) if o.status.success() => {
            let numbers: Vec<usize> =
                String::from_utf8_lossy(&o.stdout).split_whitespace().map(|n| n.parse().unwrap()).collect();
            Some((numbers[0], numbers[1..].to_vec()))
        }
        _ => {
            super::tool_missing("the pixel count: python3 is not installed");
            None
        }
    }
}
