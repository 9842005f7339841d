//! The material store and hot reload (DESIGN §5, "Hot reload").
//!
//! ```text
//!  load(path) ─▶ MaterialSourceId ──get(id)──▶ Arc<MaterialVersion>   (the last good one)
//!                     │                          loaded + every variant composed, validated
//!                     │                          and compiled for the live backend
//!  editor saves ─▶ notify (debounced) ─▶ channel ─▶ poll() ─▶ reload what depends on the
//!                                                             changed files ─▶ StoreEvent
//! ```
//!
//! * **Dependencies.** A material depends on its `.ron`, its `fragment_file` and every
//!   project file it `#include`s (what [`CompiledMaterial::files`] lists). The store watches
//!   the folders of those files, the `.ron`'s folder and the project include folders (each
//!   folder once, not recursively), so a create, a rename onto the file (atomic saves), a
//!   delete-and-recreate and a plain modify all count as changes. Opening or reading a file
//!   does not (the store's own reads would otherwise reload forever).
//! * **A version is all or nothing.** A reload re-reads, re-composes and re-validates every
//!   [`Variant`] and runs the live backend's [`MaterialCompiler`] on each; only when all of
//!   that succeeds does [`get`](MaterialStore::get) answer the new version. Anything short of
//!   that (an empty or half-written file, a deleted file, a WGSL error) keeps the last good
//!   version and is reported as [`StoreEvent::Failed`], **once** per distinct error: an editor
//!   that writes the same broken text twice does not report twice. The next good save
//!   reloads. A material whose first load failed has no version until a save fixes it, and
//!   then loads ([`StoreEvent::Loaded`]).
//! * **No global watcher.** The watcher is a value owned by the store (made when the first
//!   material is loaded, dropped with the store); its thread only forwards batches of events
//!   into a channel, and all reloading happens on the thread that calls
//!   [`poll`](MaterialStore::poll) — in the plugin, at a frame boundary.
//!
//! The store knows nothing of ECS or devices: the plugin keeps one in its render world and
//! swaps versions in between frames.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use notify::event::{AccessKind, AccessMode, EventKind, MetadataKind, ModifyKind};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

use crate::MaterialError;
use crate::backend::MaterialCompiler;
use crate::compile::{CompileOptions, CompiledMaterial};
use crate::compose::Variant;
use crate::format::{LoadedMaterial, read_material};
use crate::source::Location;

/// How the store watches its files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WatchSettings {
    /// Watch the files at all. Off, materials load once and reload only on
    /// [`request_reload`](MaterialStore::request_reload).
    pub watch: bool,
    /// How long a file must be quiet before its change is acted on: long enough that an
    /// editor's burst of writes (truncate, write, rename) arrives as one change.
    pub debounce: Duration,
}

impl Default for WatchSettings {
    fn default() -> Self {
        Self { watch: true, debounce: Duration::from_millis(100) }
    }
}

/// A material file the store holds: a small copyable name for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MaterialSourceId(u32);

impl MaterialSourceId {
    /// The index of the source in its store (dense, from 0).
    pub fn index(self) -> u32 {
        self.0
    }
}

/// One good version of a material: read, checked, and every variant composed, validated and
/// compiled for the store's backend.
#[derive(Debug)]
pub struct MaterialVersion {
    /// The material as loaded.
    pub loaded: Arc<LoadedMaterial>,
    /// Counts the good versions of this source: 1 for the first.
    pub generation: u64,
    variants: [Arc<CompiledMaterial>; 3],
    /// A hash of what the version was built from (the `.ron` text and each variant's
    /// composed WGSL), so a save that changes nothing is not a reload.
    content: u64,
}

impl MaterialVersion {
    /// The compiled `variant`.
    pub fn variant(&self, variant: Variant) -> &Arc<CompiledMaterial> {
        &self.variants[variant_index(variant)]
    }

    /// Every file this version was built from: the `.ron`, its `fragment_file`, each
    /// project include (once each).
    pub fn files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = Vec::new();
        for v in &self.variants {
            for f in &v.files {
                if !files.contains(f) {
                    files.push(f.clone());
                }
            }
        }
        files
    }
}

