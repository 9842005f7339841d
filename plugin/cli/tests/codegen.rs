//! `f3d material codegen` as a user runs it: the built binary writes a typed struct for an
//! example material, and refuses a material that does not compile with `path:line:col` and
//! no output.

use std::process::Command;

const TOON: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/assets/materials/toon.ron");

#[test]
fn codegen_writes_a_struct_and_refuses_a_broken_material() {
    let dir = std::env::temp_dir().join(format!("f3d_cli_codegen_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");

    let out = dir.join("toon.rs");
    let run = Command::new(env!("CARGO_BIN_EXE_f3d"))
        .args(["material", "codegen", TOON, "--name", "ToonParams", "--out"])
        .arg(&out)
        .output()
        .expect("f3d runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let source = std::fs::read_to_string(&out).expect("the struct was written");
    assert!(source.contains("pub struct ToonParams {"), "{source}");
    assert!(source.contains("pub fn set_band_count(&mut self, value: i32) -> &mut Self"), "{source}");
    assert!(
        source.contains("pub base_color_texture: Option<f3d::bevy_asset::Handle<f3d::bevy_image::Image>>")
    );

    let broken = dir.join("broken.ron");
    let text = std::fs::read_to_string(TOON)
        .unwrap()
        .replace("(name: \"band_count\", type: Int", "(name: \"band_count\", type: Integer");
    std::fs::write(&broken, &text).unwrap();
    let run =
        Command::new(env!("CARGO_BIN_EXE_f3d")).args(["material", "codegen"]).arg(&broken).output().unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert!(run.stdout.is_empty(), "no source for a broken material");
    let line = text.lines().position(|l| l.contains("Integer")).unwrap() + 1;
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains(&format!("{}:{line}:", broken.display())), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
