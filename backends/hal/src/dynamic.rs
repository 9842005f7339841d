//! Backends loaded at run time: a backend crate built as a `cdylib` named
//! `libf3d_backend_<name>.so` (`.dylib` on macOS, `f3d_backend_<name>.dll` on Windows)
//! exports two functions, and [`DeviceRegistry::load_dir`] registers it like a compiled-in one.
//!
//! * `f3d_backend_<name>_abi() -> *const c_char` — the [`ABI`] string the library was built
//!   with: the f3d version, the rustc version, the target and whether debug assertions were
//!   on. The loader refuses a library whose string differs from its own, naming both: Rust
//!   has no stable ABI, and what crosses the boundary ([`DeviceRegistry`], devices as
//!   `Arc<dyn GraphicsDevice>`, naga modules) is laid out alike only when built alike.
//! * `f3d_backend_<name>_register(registry: *mut DeviceRegistry)` — adds exactly one backend,
//!   named `<name>`, to the registry (the loader removes anything else and refuses the
//!   library).
//!
//! The template backend (`f3d create backend`) exports both; see `f3d_backend_null`. A loaded
//! library stays loaded until the process exits: devices it opened may outlive any registry.
//!
//! Both sides must use the same global allocator (Rust's default, the C allocator, unless the
//! program sets its own): objects made in the library are freed in the program and back. The
//! library's `tracing` events go to its own (absent) subscriber.
//!
//! `F3D_BACKEND_PATH` lists directories to load from (`:`-separated, `;` on Windows); the
//! plugin's default registry reads it ([`DeviceRegistry::load_path_list`]).

use std::ffi::{CStr, OsStr, c_char};
use std::fmt;
use std::path::{Path, PathBuf};

use crate::{BackendId, DeviceRegistry};

/// This build's ABI string: `f3d <version>; rustc <version> (<hash> <date>); <target>; [no]
/// debug assertions`.
pub const ABI: &str = env!("F3D_ABI");

const ABI_NUL: &str = concat!(env!("F3D_ABI"), "\0");

/// [`ABI`] as a C string, what a library's `f3d_backend_<name>_abi` returns.
pub const ABI_C: &CStr = match CStr::from_bytes_with_nul(ABI_NUL.as_bytes()) {
    Ok(s) => s,
    Err(_) => panic!("the ABI string holds a NUL byte"),
};

/// The signature of `f3d_backend_<name>_abi`.
pub type AbiFn = unsafe extern "C" fn() -> *const c_char;

/// The signature of `f3d_backend_<name>_register`.
pub type RegisterFn = unsafe extern "C" fn(*mut DeviceRegistry);

/// The file name a backend library of `name` has on this platform.
pub fn library_file_name(name: &str) -> String {
    format!("{}f3d_backend_{name}{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX)
}

/// The backend name of a library file name (lower-cased), if it is one.
pub fn backend_name_of(file_name: &str) -> Option<String> {
    let stem =
        file_name.strip_prefix(std::env::consts::DLL_PREFIX)?.strip_suffix(std::env::consts::DLL_SUFFIX)?;
    let name = stem.strip_prefix("f3d_backend_")?;
    (!name.is_empty()).then(|| name.to_ascii_lowercase())
}

/// Why a library was not registered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The directory could not be listed.
    #[error("{}: cannot list backends: {reason}", path.display())]
    Directory {
        /// The directory.
        path: PathBuf,
        /// The system's words.
        reason: String,
    },
    /// The system loader refused the file.
    #[error("{}: cannot load: {reason}", path.display())]
    Open {
        /// The library.
        path: PathBuf,
        /// The system loader's words.
        reason: String,
    },
    /// The library lacks one of the two functions.
    #[error("{}: no `{symbol}`: not an f3d backend library, or not built for the name its file has", path.display())]
    MissingSymbol {
        /// The library.
        path: PathBuf,
        /// The function looked for.
        symbol: String,
    },
    /// Built unlike this program.
    #[error(
        "{}: built as `{library}`, but this program is `{program}`; rebuild the backend with the same f3d, rustc and target",
        path.display()
    )]
    AbiMismatch {
        /// The library.
        path: PathBuf,
        /// The library's ABI string.
        library: String,
        /// This program's ([`ABI`]).
        program: String,
    },
    /// A second library of a name already loaded from this list.
    #[error("{}: a second library for backend {name}; {} was loaded", path.display(), first.display())]
    Duplicate {
        /// The library passed over.
        path: PathBuf,
        /// The backend name.
        name: String,
        /// The library loaded for it.
        first: PathBuf,
    },
    /// Its registration added something other than one backend of its file's name.
    #[error("{}: registered {registered:?}, not the one backend {expected} its name promises", path.display())]
    WrongRegistration {
        /// The library.
        path: PathBuf,
        /// The name from the file.
        expected: String,
        /// What it added (removed again).
        registered: Vec<String>,
    },
}

/// What one [`DeviceRegistry::load_dir`] (or path list) did.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// Each backend registered, with its library.
    pub loaded: Vec<(BackendId, PathBuf)>,
    /// Each library refused, and why.
    pub refused: Vec<LoadError>,
}

impl LoadReport {
    /// One line per library: `loaded <name> from <path>` or `refused <error>`.
    pub fn lines(&self) -> Vec<String> {
        let loaded =
            self.loaded.iter().map(|(id, path)| format!("loaded backend {id} from {}", path.display()));
        loaded.chain(self.refused.iter().map(|e| format!("refused {e}"))).collect()
    }

