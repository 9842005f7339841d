//! Presentation: a window's `VkSurfaceKHR` and its swapchain, fed by blitting the frame texture
//! onto the swapchain image ([`f3d_hal::present`] states the contract).
//!
//! ```text
//!  create_surface(target) ── Xlib / XCB / Wayland handles ─► VkSurfaceKHR (queue family
//!        checked with vkGetPhysicalDeviceSurfaceSupportKHR; the target, and with it its
//!        keep-alive, is kept for the surface's lifetime)
//!
//!  present(frame)
//!    zero-sized config, or capabilities with a 0 extent ─► Skipped (no swapchain call)
//!    swapchain missing, stale or of another size ─► made again (old one as oldSwapchain)
//!    acquire slot (ring of FRAMES_IN_FLIGHT + 1 binary semaphores; each reused only once
//!        the timeline passed the submission that waited for it)
//!    vkAcquireNextImageKHR(slot) ─► image i
//!    core lock ─┬─ work recorded before: submitted on its own (it need not wait for i)
//!               ├─ frame → TRANSFER_SRC (tracked, as copies and readbacks do)
//!               ├─ image i: UNDEFINED → TRANSFER_DST, blit whole frame → whole image
//!               │  (LINEAR: scales, and converts formats, sRGB encode included), → PRESENT_SRC
//!               ├─ submit: wait slot @ BLIT, signal rendered[i] and the timeline
//!               └─ vkQueuePresentKHR(wait rendered[i])
//! ```
//!
//! The settings the swapchain is made with are pure functions of the surface's answers
//! (`choose.rs`: sRGB format, extent, image count, alpha); `surface.rs` turns a target's raw
//! handles into a `VkSurfaceKHR`.
//!
//! * **Semaphores.** An acquire semaphore is free again once the submission that waited for it
//!   finished (a timeline value). A present's semaphore belongs to the image (`rendered[i]`):
//!   the window system hands image `i` out again only after its last present waited, so the
//!   semaphore is unsignalled by the time it is signalled again.
//! * **What the window cannot take is skipped, not an error**: `VK_ERROR_OUT_OF_DATE_KHR` makes
//!   the swapchain again, `VK_ERROR_SURFACE_LOST_KHR` makes the surface again from the kept
//!   target, no image within [`ACQUIRE_TIMEOUT`] skips; each answers
//!   [`Presented::Skipped`] with the reason. `VK_SUBOPTIMAL_KHR` still shows the frame (the
//!   blit scales to whatever the image is) and the swapchain is made again before the next one.
//!   A lost device is [`DeviceError::Lost`], as everywhere in this backend.
//! * **Retiring a swapchain** (resize, mode change, drop) first waits for the timeline value of
//!   the last frame drawn into it and for the queue to be idle (presents are queue operations
//!   without a fence), then destroys it and its semaphores. That happens on resizes, not per
//!   frame.
//! * **The surface holds the device's shared state**, so the instance and device outlive the
//!   swapchain and surface made from them even when the [`VulkanDevice`](crate::VulkanDevice)
//!   is dropped first; from then on `present` answers [`DeviceError::Lost`]. Its objects count
//!   in the device's [`ObjectCounter`](crate::ObjectCounter).

mod choose;
mod surface;

use std::sync::Arc;
use std::time::Duration;

use ash::vk;
use f3d_hal::backend::texture_payload_linked;
use f3d_hal::present::{check_presentable, choose_present_mode};
use f3d_hal::{
    BackendId, DeviceError, OwnerLink, PresentMode, PresentSurface, Presented, SampleKind, SurfaceConfig,
    SurfaceTarget, TextureHandle,
};

use self::choose::{choose_composite_alpha, choose_extent, choose_format, choose_image_count};
use self::surface::make_surface;
use crate::barrier::{Need, Use, prepare};
use crate::conv;
use crate::device::checked;
use crate::sync::{FRAMES_IN_FLIGHT, Shared};
use crate::texture::VkTexture;

