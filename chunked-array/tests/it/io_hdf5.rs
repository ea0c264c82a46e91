//! HDF5 (feature `hdf5`): round trips, datasets written by libhdf5 directly
//! (contiguous, chunked, compressed), write modes and bad input.
#![cfg(feature = "hdf5")]

use crate::support;

use chunked_array::io::WriteMode;
use chunked_array::io::hdf5::{Hdf5ReadOptions, Hdf5WriteOptions, from_hdf5, from_hdf5_with};
use chunked_array::{Array, Error};
use ndarray::{ArrayD, IxDyn};
use support::TempDir;

fn values(shape: &[usize], chunks: Vec<Vec<usize>>) -> Array<f64> {
    Array::<f64>::from_fn(shape, chunks, |i| i.iter().fold(0.0, |acc, &x| acc * 31.0 + x as f64) * -0.37 + 0.125)
        .unwrap()
}

#[test]
fn round_trips_with_any_chunking() {
    let dir = TempDir::new("h5-rt");
    let file = dir.path().join("a.h5");
    let cases: Vec<(Vec<usize>, Vec<Vec<usize>>)> = vec![
        (vec![10, 7], vec![vec![4, 4, 2], vec![3, 3, 1]]),
        (vec![9, 5], vec![vec![2, 5, 2], vec![5]]),
        (vec![6], vec![vec![6]]),
        (vec![3, 4, 5], vec![vec![1, 2], vec![4], vec![2, 3]]),
        (vec![0, 3], vec![vec![0], vec![3]]),
    ];
    for (k, (shape, chunks)) in cases.into_iter().enumerate() {
        let x = values(&shape, chunks);
        let name = format!("g/x{k}");
        x.to_hdf5(&file, &name, &Hdf5WriteOptions { deflate: (k % 2 == 0).then_some(4), ..Default::default() })
            .unwrap();
        let want = x.compute().unwrap();
        assert_eq!(from_hdf5::<f64>(&file, &name).unwrap().compute().unwrap(), want, "{name}");
        let y = from_hdf5_with::<f64>(&file, &name, &Hdf5ReadOptions { chunks: Some(2.into()), ..Default::default() })
            .unwrap();
        assert_eq!(y.compute().unwrap(), want, "{name} in blocks of 2");
    }
}

#[test]
fn stored_chunks_are_the_blocks() {
    let dir = TempDir::new("h5-chunks");
    let file = dir.path().join("a.h5");
    values(&[10, 7], vec![vec![4, 4, 2], vec![3, 3, 1]]).to_hdf5(&file, "x", &Hdf5WriteOptions::default()).unwrap();
    let chunk_of = |name: &str| hdf5::File::open(&file).unwrap().dataset(name).unwrap().chunk();
    assert_eq!(chunk_of("x"), Some(vec![4, 3]));
    let opts = Hdf5WriteOptions { chunks: Some(vec![5, 7]), deflate: Some(1), ..Default::default() };
    values(&[10, 7], vec![vec![10], vec![7]]).to_hdf5(&file, "y", &opts).unwrap();
    assert_eq!(chunk_of("y"), Some(vec![5, 7]));
    // Reading one dataset and storing to another of the same file, in one pipeline.
    let x = from_hdf5::<f64>(&file, "x").unwrap();
    (&x + 1.0).to_hdf5(&file, "x_plus_1", &Hdf5WriteOptions::default()).unwrap();
    assert_eq!(from_hdf5::<f64>(&file, "x_plus_1").unwrap().compute().unwrap(), (&x + 1.0).compute().unwrap());
}

