//! Picking a backend: the [`DeviceRegistry`] and the [`DeviceRequest`] it opens.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use crate::{DeviceFeatures, DeviceLimits, GraphicsDevice, ValidatingDevice};

/// A backend's name: lower-case, as `F3D_BACKEND` and the CLI spell it.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BackendId(Cow<'static, str>);

impl BackendId {
    /// The null backend.
    pub const NULL: Self = Self(Cow::Borrowed("null"));
    /// The software rasteriser.
    pub const SOFT: Self = Self(Cow::Borrowed("soft"));
    /// wgpu.
    pub const WGPU: Self = Self(Cow::Borrowed("wgpu"));
    /// Vulkan through ash.
    pub const VULKAN: Self = Self(Cow::Borrowed("vulkan"));

    /// A backend named at compile time.
    pub const fn new(name: &'static str) -> Self {
        Self(Cow::Borrowed(name))
    }

    /// A backend named at run time (lower-cased).
    pub fn from_name(name: &str) -> Self {
        Self(Cow::Owned(name.trim().to_ascii_lowercase()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for BackendId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for BackendId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BackendId({})", self.0)
    }
}

/// Which adapter to prefer when there are several.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PowerPreference {
    /// Whatever the backend picks first.
    #[default]
    None,
    /// An integrated or low-power adapter.
    LowPower,
    /// A discrete, high-performance adapter.
    HighPerformance,
}

/// What an app asks of a device. Everything after the size has a default.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceRequest {
    /// The default target size (the window or the screenshot).
    pub width: u32,
    /// The default target size.
    pub height: u32,
    /// Features the device must have; a device without one is never handed out.
    pub required_features: DeviceFeatures,
    /// Limits the device must reach.
    pub required_limits: DeviceLimits,
    /// Which adapter to prefer.
    pub power_preference: PowerPreference,
    /// Wrap the device in the validation layer ([`ValidatingDevice`]). Backends over a GPU
    /// API also load that API's validation layers (vulkan: `VK_LAYER_KHRONOS_validation`;
    /// wgpu: its debugging instance flags), and only then.
    pub validation: bool,
    /// A label for the device.
    pub label: String,
    /// Only this backend may open (what `F3D_BACKEND` sets).
    pub backend: Option<BackendId>,
    /// How long a GPU backend waits with no progress at all (no submission finishing, no CPU
    /// time spent by a software driver) before it counts the device as lost; `None` waits for
    /// ever. Default [`DEFAULT_GPU_TIMEOUT`](crate::DEFAULT_GPU_TIMEOUT), which says why;
    /// `F3D_GPU_TIMEOUT_S` sets it (seconds, 0 for never).
    pub gpu_timeout: Option<std::time::Duration>,
    /// Problems with the environment variables read by [`with_env`](Self::with_env), for the
    /// opener to report (a request cannot log).
    pub env_errors: Vec<String>,
}

impl DeviceRequest {
    /// A request for a `width`×`height` target, everything else default.
    pub fn new(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            required_features: DeviceFeatures::empty(),
            required_limits: DeviceLimits::GUARANTEED,
            power_preference: PowerPreference::None,
            validation: false,
            label: "f3d".into(),
            backend: None,
            gpu_timeout: Some(crate::DEFAULT_GPU_TIMEOUT),
            env_errors: Vec::new(),
        }
    }

    /// The same request with `F3D_BACKEND`, `F3D_VALIDATION` and `F3D_GPU_TIMEOUT_S` applied
    /// from `env` (a variable reader, so tests need not touch the process environment). A
    /// value that does not parse leaves the default and is noted in `env_errors`.
    pub fn with_env(mut self, env: impl Fn(&str) -> Option<String>) -> Self {
        if let Some(name) = env("F3D_BACKEND").filter(|n| !n.trim().is_empty()) {
            self.backend = Some(BackendId::from_name(&name));
        }
        if let Some(v) = env("F3D_VALIDATION") {
            self.validation = matches!(v.trim(), "1" | "true" | "yes" | "on");
        }
        if let Some(v) = env("F3D_GPU_TIMEOUT_S") {
            match crate::parse_gpu_timeout(&v) {
                Ok(t) => self.gpu_timeout = t,
                Err(e) => self.env_errors.push(e),
            }
        }
        self
    }

    /// The same request with the process's `F3D_BACKEND`, `F3D_VALIDATION` and
    /// `F3D_GPU_TIMEOUT_S` applied.
    pub fn with_process_env(self) -> Self {
        self.with_env(|k| std::env::var(k).ok())
    }
}

/// Why a backend did not open.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// This backend cannot run here (no adapter, no driver, missing feature); the registry
    /// moves on to the next one.
    #[error("{backend}: {reason}")]
    DeviceUnavailable {
        /// The backend.
        backend: BackendId,
        /// A sentence saying why.
        reason: String,
    },
    /// No backend opened; every backend's reason, in the order tried.
    #[error("no backend could open: {}", .attempts.iter().map(|(b, r)| format!("{b}: {r}")).collect::<Vec<_>>().join("; "))]
    NoBackend {
        /// `(backend, reason)` for each backend tried.
        attempts: Vec<(BackendId, String)>,
    },
    /// `F3D_BACKEND` (or the request) named a backend that is not registered.
    #[error("backend {wanted} is not registered (registered: {})", .registered.iter().map(|b| b.as_str()).collect::<Vec<_>>().join(", "))]
    UnknownBackend {
        /// The backend asked for.
        wanted: BackendId,
        /// The backends there are.
        registered: Vec<BackendId>,
    },
}

