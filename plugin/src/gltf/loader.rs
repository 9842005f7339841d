//! The glTF [`AssetLoader`]: parse, resolve buffers and images, then build the sub-assets
//! (see the module docs of [`crate::gltf`]).
//!
//! ```text
//!  bytes ─parse─▶ gltf::Document ─▶ buffers (GLB chunk, data: URIs, files via the context)
//!                                  ─▶ images   (buffer views, data: URIs, files)
//!        ─build─▶ Texture*, Material*, Mesh*/Primitive*, Mesh*, Scene*  ─▶ Gltf
//! ```
//!
//! Reading is async (external files go through the load context, so they are dependencies);
//! building is plain code over the bytes read. No value from the file is trusted: every
//! index, offset and length is checked before it is used.

use std::collections::{BTreeSet, HashMap};

use base64::Engine as _;
use bevy_asset::io::Reader;
use bevy_asset::{AssetLoader, AssetPath, Handle, LoadContext, RenderAssetUsages};
use bevy_image::{CompressedImageFormats, Image, ImageSampler, ImageType};
use bevy_reflect::TypePath;

use super::{Gltf, GltfAssetLabel, GltfMesh, material, mesh, scene};
use crate::material::StandardMaterial;

/// The largest image side (texels) the loader decodes; a larger image fails the load.
pub const MAX_GLTF_IMAGE_SIDE: u32 = 16384;

/// The extensions f3d reads; any other in `extensionsUsed` or `extensionsRequired` is named
/// in [`Gltf::skipped`]. (`KHR_mesh_quantization` needs nothing more: the accessor reader
/// takes every component type, normalized or not.)
const SUPPORTED_EXTENSIONS: &[&str] = &[
    "KHR_lights_punctual",
    "KHR_materials_unlit",
    "KHR_materials_emissive_strength",
    "KHR_mesh_quantization",
];

/// Loads `.gltf` and `.glb` files as a [`Gltf`]. Registered by [`GltfPlugin`](super::GltfPlugin).
#[derive(Clone, Copy, Debug, Default, TypePath)]
pub struct GltfLoader;

/// Why a glTF file did not load. Each names the file (its asset path) and the reason.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GltfLoadError {
    /// The file could not be read.
    #[error("{path}: cannot read the file: {reason}")]
    Io {
        /// The glTF file.
        path: String,
        /// What the reader said.
        reason: String,
    },
    /// The file is not glTF: JSON that does not parse (or is not UTF-8), a bad GLB header or
    /// chunk, or a document that fails the glTF schema (an index out of range, ...).
    #[error("{path}: not a valid glTF file: {reason}")]
    Parse {
        /// The glTF file.
        path: String,
        /// What the parser or validator said.
        reason: String,
    },
    /// A buffer's data could not be had: a missing or unreadable file, a `data:` URI that does
    /// not decode, a GLB without its binary chunk, or fewer bytes than its `byteLength`.
    #[error("{path}: buffer {buffer}: {reason}")]
    Buffer {
        /// The glTF file.
        path: String,
        /// The buffer's index.
        buffer: usize,
        /// What went wrong.
        reason: String,
    },
    /// An accessor does not fit its buffer view or buffer, has a type its attribute cannot
    /// have, or disagrees with the other attributes of its primitive.
    #[error("{path}: accessor {accessor}: {reason}")]
    Accessor {
        /// The glTF file.
        path: String,
        /// The accessor's index.
        accessor: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A primitive's index names a vertex it does not have.
    #[error(
        "{path}: mesh {mesh} primitive {primitive}: index {index} is out of range of its {vertices} vertices"
    )]
    IndexOutOfRange {
        /// The glTF file.
        path: String,
        /// The mesh.
        mesh: usize,
        /// The primitive in it.
        primitive: usize,
        /// The index found.
        index: u32,
        /// How many vertices the primitive has.
        vertices: usize,
    },
    /// An image could not be had or decoded: a missing file, an unknown type, bad data.
    #[error("{path}: image {image}: {reason}")]
    Image {
        /// The glTF file.
        path: String,
        /// The image's index.
        image: usize,
        /// What went wrong.
        reason: String,
    },
    /// An image is larger than [`MAX_GLTF_IMAGE_SIDE`] on a side.
    #[error("{path}: image {image} is {width}x{height} texels (at most {MAX_GLTF_IMAGE_SIDE} a side)")]
    ImageTooLarge {
        /// The glTF file.
        path: String,
        /// The image's index.
        image: usize,
        /// Its width in texels.
        width: u32,
        /// Its height in texels.
        height: u32,
    },
    /// A scene's node hierarchy is not a tree (a node reached twice: a cycle or a shared
    /// child).
    #[error("{path}: scene {scene}: {reason}")]
    Scene {
        /// The glTF file.
        path: String,
        /// The scene's index.
        scene: usize,
        /// What is wrong with it.
        reason: String,
    },
}