#[test]
fn reads_datasets_libhdf5_wrote() {
    let dir = TempDir::new("h5-lib");
    let file = dir.path().join("lib.h5");
    let want = ArrayD::from_shape_fn(IxDyn(&[50, 30]), |i| (i[0] * 30 + i[1]) as i64 - 700);
    {
        let f = hdf5::File::create(&file).unwrap();
        f.new_dataset_builder().with_data(&want).create("contiguous").unwrap();
        f.new_dataset_builder().chunk([7, 30]).deflate(6).with_data(&want).create("chunked").unwrap();
    }
    let c = from_hdf5::<i64>(&file, "contiguous").unwrap();
    assert_eq!(c.compute().unwrap(), want);
    let k = from_hdf5::<i64>(&file, "chunked").unwrap();
    assert!(k.chunks().lengths()[0][0].is_multiple_of(7) || k.chunks().lengths()[0][0] == 50, "{:?}", k.chunks());
    assert_eq!(k.compute().unwrap(), want);
    let part = from_hdf5_with::<i64>(
        &file,
        "chunked",
        &Hdf5ReadOptions { chunks: Some([8, 16].into()), ..Default::default() },
    )
    .unwrap()
    .slice([(3..20).into(), (5..29).into()])
    .unwrap();
    assert_eq!(part.compute().unwrap(), want.slice(ndarray::s![3..20, 5..29]).into_dyn());
}

#[test]
fn write_modes_and_failures() {
    let dir = TempDir::new("h5-modes");
    let file = dir.path().join("m.h5");
    let a = values(&[8, 4], vec![vec![4, 4], vec![4]]);
    a.to_hdf5(&file, "d", &Hdf5WriteOptions::default()).unwrap();
    let err = a.to_hdf5(&file, "d", &Hdf5WriteOptions::default()).unwrap_err();
    assert!(
        matches!(&err, Error::Io { path, message } if path.ends_with("m.h5:d") && message.contains("already exists")),
        "{err}"
    );
    // A store that fails halfway leaves the old dataset as it was and no new one.
    let failing = (&a * 3.0)
        .map_blocks(
            |b, info| {
                assert!(info.index[0] != 1, "injected failure");
                b.to_owned()
            },
            None,
        )
        .unwrap();
    let overwrite = Hdf5WriteOptions { mode: WriteMode::Overwrite, ..Default::default() };
    let err = failing.to_hdf5(&file, "d", &overwrite).unwrap_err();
    assert!(err.to_string().contains("injected failure"), "{err}");
    assert_eq!(from_hdf5::<f64>(&file, "d").unwrap().compute().unwrap(), a.compute().unwrap());
    let names = hdf5::File::open(&file).unwrap().member_names().unwrap();
    assert_eq!(names, vec!["d".to_string()], "no temporary dataset left");
    (&a * 3.0).to_hdf5(&file, "d", &overwrite).unwrap();
    assert_eq!(from_hdf5::<f64>(&file, "d").unwrap().compute().unwrap(), (&a * 3.0).compute().unwrap());
    // Other datasets of the file are untouched by writes.
    a.to_hdf5(&file, "e", &Hdf5WriteOptions::default()).unwrap();
    assert_eq!(from_hdf5::<f64>(&file, "d").unwrap().compute().unwrap(), (&a * 3.0).compute().unwrap());
    let resume = Hdf5WriteOptions { mode: WriteMode::Resume, ..Default::default() };
    assert!(matches!(a.to_hdf5(&file, "d", &resume), Err(Error::InvalidArgument { .. })));
    let bad = Hdf5WriteOptions { deflate: Some(12), ..Default::default() };
    assert!(matches!(a.to_hdf5(&file, "f", &bad), Err(Error::InvalidArgument { name, .. }) if name == "deflate"));
}

#[test]
fn bad_input_is_an_error() {
    let dir = TempDir::new("h5-bad");
    let file = dir.path().join("b.h5");
    assert!(matches!(from_hdf5::<f64>(&file, "x"), Err(Error::Io { path, .. }) if path.ends_with("b.h5")));
    values(&[3], vec![vec![3]]).to_hdf5(&file, "x", &Hdf5WriteOptions::default()).unwrap();
    let err = from_hdf5::<f64>(&file, "nope").unwrap_err();
    assert!(matches!(&err, Error::Io { path, .. } if path.ends_with("b.h5:nope")), "{err}");
    let err = from_hdf5::<i32>(&file, "x").unwrap_err();
    assert!(matches!(&err, Error::DtypeMismatch { expected, .. } if expected == "int32"), "{err}");
    let junk = dir.path().join("junk.h5");
    std::fs::write(&junk, b"definitely not hdf5").unwrap();
    assert!(matches!(from_hdf5::<f64>(&junk, "x"), Err(Error::Io { path, .. }) if path.ends_with("junk.h5")));
}

