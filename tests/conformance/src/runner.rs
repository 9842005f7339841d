//! Running checks: against a factory, for `cargo test` (a libtest-compatible harness) and
//! for the CLI (a table).
//!
//! libtest itself cannot report a test as skipped from inside the test, and a declined check
//! must never look like a pass, so this is a small harness of its own that speaks libtest's
//! command line and list format (so `cargo test`, its filters and `cargo nextest` work) and
//! prints `declined` with the backend's sentence.

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use f3d_hal::{BackendId, GraphicsDevice, OpenError};

use crate::declines::AllowedDecline;
use crate::{Check, CheckFn, Factory, Tier, Verdict, all_checks};

/// How a check ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It passed.
    Passed,
    /// The device broke the contract.
    Failed(String),
    /// The check could not be asked; the sentence starts with the backend's name.
    Declined(String),
}

/// One check's result.
#[derive(Clone, Debug)]
pub struct CheckReport {
    /// `tier::name`.
    pub name: String,
    /// The tier.
    pub tier: Tier,
    /// How it ended.
    pub outcome: Outcome,
    /// How long it took, device creation included.
    pub duration: Duration,
}

/// The results of a run.
#[derive(Clone, Debug)]
pub struct SuiteReport {
    /// The backend run.
    pub backend: BackendId,
    /// Each check, in suite order.
    pub checks: Vec<CheckReport>,
}

impl SuiteReport {
    fn count(&self, f: impl Fn(&Outcome) -> bool) -> usize {
        self.checks.iter().filter(|c| f(&c.outcome)).count()
    }

    /// Checks that passed.
    pub fn passed(&self) -> usize {
        self.count(|o| *o == Outcome::Passed)
    }

    /// Checks that failed.
    pub fn failed(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Failed(_)))
    }

    /// Checks that declined.
    pub fn declined(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Declined(_)))
    }

    /// The last line of every run: `conformance <backend>: N passed, N failed, N declined`.
    pub fn summary_line(&self) -> String {
        format!(
            "conformance {}: {} passed, {} failed, {} declined",
            self.backend,
            self.passed(),
            self.failed(),
            self.declined()
        )
    }

    /// A table of every check, one line each, then the summary line.
    pub fn table(&self) -> String {
        let width = self.checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
        let mut out = String::new();
        for c in &self.checks {
            let (status, detail) = match &c.outcome {
                Outcome::Passed => ("passed", String::new()),
                Outcome::Failed(why) => ("FAILED", why.clone()),
                Outcome::Declined(why) => ("declined", why.clone()),
            };
            out.push_str(&format!(
                "{:<width$}  {:<8}  {:>6.1} ms  {}\n",
                c.name,
                status,
                c.duration.as_secs_f64() * 1e3,
                detail
            ));
        }
        out.push_str(&self.summary_line());
        out.push('\n');
        out
    }
}

/// Whether `F3D_REQUIRE_BACKENDS` (comma-separated) names `backend`.
pub fn backend_required(backend: &BackendId) -> bool {
    std::env::var("F3D_REQUIRE_BACKENDS")
        .map(|list| list.split(',').any(|b| b.trim().eq_ignore_ascii_case(backend.as_str())))
        .unwrap_or(false)
}

/// Gives Mesa a private runtime directory when the environment has none (it prints harmless
/// errors otherwise). Test binaries that open GPU devices call it first, before they start
/// threads of their own.
pub fn quiet_mesa() {
    use std::os::unix::fs::PermissionsExt;
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("f3d-test-xdg-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_ok()
        && std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).is_ok()
    {
        // SAFETY: called before the test starts threads of its own; libtest's threads do not
        // read the environment.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
    }
}

/// Runs one check with a fresh device from `factory`, dropped after it.
pub fn run_check(check: &Check, backend: &BackendId, factory: &Factory) -> Outcome {
    run_check_allowing(check, backend, &[], factory)
}