fn variant_index(v: Variant) -> usize {
    match v {
        Variant::Color => 0,
        Variant::DepthOnly => 1,
        Variant::Shadow => 2,
    }
}

/// What happened to a material source, reported by [`MaterialStore::poll`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum StoreEvent {
    /// The first good version (at [`load`](MaterialStore::load), or the first good save after
    /// a first load that failed).
    Loaded {
        /// The source.
        source: MaterialSourceId,
        /// The material's name.
        name: String,
        /// When the store learnt of the change (the debounced file event, or the request):
        /// `changed_at.elapsed()` once the new version is on screen is save-to-frame latency
        /// without the debounce.
        changed_at: Instant,
    },
    /// A later good version replaced the one before.
    Reloaded {
        /// The source.
        source: MaterialSourceId,
        /// The material's name (as the new version says).
        name: String,
        /// When the store learnt of the change.
        changed_at: Instant,
    },
    /// A load or reload failed; the last good version (if any) stays. Reported once per
    /// distinct error.
    Failed {
        /// The source.
        source: MaterialSourceId,
        /// The `.ron` file.
        path: PathBuf,
        /// The first problem found.
        error: MaterialError,
    },
}

impl StoreEvent {
    /// The source the event is about.
    pub fn source(&self) -> MaterialSourceId {
        match self {
            Self::Loaded { source, .. } | Self::Reloaded { source, .. } | Self::Failed { source, .. } => {
                *source
            }
        }
    }
}

/// `path:line:col: message` on one line: the error's first line at its location (the `.ron`
/// file's first line when the error has no location, as a backend's refusal does).
pub fn one_line_error(ron: &Path, error: &MaterialError) -> String {
    let at = error.location().cloned().unwrap_or_else(|| Location::file(ron));
    let message = error.to_string();
    format!("{at}: {}", message.lines().next().unwrap_or(""))
}

struct Entry {
    /// The `.ron`, absolute and normalised.
    path: PathBuf,
    current: Option<Arc<MaterialVersion>>,
    /// The files a change to which reloads this source.
    dependencies: Vec<PathBuf>,
    /// The folders watched for it.
    folders: Vec<PathBuf>,
    /// The one-line form of the last failure reported, until a good version clears it.
    failure: Option<String>,
}

/// A batch from the watcher thread, stamped when it arrived.
type Batch = (Instant, DebounceEventResult);

/// The files the store watches, through notify (debounced). Owned by the store.
struct Watcher {
    debouncer: Debouncer<notify::RecommendedWatcher, RecommendedCache>,
    /// Folders watched.
    watched: BTreeSet<PathBuf>,
}

/// Materials by file, kept at their last good version and reloaded when their files change.
/// See the [module docs](self).
pub struct MaterialStore {
    options: CompileOptions,
    compiler: Option<Arc<dyn MaterialCompiler>>,
    settings: WatchSettings,
    entries: Vec<Entry>,
    watcher: Option<Watcher>,
    /// Whether making the watcher failed (reported once; the store then only reloads on
    /// request).
    watch_failed: bool,
    /// Folders that could not be watched yet (they did not exist): tried again at each poll.
    unwatched: BTreeSet<PathBuf>,
    sender: Sender<Batch>,
    receiver: Receiver<Batch>,
    signal_sender: Sender<()>,
    signal: Receiver<()>,
    /// Batches taken by [`wait`](Self::wait) and not yet polled.
    received: Vec<Batch>,
    /// Sources to reload at the next poll, and since when.
    requested: Vec<(usize, Instant)>,
    /// Entries [`request_reload`](MaterialStore::request_reload)ed: rebuilt even when nothing
    /// changed.
    forced: Vec<usize>,
    events: Vec<StoreEvent>,
}

impl std::fmt::Debug for MaterialStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MaterialStore")
            .field("sources", &self.entries.iter().map(|e| &e.path).collect::<Vec<_>>())
            .field("settings", &self.settings)
            .field("watching", &self.watcher.as_ref().map(|w| &w.watched))
            .finish()
    }
}