#[test]
fn a_corrupt_chunk_fails_its_block_only() {
    let dir = TempDir::new("h5-corrupt");
    let file = dir.path().join("c.h5");
    let x = values(&[8, 6], vec![vec![4, 4], vec![6]]);
    x.to_hdf5(&file, "x", &Hdf5WriteOptions { deflate: Some(4), ..Default::default() }).unwrap();
    // Where libhdf5 put the second stored chunk (rows 4..8), overwritten with junk.
    let (addr, size) = {
        let f = hdf5::File::open(&file).unwrap();
        let info = f.dataset("x").unwrap().chunk_info(1).unwrap();
        assert_eq!(info.offset, vec![4, 0]);
        (info.addr, info.size)
    };
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[addr as usize..(addr + size) as usize].fill(0xA5);
    std::fs::write(&file, bytes).unwrap();
    assert!(from_hdf5::<f64>(&file, "x").unwrap().compute().is_err());
    let y = from_hdf5_with::<f64>(&file, "x", &Hdf5ReadOptions { chunks: Some([4, 6].into()), ..Default::default() })
        .unwrap();
    let err = y.compute().unwrap_err();
    assert!(
        matches!(&err, Error::Io { path, message } if path.ends_with("c.h5:x") && message.contains("block at [4, 0]")),
        "{err}"
    );
    // The intact chunk still reads.
    let rows = [chunked_array::Idx::range(0, 4)];
    assert_eq!(y.slice(rows).unwrap().compute().unwrap(), x.slice(rows).unwrap().compute().unwrap());
}

