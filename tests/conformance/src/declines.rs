//! Each backend's reviewed declines: the only checks it may decline, and when.
//!
//! A decline is an honest "this cannot be asked here", never a pass; but a backend that
//! should run a check and declines it is as broken as one that fails it. So every backend has
//! an explicit list, reviewed like code, and any decline not on it fails the run
//! ([`run_check`](crate::run_check)). Today the list is empty for soft, wgpu and vulkan but for
//! one environmental case, and the null backend's is the shader tier (it refuses every
//! pipeline by design, DESIGN §4). A backend this crate does not know (written outside this
//! repository) starts with the environmental entries alone, and passes its own list to
//! [`run_libtest_main_tiers`](crate::run_libtest_main_tiers) (or
//! [`run_check_allowing`](crate::run_check_allowing)) from its own conformance test.
//!
//! A device that cannot be opened at all is another matter: its checks decline unless
//! `F3D_REQUIRE_BACKENDS` names the backend ([`backend_required`](crate::backend_required)).

use f3d_hal::BackendId;

/// One decline a backend may give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllowedDecline {
    /// The check's full name (`tier::name`), or a tier's prefix (`shader::`).
    pub check: &'static str,
    /// Words the decline's sentence must contain for the entry to apply (empty: any).
    pub when: &'static str,
    /// Why this decline is acceptable, for the reviewer.
    pub why: &'static str,
}

impl AllowedDecline {
    /// Whether this entry covers `check` declined with `sentence`.
    pub fn covers(&self, check: &str, sentence: &str) -> bool {
        let named =
            if self.check.ends_with("::") { check.starts_with(self.check) } else { check == self.check };
        named && sentence.contains(self.when)
    }
}

/// Entries every backend has: declines caused by the machine, not the device.
const ENVIRONMENT: &[AllowedDecline] = &[AllowedDecline {
    check: "capabilities::present",
    when: "no X server to present to",
    why: "presentation is judged by reading a real X window back; a machine with no X server \
          (no DISPLAY, no Xvfb) cannot show one. CI runs the suite under xvfb-run.",
}];

/// The null backend's own entries.
const NULL: &[AllowedDecline] = &[
    AllowedDecline {
        check: "shader::",
        when: "",
        why: "the null backend refuses every pipeline by design (DESIGN §4): it is the template \
              backend and draws nothing",
    },
    AllowedDecline {
        check: "capabilities::instancing",
        when: "refused the pipeline",
        why: "`NullDevice::with_instancing` (for CPU benchmarks) reports instancing but, refusing \
              every pipeline, cannot show an instanced draw",
    },
];

/// The declines `backend` may give.
pub fn allowed_declines(backend: &BackendId) -> Vec<AllowedDecline> {
    let own: &[AllowedDecline] = if *backend == BackendId::NULL { NULL } else { &[] };
    ENVIRONMENT.iter().chain(own).copied().collect()
}

/// Whether `backend` may decline `check` with `sentence`.
pub fn decline_allowed(backend: &BackendId, check: &str, sentence: &str) -> bool {
    allowed_declines(backend).iter().any(|a| a.covers(check, sentence))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_reviewed_declines_are_allowed() {
        let present = "capabilities::present";
        for b in [BackendId::SOFT, BackendId::WGPU, BackendId::VULKAN, BackendId::NULL] {
            assert!(decline_allowed(&b, present, "soft: no X server to present to (DISPLAY=\"\")"));
            assert!(!decline_allowed(&b, present, "soft: the surface could not be made"));
            assert!(!decline_allowed(&b, "core::readback_rows_from_top", "anything"));
        }
        assert!(decline_allowed(&BackendId::NULL, "shader::clip_space", "null: refused the pipeline"));
        assert!(decline_allowed(
            &BackendId::NULL,
            "capabilities::instancing",
            "null: refused the pipeline: x"
        ));
        assert!(!decline_allowed(&BackendId::NULL, "capabilities::instancing", "null: something else"));
        for b in [BackendId::SOFT, BackendId::WGPU, BackendId::VULKAN] {
            assert!(!decline_allowed(&b, "shader::clip_space", "refused the pipeline"));
        }
    }
}
