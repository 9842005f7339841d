//! `.ron` materials through Bevy's `AssetServer`:
//! `asset_server.load::<CustomMaterial>("materials/toon.ron")`.
//!
//! * **Load**: [`CustomMaterialLoader`] reads the `.ron`, checks it and compiles its colour
//!   variant once (naga validation, no device), so a material that does not parse or whose
//!   WGSL does not compile is a load error: the asset's `LoadState::Failed` carries
//!   `path:line:col: message` (and the full diagnostic), and Bevy logs it. Nothing panics.
//! * **Dependencies**: the `fragment_file` and every `#include` the material composes are read
//!   through the load context, so they are the asset's loader dependencies: with bevy_asset's
//!   file watcher on (the default, feature `file_watcher`), saving any of them reloads the
//!   material. Files outside the asset folder are read but not watched.
//! * **A broken save** leaves the last good version in `Assets` (Bevy keeps it when a reload
//!   fails), so it keeps drawing; the failure is logged and in the load state.
//! * **Values the app set survive a reload**: [`carry_reloaded_values`] copies them into the
//!   new version where it still has a parameter of the same name and type (images by name),
//!   before the render world takes it. Values set on a placeholder before the file loaded
//!   (`get_or_insert_with(handle, CustomMaterial::loading)`) are kept by
//!   [`remember_waiting_values`] at the start of each frame, before bevy_asset can replace the
//!   placeholder with the loaded material, so they are applied even when the load lands in
//!   the frame that first sees the placeholder.
//!
//! Materials loaded this way are reloaded by bevy_asset; [`CustomMaterial::from_file`] keeps
//! f3d's own watcher (the render world's store) for apps without an asset folder.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use bevy_asset::io::Reader;
use bevy_asset::{AssetEvent, AssetId, AssetLoader, Assets, LoadContext};
use bevy_ecs::prelude::*;
use bevy_reflect::TypePath;
use f3d_materials::{MaterialError, Variant, one_line_error, parse_material};

use super::CustomMaterial;
use crate::render::prepare::materials::{MATERIAL_ARRAY_BYTES, render_compile_options};

/// Loads `.ron` materials (see the module docs). Registered by the plugin.
#[derive(TypePath)]
pub struct CustomMaterialLoader {
    /// The asset folder on disk: where the material's own files are read from.
    root: PathBuf,
    /// The material-array budget of the open device, for compiling as the renderer will.
    budget: MaterialLoaderBudget,
}

impl CustomMaterialLoader {
    /// A loader for materials under the asset folder `root`, compiling the colour variant for
    /// the material-array budget `budget` holds.
    pub fn new(root: impl Into<PathBuf>, budget: MaterialLoaderBudget) -> Self {
        Self { root: root.into(), budget }
    }
}

/// The material-array budget the loader compiles for (a main-world resource, shared with the
/// loader): the open device's ([`material_array_budget`](crate::render::prepare::materials::material_array_budget)),
/// set when the render world starts or recovers, [`MATERIAL_ARRAY_BYTES`] before. The loader's
/// compile is then the very one the renderer draws with (compiled variants are kept with the
/// loaded material, per options), not a second one for other options.
#[derive(Resource, Clone, Debug)]
pub struct MaterialLoaderBudget(Arc<AtomicU32>);

impl Default for MaterialLoaderBudget {
    fn default() -> Self {
        Self(Arc::new(AtomicU32::new(MATERIAL_ARRAY_BYTES)))
    }
}

impl MaterialLoaderBudget {
    /// The budget loads compile for now.
    pub fn get(&self) -> u32 {
        self.0.load(Ordering::Relaxed)
    }

    /// Sets the budget (the device's, when one opens).
    pub fn set(&self, bytes: u32) {
        self.0.store(bytes, Ordering::Relaxed);
    }
}

/// Why a `.ron` material did not load.
#[derive(Debug, thiserror::Error)]
pub enum CustomMaterialLoadError {
    /// The file could not be read.
    #[error("{path}: {reason}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the reader said.
        reason: String,
    },
    /// The material did not parse, check or compile: `path:line:col: message` first, then
    /// the full diagnostics.
    #[error("{summary}\n{diagnostics}")]
    Material {
        /// `path:line:col: message` of the first problem.
        summary: String,
        /// Every problem's full diagnostic.
        diagnostics: String,
        /// The problems.
        errors: Vec<MaterialError>,
    },
}

