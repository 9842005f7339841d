//! Image layouts and the barriers between uses.
//!
//! Every subresource (level × layer) of every texture carries its current [`Use`]: the HAL's
//! barrier vocabulary ([`ResourceState`]) plus two states of this backend's own (`Fresh`: never
//! written, and must read as zero; `General`: a copy within one subresource). Before any
//! recorded work the device states what it needs ([`Need`]) and [`prepare`] records the
//! barriers that get there from where each subresource is:
//!
//! ```text
//!  needs ─► fresh subresources the use reads: UNDEFINED → TRANSFER_DST, cleared to zero
//!        ─► every subresource: (stage, access, layout) of its use → those of the need,
//!           batched into one vkCmdPipelineBarrier2; read-after-read in one layout needs
//!           nothing, a write after a write always gets a barrier
//! ```
//!
//! A render pass from the render graph arrives with [`RenderPassDescriptor::transitions`]
//! (`f3d_hal::RenderPassDescriptor`): they are needs like any other, applied first, and they
//! carry what the backend cannot know by itself — that a texture's old contents are garbage
//! (`before == Undefined`: the barrier discards instead of preserving), that a pass only reads
//! its depth attachment (`DepthStencilReadOnly`: a read-only layout that shaders may sample
//! at the same time), and which textures a pass reads. The tracked state, not the graph's
//! `before`, is what a barrier starts from: uploads, copies and readbacks between graph runs
//! move textures the graph does not see. A pass that arrives without transitions (the
//! conformance suite builds passes by hand) gets the needs of its attachments and of the
//! textures it binds, derived here.

use ash::vk;
use f3d_hal::{DeviceError, ResourceState};

use crate::alloc::ImagePlan;
use crate::sync::{Core, Resource, Shared};
use crate::texture::VkTexture;

/// What a subresource was last used for (which fixes its layout and the stages and accesses
/// a barrier after it must wait for).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Use {
    /// Never written since creation; reads as zero, so a use that reads it zeroes it first.
    Fresh,
    /// Colour attachment (or resolve target).
    Color,
    /// Depth-stencil attachment, written.
    Depth,
    /// Depth-stencil attachment only read (and maybe sampled) in the pass.
    DepthRead,
    /// Sampled by shaders.
    Sampled,
    /// Source of a copy or readback.
    CopySrc,
    /// Destination of a copy, upload or clear.
    CopyDst,
    /// Source and destination of a copy within one subresource.
    General,
}

impl Use {
    /// The use a graph state asks for; `None` for `Undefined` (only a `before` means anything).
    pub(crate) fn from_state(state: ResourceState) -> Option<Use> {
        Some(match state {
            ResourceState::Undefined => return None,
            ResourceState::ColorAttachment => Use::Color,
            ResourceState::DepthStencilAttachment => Use::Depth,
            ResourceState::DepthStencilReadOnly => Use::DepthRead,
            ResourceState::ShaderRead => Use::Sampled,
            // A presenter copies from the texture; there is no swapchain image here.
            ResourceState::CopySource | ResourceState::Present => Use::CopySrc,
            ResourceState::CopyDestination => Use::CopyDst,
        })
    }

    /// Stages and accesses of the use, and the layout it needs.
    pub(crate) fn scope(self) -> (vk::PipelineStageFlags2, vk::AccessFlags2, vk::ImageLayout) {
        use vk::AccessFlags2 as A;
        use vk::PipelineStageFlags2 as S;
        let shaders = S::VERTEX_SHADER | S::FRAGMENT_SHADER | S::COMPUTE_SHADER;
        let tests = S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS;
        match self {
            Use::Fresh => (S::NONE, A::NONE, vk::ImageLayout::UNDEFINED),
            Use::Color => (
                S::COLOR_ATTACHMENT_OUTPUT,
                A::COLOR_ATTACHMENT_READ | A::COLOR_ATTACHMENT_WRITE,
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            ),
            Use::Depth => (
                tests,
                A::DEPTH_STENCIL_ATTACHMENT_READ | A::DEPTH_STENCIL_ATTACHMENT_WRITE,
                vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
            ),
            Use::DepthRead => (
                tests | shaders,
                A::DEPTH_STENCIL_ATTACHMENT_READ | A::SHADER_SAMPLED_READ,
                vk::ImageLayout::DEPTH_STENCIL_READ_ONLY_OPTIMAL,
            ),
            Use::Sampled => (shaders, A::SHADER_SAMPLED_READ, vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL),
            Use::CopySrc => (S::ALL_TRANSFER, A::TRANSFER_READ, vk::ImageLayout::TRANSFER_SRC_OPTIMAL),
            Use::CopyDst => (S::ALL_TRANSFER, A::TRANSFER_WRITE, vk::ImageLayout::TRANSFER_DST_OPTIMAL),
            Use::General => (S::ALL_TRANSFER, A::TRANSFER_READ | A::TRANSFER_WRITE, vk::ImageLayout::GENERAL),
        }
    }