/// What the build step reads from: the document, its buffers and the bytes of images that
/// come from URIs.
pub(crate) struct Source<'a> {
    /// The asset path, for errors.
    pub path: &'a str,
    /// The document.
    pub doc: &'a gltf::Document,
    /// Each buffer's bytes (at least its `byteLength`).
    pub buffers: Vec<Vec<u8>>,
    /// The bytes and mime type of each image that comes from a URI (`None` for images in
    /// buffer views).
    pub uri_images: Vec<Option<(Vec<u8>, Option<String>)>>,
}

impl AssetLoader for GltfLoader {
    type Asset = Gltf;
    type Settings = ();
    type Error = GltfLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<Gltf, GltfLoadError> {
        let path = load_context.path().to_string();
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(|e| GltfLoadError::Io { path: path.clone(), reason: e.to_string() })?;
        let Parsed { document, mut blob, unsupported_required } = parse(&path, &bytes)?;
        drop(bytes);
        let mut buffers = Vec::new();
        for buffer in document.buffers() {
            let index = buffer.index();
            let err = |reason: String| GltfLoadError::Buffer { path: path.clone(), buffer: index, reason };
            let data = match buffer.source() {
                gltf::buffer::Source::Bin => {
                    blob.take().ok_or_else(|| err("the file has no GLB binary chunk".into()))?
                }
                gltf::buffer::Source::Uri(uri) => read_uri(load_context, uri).await.map_err(&err)?.0,
            };
            if data.len() < buffer.length() {
                return Err(err(format!("{} bytes, but its byteLength is {}", data.len(), buffer.length())));
            }
            buffers.push(data);
        }
        let mut uri_images = Vec::new();
        for image in document.images() {
            uri_images.push(match image.source() {
                gltf::image::Source::View { .. } => None,
                gltf::image::Source::Uri { uri, mime_type } => {
                    let (data, data_mime) = read_uri(load_context, uri).await.map_err(|reason| {
                        GltfLoadError::Image { path: path.clone(), image: image.index(), reason }
                    })?;
                    let mime = mime_type.map(str::to_owned).or(data_mime).or_else(|| extension_mime(uri));
                    Some((data, mime))
                }
            });
        }
        let source = Source { path: &path, doc: &document, buffers, uri_images };
        build(&source, &unsupported_required, load_context)
    }

    fn extensions(&self) -> &[&str] {
        &["gltf", "glb"]
    }
}

