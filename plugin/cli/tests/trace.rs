//! `f3d trace record` and `f3d trace replay` as a user runs them: the built binary records the
//! showcase on soft, replays it with `--compare`, and refuses damaged files with the offset.

use std::path::PathBuf;
use std::process::{Command, Output};

fn f3d(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_f3d")).args(args).output().expect("f3d runs")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn record_replay_compare_and_damaged_files() {
    let dir = std::env::temp_dir().join(format!("f3d_cli_trace_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let trace = dir.join("frame.f3dtrace");
    let trace_arg = trace.to_str().expect("a UTF-8 path");

    let out = f3d(&["trace", "record", "--backend", "soft", "--size", "96x54", "--out", trace_arg]);
    assert!(out.status.success(), "record failed: {}", text(&out));
    assert!(text(&out).contains("recorded "), "{}", text(&out));
    assert!(trace.with_extension("png").exists(), "the recorded frame's PNG was not written");

    let replays = dir.join("replay");
    let out = f3d(&[
        "trace",
        "replay",
        trace_arg,
        "--backend",
        "soft",
        "--compare",
        "--out",
        replays.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "replay failed: {}", text(&out));
    assert!(
        text(&out).contains("matches the recording on soft: 0 pixels past 2, largest difference 0"),
        "{}",
        text(&out)
    );
    let pngs: Vec<PathBuf> = std::fs::read_dir(&replays).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(pngs.iter().any(|p| p.to_string_lossy().ends_with(".recorded.png")), "{pngs:?}");

    let out = f3d(&["trace", "info", trace_arg]);
    assert!(out.status.success(), "info failed: {}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("recorded on soft") && said.contains("draws)") && said.contains("pixels recorded"),
        "{said}"
    );

    let bytes = std::fs::read(&trace).unwrap();
    let cut = dir.join("cut.f3dtrace");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = f3d(&["trace", "replay", cut.to_str().unwrap(), "--backend", "soft"]);
    assert!(!out.status.success(), "a truncated trace replayed");
    let said = text(&out);
    assert!(said.contains("cut.f3dtrace: offset ") && said.contains("needs"), "{said}");

    let missing = dir.join("missing.f3dtrace");
    let out = f3d(&["trace", "replay", missing.to_str().unwrap(), "--backend", "soft"]);
    assert!(!out.status.success());
    assert!(text(&out).contains("missing.f3dtrace"), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}
