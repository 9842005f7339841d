//! Hot reload, the ECS side: the render world's [`RenderMaterialStore`] (an
//! [`f3d_materials::MaterialStore`] with the live backend's compiler), the swap of new
//! versions into the main world's material assets at a frame boundary, and
//! [`MaterialEvent`]s.
//!
//! ```text
//!  frame N extraction (main world lent to the render world; nothing is drawing):
//!    1. materials from files that were added or edited are registered with the store
//!    2. store.poll(): files that changed are re-read, re-composed, re-validated and compiled
//!       for the live backend, each source once
//!    3. each asset of a source with a new version adopts it (CustomMaterial::adopt: values the
//!       app set carry over), which marks the asset changed; the old version's pipelines are
//!       dropped from the cache, and no other pipeline is
//!    4. MaterialEvents go to the main world (and failures to the log, once)
//!  extract_assets then takes the edited assets, and prepare builds the new pipelines.
//! ```
//!
//! Pipelined or inline, the swap happens during extraction, so a frame is drawn entirely
//! with the old version or entirely with the new.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy_ecs::prelude::*;
use f3d_hal::{BackendId, GraphicsDevice, ValidatedModule};
use f3d_materials::{
    BackendShader, ChangeSignal, MaterialCompiler, MaterialCompilers, MaterialError, MaterialSourceId,
    MaterialStore, StoreEvent, WatchSettings, one_line_error,
};

use bevy_asset::{AssetEvent, AssetId, Assets};
use bevy_ecs::message::{MessageCursor, Messages};

use crate::material::{CustomMaterial, Material};
use crate::render::MainWorld;
use crate::render::extract::{ExtractedAssets, RenderAssetIds};
use crate::render::prepare::{PipelineCache, RenderMaterials};

/// Hot reload settings ([`F3dRenderPlugin::hot_reload`](crate::plugin::F3dRenderPlugin)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HotReload {
    /// Watch material files and reload them when they change (on by default). Off, materials
    /// from files load once.
    pub watch: bool,
    /// How long a file must be quiet before a change is acted on, so an editor's burst of
    /// writes is one reload (100 ms by default).
    pub debounce: Duration,
}

impl Default for HotReload {
    fn default() -> Self {
        let w = WatchSettings::default();
        Self { watch: w.watch, debounce: w.debounce }
    }
}

/// What happened to a material file (a main-world message). Every [`CustomMaterial`] asset
/// read from the file has taken a new version by the time `Loaded` or `Reloaded` is read, and
/// the frame drawn in the same update uses it.
#[derive(Message, Clone, Debug)]
pub enum MaterialEvent {
    /// The file loaded for the first time (also after a first load that failed).
    Loaded {
        /// The `.ron` file (absolute).
        path: PathBuf,
        /// The material's name.
        name: String,
        /// When the store learnt of the change (file event after the debounce, or the load).
        changed_at: Instant,
    },
    /// A save loaded: the new version replaced the old one.
    Reloaded {
        /// The `.ron` file (absolute).
        path: PathBuf,
        /// The material's name.
        name: String,
        /// When the store learnt of the change (file event after the debounce).
        changed_at: Instant,
    },
    /// The file (or a file it depends on) did not load; the last good version keeps drawing.
    /// Sent once per distinct error.
    Failed {
        /// The `.ron` file (absolute).
        path: PathBuf,
        /// `path:line:col: message`, on one line.
        message: String,
        /// The error, for its full diagnostic.
        error: MaterialError,
    },
}

/// Each compiled-in backend's material compiler at its baseline capabilities, for tools that
/// have no device (`f3d material compile --emit spirv`). A running app never uses these: its
/// material store checks every material version against the live device
/// ([`GraphicsDevice::check_shader_module`]), so what the open device can run is what counts.
pub fn offline_compilers() -> MaterialCompilers {
    let mut compilers = MaterialCompilers::builtin();
    compilers.add(Arc::new(f3d_backend_null::NullCompiler));
    #[cfg(feature = "wgpu")]
    compilers.add(Arc::new(f3d_backend_wgpu::WgpuCompiler::new()));
    #[cfg(feature = "vulkan")]
    compilers.add(Arc::new(f3d_backend_vulkan::VulkanCompiler::new()));
    compilers
}

/// The live device as the material store's compiler: a material version is complete when the
/// device that will draw it says it can run every shader of it.
struct LiveDevice(Arc<dyn GraphicsDevice>);

impl MaterialCompiler for LiveDevice {
    fn backend(&self) -> BackendId {
        self.0.backend_id()
    }

    fn compile(&self, label: &str, module: &Arc<ValidatedModule>) -> Result<BackendShader, MaterialError> {
        self.0.check_shader_module(label, module).map_err(|reason| MaterialError::Backend {
            backend: self.0.backend_id().to_string(),
            label: label.to_owned(),
            reason,
        })?;
        Ok(BackendShader::Naga(Arc::clone(module)))
    }
}

/// Wakes a main-world loop when a material file changed (a main-world resource): a headless
/// app that only redraws on edits waits on it instead of spinning.
#[derive(Resource, Clone, Debug)]
pub struct MaterialWatch(pub ChangeSignal);

impl MaterialWatch {
    /// Blocks until a watched material file changed or `timeout` passed; true on a change.
    pub fn wait(&self, timeout: Duration) -> bool {
        self.0.wait(timeout)
    }
}

/// An asset read from a file, and the version of its source it holds.
struct Tracked {
    id: AssetId<CustomMaterial>,
    source: MaterialSourceId,
}

/// The render world's material store.
#[derive(Resource)]
pub struct RenderMaterialStore {
    /// The store.
    pub store: MaterialStore,
    tracked: Vec<Tracked>,
}

