//! `f3d create backend`: a new backend crate, written from the null backend's files
//! ([`f3d_backend_null::TEMPLATE_FILES`]) under a new name.
//!
//! Every `null`, `Null` and `NULL` in the template becomes the name in the same case
//! (`my_gpu`, `MyGpu`, `MY_GPU`), so `--name null --workspace` writes the null crate itself.
//! The manifest names the f3d crates by version (what a crate published on its own does), by
//! path to an f3d checkout (`--f3d-path`), or as workspace dependencies (`--workspace`, for a
//! backend added inside f3d's own workspace).

use std::path::{Path, PathBuf};

/// Where the new crate's manifest finds the f3d crates.
#[derive(Clone, Debug)]
pub enum Dependencies {
    /// `f3d_hal = "<version>"`: from a registry.
    Version(String),
    /// `f3d_hal = { path = "<checkout>/backends/hal" }`: from an f3d checkout.
    Path(PathBuf),
    /// `f3d_hal.workspace = true`: inside f3d's own workspace.
    Workspace,
}

/// Each f3d crate the template may name, and where it lives in an f3d checkout.
const CRATE_PATHS: &[(&str, &str)] = &[
    ("f3d_hal", "backends/hal"),
    ("f3d_materials", "material-assets"),
    ("f3d_conformance", "tests/conformance"),
    ("f3d_testing", "tests/testing"),
];

/// Checks a backend name: lower-case ASCII letters, digits and `_`, starting with a letter.
pub fn check_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_lowercase());
    if !first_ok || !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
        return Err(format!(
            "--name {name:?}: a backend name is lower-case ASCII letters, digits and `_`, starting with a letter"
        ));
    }
    if name.ends_with('_') || name.contains("__") {
        return Err(format!("--name {name:?}: no trailing or doubled `_`"));
    }
    Ok(())
}

/// `my_gpu` as `MyGpu`.
fn upper_camel(name: &str) -> String {
    name.split('_')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

/// The crate's files (path in the crate, text) for backend `name`.
pub fn generate(name: &str, deps: &Dependencies) -> Result<Vec<(PathBuf, String)>, String> {
    check_name(name)?;
    let (camel, screaming) = (upper_camel(name), name.to_ascii_uppercase());
    let rename = |text: &str| text.replace("null", name).replace("Null", &camel).replace("NULL", &screaming);
    f3d_backend_null::TEMPLATE_FILES
        .iter()
        .map(|(path, text)| {
            let text = rename(text);
            let text = if *path == "Cargo.toml" { manifest(&text, deps)? } else { text };
            Ok((PathBuf::from(path), text))
        })
        .collect()
}

/// The template's manifest with its workspace inheritance resolved as `deps` says.
fn manifest(text: &str, deps: &Dependencies) -> Result<String, String> {
    if matches!(deps, Dependencies::Workspace) {
        return Ok(text.to_owned());
    }
    let mut out = String::new();
    let mut in_lints = false;
    for line in text.lines() {
        if line.starts_with('[') {
            in_lints = line == "[lints]";
            if in_lints {
                // Outside f3d's workspace there is no `[workspace.lints]`: the same rules, spelt out.
                out.push_str("[lints.rust]\nmissing_docs = \"warn\"\nunsafe_op_in_unsafe_fn = \"deny\"\n");
                continue;
            }
        }
        if in_lints {
            continue;
        }
        let resolved = match line.split_once(".workspace = true") {
            Some(("version", "")) => "version = \"0.1.0\"".to_owned(),
            Some(("edition", "")) => "edition = \"2024\"".to_owned(),
            Some(("rust-version", "")) => format!("rust-version = \"{}\"", env!("CARGO_PKG_RUST_VERSION")),
            Some(("license", "")) => continue,
            Some((krate, "")) => {
                let Some((_, rel)) = CRATE_PATHS.iter().find(|(c, _)| *c == krate) else {
                    return Err(format!(
                        "the template depends on {krate}, which `f3d create backend` cannot place"
                    ));
                };
                match deps {
                    Dependencies::Version(v) => format!("{krate} = \"{v}\""),
                    Dependencies::Path(root) => {
                        let path = root.join(rel);
                        format!("{krate} = {{ path = {:?} }}", path.display().to_string())
                    }
                    Dependencies::Workspace => unreachable!("returned above"),
                }
            }
            _ => line.to_owned(),
        };
        out.push_str(&resolved);
        out.push('\n');
    }
    Ok(out)
}

/// Writes `files` under `dir`, which must not exist or be empty.
pub fn write(dir: &Path, files: &[(PathBuf, String)]) -> Result<(), String> {
    if dir.read_dir().is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(format!("{}: exists and is not empty; choose another --path", dir.display()));
    }
    for (path, text) in files {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}