/// Acquire semaphores in the ring: one per frame the GPU may still be drawing, and one more
/// for the image being acquired.
const ACQUIRE_SLOTS: usize = FRAMES_IN_FLIGHT + 1;

/// How long `present` waits for the window system to hand out an image before it skips the
/// frame.
pub(crate) const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(2);

fn cannot_present(operation: &'static str, label: &str, why: impl std::fmt::Display) -> DeviceError {
    DeviceError::Backend {
        operation,
        backend: BackendId::VULKAN,
        message: format!("the vulkan backend cannot present to {label}: {why}"),
    }
}

/// A swapchain and what belongs to it.
struct Chain {
    swapchain: vk::SwapchainKHR,
    images: Vec<vk::Image>,
    /// Per image: signalled by the submission that drew into it, waited for by its present.
    rendered: Vec<vk::Semaphore>,
    extent: vk::Extent2D,
}

/// A binary semaphore for vkAcquireNextImageKHR, with the timeline value of the submission that
/// waited for it (0: none yet).
struct AcquireSlot {
    semaphore: vk::Semaphore,
    waited_by: u64,
}

/// The extension functions a surface calls.
struct Fns {
    surface: ash::khr::surface::Instance,
    swapchain: ash::khr::swapchain::Device,
}

/// A window's surface on the vulkan device (see the module docs).
pub(crate) struct VkSurface {
    shared: Arc<Shared>,
    link: OwnerLink,
    /// The window's handles and the owner that keeps them valid (its keep-alive), kept for the
    /// surface's lifetime and to make the surface again when it is lost.
    target: SurfaceTarget,
    fns: Fns,
    surface: vk::SurfaceKHR,
    /// Present modes the surface offers, in the HAL's words.
    offered_modes: Vec<PresentMode>,
    config: SurfaceConfig,
    mode: PresentMode,
    chain: Option<Chain>,
    /// The swapchain must be made again before the next frame (configured, suboptimal).
    stale: bool,
    acquire: Vec<AcquireSlot>,
    next_slot: usize,
    /// Acquire semaphores that may still get a signal nobody waits for (an acquire whose frame
    /// failed later); destroyed with the surface.
    spent: Vec<vk::Semaphore>,
    /// The timeline value of the last submission that drew into a swapchain image.
    last_use: u64,
}

impl VkSurface {
    /// The surface for `target`, with its swapchain made at once where the window has a size.
    pub(crate) fn new(
        shared: &Arc<Shared>,
        link: OwnerLink,
        target: &SurfaceTarget,
        config: &SurfaceConfig,
    ) -> Result<Self, DeviceError> {
        const OP: &str = "create_surface";
        let instance = &shared.instance;
        let fns = Fns {
            surface: ash::khr::surface::Instance::new(&instance.entry, &instance.instance),
            swapchain: ash::khr::swapchain::Device::new(&instance.instance, &shared.device),
        };
        let surface = make_surface(shared, &fns, target, OP)?;
        let mut this = Self {
            shared: shared.clone(),
            link,
            target: target.clone(),
            fns,
            surface,
            offered_modes: Vec::new(),
            config: *config,
            mode: PresentMode::Fifo,
            chain: None,
            stale: false,
            acquire: Vec::with_capacity(ACQUIRE_SLOTS),
            next_slot: 0,
            spent: Vec::new(),
            last_use: 0,
        };
        // From here on `Drop` destroys whatever was made.
        this.offered_modes = this.query_modes(OP)?;
        this.mode = choose_present_mode(config.present_mode, &this.offered_modes);
        for _ in 0..ACQUIRE_SLOTS {
            let semaphore = this.new_semaphore(OP)?;
            this.acquire.push(AcquireSlot { semaphore, waited_by: 0 });
        }
        match this.ensure_chain(OP)? {
            Ready::Yes | Ready::Minimised => Ok(this),
            Ready::SurfaceLost => Err(cannot_present(OP, target.label(), "the surface was lost at once")),
        }
    }

    fn label_str(&self) -> &str {
        self.target.label()
    }