/// Parses and validates the document. `extensionsRequired` is taken out before validation
/// (which refuses every extension the `gltf` crate was not built with) and handed back:
/// those f3d does not support are reported as skipped.
fn parse(path: &str, bytes: &[u8]) -> Result<Parsed, GltfLoadError> {
    let err = |reason: String| GltfLoadError::Parse { path: path.to_owned(), reason };
    let gltf = gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| err(e.to_string()))?;
    let mut json = gltf.document.into_json();
    let required = std::mem::take(&mut json.extensions_required);
    let document = gltf::Document::from_json(json).map_err(|e| match e {
        gltf::Error::Validation(errors) => {
            let listed: Vec<String> =
                errors.iter().take(3).map(|(p, e)| format!("{}: {e}", p.as_str())).collect();
            let more =
                if errors.len() > 3 { format!(" (and {} more)", errors.len() - 3) } else { String::new() };
            err(format!("{}{more}", listed.join("; ")))
        }
        other => err(other.to_string()),
    })?;
    let unsupported_required =
        required.into_iter().filter(|e| !SUPPORTED_EXTENSIONS.contains(&e.as_str())).collect();
    Ok(Parsed { document, blob: gltf.blob, unsupported_required })
}

/// A parsed, validated document.
struct Parsed {
    document: gltf::Document,
    blob: Option<Vec<u8>>,
    /// The entries of `extensionsRequired` f3d does not support.
    unsupported_required: Vec<String>,
}

/// The bytes a URI names (and a `data:` URI's mime type): decoded in place, or a file
/// relative to the glTF read through the load context.
async fn read_uri(
    load_context: &mut LoadContext<'_>,
    uri: &str,
) -> Result<(Vec<u8>, Option<String>), String> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (header, payload) = rest.split_once(',').ok_or("a data: URI without a ','")?;
        let (mime, base64) = match header.strip_suffix(";base64") {
            Some(mime) => (mime, true),
            None => (header, false),
        };
        let data = if base64 {
            base64::engine::general_purpose::STANDARD
                .decode(payload.trim_end())
                .map_err(|e| format!("its data: URI is not base64: {e}"))?
        } else {
            percent_decode(payload)?
        };
        let mime = mime.split(';').next().filter(|m| !m.is_empty()).map(str::to_owned);
        return Ok((data, mime));
    }
    if uri.contains("://") {
        return Err(format!("{uri}: only relative file URIs and data: URIs are read"));
    }
    let decoded = String::from_utf8(percent_decode(uri)?).map_err(|_| format!("{uri}: not UTF-8"))?;
    let relative = AssetPath::parse(&decoded);
    let file: AssetPath<'static> = load_context.path().resolve_embed(&relative);
    let data = load_context.read_asset_bytes(file.clone()).await.map_err(|e| format!("{file}: {e}"))?;
    Ok((data, None))
}

/// `%XX` escapes decoded.
fn percent_decode(s: &str) -> Result<Vec<u8>, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
            let value = hex
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("{s}: a bad % escape"))?;
            out.push(value);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    Ok(out)
}

/// The image mime type a file name's extension implies.
fn extension_mime(uri: &str) -> Option<String> {
    let ext = uri.rsplit('.').next()?.to_ascii_lowercase();
    let mime = match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "ktx2" => "image/ktx2",
        "webp" => "image/webp",
        _ => return None,
    };
    Some(mime.to_owned())
}