/// Wakes a thread waiting for file changes: cloned out of a store with
/// [`MaterialStore::change_signal`], usable where the store is not (another world, another
/// thread).
#[derive(Clone, Debug)]
pub struct ChangeSignal(Receiver<()>);

impl ChangeSignal {
    /// Blocks until a watched file changed (after the debounce) or `timeout` passed; true on a
    /// change. Consumes the wake-up, not the change: the store still sees it at its next poll.
    pub fn wait(&self, timeout: Duration) -> bool {
        self.0.recv_timeout(timeout).is_ok()
    }
}

impl MaterialStore {
    /// An empty store compiling with `options` and, when given, the live backend's
    /// `compiler` (without one, a version is complete once naga validated it).
    pub fn new(
        options: CompileOptions,
        compiler: Option<Arc<dyn MaterialCompiler>>,
        settings: WatchSettings,
    ) -> Self {
        let (sender, receiver) = crossbeam_channel::unbounded();
        let (signal_sender, signal) = crossbeam_channel::bounded(1);
        Self {
            options,
            compiler,
            settings,
            entries: Vec::new(),
            watcher: None,
            watch_failed: false,
            unwatched: BTreeSet::new(),
            sender,
            receiver,
            signal_sender,
            signal,
            received: Vec::new(),
            requested: Vec::new(),
            forced: Vec::new(),
            events: Vec::new(),
        }
    }

    /// Checks the versions read from now on with `compiler` (the live device changed: one
    /// recovered after a loss may be another backend). Complete versions stay as they are.
    pub fn set_compiler(&mut self, compiler: Option<Arc<dyn MaterialCompiler>>) {
        self.compiler = compiler;
    }

    /// The options materials are compiled with.
    pub fn options(&self) -> &CompileOptions {
        &self.options
    }

    /// Registers the material at `path` and loads it now; the same file (after making the
    /// path absolute) gives the same source. Never fails: a first load that fails is reported
    /// as [`StoreEvent::Failed`] at the next poll, and the source loads when its file is
    /// fixed.
    pub fn load(&mut self, path: &Path) -> MaterialSourceId {
        self.register(path, None)
    }

    /// [`load`](Self::load) for a material the caller has already read (`known`, read from
    /// `path`): when the file still holds the same text, the first version is `known` itself
    /// rather than a second reading of it, so what was compiled for it (its variants are kept
    /// with it, [`LoadedMaterial::compiled`]) is not compiled again.
    pub fn load_known(&mut self, path: &Path, known: Arc<LoadedMaterial>) -> MaterialSourceId {
        self.register(path, Some(known))
    }

    fn register(&mut self, path: &Path, known: Option<Arc<LoadedMaterial>>) -> MaterialSourceId {
        let path = absolute(path);
        if let Some(i) = self.entries.iter().position(|e| e.path == path) {
            return MaterialSourceId(i as u32);
        }
        let index = self.entries.len();
        self.entries.push(Entry {
            dependencies: vec![path.clone()],
            folders: Vec::new(),
            path,
            current: None,
            failure: None,
        });
        self.reload_from(index, Instant::now(), true, known);
        MaterialSourceId(index as u32)
    }

    /// The last good version of `source`; `None` while it has never loaded.
    pub fn get(&self, source: MaterialSourceId) -> Option<&Arc<MaterialVersion>> {
        self.entries.get(source.0 as usize)?.current.as_ref()
    }

    /// The `.ron` file of `source` (absolute).
    pub fn path(&self, source: MaterialSourceId) -> Option<&Path> {
        self.entries.get(source.0 as usize).map(|e| e.path.as_path())
    }

    /// The files a change to which reloads `source`: the `.ron`, its `fragment_file` and its
    /// includes (as of its last load attempt).
    pub fn dependencies(&self, source: MaterialSourceId) -> &[PathBuf] {
        self.entries.get(source.0 as usize).map_or(&[], |e| e.dependencies.as_slice())
    }