    fn merge(&mut self, other: LoadReport) {
        self.loaded.extend(other.loaded);
        self.refused.extend(other.refused);
    }
}

impl fmt::Display for LoadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in self.lines() {
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

impl DeviceRegistry {
    /// Registers every backend library in `dir` (see the [module docs](self)): names are
    /// taken from the file names, lower-cased, sorted and de-duplicated; a library whose ABI
    /// string differs from [`ABI`] is refused naming both. Each registered backend is tried
    /// before those added earlier, like any [`add_backend`](Self::add_backend). The report
    /// says what was loaded and why anything was not; it is also kept
    /// ([`load_reports`](Self::load_reports)).
    ///
    /// # Safety
    ///
    /// Loading a library runs its initialisers, and calling it trusts that a library with
    /// this program's ABI string was built from the f3d sources that string names. Load only
    /// libraries you would link.
    pub unsafe fn load_dir(&mut self, dir: &Path) -> LoadReport {
        let mut seen = Vec::new();
        // SAFETY: passed on from the caller.
        let report = unsafe { self.load_dir_inner(dir, &mut seen) };
        self.note_load(&report);
        report
    }

    /// [`load_dir`](Self::load_dir) over each directory of a path list (`F3D_BACKEND_PATH`'s
    /// form: `:`-separated, `;` on Windows), in order; a name loaded from an earlier directory
    /// wins over the same name later.
    ///
    /// # Safety
    ///
    /// As [`load_dir`](Self::load_dir).
    pub unsafe fn load_path_list(&mut self, list: &OsStr) -> LoadReport {
        let mut seen = Vec::new();
        let mut report = LoadReport::default();
        for dir in std::env::split_paths(list).filter(|d| !d.as_os_str().is_empty()) {
            // SAFETY: passed on from the caller.
            report.merge(unsafe { self.load_dir_inner(&dir, &mut seen) });
        }
        self.note_load(&report);
        report
    }

    /// # Safety
    ///
    /// As [`load_dir`](Self::load_dir).
    unsafe fn load_dir_inner(&mut self, dir: &Path, seen: &mut Vec<(String, PathBuf)>) -> LoadReport {
        let mut report = LoadReport::default();
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => {
                report.refused.push(LoadError::Directory { path: dir.to_owned(), reason: e.to_string() });
                return report;
            }
        };
        let mut found: Vec<(String, PathBuf)> = entries
            .flatten()
            .filter_map(|e| {
                let name = backend_name_of(e.file_name().to_str()?)?;
                Some((name, e.path()))
            })
            .collect();
        found.sort();
        for (name, path) in found {
            if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
                report.refused.push(LoadError::Duplicate { path, name, first: first.clone() });
                continue;
            }
            // SAFETY: passed on from the caller.
            match unsafe { self.load_library(&name, &path) } {
                Ok(id) => {
                    seen.push((name, path.clone()));
                    report.loaded.push((id, path));
                }
                Err(e) => report.refused.push(e),
            }
        }
        report
    }

    /// # Safety
    ///
    /// As [`load_dir`](Self::load_dir).
    unsafe fn load_library(&mut self, name: &str, path: &Path) -> Result<BackendId, LoadError> {
        // SAFETY: the caller vouches for what the library's initialisers do.
        let library = unsafe { libloading::Library::new(path) }
            .map_err(|e| LoadError::Open { path: path.to_owned(), reason: e.to_string() })?;
        let abi_symbol = format!("f3d_backend_{name}_abi");
        let register_symbol = format!("f3d_backend_{name}_register");
        let missing =
            |symbol: &str| LoadError::MissingSymbol { path: path.to_owned(), symbol: symbol.to_owned() };
        // SAFETY: the symbol, if present, has the documented signature; its string lives as
        // long as the library, which is kept loaded below.
        let library_abi = unsafe {
            let abi: libloading::Symbol<AbiFn> =
                library.get(abi_symbol.as_bytes()).map_err(|_| missing(&abi_symbol))?;
            let ptr = abi();
            if ptr.is_null() { String::new() } else { CStr::from_ptr(ptr).to_string_lossy().into_owned() }
        };
        if library_abi != ABI {
            return Err(LoadError::AbiMismatch {
                path: path.to_owned(),
                library: library_abi,
                program: ABI.to_owned(),
            });
        }
        // SAFETY: as above; the ABI strings match, so the library's `DeviceRegistry` is this one.
        let register: RegisterFn = unsafe {
            *library.get::<RegisterFn>(register_symbol.as_bytes()).map_err(|_| missing(&register_symbol))?
        };
        let before = self.entry_count();
        // SAFETY: `self` is a live registry, of the same layout (checked above).
        unsafe { register(self) };
        let added = self.names_from(before);
        let expected = BackendId::from_name(name);
        if added.len() != 1 || added[0] != expected {
            self.truncate_entries(before);
            // The library's code may still be referenced by what it allocated; it stays loaded.
            std::mem::forget(library);
            return Err(LoadError::WrongRegistration {
                path: path.to_owned(),
                expected: expected.to_string(),
                registered: added.iter().map(ToString::to_string).collect(),
            });
        }
        // Devices and openers point into the library's code: it stays loaded for good.
        std::mem::forget(library);
        Ok(expected)
    }
}