    /// The layout of the use.
    pub(crate) fn layout(self) -> vk::ImageLayout {
        self.scope().2
    }

    fn writes(self) -> bool {
        matches!(self, Use::Color | Use::Depth | Use::CopyDst | Use::General)
    }

    /// Whether an image made from `plan` may be in this use's layout at all.
    pub(crate) fn allowed(self, plan: &ImagePlan) -> bool {
        use vk::ImageUsageFlags as U;
        let has = |u: U| plan.usage.contains(u);
        match self {
            Use::Fresh | Use::General => true,
            Use::Color => has(U::COLOR_ATTACHMENT),
            Use::Depth => has(U::DEPTH_STENCIL_ATTACHMENT),
            Use::DepthRead => has(U::DEPTH_STENCIL_ATTACHMENT) || has(U::SAMPLED),
            Use::Sampled => has(U::SAMPLED),
            Use::CopySrc => has(U::TRANSFER_SRC),
            Use::CopyDst => has(U::TRANSFER_DST),
        }
    }
}

/// One use of a range of subresources of one texture.
pub(crate) struct Need<'a> {
    pub(crate) texture: &'a VkTexture,
    /// First level and count.
    pub(crate) levels: (u32, u32),
    /// First layer and count.
    pub(crate) layers: (u32, u32),
    pub(crate) to: Use,
    /// The use overwrites every texel of the range (a clear load, a whole-subresource upload):
    /// nothing is zeroed and nothing kept.
    pub(crate) overwrite: bool,
    /// The render graph says the contents are garbage (a transition from `Undefined`).
    pub(crate) discard: bool,
}

impl<'a> Need<'a> {
    /// Every subresource of `texture`.
    pub(crate) fn whole(texture: &'a VkTexture, to: Use) -> Self {
        Self {
            texture,
            levels: (0, texture.plan.mips),
            layers: (0, texture.plan.layers),
            to,
            overwrite: false,
            discard: false,
        }
    }

    /// `layers` layers from `layer` of level `level`.
    pub(crate) fn at(texture: &'a VkTexture, level: u32, layer: u32, layers: u32, to: Use) -> Self {
        Self { texture, levels: (level, 1), layers: (layer, layers), to, overwrite: false, discard: false }
    }

    /// The same need, overwriting its range.
    pub(crate) fn overwriting(mut self, overwrite: bool) -> Self {
        self.overwrite = overwrite;
        self
    }

    fn indices(&self) -> impl Iterator<Item = (u32, u32, usize)> + '_ {
        let layers = self.texture.plan.layers;
        let (l0, ln) = self.levels;
        let (a0, an) = self.layers;
        (l0..l0 + ln).flat_map(move |level| {
            (a0..a0 + an).map(move |layer| (level, layer, (level * layers + layer) as usize))
        })
    }
}

fn barrier(
    texture: &VkTexture,
    from: Use,
    to: Use,
    old_undefined: bool,
    range: vk::ImageSubresourceRange,
) -> vk::ImageMemoryBarrier2<'static> {
    let (src_stage, src_access, old) = from.scope();
    let (dst_stage, dst_access, new) = to.scope();
    vk::ImageMemoryBarrier2::default()
        .src_stage_mask(src_stage)
        .src_access_mask(src_access)
        .dst_stage_mask(dst_stage)
        .dst_access_mask(dst_access)
        .old_layout(if old_undefined { vk::ImageLayout::UNDEFINED } else { old })
        .new_layout(new)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(texture.image)
        .subresource_range(range)
}