    /// Every source registered.
    pub fn sources(&self) -> impl Iterator<Item = MaterialSourceId> + '_ {
        (0..self.entries.len() as u32).map(MaterialSourceId)
    }

    /// The source whose good version is `loaded` (by identity), if any.
    pub fn version_of(&self, loaded: &Arc<LoadedMaterial>) -> Option<&Arc<MaterialVersion>> {
        self.entries.iter().filter_map(|e| e.current.as_ref()).find(|v| Arc::ptr_eq(&v.loaded, loaded))
    }

    /// Reloads `source` at the next poll, as if its files had changed, and makes a new version
    /// even when they did not (a "reload now" button; benchmarks use it to leave the file
    /// watcher's latency out). A change seen by the watcher that leaves every file as it was
    /// makes no new version and no event.
    pub fn request_reload(&mut self, source: MaterialSourceId) {
        let i = source.0 as usize;
        if i < self.entries.len() && !self.forced.contains(&i) {
            self.forced.push(i);
        }
        if i < self.entries.len() && !self.requested.iter().any(|(r, _)| *r == i) {
            self.requested.push((i, Instant::now()));
        }
    }

    /// Whether files are being watched (false when watching is off or the watcher could not
    /// be made).
    pub fn is_watching(&self) -> bool {
        self.watcher.is_some()
    }

    /// A handle that blocks until a watched file changes.
    pub fn change_signal(&self) -> ChangeSignal {
        ChangeSignal(self.signal.clone())
    }

    /// Blocks until the watcher delivers a change or `timeout` passes (true on a change, or
    /// when a reload is already requested). The change is handled by the next
    /// [`poll`](Self::poll).
    pub fn wait(&mut self, timeout: Duration) -> bool {
        if !self.requested.is_empty() || !self.received.is_empty() {
            return true;
        }
        match self.receiver.recv_timeout(timeout) {
            Ok(batch) => {
                self.received.push(batch);
                true
            }
            Err(_) => false,
        }
    }

    /// Reloads every source whose files changed since the last poll (each once, however many
    /// events its files had) and returns what happened, loads by [`load`](Self::load) first.
    pub fn poll(&mut self) -> Vec<StoreEvent> {
        self.retry_unwatched();
        while let Ok(batch) = self.receiver.try_recv() {
            self.received.push(batch);
        }
        let mut dirty: Vec<(usize, Instant)> = std::mem::take(&mut self.requested);
        for (at, batch) in std::mem::take(&mut self.received) {
            match batch {
                Ok(events) => {
                    for event in events {
                        if !is_change(&event.kind) {
                            continue;
                        }
                        for path in &event.paths {
                            let path = normalise(path);
                            for (i, entry) in self.entries.iter().enumerate() {
                                if entry.is_affected_by(&path) && !dirty.iter().any(|(d, _)| *d == i) {
                                    dirty.push((i, at));
                                }
                            }
                        }
                    }
                }
                Err(errors) => {
                    for e in errors {
                        tracing::warn!("material file watcher: {e}");
                    }
                }
            }
        }
        dirty.sort_by_key(|(i, _)| *i);
        let forced = std::mem::take(&mut self.forced);
        for (i, at) in dirty {
            self.reload(i, at, forced.contains(&i));
        }
        std::mem::take(&mut self.events)
    }

    /// Builds a new version of entry `index`; keeps the old one on failure.
    /// `force`: make a new version even if nothing changed.
    fn reload(&mut self, index: usize, changed_at: Instant, force: bool) {
        self.reload_from(index, changed_at, force, None);
    }

    fn reload_from(
        &mut self,
        index: usize,
        changed_at: Instant,
        force: bool,
        known: Option<Arc<LoadedMaterial>>,
    ) {
        let path = self.entries[index].path.clone();
        let result = build(&path, &self.options, self.compiler.as_deref(), known);
        let source = MaterialSourceId(index as u32);
        let entry = &mut self.entries[index];
        match result {
            Ok((loaded, variants)) => {
                let content = content_hash(&loaded, &variants);
                // An editor that re-saves the same text, or a late event for a change already
                // taken, changes nothing: no new version, no event.
                if !force
                    && entry.failure.is_none()
                    && entry.current.as_ref().is_some_and(|c| c.content == content)
                {
                    return;
                }
                let generation = entry.current.as_ref().map_or(1, |c| c.generation + 1);
                let version = Arc::new(MaterialVersion { loaded, generation, variants, content });
                let name = version.loaded.desc.name.clone();
                entry.dependencies = version.files().iter().map(|f| normalise(f)).collect();
                if !entry.dependencies.contains(&path) {
                    entry.dependencies.insert(0, path.clone());
                }
                entry.current = Some(version);
                entry.failure = None;
                self.events.push(if generation == 1 {
                    StoreEvent::Loaded { source, name, changed_at }
                } else {
                    StoreEvent::Reloaded { source, name, changed_at }
                });
            }
            Err((error, files)) => {
                for f in files {
                    let f = normalise(&f);
                    if !entry.dependencies.contains(&f) {
                        entry.dependencies.push(f);
                    }
                }
                let line = one_line_error(&path, &error);
                if entry.failure.as_deref() != Some(line.as_str()) {
                    entry.failure = Some(line);
                    self.events.push(StoreEvent::Failed { source, path: path.clone(), error });
                }
            }
        }
        self.watch_entry(index);
    }

    /// Watches the folders entry `index` depends on (its files', its `.ron`'s and the
    /// project include folders).
    fn watch_entry(&mut self, index: usize) {
        if !self.settings.watch {
            return;
        }
        let entry = &self.entries[index];
        let mut folders: Vec<PathBuf> =
            entry.dependencies.iter().filter_map(|f| f.parent().map(Path::to_owned)).collect();
        folders.extend(self.options.include_dirs.iter().map(|d| normalise(&absolute(d))));
        folders.sort();
        folders.dedup();
        self.entries[index].folders = folders.clone();
        for folder in folders {
            self.watch_folder(folder);
        }
    }

    fn watch_folder(&mut self, folder: PathBuf) {
        if self.watcher.as_ref().is_some_and(|w| w.watched.contains(&folder)) {
            return;
        }
        if self.watcher.is_none() && !self.watch_failed {
            let sender = self.sender.clone();
            let signal = self.signal_sender.clone();
            let made = new_debouncer(self.settings.debounce, None, move |result: DebounceEventResult| {
                // The store may be gone (the app is shutting down): then nobody listens.
                let _ = sender.send((Instant::now(), result));
                let _ = signal.try_send(());
            });
            match made {
                Ok(debouncer) => self.watcher = Some(Watcher { debouncer, watched: BTreeSet::new() }),
                Err(e) => {
                    self.watch_failed = true;
                    tracing::warn!("material files cannot be watched ({e}); they will not hot-reload");
                }
            }
        }
        let Some(watcher) = self.watcher.as_mut() else { return };
        match watcher.debouncer.watch(&folder, notify::RecursiveMode::NonRecursive) {
            Ok(()) => {
                self.unwatched.remove(&folder);
                watcher.watched.insert(folder);
            }
            // A folder that does not exist yet is tried again at each poll; other errors
            // (permissions, watch limits) are said once.
            Err(e) => {
                if folder.is_dir() && !self.unwatched.contains(&folder) {
                    tracing::warn!("cannot watch {}: {e}", folder.display());
                }
                self.unwatched.insert(folder);
            }
        }
    }

    fn retry_unwatched(&mut self) {
        if self.unwatched.is_empty() {
            return;
        }
        let ready: Vec<PathBuf> = self.unwatched.iter().filter(|f| f.is_dir()).cloned().collect();
        for folder in ready {
            self.unwatched.remove(&folder);
            self.watch_folder(folder.clone());
            // A folder that appeared may already hold the files that were missing.
            let now = Instant::now();
            for (i, e) in self.entries.iter().enumerate() {
                if e.current.is_none()
                    && e.folders.contains(&folder)
                    && !self.requested.iter().any(|(r, _)| *r == i)
                {
                    self.requested.push((i, now));
                }
            }
        }
    }
}