impl CustomMaterialLoadError {
    fn material(path: &Path, errors: Vec<MaterialError>) -> Self {
        let summary = errors
            .first()
            .map_or_else(|| format!("{}: did not load", path.display()), |e| one_line_error(path, e));
        let diagnostics = errors.iter().map(MaterialError::diagnostic).collect::<Vec<_>>().join("\n");
        Self::Material { summary, diagnostics, errors }
    }
}

impl AssetLoader for CustomMaterialLoader {
    type Asset = CustomMaterial;
    type Settings = ();
    type Error = CustomMaterialLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<CustomMaterial, Self::Error> {
        let asset_path = load_context.path().path().to_owned();
        let path = self.root.join(&asset_path);
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(|e| CustomMaterialLoadError::Io { path: path.clone(), reason: e.to_string() })?;
        let loaded =
            parse_material(&path, &bytes).map_err(|e| CustomMaterialLoadError::material(&path, e))?;
        // Compiled once here so user code that does not compile fails the load (with its
        // line), and to learn every file the material is composed of.
        let compiled = loaded
            .compiled(Variant::Color, &render_compile_options(self.budget.get()))
            .map_err(|e| CustomMaterialLoadError::material(&path, vec![e]))?;
        let mut files = compiled.files.clone();
        files.sort();
        files.dedup();
        for file in files.iter().filter(|f| **f != path) {
            match file.strip_prefix(&self.root) {
                // Read through the context: a loader dependency, watched with the material.
                Ok(relative) => {
                    let _ = load_context.read_asset_bytes(relative.to_path_buf()).await;
                }
                Err(_) => bevy_log::debug!(
                    "{}: {} is outside the asset folder and not watched",
                    path.display(),
                    file.display()
                ),
            }
        }
        let mut material =
            CustomMaterial::from_loaded(loaded).map_err(|e| CustomMaterialLoadError::material(&path, e))?;
        material.from_loader = true;
        Ok(material)
    }

    fn extensions(&self) -> &[&str] {
        &["ron"]
    }
}

/// Each material's values as last seen, carried into the next version the loader brings.
#[derive(Resource, Default)]
pub struct MaterialValuesSeen(HashMap<AssetId<CustomMaterial>, CustomMaterial>);

/// Remembers placeholders holding values set before their file loaded (runs in `First`,
/// before bevy_asset inserts loaded assets in `PreUpdate`): when the loaded material replaces
/// a placeholder in the frame that also brings the placeholder's own `Added` event,
/// [`carry_reloaded_values`] would otherwise never see the placeholder's values. It looks only
/// in frames where the materials changed (bevy_asset marks `Assets` changed when it has events
/// to send or drops to process); a steady frame returns at once.
pub fn remember_waiting_values(assets: Res<Assets<CustomMaterial>>, mut seen: ResMut<MaterialValuesSeen>) {
    if !assets.is_changed() {
        return;
    }
    for (id, material) in assets.iter() {
        if material.holds_waiting_values() {
            seen.0.insert(id, material.clone());
        }
    }
}

/// Carries the values the app set on a material into the version a reload brought (runs in
/// `Last`, before extraction takes the new version), and remembers each material's latest
/// values.
pub fn carry_reloaded_values(
    mut events: MessageReader<AssetEvent<CustomMaterial>>,
    mut assets: ResMut<Assets<CustomMaterial>>,
    mut seen: ResMut<MaterialValuesSeen>,
) {
    let last = &mut seen.0;
    for event in events.read() {
        match *event {
            AssetEvent::Added { id } | AssetEvent::Modified { id } => {
                let previous = last.get(&id);
                // Untracked: the render world takes the asset for this very event.
                let Some(material) = assets.get_mut_untracked(id) else { continue };
                if std::mem::take(&mut material.from_loader)
                    && let Some(previous) = previous
                    && let Some(loaded) = material.loaded().cloned()
                {
                    let mut carried = previous.clone();
                    carried.adopt(loaded);
                    *material = carried;
                }
                last.insert(id, material.clone());
            }
            AssetEvent::Removed { id } => {
                last.remove(&id);
            }
            _ => {}
        }
    }
}