    fn new_semaphore(&self, operation: &'static str) -> Result<vk::Semaphore, DeviceError> {
        // SAFETY: a plain binary semaphore of the device.
        let semaphore =
            unsafe { self.shared.device.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }
                .map_err(|e| self.shared.vk_error(operation, e))?;
        self.shared.objects.add(1);
        Ok(semaphore)
    }

    fn destroy_semaphore(&self, semaphore: vk::Semaphore) {
        // SAFETY: the caller made sure no pending operation uses it (see `wait_idle`).
        unsafe { self.shared.device.destroy_semaphore(semaphore, None) };
        self.shared.objects.sub(1);
    }

    /// The surface's present modes in the HAL's words (FIFO at least: every surface has it).
    fn query_modes(&self, operation: &'static str) -> Result<Vec<PresentMode>, DeviceError> {
        // SAFETY: the surface was made on this instance; the physical device is the device's.
        let modes = unsafe {
            self.fns.surface.get_physical_device_surface_present_modes(self.shared.physical, self.surface)
        }
        .map_err(|e| self.shared.vk_error(operation, e))?;
        let mut out: Vec<PresentMode> = modes.into_iter().filter_map(conv::hal_present_mode).collect();
        if !out.contains(&PresentMode::Fifo) {
            out.push(PresentMode::Fifo);
        }
        Ok(out)
    }

    /// Waits until the GPU finished every frame drawn into this surface's images and the queue
    /// (with the presents on it) is idle.
    fn wait_idle(&self, operation: &'static str) -> Result<(), DeviceError> {
        let waited = if self.last_use > 0 { self.shared.wait(self.last_use, operation) } else { Ok(()) };
        let _core = self.shared.core();
        // SAFETY: the queue is only used under the core lock, held here.
        let idle = unsafe { self.shared.device.queue_wait_idle(self.shared.queue) }
            .map_err(|e| self.shared.vk_error(operation, e));
        waited.and(idle)
    }

    /// Destroys `chain`.
    ///
    /// The GPU and the queue must be done with it ([`wait_idle`](Self::wait_idle)).
    fn destroy_chain(&self, chain: Chain) {
        // SAFETY: idle as required above; the swapchain was made on this device, once.
        unsafe { self.fns.swapchain.destroy_swapchain(chain.swapchain, None) };
        self.shared.objects.sub(1);
        for s in chain.rendered {
            self.destroy_semaphore(s);
        }
    }

    /// Brings the swapchain up to date with the surface: made (again) when there is none, it
    /// is stale, or the surface's size changed.
    fn ensure_chain(&mut self, operation: &'static str) -> Result<Ready, DeviceError> {
        // SAFETY: the surface was made on this instance; the physical device is the device's.
        let caps = match unsafe {
            self.fns.surface.get_physical_device_surface_capabilities(self.shared.physical, self.surface)
        } {
            Ok(c) => c,
            Err(vk::Result::ERROR_SURFACE_LOST_KHR) => return Ok(Ready::SurfaceLost),
            Err(e) => return Err(self.shared.vk_error(operation, e)),
        };
        let Some(extent) = choose_extent(&caps, self.config.width, self.config.height) else {
            return Ok(Ready::Minimised);
        };
        if !self.stale && self.chain.as_ref().is_some_and(|c| c.extent == extent) {
            return Ok(Ready::Yes);
        }
        self.build_chain(&caps, extent, operation)
    }