impl Entry {
    /// Whether a change to `path` may change this material: one of its files changed, or,
    /// while it is failing (its files may be missing or named differently), any file in
    /// its folders.
    fn is_affected_by(&self, path: &Path) -> bool {
        if self.dependencies.iter().any(|d| d == path) {
            return true;
        }
        let failing = self.current.is_none() || self.failure.is_some();
        failing && path.parent().is_some_and(|p| self.folders.iter().any(|f| f == p))
    }
}

/// Whether a file event can change a file's contents or existence. Opening and reading do
/// not (the store's own reads would reload forever), nor do access-time updates.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime)) => false,
        EventKind::Any | EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) => true,
        EventKind::Other => false,
    }
}

/// Reads, composes, validates and compiles every variant; on failure the first error and the
/// files known to matter.
#[allow(clippy::type_complexity)]
/// What a version was built from, as one hash: the `.ron` text and the composed WGSL of
/// every variant (which holds the fragment file and every include).
fn content_hash(loaded: &LoadedMaterial, variants: &[Arc<CompiledMaterial>; 3]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    loaded.source.text().hash(&mut h);
    for v in variants {
        v.source.text().hash(&mut h);
    }
    h.finish()
}

/// A material read and every variant compiled: what [`build`] makes of a good save.
type Built = (Arc<LoadedMaterial>, [Arc<CompiledMaterial>; 3]);

