//! The shader cache on disk: entries round-trip, a corrupt or truncated entry is refused,
//! removed and rebuilt, writes leave no temporary files, the size cap evicts the entry used
//! longest ago, the location follows the environment, and a module's compiled form is read
//! back by a later "run" (a fresh module from the same source) instead of made.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use f3d_hal::ValidatedModule;
use f3d_hal::shader_cache::{CacheKey, CacheStats, DEFAULT_CAP_BYTES, NAGA_VERSION, ShaderCache};

fn temp_dir(label: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("f3d-shader-cache-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn entries_round_trip_and_writes_are_whole_files() {
    let dir = temp_dir("round-trip");
    let cache = ShaderCache::at(&dir, 1 << 20);
    let key = CacheKey::of(&[b"source", b"vulkan spirv main"]);
    assert_eq!(cache.get(&key), None);
    cache.put(&key, b"compiled words");
    assert_eq!(cache.get(&key).as_deref(), Some(&b"compiled words"[..]));
    assert_eq!(entries(&dir), [format!("{}.bin", key.hex())], "one entry, no temporary file left");
    assert_ne!(key, CacheKey::of(&[b"sourcevulkan", b" spirv main"]), "parts never run together");
    assert_eq!(cache.stats(), CacheStats { hits: 1, ..CacheStats::default() });
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_corrupt_or_truncated_entry_is_removed_and_rebuilt() {
    let dir = temp_dir("corrupt");
    let cache = ShaderCache::at(&dir, 1 << 20);
    let key = CacheKey::of(&[b"corrupt me"]);
    let file = dir.join(format!("{}.bin", key.hex()));
    type Damage = fn(&mut Vec<u8>);
    let damages: [(&str, Damage); 4] = [
        ("a flipped payload byte", |b| *b.last_mut().expect("bytes") ^= 0x40),
        ("a truncated payload", |b| b.truncate(b.len() - 3)),
        ("a truncated header", |b| b.truncate(20)),
        ("an empty file", Vec::clear),
    ];
    for (n, (what, damage)) in damages.into_iter().enumerate() {
        cache.put(&key, b"0123456789abcdef");
        let mut bytes = std::fs::read(&file).expect("written");
        damage(&mut bytes);
        std::fs::write(&file, &bytes).expect("damaged");
        assert_eq!(cache.get(&key), None, "{what}");
        assert!(!file.exists(), "{what}: the entry is removed");
        assert_eq!(cache.stats().corrupt, n as u64 + 1, "{what}");
    }
    cache.put(&key, b"rebuilt");
    assert_eq!(cache.get(&key).as_deref(), Some(&b"rebuilt"[..]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn past_the_cap_the_entry_used_longest_ago_goes() {
    let dir = temp_dir("evict");
    let payload = [7u8; 1000];
    let probe = ShaderCache::at(&dir, u64::MAX);
    probe.put(&CacheKey::of(&[b"probe"]), &payload);
    let entry_len =
        std::fs::metadata(dir.join(format!("{}.bin", CacheKey::of(&[b"probe"]).hex()))).expect("entry").len();
    std::fs::remove_dir_all(&dir).expect("cleared");

    // Room for two entries.
    let cache = ShaderCache::at(&dir, entry_len * 2);
    let [a, b, c] = [b"a", b"b", b"c"].map(|k| CacheKey::of(&[k]));
    let age = |key: &CacheKey, secs: u64| {
        let file = std::fs::File::options()
            .append(true)
            .open(dir.join(format!("{}.bin", key.hex())))
            .expect("entry");
        file.set_modified(SystemTime::now() - Duration::from_secs(secs)).expect("mtime");
    };
    cache.put(&a, &payload);
    age(&a, 300);
    cache.put(&b, &payload);
    age(&b, 200);
    // Reading `a` makes it the most recently used: `b` is now the oldest.
    assert!(cache.get(&a).is_some());
    cache.put(&c, &payload);
    assert!(cache.get(&a).is_some() && cache.get(&c).is_some());
    assert_eq!(cache.get(&b), None, "the least recently used entry was evicted");
    assert_eq!(cache.stats().evicted, 1);
    assert_eq!(entries(&dir).len(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_location_follows_the_environment() {
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).to_owned())
    };
    let dir = |c: ShaderCache| c.dir().map(Path::to_path_buf);
    const ALL: &[(&str, &str)] = &[("F3D_CACHE_DIR", "/c"), ("XDG_CACHE_HOME", "/x"), ("HOME", "/h")];
    assert_eq!(dir(ShaderCache::from_env_with(env(ALL))), Some("/c/shaders".into()));
    assert_eq!(dir(ShaderCache::from_env_with(env(&ALL[1..]))), Some("/x/f3d/shaders".into()));
    assert_eq!(dir(ShaderCache::from_env_with(env(&ALL[2..]))), Some("/h/.cache/f3d/shaders".into()));
    assert_eq!(dir(ShaderCache::from_env_with(env(&[]))), None);
    assert_eq!(dir(ShaderCache::from_env_with(env(&[("HOME", "/h"), ("F3D_SHADER_CACHE", "off")]))), None);

    // The cap: MiB; what is not a whole number of MiB, or overflows bytes, is the default.
    let cap = |pairs: &'static [(&'static str, &'static str)]| ShaderCache::from_env_with(env(pairs)).cap();
    assert_eq!(cap(&[("HOME", "/h"), ("F3D_SHADER_CACHE_MB", "3")]), 3 << 20);
    for bad in
        [&[("HOME", "/h"), ("F3D_SHADER_CACHE_MB", "lots")], &[("HOME", "/h"), ("F3D_SHADER_CACHE_MB", "-1")]]
    {
        assert_eq!(cap(bad), DEFAULT_CAP_BYTES, "{bad:?}");
    }
    assert_eq!(cap(&[("HOME", "/h"), ("F3D_SHADER_CACHE_MB", "18446744073709551615")]), DEFAULT_CAP_BYTES);
}

#[test]
fn naga_version_is_the_one_cargo_resolved() {
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock"))
        .expect("Cargo.lock");
    let resolved = lock
        .split("[[package]]")
        .find(|p| p.contains("\nname = \"naga\"\n"))
        .and_then(|p| {
            p.lines().find_map(|l| l.strip_prefix("version = \"")?.strip_suffix('"').map(str::to_owned))
        })
        .expect("naga in Cargo.lock");
    assert_eq!(NAGA_VERSION, resolved, "update shader_cache::NAGA_VERSION with naga");
}

const SOURCE: &str = "@fragment fn main() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }";

fn module(source: Option<&str>) -> ValidatedModule {
    let m = ValidatedModule::new(naga::front::wgsl::parse_str(SOURCE).expect("parses")).expect("validates");
    match source {
        Some(s) => m.with_source(s),
        None => m,
    }
}

/// One "run": a fresh module (as a new process would parse) asking for its form.
fn form(cache: &ShaderCache, source: Option<&str>, made: &mut u32) -> Arc<String> {
    module(source)
        .compiled_cached(
            "test form",
            cache,
            |s: &String| Some(s.clone().into_bytes()),
            |b| String::from_utf8(b.to_vec()).ok().filter(|s| s.starts_with("form")),
            || {
                *made += 1;
                Ok("form of main".to_owned())
            },
        )
        .expect("a form")
}

#[test]
fn a_later_run_reads_the_form_instead_of_making_it() {
    let dir = temp_dir("modules");
    let cache = ShaderCache::at(&dir, 1 << 20);
    let mut made = 0;
    assert_eq!(*form(&cache, Some(SOURCE), &mut made), "form of main");
    assert_eq!(*form(&cache, Some(SOURCE), &mut made), "form of main");
    assert_eq!(made, 1, "the second run read the first one's form");
    assert_eq!((cache.stats().hits, cache.stats().compiles), (1, 1));

    // Another source is another key.
    form(&cache, Some("// edited\n"), &mut made);
    assert_eq!(made, 2);
    // A module with no source is never cached.
    form(&cache, None, &mut made);
    form(&cache, None, &mut made);
    assert_eq!(made, 4);
    assert_eq!(entries(&dir).len(), 2);

    // An entry sound on disk that the backend's reader refuses is replaced.
    let key = CacheKey::of(&[blake3::hash(SOURCE.as_bytes()).as_bytes(), b"test form"]);
    cache.put(&key, b"garbage");
    assert_eq!(*form(&cache, Some(SOURCE), &mut made), "form of main");
    assert_eq!(made, 5);
    assert_eq!(cache.stats().corrupt, 1);
    assert_eq!(*form(&cache, Some(SOURCE), &mut made), "form of main");
    assert_eq!(made, 5, "the rebuilt entry is read");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unwritable_cache_only_costs_the_compile() {
    // A directory that cannot be made: a file stands where it would go.
    let blocker = temp_dir("unwritable");
    std::fs::write(&blocker, b"a file").expect("a file");
    let cache = ShaderCache::at(blocker.join("shaders"), 1 << 20);
    let key = CacheKey::of(&[b"anything"]);
    cache.put(&key, b"form");
    cache.put(&key, b"form");
    assert_eq!(cache.get(&key), None);
    assert_eq!(cache.stats(), CacheStats::default(), "no entry, nothing counted as corrupt");
    let _ = std::fs::remove_file(&blocker);
}