/// Opens a device of one backend, or says why it cannot.
/// Shared, so a cloned registry opens through the same functions.
pub type Opener = Arc<dyn Fn(&DeviceRequest) -> Result<Arc<dyn GraphicsDevice>, OpenError> + Send + Sync>;

/// A receipt for [`DeviceRegistry::add_backend`]; give it back to
/// [`DeviceRegistry::remove`] to take the backend out again.
#[derive(Debug, PartialEq, Eq)]
#[must_use = "keep the registration to remove the backend again, or drop it to keep it registered"]
pub struct Registration(u64);

#[derive(Clone)]
struct Entry {
    key: u64,
    backend: BackendId,
    opener: Opener,
}

/// The backends an app can open, as an ordinary value (the plugin keeps it as an ECS
/// resource; there is no global registry). **Last added, first tried**: apps add their
/// preferred backends after the defaults. A clone shares the openers and keeps its own list.
#[derive(Clone, Default)]
pub struct DeviceRegistry {
    entries: Vec<Entry>,
    next_key: u64,
    loads: Vec<crate::dynamic::LoadReport>,
}

impl fmt::Debug for DeviceRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.backends()).finish()
    }
}

impl DeviceRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `opener` for `backend`; it is tried before every backend added earlier.
    pub fn add_backend(
        &mut self,
        backend: BackendId,
        opener: impl Fn(&DeviceRequest) -> Result<Arc<dyn GraphicsDevice>, OpenError> + Send + Sync + 'static,
    ) -> Registration {
        let key = self.next_key;
        self.next_key += 1;
        self.entries.push(Entry { key, backend, opener: Arc::new(opener) });
        Registration(key)
    }

    /// Removes a registered backend. False when it was already removed.
    pub fn remove(&mut self, registration: Registration) -> bool {
        let before = self.entries.len();
        self.entries.retain(|e| e.key != registration.0);
        before != self.entries.len()
    }

    /// What each [`load_dir`](Self::load_dir) or [`load_path_list`](Self::load_path_list) on
    /// this registry did, in order.
    pub fn load_reports(&self) -> &[crate::dynamic::LoadReport] {
        &self.loads
    }

    pub(crate) fn note_load(&mut self, report: &crate::dynamic::LoadReport) {
        self.loads.push(report.clone());
    }

    pub(crate) fn entry_count(&self) -> usize {
        self.entries.len()
    }

    /// The backends of the entries from index `start` on, in the order added.
    pub(crate) fn names_from(&self, start: usize) -> Vec<BackendId> {
        self.entries[start..].iter().map(|e| e.backend.clone()).collect()
    }

    pub(crate) fn truncate_entries(&mut self, len: usize) {
        self.entries.truncate(len);
    }

    /// The registered backends, in the order `open` tries them.
    pub fn backends(&self) -> Vec<BackendId> {
        self.entries.iter().rev().map(|e| e.backend.clone()).collect()
    }

    /// Opens the first backend (last added first) that opens and meets the request; with
    /// `request.backend` set, only that one. A device lacking a required feature or limit is
    /// dropped and counts as unavailable. With `request.validation` the device comes back
    /// wrapped in [`ValidatingDevice`].
    ///
    /// Unnamed, a GPU API running on a CPU adapter (Mesa's lavapipe, WARP) is passed over while
    /// a later backend may still open: with no GPU the choice falls to the last backend tried
    /// that opens on the CPU — the soft rasteriser, the reference every backend answers to —
    /// and a software Vulkan or wgpu device is used only when it is all there is, or named.
    pub fn open(&self, request: &DeviceRequest) -> Result<Arc<dyn GraphicsDevice>, OpenError> {
        if let Some(wanted) = &request.backend
            && !self.entries.iter().any(|e| &e.backend == wanted)
        {
            return Err(OpenError::UnknownBackend { wanted: wanted.clone(), registered: self.backends() });
        }
        let wrap = |device: Arc<dyn GraphicsDevice>| -> Arc<dyn GraphicsDevice> {
            if request.validation { Arc::new(ValidatingDevice::new(device)) } else { device }
        };
        let mut attempts = Vec::new();
        let mut on_cpu: Option<Arc<dyn GraphicsDevice>> = None;
        for entry in self.entries.iter().rev() {
            if request.backend.as_ref().is_some_and(|b| b != &entry.backend) {
                continue;
            }
            match (entry.opener)(request) {
                Ok(device) => match unmet(request, device.as_ref()) {
                    None if request.backend.is_none() && device.adapter_info().cpu => {
                        // Kept in case nothing later opens; a later CPU device replaces it.
                        on_cpu = Some(device);
                    }
                    None => return Ok(wrap(device)),
                    Some(reason) => attempts.push((entry.backend.clone(), reason)),
                },
                Err(OpenError::DeviceUnavailable { backend, reason }) => attempts.push((backend, reason)),
                Err(other) => attempts.push((entry.backend.clone(), other.to_string())),
            }
        }
        match on_cpu {
            Some(device) => Ok(wrap(device)),
            None => Err(OpenError::NoBackend { attempts }),
        }
    }
}

fn unmet(request: &DeviceRequest, device: &dyn GraphicsDevice) -> Option<String> {
    let missing: Vec<_> =
        request.required_features.missing_from(device.features()).map(|f| f.name()).collect();
    if !missing.is_empty() {
        return Some(format!("lacks required feature {}", missing.join(", ")));
    }
    request
        .required_limits
        .first_unmet_by(device.limits())
        .map(|(name, wanted, offered)| format!("{name} is {offered}, {wanted} required"))
}