    fn build_chain(
        &mut self,
        caps: &vk::SurfaceCapabilitiesKHR,
        extent: vk::Extent2D,
        operation: &'static str,
    ) -> Result<Ready, DeviceError> {
        let shared = self.shared.clone();
        let label = self.label_str().to_owned();
        if !caps.supported_usage_flags.contains(vk::ImageUsageFlags::TRANSFER_DST) {
            return Err(cannot_present(operation, &label, "its swapchain images cannot be copied into"));
        }
        // SAFETY: as in `ensure_chain`.
        let formats = match unsafe {
            self.fns.surface.get_physical_device_surface_formats(shared.physical, self.surface)
        } {
            Ok(f) => f,
            Err(vk::Result::ERROR_SURFACE_LOST_KHR) => return Ok(Ready::SurfaceLost),
            Err(e) => return Err(shared.vk_error(operation, e)),
        };
        let blit_dst = |format: vk::Format| {
            // SAFETY: a plain query of the physical device.
            let props = unsafe {
                shared.instance.instance.get_physical_device_format_properties(shared.physical, format)
            };
            props.optimal_tiling_features.contains(vk::FormatFeatureFlags::BLIT_DST)
        };
        let Some(format) = choose_format(&formats, blit_dst) else {
            return Err(cannot_present(operation, &label, "the surface offers no image format"));
        };
        self.mode = choose_present_mode(self.config.present_mode, &self.offered_modes);
        let old = self.chain.take();
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(self.surface)
            .min_image_count(choose_image_count(caps))
            .image_format(format.format)
            .image_color_space(format.color_space)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::TRANSFER_DST)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(caps.current_transform)
            .composite_alpha(choose_composite_alpha(caps.supported_composite_alpha))
            .present_mode(conv::present_mode(self.mode))
            .clipped(true)
            .old_swapchain(old.as_ref().map_or(vk::SwapchainKHR::null(), |c| c.swapchain));
        // SAFETY: the surface supports the queue family (checked when it was made), and every
        // value above lies within the capabilities just read.
        let made = unsafe { self.fns.swapchain.create_swapchain(&info, None) };
        // The old swapchain is retired whether or not the new one was made.
        if let Some(old) = old {
            self.wait_idle(operation)?;
            self.destroy_chain(old);
        }
        let swapchain = match made {
            Ok(s) => s,
            Err(vk::Result::ERROR_SURFACE_LOST_KHR) => return Ok(Ready::SurfaceLost),
            Err(e) => return Err(shared.vk_error(operation, e)),
        };
        shared.objects.add(1);
        let mut chain = Chain { swapchain, images: Vec::new(), rendered: Vec::new(), extent };
        // SAFETY: the swapchain was just made on this device.
        match unsafe { self.fns.swapchain.get_swapchain_images(swapchain) } {
            Ok(images) => chain.images = images,
            Err(e) => {
                self.destroy_chain(chain);
                return Err(shared.vk_error(operation, e));
            }
        }
        for _ in 0..chain.images.len() {
            match self.new_semaphore(operation) {
                Ok(s) => chain.rendered.push(s),
                Err(e) => {
                    self.destroy_chain(chain);
                    return Err(e);
                }
            }
        }
        self.chain = Some(chain);
        self.stale = false;
        Ok(Ready::Yes)
    }

    /// Makes the surface again from the kept target (after `VK_ERROR_SURFACE_LOST_KHR`); the
    /// swapchain is made at the next frame.
    fn remake_surface(&mut self, operation: &'static str) -> Result<(), DeviceError> {
        self.wait_idle(operation)?;
        if let Some(chain) = self.chain.take() {
            self.destroy_chain(chain);
        }
        // SAFETY: its swapchain is destroyed and nothing else uses it.
        unsafe { self.fns.surface.destroy_surface(self.surface, None) };
        self.shared.objects.sub(1);
        // Null until made again: if that fails here, the next frame tries again.
        self.surface = vk::SurfaceKHR::null();
        self.ensure_surface(operation)
    }

    /// Makes the surface where a failed [`remake_surface`](Self::remake_surface) left none.
    fn ensure_surface(&mut self, operation: &'static str) -> Result<(), DeviceError> {
        if self.surface == vk::SurfaceKHR::null() {
            self.surface = make_surface(&self.shared, &self.fns, &self.target, operation)?;
            self.offered_modes = self.query_modes(operation)?;
        }
        Ok(())
    }

    fn skipped_lost_surface(&mut self, operation: &'static str) -> Result<Presented, DeviceError> {
        self.remake_surface(operation)?;
        Ok(Presented::Skipped(format!("{}'s surface was lost; it was made again", self.label_str())))
    }

    /// Acquires an image, blits `frame` onto it and presents it (see the module docs).
    fn present_frame(&mut self, frame: Frame<'_>) -> Result<Presented, DeviceError> {
        const OP: &str = "present";
        self.ensure_surface(OP)?;
        match self.ensure_chain(OP)? {
            Ready::Yes => {}
            Ready::Minimised => {
                return Ok(Presented::Skipped(format!("{} has no size (minimised)", self.label_str())));
            }
            Ready::SurfaceLost => return self.skipped_lost_surface(OP),
        }
        let shared = self.shared.clone();
        let slot_index = self.next_slot;
        let waited_by = self.acquire[slot_index].waited_by;
        if waited_by > 0 {
            shared.wait(waited_by, OP)?;
        }
        let semaphore = self.acquire[slot_index].semaphore;
        // `ensure_chain` answered `Ready::Yes`, which leaves a swapchain in place.
        let Some(swapchain) = self.chain.as_ref().map(|c| c.swapchain) else {
            return Err(cannot_present(OP, self.label_str(), "its swapchain vanished"));
        };
        // SAFETY: the swapchain is this surface's; the semaphore has no pending signal (the
        // submission that waited for it finished, or it was never used).
        let acquired = unsafe {
            self.fns.swapchain.acquire_next_image(
                swapchain,
                ACQUIRE_TIMEOUT.as_nanos() as u64,
                semaphore,
                vk::Fence::null(),
            )
        };
        let index = match acquired {
            Ok((index, suboptimal)) => {
                // Shown anyway (the blit scales); made again before the next frame.
                self.stale |= suboptimal;
                index
            }
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                self.stale = true;
                if let Ready::SurfaceLost = self.ensure_chain(OP)? {
                    return self.skipped_lost_surface(OP);
                }
                return Ok(Presented::Skipped(format!(
                    "{}'s swapchain was out of date; it was made again",
                    self.label_str()
                )));
            }
            Err(vk::Result::ERROR_SURFACE_LOST_KHR) => return self.skipped_lost_surface(OP),
            Err(vk::Result::TIMEOUT | vk::Result::NOT_READY) => {
                return Ok(Presented::Skipped(format!(
                    "{} handed out no image within {} s",
                    self.label_str(),
                    ACQUIRE_TIMEOUT.as_secs()
                )));
            }
            Err(e) => return Err(shared.vk_error(OP, e)),
        };
        self.next_slot = (slot_index + 1) % ACQUIRE_SLOTS;
        let i = index as usize;
        let found =
            self.chain.as_ref().and_then(|c| Some((*c.images.get(i)?, *c.rendered.get(i)?, c.extent)));
        let Some((image, rendered, extent)) = found else {
            return Err(cannot_present(OP, self.label_str(), "the swapchain handed out an unknown image"));
        };
        let label = self.label_str().to_owned();
        let mut core = shared.core();
        let submitted = (|| {
            if core.has_open() {
                // Work called before (the frame's passes) need not wait for the image.
                core.submit_labelled(&shared, OP, "work before present")?;
            }
            let cmd = core.cmd(&shared, OP)?;
            prepare(&mut core, &shared, cmd, &[Need::at(frame.texture, 0, 0, 1, Use::CopySrc)])?;
            record_blit(&shared, cmd, &frame, image, extent);
            let waits = [vk::SemaphoreSubmitInfo::default()
                .semaphore(semaphore)
                .stage_mask(vk::PipelineStageFlags2::BLIT)];
            let signals = [vk::SemaphoreSubmitInfo::default()
                .semaphore(rendered)
                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
            core.submit_with(&shared, OP, &format!("present to {label}"), &waits, &signals)
        })();
        let value = match submitted {
            Ok(v) => v,
            Err(e) => {
                drop(core);
                // The acquire's signal is still pending: that semaphore is not used again, and
                // the image stays acquired until the swapchain is made again.
                let fresh = self.new_semaphore(OP);
                let slot = &mut self.acquire[slot_index];
                if let Ok(fresh) = fresh {
                    self.spent.push(std::mem::replace(&mut slot.semaphore, fresh));
                    slot.waited_by = 0;
                }
                self.stale = true;
                return Err(e);
            }
        };
        self.acquire[slot_index].waited_by = value;
        self.last_use = value;
        let wait = [rendered];
        let swapchains = [swapchain];
        let indices = [index];
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&wait)
            .swapchains(&swapchains)
            .image_indices(&indices);
        // SAFETY: the queue is only used under the core lock, held here; the image was acquired
        // and its drawing signals `rendered`.
        let presented = unsafe { self.fns.swapchain.queue_present(shared.queue, &info) };
        drop(core);
        match presented {
            Ok(suboptimal) => {
                self.stale |= suboptimal;
                Ok(Presented::Shown)
            }
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                self.stale = true;
                if let Ready::SurfaceLost = self.ensure_chain(OP)? {
                    return self.skipped_lost_surface(OP);
                }
                Ok(Presented::Skipped(format!("{label}'s swapchain was out of date; it was made again")))
            }
            Err(vk::Result::ERROR_SURFACE_LOST_KHR) => self.skipped_lost_surface(OP),
            Err(e) => Err(shared.vk_error(OP, e)),
        }
    }
}