/// [`run_check`] for a backend that brings its own reviewed declines (`own`, beside what
/// [`allowed_declines`](crate::declines::allowed_declines) lists for it): a backend written
/// outside this repository lists the checks it may decline, each with why, in its own test.
pub fn run_check_allowing(
    check: &Check,
    backend: &BackendId,
    own: &[AllowedDecline],
    factory: &Factory,
) -> Outcome {
    let device: Arc<dyn GraphicsDevice> = match factory() {
        Ok(device) => device,
        Err(e) => {
            let reason = match e {
                OpenError::DeviceUnavailable { reason, .. } => reason,
                other => other.to_string(),
            };
            return if backend_required(backend) {
                Outcome::Failed(format!(
                    "the {backend} device did not open ({reason}) and F3D_REQUIRE_BACKENDS requires it"
                ))
            } else {
                Outcome::Declined(format!("{backend}: the device did not open: {reason}"))
            };
        }
    };
    let result = catch_unwind(AssertUnwindSafe(|| match check.run {
        CheckFn::Device(f) => f(device.as_ref()),
        CheckFn::Owned(f) => f(device, factory),
    }));
    match result {
        Ok(Ok(())) => Outcome::Passed,
        Ok(Err(Verdict::Failed(why))) => Outcome::Failed(why),
        Ok(Err(Verdict::Declined(why))) => {
            let name = check.full_name();
            if !why.starts_with(backend.as_str()) {
                Outcome::Failed(format!("declined without naming the backend first: {why}"))
            } else if !crate::declines::decline_allowed(backend, &name, &why)
                && !own.iter().any(|a| a.covers(&name, &why))
            {
                Outcome::Failed(format!(
                    "declined, and {name} is not among the {backend} backend's reviewed declines                      (f3d_conformance::declines): {why}"
                ))
            } else {
                Outcome::Declined(why)
            }
        }
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "a panic".into());
            Outcome::Failed(format!("panicked: {msg}"))
        }
    }
}

/// Runs `checks` on up to `threads` threads, keeping suite order in the report.
fn run_many(
    checks: &[Check],
    backend: &BackendId,
    own: &[AllowedDecline],
    factory: &Factory,
    threads: usize,
    mut on_done: impl FnMut(&CheckReport) + Send,
) -> Vec<CheckReport> {
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, CheckReport)>();
    let mut reports: Vec<Option<CheckReport>> = vec![None; checks.len()];
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1).min(checks.len().max(1)) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(check) = checks.get(i) else { break };
                    let start = Instant::now();
                    let outcome = run_check_allowing(check, backend, own, factory);
                    let report = CheckReport {
                        name: check.full_name(),
                        tier: check.tier,
                        outcome,
                        duration: start.elapsed(),
                    };
                    if tx.send((i, report)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (i, report) in rx {
            on_done(&report);
            reports[i] = Some(report);
        }
    });
    reports.into_iter().flatten().collect()
}

fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs every check (of `tier`, when given) against `factory`, for the CLI: checks run on
/// every core at once, each with its own device.
pub fn run_suite(backend: BackendId, factory: &Factory, tier: Option<Tier>) -> SuiteReport {
    suite(backend, factory, tier, all_cores())
}

/// [`run_suite`] one check after another, so at most one device from `factory` is alive at
/// a time: for factories whose devices must not be created or destroyed while another is
/// in use (see [`run_libtest_main_serial`]).
pub fn run_suite_serial(backend: BackendId, factory: &Factory, tier: Option<Tier>) -> SuiteReport {
    suite(backend, factory, tier, 1)
}

/// [`run_suite`] on at most `jobs` threads (at least one), so at most `jobs` devices from
/// `factory` are alive at a time (`f3d conformance --jobs N`).
pub fn run_suite_with_jobs(
    backend: BackendId,
    factory: &Factory,
    tier: Option<Tier>,
    jobs: usize,
) -> SuiteReport {
    suite(backend, factory, tier, jobs.max(1))
}

fn suite(backend: BackendId, factory: &Factory, tier: Option<Tier>, threads: usize) -> SuiteReport {
    let checks: Vec<Check> = all_checks().into_iter().filter(|c| tier.is_none_or(|t| c.tier == t)).collect();
    let checks = run_many(&checks, &backend, &[], factory, threads, |_| {});
    SuiteReport { backend, checks }
}

struct Args {
    filters: Vec<String>,
    skips: Vec<String>,
    exact: bool,
    list: bool,
    ignored: bool,
    threads: Option<usize>,
}

fn parse_args(args: impl Iterator<Item = String>) -> Args {
    let mut a = Args {
        filters: Vec::new(),
        skips: Vec::new(),
        exact: false,
        list: false,
        ignored: false,
        threads: None,
    };
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--exact" => a.exact = true,
            "--list" => a.list = true,
            "--ignored" => a.ignored = true,
            "--skip" => a.skips.extend(args.next()),
            "--test-threads" => a.threads = args.next().and_then(|n| n.parse().ok()),
            // Accepted and meaningless here: output is always shown, and formats other than
            // the default are not produced.
            "--nocapture" | "--include-ignored" | "--quiet" | "-q" | "--show-output" => {}
            "--format" | "--color" | "-Z" | "--logfile" => {
                args.next();
            }
            s if s.starts_with("--test-threads=") => a.threads = s["--test-threads=".len()..].parse().ok(),
            s if s.starts_with("--") => {}
            s => a.filters.push(s.to_owned()),
        }
    }
    a
}