/// Builds every sub-asset and the [`Gltf`].
fn build(
    source: &Source<'_>,
    unsupported_required: &[String],
    load_context: &mut LoadContext<'_>,
) -> Result<Gltf, GltfLoadError> {
    let doc = source.doc;
    let mut skipped = BTreeSet::new();
    for ext in doc.extensions_used().chain(unsupported_required.iter().map(String::as_str)) {
        if !SUPPORTED_EXTENSIONS.contains(&ext) {
            skipped.insert(format!("extension {ext}"));
        }
    }
    if doc.animations().next().is_some() {
        skipped.insert("animations".to_owned());
    }
    if doc.skins().next().is_some() || doc.nodes().any(|n| n.skin().is_some()) {
        skipped.insert("skins".to_owned());
    }

    // Textures: sRGB where a material uses them as colour, linear elsewhere.
    let (srgb, linear) = material::texture_uses(doc);
    let mut gltf = Gltf::default();
    let mut decoded: HashMap<(usize, bool), Handle<Image>> = HashMap::new();
    for texture in doc.textures() {
        let i = texture.index();
        let as_srgb = srgb.contains(&i);
        let image = decode_texture(source, &texture, as_srgb)?;
        let handle = load_context.add_labeled_asset(GltfAssetLabel::Texture(i).to_string(), image);
        if as_srgb && linear.contains(&i) {
            let image = decode_texture(source, &texture, false)?;
            let linear =
                load_context.add_labeled_asset(format!("{}/Linear", GltfAssetLabel::Texture(i)), image);
            decoded.insert((i, false), linear);
        }
        decoded.insert((i, as_srgb), handle.clone());
        gltf.textures.push(handle);
    }
    let texture = |index: usize, srgb: bool| -> Option<Handle<Image>> {
        decoded.get(&(index, srgb)).or_else(|| decoded.get(&(index, !srgb))).cloned()
    };

    for m in doc.materials() {
        let Some(i) = m.index() else { continue };
        let standard = material::standard_material(&m, &texture, &mut skipped);
        let handle = load_context.add_labeled_asset(GltfAssetLabel::Material(i).to_string(), standard);
        if let Some(name) = m.name() {
            gltf.named_materials.insert(name.into(), handle.clone());
        }
        gltf.materials.push(handle);
    }
    let mut default_material: Option<Handle<StandardMaterial>> = None;

    let mut meshes: Vec<Handle<GltfMesh>> = Vec::new();
    let mut mesh_bounds = Vec::new();
    for m in doc.meshes() {
        let mut out =
            GltfMesh { index: m.index(), name: m.name().map(str::to_owned), primitives: Vec::new() };
        for p in m.primitives() {
            let Some(built) = mesh::primitive_mesh(source, &m, &p, &mut skipped)? else { continue };
            let label = GltfAssetLabel::Primitive { mesh: m.index(), primitive: p.index() };
            let mesh = load_context.add_labeled_asset(label.to_string(), built.mesh);
            let material = match p.material().index().and_then(|i| gltf.materials.get(i)) {
                Some(h) => h.clone(),
                None => default_material
                    .get_or_insert_with(|| {
                        load_context.add_labeled_asset(
                            GltfAssetLabel::DefaultMaterial.to_string(),
                            material::standard_material(&p.material(), &texture, &mut BTreeSet::new()),
                        )
                    })
                    .clone(),
            };
            out.primitives.push(super::GltfPrimitive {
                index: p.index(),
                mesh,
                material,
                bounds: built.bounds,
            });
        }
        mesh_bounds.push(out.primitives.iter().map(|p| p.bounds).reduce(super::GltfBounds::union));
        let name = out.name.clone();
        let handle = load_context.add_labeled_asset(GltfAssetLabel::Mesh(m.index()).to_string(), out);
        if let Some(name) = name {
            gltf.named_meshes.insert(name.into(), handle.clone());
        }
        meshes.push(handle);
    }
    gltf.meshes = meshes.clone();

    for s in doc.scenes() {
        let built = scene::build_scene(source, &s, &meshes, &mesh_bounds)?;
        let name = built.name.clone();
        let handle = load_context.add_labeled_asset(GltfAssetLabel::Scene(s.index()).to_string(), built);
        if let Some(name) = name {
            gltf.named_scenes.insert(name.into(), handle.clone());
        }
        gltf.scenes.push(handle);
    }
    gltf.default_scene = doc
        .default_scene()
        .and_then(|s| gltf.scenes.get(s.index()).cloned())
        .or_else(|| gltf.scenes.first().cloned());

    gltf.skipped = skipped.into_iter().collect();
    if !gltf.skipped.is_empty() {
        bevy_log::warn!("{}: f3d draws the static meshes; skipped: {}", source.path, gltf.skipped.join(", "));
    }
    Ok(gltf)
}