/// The frame being presented.
struct Frame<'a> {
    texture: &'a VkTexture,
    width: u32,
    height: u32,
    /// LINEAR where the format allows it, NEAREST otherwise.
    filter: vk::Filter,
}

/// What [`VkSurface::ensure_chain`] found.
enum Ready {
    /// A swapchain of the surface's size is in place.
    Yes,
    /// The window has no size (or the config none): nothing to present into.
    Minimised,
    /// `VK_ERROR_SURFACE_LOST_KHR`.
    SurfaceLost,
}

/// Records image → TRANSFER_DST, the blit of the whole frame (level 0, layer 0; in
/// TRANSFER_SRC_OPTIMAL) onto the whole image, and image → PRESENT_SRC.
fn record_blit(
    shared: &Shared,
    cmd: vk::CommandBuffer,
    frame: &Frame<'_>,
    image: vk::Image,
    extent: vk::Extent2D,
) {
    use vk::PipelineStageFlags2 as S;
    let range = vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    };
    // Chained to the acquire semaphore's wait, which is at the blit stage.
    let to_dst = (S::BLIT, vk::AccessFlags2::NONE, vk::ImageLayout::UNDEFINED);
    let dst = (S::BLIT, vk::AccessFlags2::TRANSFER_WRITE, vk::ImageLayout::TRANSFER_DST_OPTIMAL);
    transition(shared, cmd, image, range, to_dst, dst);
    let layers = vk::ImageSubresourceLayers {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        mip_level: 0,
        base_array_layer: 0,
        layer_count: 1,
    };
    let corner = |w: u32, h: u32| vk::Offset3D { x: w as i32, y: h as i32, z: 1 };
    let region = [vk::ImageBlit2::default()
        .src_subresource(layers)
        .src_offsets([vk::Offset3D::default(), corner(frame.width, frame.height)])
        .dst_subresource(layers)
        .dst_offsets([vk::Offset3D::default(), corner(extent.width, extent.height)])];
    let blit = vk::BlitImageInfo2::default()
        .src_image(frame.texture.image)
        .src_image_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
        .dst_image(image)
        .dst_image_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
        .regions(&region)
        .filter(frame.filter);
    // SAFETY: both images are in the layouts named; the frame's format can be blitted from
    // (checked by `present`), the swapchain's written (chosen so), and linear filtering is only
    // asked where the frame's format has it.
    unsafe { shared.device.cmd_blit_image2(cmd, &blit) };
    // The render-finished semaphore's signal (all commands) waits for this.
    let presented = (S::BLIT, vk::AccessFlags2::NONE, vk::ImageLayout::PRESENT_SRC_KHR);
    transition(shared, cmd, image, range, dst, presented);
}