impl RenderMaterialStore {
    /// A store whose materials `device` checks ([`GraphicsDevice::check_shader_module`]);
    /// `budget` is the device's material-array budget
    /// ([`material_array_budget`](crate::render::prepare::materials::material_array_budget)).
    pub fn new(device: Arc<dyn GraphicsDevice>, settings: HotReload, budget: u32) -> Self {
        let compiler: Option<Arc<dyn MaterialCompiler>> = Some(Arc::new(LiveDevice(device)));
        // Compile exactly as the renderer draws (instanced, with material arrays), so a reload
        // compiles each variant once.
        let options = crate::render::prepare::materials::render_compile_options(budget);
        let watch = WatchSettings { watch: settings.watch, debounce: settings.debounce };
        Self { store: MaterialStore::new(options, compiler, watch), tracked: Vec::new() }
    }

    /// Checks the versions read from now on against `device` (a device recovered after a
    /// loss, which may be another backend).
    pub fn use_device(&mut self, device: Arc<dyn GraphicsDevice>) {
        self.store.set_compiler(Some(Arc::new(LiveDevice(device))));
    }

    /// The source behind the material asset `id`, if it is read from a file.
    pub fn source_of(&self, id: impl Into<AssetId<CustomMaterial>>) -> Option<MaterialSourceId> {
        let id = id.into();
        self.tracked.iter().find(|t| t.id == id).map(|t| t.source)
    }
}

/// Registers new materials from files, polls the store, swaps new versions into the main
/// world's assets and reports (runs in extraction, before the assets are taken).
#[allow(clippy::too_many_arguments)]
pub fn extract_material_files(
    mut main: ResMut<MainWorld>,
    mut cursor: Local<MessageCursor<AssetEvent<CustomMaterial>>>,
    mut store: ResMut<RenderMaterialStore>,
    mut materials: ResMut<RenderMaterials>,
    mut pipelines: ResMut<PipelineCache>,
    mut ids: ResMut<RenderAssetIds>,
    mut extracted: ResMut<ExtractedAssets>,
) {
    let store = &mut *store;
    let mut registered = false;
    // 1. Materials from files added since the last frame (this reader sees the same events
    // extract_assets does, through a cursor of its own).
    if let (Some(messages), Some(assets)) = (
        main.get_resource::<Messages<AssetEvent<CustomMaterial>>>(),
        main.get_resource::<Assets<CustomMaterial>>(),
    ) {
        let fresh: Vec<(AssetId<CustomMaterial>, PathBuf, Option<Arc<f3d_materials::LoadedMaterial>>)> =
            cursor
                .read(messages)
                .filter_map(|e| match *e {
                    AssetEvent::Added { id } | AssetEvent::Modified { id } => Some(id),
                    _ => None,
                })
                .filter(|id| !store.tracked.iter().any(|t| t.id == *id))
                .filter_map(|id| {
                    let m = assets.get(id)?;
                    m.file().map(|f| (id, f.to_owned(), m.loaded().cloned()))
                })
                .collect();
        registered = !fresh.is_empty();
        for (id, file, known) in fresh {
            if store.tracked.iter().any(|t| t.id == id) {
                continue;
            }
            // A material read by `CustomMaterial::load` becomes the store's first version
            // when the file has not changed since, so it is compiled once, not twice.
            let source = match known {
                Some(known) => store.store.load_known(&file, known),
                None => store.store.load(&file),
            };
            store.tracked.push(Tracked { id, source });
        }
    }
    // 2. What changed on disk.
    let events = store.store.poll();
    // 3. Assets whose source has a version they do not hold take it. A new version always
    // comes with a Loaded or Reloaded event, so a frame with neither (and no new asset) has
    // nothing to swap and does not walk the tracked assets.
    let new_versions =
        events.iter().any(|e| matches!(e, StoreEvent::Loaded { .. } | StoreEvent::Reloaded { .. }));
    if (registered || new_versions)
        && !store.tracked.is_empty()
        && let Some(mut assets) = main.get_resource_mut::<Assets<CustomMaterial>>()
    {
        let assets = assets.bypass_change_detection();
        store.tracked.retain(|t| assets.contains(t.id));
        for t in &store.tracked {
            let Some(version) = store.store.get(t.source) else { continue };
            let Some(m) = assets.get_mut_untracked(t.id) else { continue };
            if m.loaded().is_some_and(|l| Arc::ptr_eq(l, &version.loaded)) {
                continue;
            }
            if let Some(old) = m.loaded().cloned()
                && let Some(shader) = materials.forget_custom(&old)
            {
                pipelines.forget_shader(shader);
            }
            m.adopt(version.loaded.clone());
            // Taken across now, so the frame drawn in this update uses it (an edit through
            // `Assets` would reach the render world only with next frame's events).
            extracted.materials.push((ids.materials.slot(t.id), m.source()));
        }
    }
    // 4. Reports.
    for event in events {
        let path = store.store.path(event.source()).map(std::path::Path::to_owned).unwrap_or_default();
        let message = match event {
            StoreEvent::Loaded { name, changed_at, .. } => MaterialEvent::Loaded { path, name, changed_at },
            StoreEvent::Reloaded { name, changed_at, .. } => {
                MaterialEvent::Reloaded { path, name, changed_at }
            }
            StoreEvent::Failed { path, error, .. } => {
                let message = one_line_error(&path, &error);
                bevy_log::error!(
                    "material did not load; the last good version stays:\n{}",
                    error.diagnostic()
                );
                MaterialEvent::Failed { path, message, error }
            }
            // StoreEvent is non-exhaustive: a kind this plugin does not know is not reported.
            _ => continue,
        };
        main.write_message(message);
    }
}
