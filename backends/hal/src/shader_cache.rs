//! The shader cache on disk: each backend's compiled form of a shader (SPIR-V words for
//! vulkan), kept between runs so a warm start skips the compile.
//!
//! * **Keys** hash everything a compiled form depends on: the composed source the module was
//!   parsed from (variant defines included — they are in the text), the backend and its
//!   options (the device's shader capabilities, stage and entry point: the backend's form
//!   key), the naga version and the f3d version. A module made without source text
//!   ([`ValidatedModule::with_source`] never called: tests, traces) is never cached.
//! * **Writes** are atomic: a temporary file in the same directory, then a rename, so a
//!   reader sees a whole entry or none.
//! * **Entries are checked** when read: a magic number, the key and a checksum of the
//!   payload. A corrupt or truncated entry is logged, removed, and compiled again.
//! * **Size**: past the cap (`F3D_SHADER_CACHE_MB`, 256 MiB by default) the entries used
//!   longest ago (by modification time, refreshed on every hit) are removed. A process lists
//!   the directory at its first write and again only when its own count passes the cap.
//! * **Location**: `$F3D_CACHE_DIR/shaders`, else `$XDG_CACHE_HOME/f3d/shaders`, else
//!   `~/.cache/f3d/shaders` (the XDG convention); `F3D_SHADER_CACHE=off` turns it off.
//!
//! [`ValidatedModule::with_source`]: crate::ValidatedModule::with_source

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

/// The naga release compiled forms are made by (a test holds it to `Cargo.lock`).
pub const NAGA_VERSION: &str = "30.0.2";

const MAGIC: &[u8; 8] = b"F3DSHC01";
const HEADER: usize = 8 + 32 + 8 + 32;
/// The size cap when `F3D_SHADER_CACHE_MB` does not set one: 256 MiB.
pub const DEFAULT_CAP_BYTES: u64 = 256 << 20;

/// f3d's cache directory: `$F3D_CACHE_DIR`, else `$XDG_CACHE_HOME/f3d`, else `~/.cache/f3d`
/// (empty values count as unset), read through `env`; `None` with none of them. The shader
/// cache lives in its `shaders/`, vulkan's driver pipeline cache in its `vulkan/`.
pub fn cache_base_dir(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let var = |k: &str| env(k).filter(|v| !v.is_empty());
    var("F3D_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| var("XDG_CACHE_HOME").map(|p| PathBuf::from(p).join("f3d")))
        .or_else(|| var("HOME").map(|p| PathBuf::from(p).join(".cache").join("f3d")))
}

/// A cache key: a BLAKE3 hash of what the compiled form depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey([u8; 32]);

impl CacheKey {
    /// The key of `parts` (each length-prefixed, so parts never run together), with the naga
    /// and f3d versions.
    pub fn of(parts: &[&[u8]]) -> Self {
        let mut h = blake3::Hasher::new();
        for part in [NAGA_VERSION.as_bytes(), env!("CARGO_PKG_VERSION").as_bytes()]
            .into_iter()
            .chain(parts.iter().copied())
        {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part);
        }
        Self(*h.finalize().as_bytes())
    }

    /// The key as hex, the entry's file name.
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// What a cache did, for the one line an app prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Compiled forms read from disk.
    pub hits: u64,
    /// Compiled forms made because the cache had none (then written).
    pub compiles: u64,
    /// Entries found corrupt or truncated (removed, compiled again).
    pub corrupt: u64,
    /// Entries removed to stay under the size cap.
    pub evicted: u64,
}

#[derive(Default)]
struct Counters {
    hits: AtomicU64,
    compiles: AtomicU64,
    corrupt: AtomicU64,
    evicted: AtomicU64,
    /// The directory's size as this process last saw it plus what it wrote since (`None`:
    /// not listed yet); the directory is listed again only when this passes the cap, so a
    /// write costs one file, not one listing of the whole cache.
    size: std::sync::Mutex<Option<u64>>,
    /// Whether a failed write was logged: a read-only cache says so once, not per shader.
    write_failed: std::sync::atomic::AtomicBool,
}

/// A shader cache directory (or none: every lookup misses and nothing is written). Cheap to
/// clone; clones share their counters.
#[derive(Clone)]
pub struct ShaderCache {
    dir: Option<PathBuf>,
    cap: u64,
    counters: Arc<Counters>,
}

impl std::fmt::Debug for ShaderCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShaderCache")
            .field("dir", &self.dir)
            .field("cap", &self.cap)
            .field("stats", &self.stats())
            .finish()
    }
}

impl ShaderCache {
    /// A cache in `dir` holding at most `cap` bytes of entries.
    pub fn at(dir: impl Into<PathBuf>, cap: u64) -> Self {
        Self { dir: Some(dir.into()), cap, counters: Arc::default() }
    }

    /// No cache: every form is compiled (and counted as such).
    pub fn off() -> Self {
        Self { dir: None, cap: 0, counters: Arc::default() }
    }

    /// The cache the environment asks for (see the module docs), read through `env`. A
    /// `F3D_SHADER_CACHE_MB` that is not a whole number of MiB (or past what a `u64` of bytes
    /// holds) is logged, naming the variable and value, and the default cap is used.
    pub fn from_env_with(env: impl Fn(&str) -> Option<String>) -> Self {
        let var = |k: &str| env(k).filter(|v| !v.is_empty());
        if var("F3D_SHADER_CACHE").is_some_and(|v| matches!(v.as_str(), "off" | "0" | "false")) {
            return Self::off();
        }
        let cap = match var("F3D_SHADER_CACHE_MB") {
            None => DEFAULT_CAP_BYTES,
            Some(mb) => match mb.trim().parse::<u64>().ok().and_then(|mb| mb.checked_mul(1 << 20)) {
                Some(bytes) => bytes,
                None => {
                    tracing::warn!(
                        "F3D_SHADER_CACHE_MB={mb:?}: expected a whole number of MiB; using {} MiB",
                        DEFAULT_CAP_BYTES >> 20
                    );
                    DEFAULT_CAP_BYTES
                }
            },
        };
        match cache_base_dir(&env) {
            Some(base) => Self::at(base.join("shaders"), cap),
            None => Self::off(),
        }
    }

