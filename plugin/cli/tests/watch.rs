//! `f3d watch` as a user runs it: the built binary on a material in a temporary folder,
//! edited while it runs. Every wait is bounded: stdout is read on a thread and each line is
//! awaited with a timeout.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// Generous for a loaded 2-core machine: the first line includes opening the device and
/// computing the sky's lighting.
const TIMEOUT: Duration = Duration::from_secs(60);

fn material(color: &str) -> String {
    format!(
        r#"Material(
    name: "Probe",
    shading_model: Lit,
    parameters: [
        (name: "tint", type: Vec4, default: {color}),
    ],
    fragment: "fn surface(m: ptr<function, MaterialInputs>) {{ (*m).base_color = material_params.tint; }}",
)
"#
    )
}

/// Not even RON: the parser stops on line 3.
const BROKEN: &str = "Material(\n    name: \"Probe\",\n    shading_model: ??,\n)\n";

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("f3d_cli_watch_{name}_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        // The store reports absolute paths with links resolved.
        Self(dir.canonicalize().expect("the folder exists"))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The running command; killed if the test fails before it exits.
struct Watch {
    child: Child,
    lines: Receiver<String>,
}

impl Watch {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_f3d"))
            .arg("watch")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("f3d starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Self { child, lines }
    }

    fn line(&self) -> String {
        match self.lines.recv_timeout(TIMEOUT) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!("no line from f3d watch within {TIMEOUT:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("f3d watch closed its output early"),
        }
    }

    fn wait_exit(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for f3d") {
                return status;
            }
            assert!(Instant::now() < deadline, "f3d watch did not exit within {TIMEOUT:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `reloaded Probe in N ms`, with N a number.
fn assert_reloaded(line: &str) {
    let ms = line
        .strip_prefix("reloaded Probe in ")
        .and_then(|rest| rest.strip_suffix(" ms"))
        .unwrap_or_else(|| panic!("not a reload line: {line:?}"));
    assert!(ms.parse::<u64>().is_ok(), "not a number of milliseconds in {line:?}");
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn reloads_and_reports_errors_then_exits_after_the_events() {
    let dir = TempDir::new("round_trip");
    let ron = dir.0.join("probe.ron");
    let png = dir.0.join("preview.png");
    std::fs::write(&ron, material("[0.9, 0.1, 0.1, 1.0]")).unwrap();
    let mut watch = Watch::start(&[
        ron.to_str().unwrap(),
        "--events",
        "3",
        "--backend",
        "soft",
        "--size",
        "64x64",
        "--out",
        png.to_str().unwrap(),
    ]);

    // 1. The first load, and its picture.
    assert_reloaded(&watch.line());
    let first = read(&png);
    assert!(first.starts_with(b"\x89PNG"), "the preview is not a PNG");

    // 2. A changed default: a reload, and a different picture.
    std::fs::write(&ron, material("[0.1, 0.2, 0.9, 1.0]")).unwrap();
    assert_reloaded(&watch.line());
    let second = read(&png);
    assert_ne!(first, second, "the preview did not change with the material");

    // 3. A broken file: the error with its location, the picture kept.
    std::fs::write(&ron, BROKEN).unwrap();
    let line = watch.line();
    let location = line
        .strip_prefix(&format!("error: {}:", ron.display()))
        .unwrap_or_else(|| panic!("not an error line for {}: {line:?}", ron.display()));
    let mut parts = location.splitn(3, ':');
    let (l, c) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    assert_eq!(l, "3", "the line of the error in {line:?}");
    assert!(c.parse::<u32>().is_ok_and(|c| c > 0), "a column in {line:?}");
    assert!(parts.next().is_some_and(|m| !m.trim().is_empty()), "a message in {line:?}");
    assert_eq!(read(&png), second, "a failed load must not change the picture");

    let status = watch.wait_exit();
    assert!(status.success(), "f3d watch exited with {status}");
}

#[test]
fn a_material_that_fails_its_first_load_is_watched_until_it_loads() {
    let dir = TempDir::new("fails_first");
    let ron = dir.0.join("probe.ron");
    let png = dir.0.join("preview.png");
    std::fs::write(&ron, BROKEN).unwrap();
    let mut watch = Watch::start(&[
        ron.to_str().unwrap(),
        "--events",
        "2",
        "--backend",
        "soft",
        "--size",
        "32x32",
        "--out",
        png.to_str().unwrap(),
    ]);
    let line = watch.line();
    assert!(line.starts_with(&format!("error: {}:3:", ron.display())), "{line:?}");
    assert!(!png.exists(), "no picture before the material loads");
    std::fs::write(&ron, material("[0.2, 0.8, 0.2, 1.0]")).unwrap();
    assert_reloaded(&watch.line());
    assert!(read(&png).starts_with(b"\x89PNG"));
    assert!(watch.wait_exit().success());
}

/// Runs `f3d watch` with `args` and returns (exit code, stderr); it must end by itself.
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_f3d")).arg("watch").args(args).output().expect("f3d runs");
    assert!(out.stdout.is_empty(), "a refused watch prints no events");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn bad_arguments_are_named_and_refused() {
    let dir = TempDir::new("bad_args");
    let ron = dir.0.join("probe.ron");
    std::fs::write(&ron, material("[1.0, 1.0, 1.0, 1.0]")).unwrap();
    let missing = dir.0.join("missing.ron");

    let (code, err) = refused(&[missing.to_str().unwrap(), "--backend", "soft"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("missing.ron") && err.contains("no such"), "{err}");

    let (code, err) = refused(&[ron.to_str().unwrap(), "--size", "64by0"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--size 64by0"), "{err}");

    let (code, err) = refused(&[ron.to_str().unwrap(), "--size", "0x64"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--size 0x64"), "{err}");

    let (code, err) = refused(&[ron.to_str().unwrap(), "--backend", "metal9"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("metal9"), "{err}");

    let (code, err) = refused(&[ron.to_str().unwrap(), "--events", "0"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--events"), "{err}");

    assert!(!err.contains("panicked"), "{err}");
}
