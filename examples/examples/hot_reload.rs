//! Material hot reload: a material from a `.ron` file on a sphere, redrawn into
//! `hot_reload.png` each time the file (or a file it includes) is saved.
//!
//! ```text
//! cargo run -p f3d_examples --example hot_reload                  # examples/assets/materials/toon.ron
//! cargo run -p f3d_examples --example hot_reload -- path/to/material.ron --out shot.png
//! ```
//!
//! While it runs, edit the `.ron` (change `base_color`'s default, or break the WGSL) and save:
//! each save prints `reloaded Toon in N ms` and rewrites the picture, or prints the error with
//! its file, line and column while the last good version stays on screen. The app is
//! headless (the plugin has no window yet): open the PNG in a viewer that reloads files.
//!
//! `--events N` exits after N events (the first load is one) and `--seconds S` after S
//! seconds without one, so CI can run it without hanging:
//! `cargo run -p f3d_examples --example hot_reload -- --events 1`. `--backend soft|wgpu|...`
//! and `--size WxH` choose the device and the picture.
//!
//! `cargo test` runs this file's test too (the example is built with `test = true`): a
//! bounded run on a copy of the toon material, edited once.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use f3d::f3d_hal::BackendId;
use f3d::prelude::BackendChoice;
use f3d_examples::{Preview, PreviewEvent, PreviewSettings};

struct Args {
    material: PathBuf,
    out: PathBuf,
    events: Option<u64>,
    seconds: Option<u64>,
    backend: BackendChoice,
    size: (u32, u32),
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args {
        material: f3d_examples::assets_dir().join("materials").join("toon.ron"),
        out: PathBuf::from("hot_reload.png"),
        events: None,
        seconds: None,
        backend: BackendChoice::Auto,
        size: (640, 480),
    };
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let mut value = |flag: &str| it.next().ok_or_else(|| format!("{flag} needs a value"));
        match arg.as_str() {
            "--out" => parsed.out = PathBuf::from(value("--out")?),
            "--events" => {
                let v = value("--events")?;
                parsed.events = Some(v.parse().map_err(|_| format!("--events {v}: expected a count"))?);
            }
            "--seconds" => {
                let v = value("--seconds")?;
                parsed.seconds = Some(v.parse().map_err(|_| format!("--seconds {v}: expected a number"))?);
            }
            "--backend" => parsed.backend = BackendChoice::Named(BackendId::from_name(&value("--backend")?)),
            "--size" => {
                let v = value("--size")?;
                parsed.size =
                    f3d_examples::parse_size(&v).ok_or_else(|| format!("--size {v}: expected WxH"))?;
            }
            flag if flag.starts_with("--") => return Err(format!("unknown flag {flag}")),
            path => parsed.material = PathBuf::from(path),
        }
    }
    if !parsed.material.is_file() {
        return Err(format!("{}: no such material file", parsed.material.display()));
    }
    Ok(parsed)
}

/// Runs the preview, printing one line per event to `out`; returns the exit code.
fn run(args: Args, out: &mut dyn std::io::Write) -> ExitCode {
    let settings =
        PreviewSettings { size: args.size, backend: args.backend, ..PreviewSettings::new(&args.material) };
    let mut preview = match Preview::start(settings, Some(args.out.clone())) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!(
        "watching {} on {}; edit and save it to redraw {}",
        args.material.display(),
        preview.device(),
        args.out.display()
    );
    let mut seen = 0;
    let mut last = Instant::now();
    loop {
        if let Some(s) = args.seconds
            && last.elapsed() >= Duration::from_secs(s)
        {
            eprintln!("no event for {s} s; done");
            return ExitCode::SUCCESS;
        }
        let line = match preview.next_event(Duration::from_millis(500)) {
            Ok(None) => continue,
            Ok(Some(PreviewEvent::Reloaded { name, latency, .. })) => {
                format!("reloaded {name} in {} ms -> {}", latency.as_millis(), args.out.display())
            }
            Ok(Some(PreviewEvent::Failed { message })) => format!("error: {message}"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            return ExitCode::SUCCESS;
        }
        last = Instant::now();
        seen += 1;
        if args.events.is_some_and(|n| seen >= n) {
            return ExitCode::SUCCESS;
        }
    }
}

fn main() -> ExitCode {
    match parse_args(std::env::args().skip(1)) {
        Ok(args) => run(args, &mut std::io::stdout()),
        Err(e) => {
            eprintln!(
                "error: {e}\nusage: hot_reload [material.ron] [--out file.png] [--events N] [--seconds S] \
                 [--backend name] [--size WxH]"
            );
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Collects the printed lines and edits the material after the first one, as a user would.
    struct EditAfterFirstLine {
        text: String,
        material: PathBuf,
        edit: String,
    }

    impl std::io::Write for EditAfterFirstLine {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.text.push_str(&String::from_utf8_lossy(buf));
            if self.text.lines().count() == 1 && self.text.ends_with('\n') {
                std::fs::write(&self.material, &self.edit)?;
            }
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn runs_bounded_and_redraws_on_a_save() {
        let dir = std::env::temp_dir().join(format!("f3d_hot_reload_example_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let material = dir.join("toon.ron");
        let toon = std::fs::read_to_string(f3d_examples::assets_dir().join("materials/toon.ron")).unwrap();
        std::fs::write(&material, &toon).unwrap();
        let edit = toon.replace("[0.95, 0.55, 0.25, 1.0]", "[0.2, 0.4, 0.95, 1.0]");
        assert_ne!(edit, toon, "the toon material's base colour default moved; update the edit");
        let out = dir.join("hot_reload.png");
        let args = parse_args(
            [
                material.to_str().unwrap(),
                "--events",
                "2",
                "--seconds",
                "60",
                "--backend",
                "soft",
                "--size",
                "48x32",
            ]
            .into_iter()
            .chain(["--out", out.to_str().unwrap()])
            .map(String::from),
        )
        .expect("good arguments");
        let mut lines = EditAfterFirstLine { text: String::new(), material: material.clone(), edit };
        let code = run(args, &mut lines);
        let printed: Vec<&str> = lines.text.lines().collect();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(code, ExitCode::SUCCESS);
        assert_eq!(printed.len(), 2, "{printed:?}");
        assert!(printed.iter().all(|l| l.starts_with("reloaded Toon in ")), "{printed:?}");
    }

    #[test]
    fn bad_arguments_are_named() {
        let err = |args: &[&str]| parse_args(args.iter().map(|s| s.to_string())).err().unwrap_or_default();
        assert!(err(&["/no/such/material.ron"]).contains("/no/such/material.ron"));
        assert!(err(&["--size", "12"]).contains("--size 12"));
        assert!(err(&["--events", "many"]).contains("--events many"));
        assert!(err(&["--events"]).contains("needs a value"));
        assert!(err(&["--frobnicate"]).contains("--frobnicate"));
    }
}