/// One image layout transition: `(stage, access, layout)` before and after.
fn transition(
    shared: &Shared,
    cmd: vk::CommandBuffer,
    image: vk::Image,
    range: vk::ImageSubresourceRange,
    (src_stage, src_access, old): (vk::PipelineStageFlags2, vk::AccessFlags2, vk::ImageLayout),
    (dst_stage, dst_access, new): (vk::PipelineStageFlags2, vk::AccessFlags2, vk::ImageLayout),
) {
    let barrier = [vk::ImageMemoryBarrier2::default()
        .src_stage_mask(src_stage)
        .src_access_mask(src_access)
        .dst_stage_mask(dst_stage)
        .dst_access_mask(dst_access)
        .old_layout(old)
        .new_layout(new)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(range)];
    // SAFETY: `cmd` is recording outside a render pass and `image` is the acquired swapchain
    // image, in `old` layout.
    unsafe {
        shared
            .device
            .cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&barrier))
    };
}

impl PresentSurface for VkSurface {
    fn label(&self) -> &str {
        self.label_str()
    }

    fn configure(&mut self, config: &SurfaceConfig) -> Result<(), DeviceError> {
        const OP: &str = "configure";
        self.link.check_alive(OP)?;
        if *config != self.config {
            self.config = *config;
            self.mode = choose_present_mode(config.present_mode, &self.offered_modes);
            // Made again at the next frame (a zero size keeps the old one until then).
            self.stale = true;
        }
        Ok(())
    }

