//! # f3d_conformance: the HAL contract, checked
//!
//! Every rule of `f3d_hal`'s contract that no signature shows is a check here, and every
//! backend runs every check through the same entry point ([`run_libtest_main`] for
//! `cargo test`, [`run_suite`] for `f3d conformance`).
//!
//! * A check is a plain function of a device ([`Check`]); checks are grouped in tiers
//!   ([`Tier::Core`], [`Tier::Capabilities`], [`Tier::Lifecycle`], [`Tier::Shader`]) listed by
//!   [`all_checks`], whose counts a test holds.
//! * A check that cannot be asked of a device **declines** with a sentence starting with the
//!   backend's name ([`decline`]). A decline is reported as skipped with that sentence and is
//!   **never a pass**.
//! * A check may decline only where the backend's reviewed list says so ([`declines`]);
//!   any other decline fails the run, so a backend that should run a check cannot stay green
//!   by declining it.
//! * The device factory is called fresh for every check and the device is dropped after it.
//!   A factory that cannot open (no adapter on this machine) declines every check — unless
//!   `F3D_REQUIRE_BACKENDS` (comma-separated, set by CI) names the backend: then it fails.
//! * Checks compare against arithmetic done in the check, never against the backend's own
//!   helpers alone, so a helper bug cannot cancel itself out.

mod capabilities;
mod contract;
mod core;
pub mod declines;
mod draw;
mod lifecycle;
mod runner;
mod shader;
mod support;
pub mod window;

use std::fmt;
use std::sync::Arc;

use f3d_hal::{DeviceError, GraphicsDevice, OpenError};

pub use runner::{
    CheckReport, Outcome, SuiteReport, backend_required, quiet_mesa, run_check, run_check_allowing,
    run_libtest_main, run_libtest_main_serial, run_libtest_main_tiers, run_suite, run_suite_serial,
    run_suite_with_jobs, through_validation,
};

/// A tier of checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tier {
    /// Clears, uploads, readback and their rules: what every device does.
    Core,
    /// One probe per [`DeviceFeature`](f3d_hal::DeviceFeature): reported works, unreported is
    /// refused by its own name.
    Capabilities,
    /// Handles, loss, frames, the registry.
    Lifecycle,
    /// Shaders, pipelines and draws.
    Shader,
}

impl Tier {
    /// Every tier, in order.
    pub const ALL: [Tier; 4] = [Tier::Core, Tier::Capabilities, Tier::Lifecycle, Tier::Shader];

    /// The tier's name as check names and the CLI spell it.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Core => "core",
            Tier::Capabilities => "capabilities",
            Tier::Lifecycle => "lifecycle",
            Tier::Shader => "shader",
        }
    }

    /// The tier called `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| t.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a check did not pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The device broke the contract; the sentence says how.
    Failed(String),
    /// The check cannot be asked of this device; the sentence starts with the backend's name.
    Declined(String),
}

impl From<DeviceError> for Verdict {
    fn from(e: DeviceError) -> Self {
        Verdict::Failed(format!("unexpected error: {e}"))
    }
}

/// What a check returns: `Ok(())` is a pass.
pub type CheckResult = Result<(), Verdict>;

/// Opens a fresh device of the backend under test.
pub type Factory = dyn Fn() -> Result<Arc<dyn GraphicsDevice>, OpenError> + Send + Sync;

/// How a check is run.
#[derive(Clone, Copy)]
pub enum CheckFn {
    /// Given a fresh device, borrowed.
    Device(fn(&dyn GraphicsDevice) -> CheckResult),
    /// Given a fresh device to own (and drop) and the factory, for checks of lifetime and of
    /// the registry.
    Owned(fn(Arc<dyn GraphicsDevice>, &Factory) -> CheckResult),
}

/// One check.
#[derive(Clone, Copy)]
pub struct Check {
    /// Its tier.
    pub tier: Tier,
    /// Its name, unique within the tier.
    pub name: &'static str,
    /// The check.
    pub run: CheckFn,
}

impl Check {
    /// `tier::name`, as tests list it.
    pub fn full_name(&self) -> String {
        format!("{}::{}", self.tier, self.name)
    }
}

impl fmt::Debug for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Check({})", self.full_name())
    }
}

/// Every check of every tier, in order.
pub fn all_checks() -> Vec<Check> {
    let mut all = Vec::new();
    all.extend(core::checks());
    all.extend(contract::checks());
    all.extend(capabilities::checks());
    all.extend(lifecycle::checks());
    all.extend(shader::checks());
    all
}

/// The checks of one tier.
pub fn tier_checks(tier: Tier) -> Vec<Check> {
    all_checks().into_iter().filter(|c| c.tier == tier).collect()
}

/// Declines: the check cannot be asked of `device`, for the reason `why`.
pub fn decline(device: &dyn GraphicsDevice, why: impl fmt::Display) -> CheckResult {
    Err(Verdict::Declined(format!("{}: {why}", device.backend_id())))
}

/// Fails with `why`.
pub fn fail(why: impl fmt::Display) -> CheckResult {
    Err(Verdict::Failed(why.to_string()))
}

/// Fails with the formatted message unless the condition holds.
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if $cond {
        } else {
            return Err($crate::Verdict::Failed(format!($($msg)+)));
        }
    };
}

/// Adds what was being done to a device error, turning it into a failure.
pub trait Context<T> {
    /// `Err(e)` becomes a failure saying `what` failed with `e`.
    fn ctx(self, what: &str) -> Result<T, Verdict>;
}

impl<T> Context<T> for Result<T, DeviceError> {
    fn ctx(self, what: &str) -> Result<T, Verdict> {
        self.map_err(|e| Verdict::Failed(format!("{what}: {e}")))
    }
}
