//! Counting a device's live resources.

/// Counts a device's live resources: every payload holds a [`LiveToken`], and
/// [`LiveCounter::count`] is what `live_resources()` answers.
#[derive(Clone, Debug, Default)]
pub struct LiveCounter(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl LiveCounter {
    /// A counter at zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// A token counting one more live resource until it drops.
    pub fn token(&self) -> LiveToken {
        self.0.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        LiveToken(self.0.clone())
    }

    /// How many tokens are alive.
    pub fn count(&self) -> usize {
        self.0.load(std::sync::atomic::Ordering::Acquire)
    }
}

/// One live resource; dropping it (with the payload that holds it) counts it released.
#[derive(Debug)]
pub struct LiveToken(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Drop for LiveToken {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}