    fn config(&self) -> SurfaceConfig {
        self.config
    }

    fn present_mode(&self) -> PresentMode {
        self.mode
    }

    fn present(&mut self, frame: &TextureHandle) -> Result<Presented, DeviceError> {
        const OP: &str = "present";
        self.link.check_alive(OP)?;
        if let Some(reason) = self.shared.lost() {
            return Err(DeviceError::Lost { operation: OP, backend: BackendId::VULKAN, reason });
        }
        check_presentable(frame, OP)?;
        let t = texture_payload_linked::<VkTexture>(&self.link, frame, OP)?;
        let desc = frame.descriptor();
        let integer = matches!(desc.format.facts().sample_kind, SampleKind::Uint | SampleKind::Sint);
        let features = self.shared.formats.get(desc.format).features;
        if integer || !features.contains(vk::FormatFeatureFlags2::BLIT_SRC) {
            return Err(DeviceError::Refused {
                operation: OP,
                reason: format!(
                    "{} is {}, which the vulkan backend cannot blit to a window on this device",
                    desc.label, desc.format
                ),
            });
        }
        if self.config.width == 0 || self.config.height == 0 {
            return Ok(Presented::Skipped(format!("{} has no size (minimised)", self.label_str())));
        }
        let filter = if features.contains(vk::FormatFeatureFlags2::SAMPLED_IMAGE_FILTER_LINEAR) {
            vk::Filter::LINEAR
        } else {
            vk::Filter::NEAREST
        };
        let frame = Frame { texture: t, width: desc.width, height: desc.height, filter };
        let shared = self.shared.clone();
        checked(&shared, OP, || self.present_frame(frame))
    }
}

impl Drop for VkSurface {
    fn drop(&mut self) {
        // Errors mean a lost device: nothing runs any more, and everything may go.
        let _ = self.wait_idle("drop surface");
        if let Some(chain) = self.chain.take() {
            self.destroy_chain(chain);
        }
        for slot in std::mem::take(&mut self.acquire) {
            self.destroy_semaphore(slot.semaphore);
        }
        for s in std::mem::take(&mut self.spent) {
            self.destroy_semaphore(s);
        }
        if self.surface != vk::SurfaceKHR::null() {
            // SAFETY: its swapchain is destroyed and the queue idle.
            unsafe { self.fns.surface.destroy_surface(self.surface, None) };
            self.shared.objects.sub(1);
        }
    }
}