/// The `main` of a backend's conformance test (`harness = false`): one test per check, named
/// `<tier>::<check>`, speaking libtest's command line. Prints each outcome, then
/// `conformance <backend>: N passed, N failed, N declined` as the last line, and exits with
/// 101 if any check failed.
pub fn run_libtest_main(
    backend: BackendId,
    factory: impl Fn() -> Result<Arc<dyn GraphicsDevice>, OpenError> + Send + Sync + 'static,
) -> ! {
    libtest_main(backend, &factory, None, None, &[])
}

/// [`run_libtest_main`] over only the checks of `tiers`, with the backend's own reviewed
/// declines (`own`: each check it may decline, when, and why). A backend written outside
/// this repository that runs no shaders yet (the `f3d create backend` template) runs every
/// tier but [`Tier::Shader`], with an empty list; one that draws adds the shader tier and
/// lists what it cannot do, where a reviewer sees it.
pub fn run_libtest_main_tiers(
    backend: BackendId,
    tiers: &[Tier],
    own: &[AllowedDecline],
    factory: impl Fn() -> Result<Arc<dyn GraphicsDevice>, OpenError> + Send + Sync + 'static,
) -> ! {
    libtest_main(backend, &factory, None, Some(tiers), own)
}

/// [`run_libtest_main`] with the checks run one after another (`--test-threads` is ignored),
/// so at most one device from `factory` is alive at a time. For devices that load something
/// unsafe to share between threads: the Khronos validation layer Debian 12 ships (1.3.239)
/// keeps per-device state in an unsynchronised map, and creating or destroying a device
/// while another is in use on another thread crashes it (measured: 1 run in 25–50 of the
/// vulkan suite on 16 threads).
pub fn run_libtest_main_serial(
    backend: BackendId,
    factory: impl Fn() -> Result<Arc<dyn GraphicsDevice>, OpenError> + Send + Sync + 'static,
) -> ! {
    libtest_main(backend, &factory, Some(1), None, &[])
}

fn libtest_main(
    backend: BackendId,
    factory: &Factory,
    force_threads: Option<usize>,
    tiers: Option<&[Tier]>,
    own: &[AllowedDecline],
) -> ! {
    let args = parse_args(std::env::args().skip(1));
    let selected: Vec<Check> = all_checks()
        .into_iter()
        .filter(|c| {
            let name = c.full_name();
            let matches = |f: &String| if args.exact { &name == f } else { name.contains(f.as_str()) };
            tiers.is_none_or(|t| t.contains(&c.tier))
                && (args.filters.is_empty() || args.filters.iter().any(matches))
                && !args.skips.iter().any(|s| name.contains(s.as_str()))
        })
        .collect();
    let mut out = std::io::stdout().lock();
    if args.list {
        if !args.ignored {
            for c in &selected {
                let _ = writeln!(out, "{}: test", c.full_name());
            }
        }
        std::process::exit(0);
    }
    if args.ignored {
        let _ = writeln!(out, "\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored\n");
        std::process::exit(0);
    }
    let _ = writeln!(out, "\nrunning {} tests", selected.len());
    drop(out);
    let threads = force_threads.or(args.threads).unwrap_or_else(all_cores);
    let start = Instant::now();
    let checks = run_many(&selected, &backend, own, factory, threads, |r| {
        let line = match &r.outcome {
            Outcome::Passed => "ok".to_owned(),
            Outcome::Failed(_) => "FAILED".to_owned(),
            Outcome::Declined(why) => format!("declined: {why}"),
        };
        println!("test {} ... {line}", r.name);
    });
    let report = SuiteReport { backend, checks };
    let failures: Vec<_> = report
        .checks
        .iter()
        .filter_map(|c| match &c.outcome {
            Outcome::Failed(why) => Some((c.name.clone(), why.clone())),
            _ => None,
        })
        .collect();
    if !failures.is_empty() {
        println!("\nfailures:");
        for (name, why) in &failures {
            println!("    {name}: {why}");
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed; {} declined; finished in {:.2}s\n",
        if failures.is_empty() { "ok" } else { "FAILED" },
        report.passed(),
        report.failed(),
        report.declined(),
        start.elapsed().as_secs_f64()
    );
    println!("{}", report.summary_line());
    std::process::exit(if failures.is_empty() { 0 } else { 101 })
}

/// `factory`'s devices wrapped in the validation layer ([`f3d_hal::ValidatingDevice`]): a
/// backend's `conformance_validated` test runs the suite through it, and every check must
/// answer as without it — the layer refuses what the contract refuses, in its terms, and
/// nothing else.
pub fn through_validation(
    factory: impl Fn() -> Result<Arc<dyn GraphicsDevice>, OpenError> + Send + Sync + 'static,
) -> impl Fn() -> Result<Arc<dyn GraphicsDevice>, OpenError> + Send + Sync + 'static {
    move || factory().map(|d| Arc::new(f3d_hal::ValidatingDevice::new(d)) as Arc<dyn GraphicsDevice>)
}
