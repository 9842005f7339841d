//! # f3d_render_graph: the frame as a graph of passes
//!
//! Every frame, systems add passes to a [`RenderGraph`], each declaring what it reads and
//! writes. The graph — not the order the systems ran in — decides what runs, in what order,
//! on which memory and with which barriers:
//!
//! ```text
//!  RenderGraph ──compile(output size)──▶ CompiledGraph ──execute(device, pool)──▶ pixels
//!   textures, passes,      no device:        plain value: dump(),      fresh encoder per pass,
//!   reads and writes       order, cull,      to_dot()                  transients from the
//!                          lifetimes, alias,                           TransientPool
//!                          barriers
//! ```
//!
//! ## The contract
//!
//! * **Handles are versions.** A [`TextureId`] names a texture *and* a version of its
//!   contents. Reads take the version they read; a write takes the version it writes over and
//!   returns the next (`let v2 = pass.write_color(v1, LoadOp::Clear(..))`). Order follows from
//!   the data: a reader runs after the writer of its version, and the next writer after every
//!   reader of the version it overwrites. Two passes may not write over the same version
//!   ([`GraphError::TwoWriters`]); a transient must be written before it is read
//!   ([`GraphError::ReadBeforeWrite`]); dependencies may not form a circle
//!   ([`GraphError::Cycle`]).
//! * **The order is stable**: among passes whose inputs are ready, the one added first runs
//!   first, so a graph whose insertion order is valid runs in exactly that order.
//! * **Culling**: a pass runs only if it is kept alive ([`RenderPassBuilder::keep_alive`],
//!   [`DevicePassBuilder::keep_alive`]) or produces a version that is needed — the last version
//!   of an imported texture or of one marked with [`RenderGraph::mark_output`], or a version a
//!   running pass reads or loads. Closures of culled passes are dropped unrun.
//! * **Stores are derived**: a written attachment is stored when something needs the version
//!   it produces and discarded otherwise.
//! * **Transients** ([`RenderGraph::create_texture`]) have sizes absolute or relative to the
//!   output, usages derived from their uses, and memory from a [`TransientPool`] the caller
//!   keeps across frames. Transients with the same shape and non-overlapping lifetimes share
//!   one physical texture ([`CompiledGraph::bytes_saved`]). Imported textures
//!   ([`RenderGraph::import_texture`]) are the caller's and are never aliased.
//! * **Barriers** are planned in the HAL's vocabulary ([`f3d_hal::ResourceState`]): each pass
//!   gets the transitions its textures need ([`CompiledGraph::transitions`]), handed to the
//!   device in `RenderPassDescriptor::transitions`; the state each imported texture is left in
//!   is [`CompiledGraph::final_state`].
//! * **Execution** ([`CompiledGraph::execute`]) works on any [`f3d_hal::GraphicsDevice`]:
//!   each render pass gets a fresh encoder for its attachments, and its closure receives a
//!   [`PassContext`] whose `encoder` is a `&mut dyn PassEncoder` — it records, it cannot
//!   submit. Copy passes run through `copy_texture` (refused, naming the pass, by a device
//!   without `COPY_TEXTURE`). Every failure names its pass ([`GraphError::Pass`]).
//! * Closures are `FnOnce + Send + 'static`: a graph may be built on one thread and executed
//!   on the render thread. [`RenderGraph`] and [`CompiledGraph`] are `Send + Sync`, so they can
//!   live in ECS resources.
//! * Names are for people (dumps, errors, [`CompiledGraph::to_dot`]); code refers to
//!   textures and passes by handle, and compiling never formats or hashes a name.
//!
//! This crate depends on `f3d_hal` only: it knows no backend and no material.
//!
//! ```
//! use f3d_hal::{Color, LoadOp, TextureFormat};
//! use f3d_render_graph::{PassContext, RenderGraph, TextureDesc};
//!
//! let mut graph = RenderGraph::new();
//! let hdr = graph.create_texture("hdr", TextureDesc::relative(1.0, TextureFormat::Rgba16Float));
//! let unused = graph.create_texture("debug", TextureDesc::relative(1.0, TextureFormat::Rgba8Unorm));
//! let mut lit = hdr;
//! graph.add_pass("opaque", |pass| {
//!     lit = pass.write_color(hdr, LoadOp::Clear(Color::BLACK));
//!     |_ctx: &mut PassContext<'_>| Ok(())
//! });
//! graph.add_pass("debug", |pass| {
//!     pass.write_color(unused, LoadOp::Clear(Color::BLACK));
//!     |_ctx: &mut PassContext<'_>| Ok(())
//! });
//! graph.mark_output(lit);
//! let compiled = graph.compile((64, 64)).unwrap();
//! assert_eq!(compiled.order().collect::<Vec<_>>(), ["opaque"]);
//! assert_eq!(compiled.culled().collect::<Vec<_>>(), ["debug"]);
//! ```

mod builder;
mod compile;
mod dot;
mod dump;
mod error;
mod execute;
mod pool;
mod resource;

pub use builder::{DevicePassBuilder, PassError, PassResult, RenderGraph, RenderPassBuilder};
pub use compile::{CompiledGraph, Transition};
pub use error::GraphError;
pub use execute::{DeviceContext, ExecutedGraph, PassContext};
pub use pool::{DEFAULT_MAX_UNUSED_FRAMES, TransientPool};
pub use resource::{PassId, TextureDesc, TextureId, TextureSize};
