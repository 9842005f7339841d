//! What every GPU backend's golden tests share: the scenes drawn through the whole engine,
//! compared with the backend's own goldens (`tests/goldens/<backend>/`), and bounded against
//! a soft frame of the same scene rendered in the same test — the CPU rasteriser is the
//! reference the GPU backends answer to (DESIGN §7), and comparing with a live frame rather
//! than soft's golden file means a re-blessed soft golden cannot hide a GPU backend drifting.
//! A backend's test calls [`goldens`] and [`close_to_soft`] with a function that renders one
//! scene; both collect every scene's result before failing, so one run reports them all.

use crate::{Frame, Tolerance, assert_golden_with, compare, golden_path};

/// How far a GPU frame may be from soft's: per-channel 8 (filtering and sRGB rounding of two
/// rasterisers), on at most 0.5 % of the pixels (edges, where two fill rules and their
/// fixed-point snapping may pick different pixels), and no channel anywhere past 64. Measured
/// on lavapipe (2026-12): at most 0.05 % for vulkan and for wgpu; the largest difference 47
/// (5 pixels of the showcase's water sparkle), 12 elsewhere.
pub const AGAINST_SOFT: Tolerance = Tolerance { channel: 8, max_mismatch: 0.005, max_difference: 64 };

/// A GPU backend's goldens: as the soft goldens allow, a little wider per channel (lavapipe
/// and a GPU driver differ in the last bit of float maths).
pub const GOLDEN: Tolerance = Tolerance { channel: 3, max_mismatch: 0.005, max_difference: 32 };

/// Renders each of `scenes` with `render` (which answers `None` when the backend declined to
/// open: then nothing is checked) and compares it with `tests/goldens/<backend>/<scene>.png`
/// (`F3D_BLESS=1` writes them). Panics listing every scene that differs.
pub fn goldens(backend: &str, scenes: &[&str], mut render: impl FnMut(&str) -> Option<Frame>) {
    let mut failures = Vec::new();
    for name in scenes {
        let Some(frame) = render(name) else { return };
        let result =
            std::panic::catch_unwind(|| assert_golden_with(&frame, golden_path(backend, name), GOLDEN));
        if let Err(e) = result {
            failures.push(e.downcast_ref::<String>().cloned().unwrap_or_else(|| format!("{name} failed")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Renders each of `scenes` with `render` and bounds its distance from the same scene drawn
/// now by `soft` (a soft frame, [`crate::soft_frame`]) by [`AGAINST_SOFT`]; prints one line
/// per scene (the measure) and panics listing the scenes past the bound, writing
/// `<scene>.soft-diff.png` next to the backend's goldens.
pub fn close_to_soft(
    backend: &str,
    scenes: &[&str],
    mut render: impl FnMut(&str) -> Option<Frame>,
    mut soft: impl FnMut(&str) -> Frame,
) {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for name in scenes {
        let Some(frame) = render(name) else { return };
        let soft = soft(name);
        let cmp = compare(&frame, &soft, AGAINST_SOFT).unwrap_or_else(|e| panic!("{name}: {e}"));
        let share = cmp.mismatched as f64 / f64::from(frame.width * frame.height);
        let verdict = cmp.within(AGAINST_SOFT);
        report.push(format!(
            "{backend} {name}: {} pixels ({:.2} %) differ from soft by more than {}, largest difference {}",
            cmp.mismatched,
            share * 100.0,
            AGAINST_SOFT.channel,
            cmp.max_difference
        ));
        if let Err(e) = verdict {
            let diff = golden_path(backend, &format!("{name}.soft-diff"));
            let _ = cmp.diff.write_png(&diff);
            failures.push(format!("{name} against soft: {e}; diff in {}", diff.display()));
        }
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}\n{}", failures.join("\n"), report.join("\n"));
}
