//! Hashes this crate's sources into `F3D_SOFT_EXEC_SOURCE`: part of the shader cache's key
//! for stored programs, so a program written by another version of the executor (whose
//! instructions may mean something else) is never read back.

use std::hash::{Hash, Hasher};
use std::path::Path;

fn visit(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            visit(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

fn main() {
    let mut files = Vec::new();
    visit(Path::new("src"), &mut files);
    files.sort();
    // std's hasher with its fixed keys: another toolchain may hash otherwise, which costs
    // one cold start, never a wrong program (the key only has to change with the sources).
    let mut hasher = std::hash::DefaultHasher::new();
    for file in &files {
        file.to_string_lossy().hash(&mut hasher);
        std::fs::read(file).unwrap_or_default().hash(&mut hasher);
    }
    println!("cargo:rustc-env=F3D_SOFT_EXEC_SOURCE={:016x}", hasher.finish());
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=build.rs");
}