/// The descriptors libhdf5 holds for a store's file are close-on-exec: a child
/// process started while the file is open (anywhere in the program) inherits
/// neither the descriptor nor the file's lock, which would make every later
/// open of the file fail until the child exits.
#[test]
fn a_stores_file_descriptors_are_close_on_exec() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let dir = TempDir::new("h5-cloexec");
    let file = dir.path().join("c.h5");
    let a = values(&[8, 4], vec![vec![4, 4], vec![4]]);
    let (seen, leaked) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (target, s, l) = (file.clone(), seen.clone(), leaked.clone());
    let checking = a
        .map_blocks(
            move |b, _| {
                for entry in std::fs::read_dir("/proc/self/fd").unwrap().flatten() {
                    if std::fs::read_link(entry.path()).is_ok_and(|p| p == target) {
                        let fd: i32 = entry.file_name().to_string_lossy().parse().unwrap();
                        // SAFETY: F_GETFD only reads the descriptor's flags.
                        let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
                        s.fetch_add(1, Ordering::Relaxed);
                        if flags >= 0 && flags & libc::FD_CLOEXEC == 0 {
                            l.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                b.to_owned()
            },
            None,
        )
        .unwrap();
    checking.to_hdf5(&file, "d", &Hdf5WriteOptions::default()).unwrap();
    assert!(seen.load(Ordering::Relaxed) > 0, "the store's file was open while its blocks ran");
    assert_eq!(leaked.load(Ordering::Relaxed), 0, "descriptors a child process would inherit");
    assert_eq!(from_hdf5::<f64>(&file, "d").unwrap().compute().unwrap(), a.compute().unwrap());
}

/// A child process that inherits libhdf5's descriptor of a file (started in
/// the moment between libhdf5's `open` and the close-on-exec mark, simulated
/// here by clearing the mark) holds no lock of the file: the next store to it
/// succeeds while the child still runs. libhdf5 opens a file it writes
/// read-write; the lock's own descriptors are read-only.
#[test]
fn an_inherited_descriptor_does_not_lock_the_file_out() {
    use chunked_array::io::Store;
    let dir = TempDir::new("h5-inherited");
    let file = dir.path().join("i.h5");
    let a = values(&[6, 4], vec![vec![3, 3], vec![4]]);
    let options = Hdf5WriteOptions::default();
    let mut store = Store::new();
    store.hdf5(&a, &file, "first", &options).unwrap();
    let mut inheritable = 0;
    for entry in std::fs::read_dir("/proc/self/fd").unwrap().flatten() {
        if std::fs::read_link(entry.path()).is_ok_and(|p| p == file) {
            let fd: i32 = entry.file_name().to_string_lossy().parse().unwrap();
            // SAFETY: fcntl reads a descriptor's access mode and clears its
            // close-on-exec flag; it touches no memory.
            unsafe {
                if libc::fcntl(fd, libc::F_GETFL) & libc::O_ACCMODE == libc::O_RDWR {
                    libc::fcntl(fd, libc::F_SETFD, 0);
                    inheritable += 1;
                }
            }
        }
    }
    assert_eq!(inheritable, 1, "libhdf5's one read-write descriptor of the file");
    let mut child = std::process::Command::new("sleep").arg("60").spawn().unwrap();
    let stored = store.run();
    let again = a.to_hdf5(&file, "second", &options);
    child.kill().unwrap();
    child.wait().unwrap();
    stored.unwrap();
    again.unwrap();
    let want = a.compute().unwrap();
    for name in ["first", "second"] {
        assert_eq!(from_hdf5::<f64>(&file, name).unwrap().compute().unwrap(), want, "{name}");
    }
}

/// Another process's `flock` of the file (what libhdf5 and h5py take: shared
/// to read, exclusive to write) is respected: an exclusive lock refuses our
/// reads and writes, a shared one our writes only, each an error naming the
/// file; once it is released both work.
#[test]
fn another_process_lock_is_respected() {
    use std::io::BufRead;
    let dir = TempDir::new("h5-locked");
    let file = dir.path().join("l.h5");
    let a = values(&[4, 4], vec![vec![2, 2], vec![4]]);
    let options = Hdf5WriteOptions::default();
    a.to_hdf5(&file, "x", &options).unwrap();
    for (how, reads) in [("--exclusive", false), ("--shared", true)] {
        // --no-fork: the killed process is the one holding the lock.
        let mut holder = std::process::Command::new("flock")
            .args([how, "--no-fork"])
            .arg(&file)
            .args(["-c", "echo held; exec sleep 60"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(holder.stdout.take().unwrap()).read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "held");
        let read = from_hdf5::<f64>(&file, "x").and_then(|x| x.compute());
        let write = a.to_hdf5(&file, "y", &options);
        holder.kill().unwrap();
        holder.wait().unwrap();
        assert_eq!(read.is_ok(), reads, "{how}: {read:?}");
        let Err(Error::Io { path, message }) = write else { panic!("{how}: a write under another's lock: {write:?}") };
        assert!(path.contains("l.h5") && message.contains("locked"), "{how}: {path}: {message}");
    }
    a.to_hdf5(&file, "y", &options).unwrap();
    assert_eq!(from_hdf5::<f64>(&file, "y").unwrap().compute().unwrap(), a.compute().unwrap());
}

/// External links and external raw data point outside the file: refused
/// unless the reader allows them, then read as any dataset.
#[test]
fn external_links_and_external_data_are_refused_unless_allowed() {
    let dir = TempDir::new("h5-external");
    let (inner, outer) = (dir.path().join("inner.h5"), dir.path().join("outer.h5"));
    let x = values(&[4, 3], vec![vec![2, 2], vec![3]]);
    x.to_hdf5(&inner, "secret", &Hdf5WriteOptions::default()).unwrap();
    {
        let f = hdf5::File::create(&outer).unwrap();
        f.link_external(inner.to_str().unwrap(), "secret", "door").unwrap();
        let raw = dir.path().join("raw.bin");
        std::fs::write(&raw, [0u8; 32]).unwrap();
        let ds = f.new_dataset::<f64>().shape(4).external(raw.to_str().unwrap(), 0, 32).create("outside").unwrap();
        ds.write(&[1.0, 2.0, 3.0, 4.0]).unwrap();
    }
    let allow = Hdf5ReadOptions { allow_external: true, ..Default::default() };
    let err = from_hdf5::<f64>(&outer, "door").unwrap_err();
    assert!(err.to_string().contains("external link"), "{err}");
    assert_eq!(from_hdf5_with::<f64>(&outer, "door", &allow).unwrap().compute().unwrap(), x.compute().unwrap());
    let err = from_hdf5::<f64>(&outer, "outside").unwrap_err();
    assert!(err.to_string().contains("external files"), "{err}");
    let inside = from_hdf5_with::<f64>(&outer, "outside", &allow).unwrap().compute().unwrap();
    assert_eq!(inside.as_slice().unwrap(), &[1.0, 2.0, 3.0, 4.0]);
}