    /// [`from_env_with`](Self::from_env_with) over the process environment.
    pub fn from_env() -> Self {
        Self::from_env_with(|k| std::env::var(k).ok())
    }

    /// The size cap, in bytes.
    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// The directory, when there is a cache.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// What this cache (and its clones) did so far.
    pub fn stats(&self) -> CacheStats {
        let c = &self.counters;
        CacheStats {
            hits: c.hits.load(Ordering::Relaxed),
            compiles: c.compiles.load(Ordering::Relaxed),
            corrupt: c.corrupt.load(Ordering::Relaxed),
            evicted: c.evicted.load(Ordering::Relaxed),
        }
    }

    fn path(&self, key: &CacheKey) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join(format!("{}.bin", key.hex())))
    }

    /// The form stored under `key`, read with `decode`, when there is a sound entry that
    /// `decode` accepts (counted as a hit). An entry that fails its checks — or that passes
    /// them but `decode` refuses (a form of another layout) — is logged, removed and counted
    /// as corrupt.
    pub fn load<T>(&self, key: &CacheKey, decode: impl FnOnce(&[u8]) -> Option<T>) -> Option<T> {
        let path = self.path(key)?;
        let data = std::fs::read(&path).ok()?;
        let refused = match check_entry(&data, key) {
            Ok(()) => match decode(&data[HEADER..]) {
                Some(form) => {
                    // Refreshed for least-recently-used eviction; a failure only ages the entry.
                    if let Ok(file) = std::fs::File::options().append(true).open(&path) {
                        let _ = file.set_modified(SystemTime::now());
                    }
                    self.counters.hits.fetch_add(1, Ordering::Relaxed);
                    return Some(form);
                }
                None => "unreadable as its backend's form".to_owned(),
            },
            Err(why) => why,
        };
        tracing::warn!("shader cache: {}: {refused}; removed, compiling again", path.display());
        self.counters.corrupt.fetch_add(1, Ordering::Relaxed);
        let _ = std::fs::remove_file(&path);
        None
    }

    /// The payload stored under `key`, as [`load`](Self::load) with no reader of its own.
    pub fn get(&self, key: &CacheKey) -> Option<Vec<u8>> {
        self.load(key, |bytes| Some(bytes.to_vec()))
    }

    /// Counts a compile made because [`get`](Self::get) had nothing.
    pub fn note_compile(&self) {
        self.counters.compiles.fetch_add(1, Ordering::Relaxed);
    }

    /// Writes `payload` as the entry of `key` (atomically), then keeps the cache under its cap.
    /// Failures (a read-only disk) are logged once per cache and otherwise ignored: the cache
    /// only ever saves work.
    pub fn put(&self, key: &CacheKey, payload: &[u8]) {
        let (Some(dir), Some(path)) = (&self.dir, self.path(key)) else { return };
        if let Err(e) = write_entry(dir, &path, key, payload) {
            if !self.counters.write_failed.swap(true, Ordering::Relaxed) {
                tracing::warn!("shader cache: {}: {e}; compiled shaders will not be kept", path.display());
            }
            return;
        }
        let mut size = self.counters.size.lock().unwrap_or_else(|e| e.into_inner());
        let known = match *size {
            Some(known) => known + (HEADER + payload.len()) as u64,
            None => self.evict(dir),
        };
        *size = Some(if known > self.cap { self.evict(dir) } else { known });
    }

    /// Removes the entries used longest ago until the rest fit the cap; returns the size left.
    fn evict(&self, dir: &Path) -> u64 {
        let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
        let mut files: Vec<(SystemTime, u64, PathBuf)> = entries
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "bin"))
            .filter_map(|e| {
                let meta = e.metadata().ok()?;
                Some((meta.modified().unwrap_or(SystemTime::UNIX_EPOCH), meta.len(), e.path()))
            })
            .collect();
        let mut total: u64 = files.iter().map(|f| f.1).sum();
        if total <= self.cap {
            return total;
        }
        files.sort();
        for (_, len, path) in files {
            if total <= self.cap {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total -= len;
                self.counters.evicted.fetch_add(1, Ordering::Relaxed);
            }
        }
        total
    }
}

fn check_entry(data: &[u8], key: &CacheKey) -> Result<(), String> {
    if data.len() < HEADER || &data[..8] != MAGIC {
        return Err(format!("not a shader cache entry ({} bytes)", data.len()));
    }
    if data[8..40] != key.0 {
        return Err("the entry is for another key".into());
    }
    let len = u64::from_le_bytes(data[40..48].try_into().unwrap_or_default());
    let payload = &data[HEADER..];
    if payload.len() as u64 != len {
        return Err(format!("truncated: {} of {len} payload bytes", payload.len()));
    }
    if blake3::hash(payload).as_bytes()[..] != data[48..80] {
        return Err("the payload does not match its checksum".into());
    }
    Ok(())
}

fn write_entry(dir: &Path, path: &Path, key: &CacheKey, payload: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        key.hex(),
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(MAGIC)?;
        file.write_all(&key.0)?;
        file.write_all(&(payload.len() as u64).to_le_bytes())?;
        file.write_all(blake3::hash(payload).as_bytes())?;
        file.write_all(payload)?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