/// The bytes of a buffer view, checked against its buffer.
pub(crate) fn view_bytes<'a>(
    source: &'a Source<'_>,
    view: &gltf::buffer::View<'_>,
) -> Result<&'a [u8], String> {
    let buffer = view.buffer().index();
    let data = source.buffers.get(buffer).ok_or_else(|| format!("buffer {buffer} does not exist"))?;
    let end = view.offset().checked_add(view.length()).ok_or("its buffer view's range overflows")?;
    data.get(view.offset()..end).ok_or_else(|| {
        format!(
            "buffer view {} (bytes {}..{end}) is out of range of buffer {buffer} ({} bytes)",
            view.index(),
            view.offset(),
            data.len()
        )
    })
}

/// Decodes the image of `texture` (sRGB or linear), with its sampler.
fn decode_texture(
    source: &Source<'_>,
    texture: &gltf::Texture<'_>,
    srgb: bool,
) -> Result<Image, GltfLoadError> {
    let image = texture.source();
    let index = image.index();
    let err = |reason: String| GltfLoadError::Image { path: source.path.to_owned(), image: index, reason };
    let (bytes, mime): (&[u8], Option<&str>) = match image.source() {
        gltf::image::Source::View { view, mime_type } => {
            (view_bytes(source, &view).map_err(err)?, Some(mime_type))
        }
        gltf::image::Source::Uri { .. } => {
            let Some(Some((data, mime))) = source.uri_images.get(index) else {
                return Err(err("its data was not read".into()));
            };
            (data.as_slice(), mime.as_deref())
        }
    };
    let mime = mime.ok_or_else(|| err("no mimeType and no known file extension".into()))?;
    if let Some((width, height)) = image_size(bytes)
        && (width > MAX_GLTF_IMAGE_SIDE || height > MAX_GLTF_IMAGE_SIDE)
    {
        return Err(GltfLoadError::ImageTooLarge {
            path: source.path.to_owned(),
            image: index,
            width,
            height,
        });
    }
    let sampler = ImageSampler::Descriptor(material::sampler_descriptor(&texture.sampler()));
    let decoded = Image::from_buffer(
        bytes,
        ImageType::MimeType(mime),
        CompressedImageFormats::NONE,
        srgb,
        sampler,
        RenderAssetUsages::default(),
    )
    .map_err(|e| err(format!("{mime}: {e}")))?;
    let size = decoded.size();
    if size.x > MAX_GLTF_IMAGE_SIDE || size.y > MAX_GLTF_IMAGE_SIDE {
        return Err(GltfLoadError::ImageTooLarge {
            path: source.path.to_owned(),
            image: index,
            width: size.x,
            height: size.y,
        });
    }
    Ok(decoded)
}

/// The size a PNG or JPEG header declares, read before decoding so a huge image is refused
/// without allocating it.
fn image_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let be32 = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.get(12..16) == Some(b"IHDR") {
        return Some((be32(16)?, be32(20)?));
    }
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    // JPEG: walk the marker segments to the first start-of-frame.
    let be16 = |at: usize| bytes.get(at..at + 2).map(|b| u16::from_be_bytes([b[0], b[1]]));
    let mut at = 2;
    while *bytes.get(at)? == 0xFF {
        let marker = *bytes.get(at + 1)?;
        let is_sof = matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
        if is_sof {
            return Some((u32::from(be16(at + 7)?), u32::from(be16(at + 5)?)));
        }
        at += 2 + usize::from(be16(at + 2)?);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_escapes_decode() {
        assert_eq!(percent_decode("a%20b.bin").unwrap(), b"a b.bin");
        assert!(percent_decode("a%2").is_err());
    }

    #[test]
    fn image_headers_give_sizes() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&20000u32.to_be_bytes());
        png.extend_from_slice(&3u32.to_be_bytes());
        assert_eq!(image_size(&png), Some((20000, 3)));
        let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC0, 0, 11, 8, 0, 7, 0, 9];
        assert_eq!(image_size(&jpeg), Some((9, 7)));
        assert_eq!(image_size(b"nothing"), None);
    }
}