fn build(
    path: &Path,
    options: &CompileOptions,
    compiler: Option<&dyn MaterialCompiler>,
    known: Option<Arc<LoadedMaterial>>,
) -> Result<Built, (MaterialError, Vec<PathBuf>)> {
    let loaded = read_material(path).map_err(|errors| {
        let files: Vec<PathBuf> = errors
            .iter()
            .filter_map(|e| match e {
                MaterialError::MissingFile { looked_at, .. } => Some(looked_at.clone()),
                _ => None,
            })
            .collect();
        let first = errors.into_iter().next().unwrap_or_else(|| MaterialError::Io {
            at: Location::file(path),
            what: "material",
            reason: "the material could not be read".into(),
        });
        (first, files)
    })?;
    // The caller's reading of the same text is the same material: keep it (and what it has
    // compiled) rather than this one.
    let loaded = match known {
        Some(k) if k.path() == loaded.path() && k.same_text(&loaded) => k,
        _ => Arc::new(loaded),
    };
    let files = loaded.files.clone();
    let compile = |variant| -> Result<Arc<CompiledMaterial>, MaterialError> {
        let compiled = loaded.compiled(variant, options)?;
        if let Some(compiler) = compiler {
            let label = format!("{} ({})", loaded.desc.name, variant.name());
            compiler.compile(&label, &compiled.module)?;
        }
        Ok(compiled)
    };
    // Colour, depth-only and shadow (`Variant::ALL`'s order), each on a thread of its own.
    let variants = crate::compile::compile_variants(path, compile);
    match variants {
        [Ok(c), Ok(d), Ok(s)] => Ok((loaded, [c, d, s])),
        [c, d, s] => {
            // A problem in user code shows in every variant: report the first one.
            let error = [c, d, s].into_iter().find_map(Result::err);
            let error = error.unwrap_or_else(|| MaterialError::Io {
                at: Location::file(path),
                what: "material",
                reason: "no variant compiled".into(),
            });
            Err((error, files))
        }
    }
}

/// `path` made absolute against the current folder (without touching the file system, so a
/// file that does not exist yet has a path too).
fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir().map_or_else(|_| path.to_owned(), |cwd| cwd.join(path))
    };
    normalise(&joined)
}

/// `.` and `..` resolved lexically, so a dependency found through `shaders/../x.wgsl` is the
/// file the watcher reports as `x.wgsl`.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalised_lexically() {
        assert_eq!(normalise(Path::new("/a/./b/../c.wgsl")), PathBuf::from("/a/c.wgsl"));
        assert!(absolute(Path::new("x.ron")).is_absolute());
    }

    #[test]
    fn reads_are_not_changes() {
        assert!(!is_change(&EventKind::Access(AccessKind::Open(AccessMode::Any))));
        assert!(!is_change(&EventKind::Access(AccessKind::Close(AccessMode::Read))));
        assert!(is_change(&EventKind::Access(AccessKind::Close(AccessMode::Write))));
        assert!(is_change(&EventKind::Modify(ModifyKind::Name(notify::event::RenameMode::Both))));
        assert!(is_change(&EventKind::Remove(notify::event::RemoveKind::File)));
    }
}