fn flush(shared: &Shared, cmd: vk::CommandBuffer, barriers: &mut Vec<vk::ImageMemoryBarrier2<'static>>) {
    if barriers.is_empty() {
        return;
    }
    let dep = vk::DependencyInfo::default().image_memory_barriers(barriers);
    // SAFETY: `cmd` is recording outside a render pass instance; every barrier names an image
    // of this device in the layout the tracker says it is in.
    unsafe { shared.device.cmd_pipeline_barrier2(cmd, &dep) };
    barriers.clear();
}

/// Records what brings every subresource of `needs` into its use, zeroing fresh ones the use
/// reads. Needs an image's plan does not allow (a graph transition to `ShaderRead` of a texture
/// made without `SAMPLED`) are skipped: what would need them is refused by name elsewhere.
pub(crate) fn prepare(
    core: &mut Core,
    shared: &Shared,
    cmd: vk::CommandBuffer,
    needs: &[Need<'_>],
) -> Result<(), DeviceError> {
    let needs: Vec<&Need<'_>> = needs.iter().filter(|n| n.to.allowed(&n.texture.plan)).collect();
    // 1. Fresh subresources a use reads are zeroed first.
    let mut zero: Vec<(&VkTexture, u32, u32)> = Vec::new();
    let mut barriers = Vec::new();
    for n in &needs {
        if n.overwrite || n.discard {
            continue;
        }
        let mut states = n.texture.states.lock().unwrap_or_else(|e| e.into_inner());
        for (level, layer, i) in n.indices() {
            if states.get(i) == Some(&Use::Fresh) {
                barriers.push(barrier(
                    n.texture,
                    Use::Fresh,
                    Use::CopyDst,
                    true,
                    n.texture.plan.range(level, 1, layer, 1),
                ));
                states[i] = Use::CopyDst;
                zero.push((n.texture, level, layer));
            }
        }
    }
    if !zero.is_empty() {
        flush(shared, cmd, &mut barriers);
        for &(t, level, layer) in &zero {
            zero_subresource(core, shared, cmd, t, level, layer)?;
        }
    }
    // 2. Every subresource from its use to the need's.
    for n in &needs {
        let mut states = n.texture.states.lock().unwrap_or_else(|e| e.into_inner());
        for (level, layer, i) in n.indices() {
            let Some(&from) = states.get(i) else { continue };
            if from == n.to && !from.writes() && !n.discard {
                continue;
            }
            let undefined = from == Use::Fresh || n.overwrite || n.discard;
            barriers.push(barrier(
                n.texture,
                from,
                n.to,
                undefined,
                n.texture.plan.range(level, 1, layer, 1),
            ));
            states[i] = n.to;
        }
    }
    merge(&mut barriers);
    flush(shared, cmd, &mut barriers);
    Ok(())
}

/// Merges barriers of one image that differ only in neighbouring layers or levels, so a
/// whole-texture transition is one barrier rather than one per subresource.
fn merge(barriers: &mut Vec<vk::ImageMemoryBarrier2<'static>>) {
    let same = |a: &vk::ImageMemoryBarrier2<'_>, b: &vk::ImageMemoryBarrier2<'_>| {
        a.image == b.image
            && a.old_layout == b.old_layout
            && a.new_layout == b.new_layout
            && a.src_stage_mask == b.src_stage_mask
            && a.src_access_mask == b.src_access_mask
            && a.dst_stage_mask == b.dst_stage_mask
            && a.dst_access_mask == b.dst_access_mask
    };
    let mut out: Vec<vk::ImageMemoryBarrier2<'static>> = Vec::with_capacity(barriers.len());
    for b in barriers.drain(..) {
        if let Some(last) = out.last_mut()
            && same(last, &b)
        {
            let (r, n) = (&mut last.subresource_range, b.subresource_range);
            let next_layer = r.base_mip_level == n.base_mip_level
                && r.level_count == 1
                && n.level_count == 1
                && n.base_array_layer == r.base_array_layer + r.layer_count;
            let next_level = r.base_array_layer == n.base_array_layer
                && r.layer_count == n.layer_count
                && n.base_mip_level == r.base_mip_level + r.level_count;
            if next_layer {
                r.layer_count += n.layer_count;
                continue;
            }
            if next_level {
                r.level_count += n.level_count;
                continue;
            }
        }
        out.push(b);
    }
    *barriers = out;
}

/// Clears one subresource (in `TRANSFER_DST_OPTIMAL`) to zero: a clear command for colour and
/// depth formats, a copy from zeroed memory for block-compressed ones.
fn zero_subresource(
    core: &mut Core,
    shared: &Shared,
    cmd: vk::CommandBuffer,
    t: &VkTexture,
    level: u32,
    layer: u32,
) -> Result<(), DeviceError> {
    let range = t.plan.range(level, 1, layer, 1);
    let layout = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
    if t.plan.aspects.contains(vk::ImageAspectFlags::COLOR) && !t.plan.compressed {
        let zero = vk::ClearColorValue { uint32: [0; 4] };
        // SAFETY: recording outside a render pass; the subresource is in TRANSFER_DST_OPTIMAL
        // (the barrier before this) and the image has TRANSFER_DST usage (every plan does).
        unsafe { shared.device.cmd_clear_color_image(cmd, t.image, layout, &zero, &[range]) };
    } else if !t.plan.aspects.contains(vk::ImageAspectFlags::COLOR) {
        let zero = vk::ClearDepthStencilValue { depth: 0.0, stencil: 0 };
        // SAFETY: as above, for a depth-stencil image.
        unsafe { shared.device.cmd_clear_depth_stencil_image(cmd, t.image, layout, &zero, &[range]) };
    } else {
        let (w, h) = ((t.plan.width >> level).max(1), (t.plan.height >> level).max(1));
        // Generous: 16 bytes per 4x4 block is the largest BC block.
        let bytes = u64::from(w.div_ceil(4)) * u64::from(h.div_ceil(4)) * 16;
        let id = crate::readback::staging_upload(core, shared, &vec![0u8; bytes as usize], "zero texture")?;
        let Some(Resource::Buffer { buffer, .. }) = core.resource(id) else {
            return Err(DeviceError::Backend {
                operation: "create_texture",
                backend: f3d_hal::BackendId::VULKAN,
                message: "the zeroing buffer vanished".into(),
            });
        };
        let buffer = *buffer;
        let region = vk::BufferImageCopy::default()
            .image_subresource(vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: level,
                base_array_layer: layer,
                layer_count: 1,
            })
            .image_extent(vk::Extent3D { width: w, height: h, depth: 1 });
        // SAFETY: as above; the buffer holds enough zeroed bytes for the whole level.
        unsafe { shared.device.cmd_copy_buffer_to_image(cmd, buffer, t.image, layout, &[region]) };
        core.release_now(id);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(level: u32, layer: u32) -> vk::ImageSubresourceRange {
        vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            base_mip_level: level,
            level_count: 1,
            base_array_layer: layer,
            layer_count: 1,
        }
    }

    fn b(level: u32, layer: u32) -> vk::ImageMemoryBarrier2<'static> {
        vk::ImageMemoryBarrier2::default()
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)
            .subresource_range(range(level, layer))
    }

    #[test]
    fn neighbouring_subresources_merge() {
        let mut v: Vec<_> = (0..6).map(|layer| b(0, layer)).collect();
        merge(&mut v);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].subresource_range.layer_count, 6);
        let mut v = vec![b(0, 0), b(1, 0), b(2, 0)];
        merge(&mut v);
        assert_eq!((v.len(), v[0].subresource_range.level_count), (1, 3));
        let mut v = vec![b(0, 0), b(0, 2)];
        merge(&mut v);
        assert_eq!(v.len(), 2, "a gap does not merge");
    }

    #[test]
    fn graph_states_map_to_uses() {
        assert_eq!(Use::from_state(ResourceState::Undefined), None);
        assert_eq!(Use::from_state(ResourceState::DepthStencilReadOnly), Some(Use::DepthRead));
        assert_eq!(Use::DepthRead.layout(), vk::ImageLayout::DEPTH_STENCIL_READ_ONLY_OPTIMAL);
        assert!(Use::Color.writes() && !Use::Sampled.writes());
    }
}
