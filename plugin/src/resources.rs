//! The resources the plugin shares between its systems and with apps — the device, the
//! registry it was opened from, the settings, the frame clock and the standard passes'
//! switches — and the default registry. A leaf module: it depends on no other part of the
//! plugin, so every part can depend on it (re-exported from [`crate::plugin`]).

use std::sync::Arc;
use std::time::Instant;

use bevy_ecs::prelude::*;
use f3d_hal::{BackendId, DeviceRegistry, GraphicsDevice};

/// Which backend to open.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum BackendChoice {
    /// The registry's order (GPU backends first, soft last); `F3D_BACKEND` overrides.
    #[default]
    Auto,
    /// Only this backend.
    Named(BackendId),
}

/// When the depth prepass runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DepthPrepass {
    /// When a visible material reads the scene depth.
    #[default]
    Auto,
    /// Every frame.
    Always,
    /// Never.
    Never,
}

/// Which standard passes run (a render-world resource; each pass system also sits in its
/// own [`PassSystems`](crate::passes::PassSystems) set and can be removed outright).
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct StandardPasses {
    /// The directional light's shadow map.
    pub shadow: bool,
    /// The depth prepass.
    pub depth_prepass: DepthPrepass,
    /// Opaque draws.
    pub opaque: bool,
    /// The environment behind everything.
    pub skybox: bool,
    /// The scene-colour snapshot (only when a visible material reads it).
    pub scene_color: bool,
    /// Translucent draws.
    pub translucent: bool,
    /// Tonemap and resolve to the output.
    pub tonemap: bool,
}

impl Default for StandardPasses {
    fn default() -> Self {
        Self {
            shadow: true,
            depth_prepass: DepthPrepass::Auto,
            opaque: true,
            skybox: true,
            scene_color: true,
            translucent: true,
            tonemap: true,
        }
    }
}

/// The device every f3d system draws with (in both worlds).
#[derive(Resource, Clone)]
pub struct RenderDevice(pub Arc<dyn GraphicsDevice>);

impl RenderDevice {
    /// `backend (adapter)`, as the examples and the CLI print it.
    pub fn describe(&self) -> String {
        format!("{} ({})", self.backend_id(), self.adapter_info().name)
    }

    /// [`describe`](Self::describe) for the device the plugin opened into `world`; when none
    /// opened, an error saying why (every backend's reason, as [`DeviceOpenError`] keeps it).
    pub fn describe_opened(world: &World) -> Result<String, String> {
        if let Some(device) = world.get_resource::<Self>() {
            return Ok(device.describe());
        }
        Err(match world.get_resource::<DeviceOpenError>() {
            Some(e) => format!("no device opened: {}", e.0),
            None => "no device opened (the plugin's finish has not run)".to_owned(),
        })
    }
}

impl std::ops::Deref for RenderDevice {
    type Target = dyn GraphicsDevice;
    fn deref(&self) -> &Self::Target {
        self.0.as_ref()
    }
}

/// The plugin's settings as the main world keeps them.
#[derive(Resource, Clone, Debug)]
pub struct RenderSettings {
    /// The main target's size.
    pub size: (u32, u32),
    /// See [`F3dRenderPlugin::exit_after_frames`](crate::plugin::F3dRenderPlugin::exit_after_frames).
    pub exit_after_frames: Option<u32>,
    /// See [`F3dRenderPlugin::pipelined`](crate::plugin::F3dRenderPlugin::pipelined).
    pub pipelined: bool,
}

/// The main world's frame counter and shader clock.
#[derive(Resource, Clone, Debug)]
pub struct FrameClock {
    /// Frames started.
    pub frame: u64,
    /// Seconds on the shader clock.
    pub time: f64,
    pub(crate) step: Option<f64>,
    pub(crate) started: Instant,
}

/// Why the plugin opened no device (a main-world resource, inserted when `finish` fails to
/// open one; the error is logged too): what the app reports when it has no log subscriber.
#[derive(Resource, Clone, Debug)]
pub struct DeviceOpenError(pub String);

/// The device registry of the backends compiled in, in the default order: soft first (tried
/// last), then the GPU backends. The null backend is registered too but only ever opens
/// when asked for by name. Then the backend libraries in the directories `F3D_BACKEND_PATH`
/// lists are loaded and tried first (`f3d_hal::dynamic`); each load or refusal is logged and
/// kept in [`DeviceRegistry::load_reports`].
pub fn default_registry() -> DeviceRegistry {
    let mut registry = DeviceRegistry::new();
    let _ = register_default_backends(&mut registry);
    if let Some(list) = std::env::var_os("F3D_BACKEND_PATH") {
        // SAFETY: the user named these directories to load backends from, as they would name
        // libraries to preload; each library's ABI string is checked before it is called.
        let report = unsafe { registry.load_path_list(&list) };
        for (id, path) in &report.loaded {
            bevy_log::info!("loaded backend {id} from {}", path.display());
        }
        for refused in &report.refused {
            bevy_log::warn!("F3D_BACKEND_PATH: refused {refused}");
        }
    }
    registry
}

fn register_default_backends(registry: &mut DeviceRegistry) -> Vec<f3d_hal::Registration> {
    let mut r = Vec::new();
    // The null backend declines unless forced, so "auto" never picks it.
    r.push(registry.add_backend(BackendId::NULL, |request| {
        if request.backend.as_ref() == Some(&BackendId::NULL) {
            Ok(Arc::new(f3d_backend_null::NullDevice::new(&request.label)) as Arc<dyn GraphicsDevice>)
        } else {
            Err(f3d_hal::OpenError::DeviceUnavailable {
                backend: BackendId::NULL,
                reason: "the null backend draws nothing; it opens only when named".into(),
            })
        }
    }));
    r.push(f3d_backend_soft::register_soft_backend(registry));
    #[cfg(feature = "wgpu")]
    r.push(f3d_backend_wgpu::register_wgpu_backend(registry));
    #[cfg(feature = "vulkan")]
    r.push(f3d_backend_vulkan::register_vulkan_backend(registry));
    r
}

/// A resource holding the registry the plugin opens from; apps may insert their own (with
/// more backends) before the plugin is added.
#[derive(Resource)]
pub struct RenderRegistry(pub DeviceRegistry);
