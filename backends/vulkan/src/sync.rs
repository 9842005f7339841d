//! The device's shared state: one timeline semaphore ordering every submission, command
//! buffers recycled by timeline value, and resources destroyed only after the GPU is done
//! with them.
//!
//! ```text
//!  device op ──► Core::cmd() (the open command buffer: uploads, copies, passes, in call order)
//!            ──► Core::submit() ── vkQueueSubmit2, signal timeline = ++submitted
//!
//!  handle dropped ──► payload Drop ──► graveyard (its own small lock; never the core lock)
//!  next Core lock ──► graveyard drained: each resource tagged with Core::pending()
//!  Core::collect ──► timeline value read; command buffers and resources whose tag it
//!                    passed are recycled / destroyed
//! ```
//!
//! Every Vulkan object the device makes is registered in [`Core`] under an id until it is
//! destroyed, so dropping the device destroys everything — including objects whose handles
//! outlive it — and [`ObjectCounter`] (a count of live Vulkan objects that survives the device)
//! returns to zero.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use ash::vk;
use f3d_hal::backend::{MemoryCharge, MemoryCounter, Watchdog};
use f3d_hal::{BackendId, DeviceError, LossReason, MemoryKind};
use gpu_allocator::vulkan::{Allocation, Allocator};

use crate::instance::{Caps, Instance};
use crate::ring::UniformRing;
use crate::texture::FormatTable;

/// How many live Vulkan objects (images, views, buffers, samplers, shader modules, pipelines,
/// layouts, descriptor pools, query pools, and the surfaces, swapchains and semaphores of
/// windows presented into) a device holds. It outlives the device, so a test
/// can check that dropping the device destroyed everything.
#[derive(Clone, Debug, Default)]
pub struct ObjectCounter(Arc<AtomicUsize>);

impl ObjectCounter {
    /// Live Vulkan objects now.
    pub fn count(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }

    /// Counts `n` objects made (those outside [`Core`]'s registry: a window's swapchain,
    /// surface and semaphores).
    pub(crate) fn add(&self, n: usize) {
        self.0.fetch_add(n, Ordering::AcqRel);
    }

    /// Counts `n` objects destroyed.
    pub(crate) fn sub(&self, n: usize) {
        self.0.fetch_sub(n, Ordering::AcqRel);
    }
}

/// One registered group of Vulkan objects, destroyed together. Images and buffers carry the
/// charge of their memory in the device's report (made by [`Core::register`], moved to
/// `retiring` when they retire, dropped when they are destroyed).
pub(crate) enum Resource {
    Image {
        image: vk::Image,
        views: Vec<vk::ImageView>,
        allocation: Option<Allocation>,
        charge: Option<MemoryCharge>,
    },
    Buffer {
        buffer: vk::Buffer,
        allocation: Option<Allocation>,
        kind: MemoryKind,
        charge: Option<MemoryCharge>,
    },
    Sampler(vk::Sampler),
    Shader(vk::ShaderModule),
    Pipeline {
        pipeline: vk::Pipeline,
        layout: vk::PipelineLayout,
        set_layouts: Vec<vk::DescriptorSetLayout>,
    },
    Pools(Vec<vk::DescriptorPool>),
    Query(vk::QueryPool),
}

impl Resource {
    /// A buffer of `kind` (its charge is made when it is registered).
    pub(crate) fn buffer(buffer: vk::Buffer, allocation: Allocation, kind: MemoryKind) -> Self {
        Self::Buffer { buffer, allocation: Some(allocation), kind, charge: None }
    }

    /// An image (its charge is made when it is registered).
    pub(crate) fn image(image: vk::Image, views: Vec<vk::ImageView>, allocation: Allocation) -> Self {
        Self::Image { image, views, allocation: Some(allocation), charge: None }
    }

    /// Charges the memory of an image or buffer to `memory`, unless it is charged already.
    fn charge(&mut self, memory: &MemoryCounter) {
        let (kind, allocation, charge) = match self {
            Self::Image { allocation, charge, .. } => (MemoryKind::Textures, allocation, charge),
            Self::Buffer { allocation, kind, charge, .. } => (*kind, allocation, charge),
            _ => return,
        };
        if charge.is_none()
            && let Some(a) = allocation
        {
            *charge = Some(memory.charge(kind, a.size()));
        }
    }

    /// Its memory now counts as retiring.
    fn start_retiring(&mut self) {
        if let Self::Image { charge: Some(c), .. } | Self::Buffer { charge: Some(c), .. } = self {
            c.move_to(MemoryKind::Retiring);
        }
    }

    fn objects(&self) -> usize {
        match self {
            Self::Image { views, .. } => 1 + views.len(),
            Self::Buffer { .. } | Self::Sampler(_) | Self::Shader(_) | Self::Query(_) => 1,
            Self::Pipeline { pipeline, set_layouts, .. } => {
                1 + set_layouts.len() + usize::from(*pipeline != vk::Pipeline::null())
            }
            Self::Pools(pools) => pools.len(),
        }
    }

    /// Destroys the objects.
    ///
    /// # Safety
    ///
    /// The GPU no longer uses them (their tag passed, or the device is idle), and they were
    /// made on `device`.
    unsafe fn destroy(self, device: &ash::Device, allocator: Option<&mut Allocator>) {
        // SAFETY: the caller guarantees the objects are unused and belong to `device`; each is
        // destroyed exactly once because `self` is consumed.
        unsafe {
            match self {
                Self::Image { image, views, allocation, .. } => {
                    for v in views {
                        device.destroy_image_view(v, None);
                    }
                    device.destroy_image(image, None);
                    if let (Some(a), Some(alloc)) = (allocation, allocator) {
                        let _ = alloc.free(a);
                    }
                }
                Self::Buffer { buffer, allocation, .. } => {
                    device.destroy_buffer(buffer, None);
                    if let (Some(a), Some(alloc)) = (allocation, allocator) {
                        let _ = alloc.free(a);
                    }
                }
                Self::Sampler(s) => device.destroy_sampler(s, None),
                Self::Shader(m) => device.destroy_shader_module(m, None),
                Self::Pipeline { pipeline, layout, set_layouts } => {
                    if pipeline != vk::Pipeline::null() {
                        device.destroy_pipeline(pipeline, None);
                    }
                    device.destroy_pipeline_layout(layout, None);
                    for l in set_layouts {
                        device.destroy_descriptor_set_layout(l, None);
                    }
                }
                Self::Pools(pools) => {
                    for p in pools {
                        device.destroy_descriptor_pool(p, None);
                    }
                }
                Self::Query(q) => device.destroy_query_pool(q, None),
            }
        }
    }
}

/// Command buffers: the open one (being filled), those in flight (with the timeline value
/// their submission signals), and free ones.
struct Submitter {
    pool: vk::CommandPool,
    free: Vec<vk::CommandBuffer>,
    in_flight: VecDeque<(u64, vk::CommandBuffer)>,
    open: Option<vk::CommandBuffer>,
    /// The value the last submission signals.
    submitted: u64,
    /// The last value the GPU was seen to reach.
    completed: u64,
}

/// Descriptor sets made for one pipeline, cached by what they hold (see `pipeline.rs`).
#[derive(Default)]
pub(crate) struct SetCache {
    pub(crate) pools: Vec<vk::DescriptorPool>,
    pub(crate) sets: HashMap<(u32, Vec<u64>), vk::DescriptorSet>,
    pub(crate) ring_generation: u64,
}

/// Everything behind the device's one lock.
pub(crate) struct Core {
    submit: Submitter,
    pub(crate) allocator: Option<Allocator>,
    live: HashMap<u64, Resource>,
    deferred: VecDeque<(u64, Resource)>,
    next_id: u64,
    pub(crate) ring: UniformRing,
    pub(crate) sets: HashMap<u64, SetCache>,
    /// A buffer was written by recorded work since the last full memory barrier.
    buffers_dirty: bool,
    /// The timeline values that ended recent frames (oldest first).
    frames: VecDeque<u64>,
    /// Upload bytes recorded into the open command buffer.
    open_bytes: u64,
    objects: ObjectCounter,
    /// The device's memory report.
    pub(crate) memory: MemoryCounter,
}

/// What the no-progress watchdog watches (see [`f3d_hal::backend::Watchdog`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct WatchSettings {
    /// The request's `gpu_timeout` (`None`: wait for ever).
    pub(crate) timeout: Option<Duration>,
    /// A CPU adapter: the process's CPU time counts as progress.
    pub(crate) cpu: bool,
}

/// Submissions remembered for the watchdog's message.
const WORK_REMEMBERED: usize = 64;

/// Frames the CPU may run ahead of the GPU.
pub(crate) const FRAMES_IN_FLIGHT: usize = 2;

/// What every part of the device shares; payloads hold a `Weak` to it.
pub(crate) struct Shared {
    pub(crate) device: ash::Device,
    pub(crate) physical: vk::PhysicalDevice,
    pub(crate) family: u32,
    pub(crate) queue: vk::Queue,
    pub(crate) transfer_family: Option<u32>,
    pub(crate) timeline: vk::Semaphore,
    pub(crate) caps: Caps,
    pub(crate) formats: FormatTable,
    pub(crate) pipeline_cache: vk::PipelineCache,
    pub(crate) cache_file: Option<PathBuf>,
    core: Mutex<Core>,
    graveyard: Mutex<Vec<u64>>,
    /// Why the device was lost (simulated or reported by the driver), for code that outlives
    /// the calls that started it (pending readbacks).
    pub(crate) loss: Mutex<Option<LossReason>>,
    /// Set with `loss`, so the common case (alive) takes no lock.
    lost_flag: std::sync::atomic::AtomicBool,
    pub(crate) objects: ObjectCounter,
    /// The no-progress watchdog's settings.
    watch: WatchSettings,
    /// Frames begun (for the watchdog's message).
    frame: AtomicU64,
    /// Recent submissions: (timeline value, frame, what it carried), oldest first.
    work: Mutex<VecDeque<(u64, u64, String)>>,
    // Dropped last: the instance (and the validation messenger) outlive the device.
    pub(crate) instance: Instance,
}

fn lost_error(operation: &'static str, reason: LossReason) -> DeviceError {
    DeviceError::Lost { operation, backend: BackendId::VULKAN, reason }
}

impl Shared {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        instance: Instance,
        opened: crate::instance::OpenedDevice,
        formats: FormatTable,
        cache_file: Option<PathBuf>,
        watch: WatchSettings,
    ) -> Result<Self, String> {
        let crate::instance::OpenedDevice { physical, device, family, queue, transfer_family, caps } = opened;
        let objects = ObjectCounter::default();
        let fail = |device: &ash::Device, what: String| {
            // SAFETY: nothing made from the device is in use; it is destroyed once, here.
            unsafe { device.destroy_device(None) };
            what
        };
        let mut timeline_type = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let info = vk::SemaphoreCreateInfo::default().push_next(&mut timeline_type);
        // SAFETY: timeline semaphores were enabled on the device.
        let timeline = match unsafe { device.create_semaphore(&info, None) } {
            Ok(s) => s,
            Err(e) => return Err(fail(&device, format!("vkCreateSemaphore (timeline) failed: {e}"))),
        };
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: `family` is a queue family of the device.
        let pool = match unsafe { device.create_command_pool(&pool_info, None) } {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: the semaphore is unused.
                unsafe { device.destroy_semaphore(timeline, None) };
                return Err(fail(&device, format!("vkCreateCommandPool failed: {e}")));
            }
        };
        let allocator = gpu_allocator::vulkan::Allocator::new(&gpu_allocator::vulkan::AllocatorCreateDesc {
            instance: instance.instance.clone(),
            device: device.clone(),
            physical_device: physical,
            debug_settings: Default::default(),
            buffer_device_address: false,
            allocation_sizes: Default::default(),
        });
        let allocator = match allocator {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: both objects are unused.
                unsafe {
                    device.destroy_command_pool(pool, None);
                    device.destroy_semaphore(timeline, None);
                }
                return Err(fail(&device, format!("gpu-allocator did not start: {e}")));
            }
        };
        let initial = cache_file.as_ref().and_then(|p| crate::pipeline::read_pipeline_cache(p, &caps));
        let cache_info =
            vk::PipelineCacheCreateInfo::default().initial_data(initial.as_deref().unwrap_or(&[]));
        // SAFETY: the initial data's header was checked against this device (or is empty).
        let pipeline_cache = unsafe { device.create_pipeline_cache(&cache_info, None) }.unwrap_or_default();
        let core = Core {
            submit: Submitter {
                pool,
                free: Vec::new(),
                in_flight: VecDeque::new(),
                open: None,
                submitted: 0,
                completed: 0,
            },
            allocator: Some(allocator),
            live: HashMap::new(),
            deferred: VecDeque::new(),
            next_id: 1,
            ring: UniformRing::empty(caps.limits.min_uniform_buffer_offset_alignment),
            sets: HashMap::new(),
            buffers_dirty: false,
            frames: VecDeque::new(),
            open_bytes: 0,
            objects: objects.clone(),
            memory: MemoryCounter::new(),
        };
        // The command pool, the timeline semaphore and the pipeline cache.
        core.objects.add(2 + usize::from(pipeline_cache != vk::PipelineCache::null()));
        Ok(Self {
            device,
            physical,
            family,
            queue,
            transfer_family,
            timeline,
            caps,
            formats,
            pipeline_cache,
            cache_file,
            core: Mutex::new(core),
            graveyard: Mutex::new(Vec::new()),
            loss: Mutex::new(None),
            lost_flag: std::sync::atomic::AtomicBool::new(false),
            objects,
            watch,
            frame: AtomicU64::new(0),
            work: Mutex::new(VecDeque::new()),
            instance,
        })
    }

    /// The core, with resources dropped since the last lock retired.
    pub(crate) fn core(&self) -> MutexGuard<'_, Core> {
        let mut core = self.core.lock().unwrap_or_else(|e| e.into_inner());
        let dead = std::mem::take(&mut *self.graveyard.lock().unwrap_or_else(|e| e.into_inner()));
        for id in dead {
            core.retire(id);
        }
        core
    }

    /// Hands the resource `id` back; it is destroyed once the GPU is done with it. Never
    /// takes the core lock, so it is safe from any `Drop`.
    pub(crate) fn release(&self, id: u64) {
        self.graveyard.lock().unwrap_or_else(|e| e.into_inner()).push(id);
    }

    /// Why the device was lost, if it was.
    pub(crate) fn lost(&self) -> Option<LossReason> {
        if !self.lost_flag.load(std::sync::atomic::Ordering::Acquire) {
            return None;
        }
        self.loss.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Marks the device lost (the first reason sticks).
    pub(crate) fn lose(&self, reason: LossReason) {
        let mut loss = self.loss.lock().unwrap_or_else(|e| e.into_inner());
        if loss.is_none() {
            *loss = Some(reason);
        }
        self.lost_flag.store(true, std::sync::atomic::Ordering::Release);
    }

    /// Turns a Vulkan error into the HAL's, noting device loss.
    pub(crate) fn vk_error(&self, operation: &'static str, e: vk::Result) -> DeviceError {
        if e == vk::Result::ERROR_DEVICE_LOST {
            self.lose(LossReason::Driver(format!("{operation}: the driver reported the device lost")));
            if let Some(reason) = self.lost() {
                return lost_error(operation, reason);
            }
        }
        crate::alloc::vk_error(operation, e)
    }

    /// The last value the GPU reached.
    pub(crate) fn completed_value(&self) -> Result<u64, vk::Result> {
        // SAFETY: the semaphore belongs to the device.
        unsafe { self.device.get_semaphore_counter_value(self.timeline) }
    }

    /// Notes that a frame began (the watchdog names frames).
    pub(crate) fn next_frame(&self) {
        self.frame.fetch_add(1, Ordering::Relaxed);
    }

    /// Remembers what the submission that signals `value` carried.
    fn note_work(&self, value: u64, what: &str) {
        let mut work = self.work.lock().unwrap_or_else(|e| e.into_inner());
        if work.len() == WORK_REMEMBERED {
            work.pop_front();
        }
        work.push_back((value, self.frame.load(Ordering::Relaxed), what.to_owned()));
    }

    /// `frame N: what` for the submission that signals `value`, as far as it is remembered.
    fn describe_work(&self, value: u64) -> String {
        let work = self.work.lock().unwrap_or_else(|e| e.into_inner());
        match work.iter().find(|(v, _, _)| *v == value) {
            Some((_, frame, what)) => format!("frame {frame}: {what}"),
            None => format!("frame {}", self.frame.load(Ordering::Relaxed)),
        }
    }

    /// Blocks until the GPU reached `value` (without holding the core lock). When nothing
    /// progresses for the request's `gpu_timeout` (no timeline value reached and, on a CPU
    /// adapter, no CPU time spent) the device counts as lost, and the reason names the frame
    /// and the submission waited on.
    pub(crate) fn wait(&self, value: u64, operation: &'static str) -> Result<(), DeviceError> {
        let semaphores = [self.timeline];
        let values = [value];
        let info = vk::SemaphoreWaitInfo::default().semaphores(&semaphores).values(&values);
        let mut dog = Watchdog::new(self.watch.timeout, self.completed_value().unwrap_or(0), self.watch.cpu);
        loop {
            if let Some(reason) = self.lost() {
                return Err(lost_error(operation, reason));
            }
            // SAFETY: the semaphore belongs to the device; the arrays outlive the call.
            match unsafe { self.device.wait_semaphores(&info, Duration::from_millis(250).as_nanos() as u64) }
            {
                Ok(()) => return Ok(()),
                Err(vk::Result::TIMEOUT) => {
                    let now = self.completed_value().map_err(|e| self.vk_error(operation, e))?;
                    if let Err(stalled) = dog.check(now) {
                        self.lose(LossReason::Driver(format!(
                            "no progress for {:.1} s while waiting for {} (timeline value {value}; the last \
                             reached is {now}){}; F3D_GPU_TIMEOUT_S sets the limit (0 waits for ever)",
                            stalled.as_secs_f64(),
                            self.describe_work(value),
                            if self.watch.cpu { ", and the CPU driver spent no CPU time" } else { "" },
                        )));
                    }
                }
                Err(e) => return Err(self.vk_error(operation, e)),
            }
        }
    }
}

impl Core {
    /// A fresh id for a resource.
    pub(crate) fn next_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Registers `resource` under a fresh id.
    pub(crate) fn register(&mut self, mut resource: Resource) -> u64 {
        let id = self.next_id();
        resource.charge(&self.memory);
        self.objects.add(resource.objects());
        self.live.insert(id, resource);
        id
    }

    /// Adds a view to the registered image `id` (destroyed with it).
    pub(crate) fn add_view(&mut self, id: u64, view: vk::ImageView) -> bool {
        match self.live.get_mut(&id) {
            Some(Resource::Image { views, .. }) => {
                views.push(view);
                self.objects.add(1);
                true
            }
            _ => false,
        }
    }

    /// The allocator (gone only after teardown, when no device call can reach here).
    pub(crate) fn allocator(&mut self, operation: &'static str) -> Result<&mut Allocator, DeviceError> {
        self.allocator.as_mut().ok_or(DeviceError::Lost {
            operation,
            backend: BackendId::VULKAN,
            reason: LossReason::Destroyed,
        })
    }

    /// Whether a command buffer is open (recorded work not yet submitted).
    pub(crate) fn has_open(&self) -> bool {
        self.submit.open.is_some()
    }

    /// Notes `bytes` of uploads recorded into the open command buffer; returns the total since
    /// it was opened.
    pub(crate) fn note_upload(&mut self, bytes: u64) -> u64 {
        self.open_bytes += bytes;
        self.open_bytes
    }

    /// The registered resource `id`.
    pub(crate) fn resource(&self, id: u64) -> Option<&Resource> {
        self.live.get(&id)
    }

    /// Retires the registered resource `id` now (from code holding the core lock).
    pub(crate) fn release_now(&mut self, id: u64) {
        self.retire(id);
    }

    /// The allocation of the registered buffer `id` (for mapped reads and writes).
    pub(crate) fn allocation_mut(&mut self, id: u64) -> Option<&mut Allocation> {
        match self.live.get_mut(&id) {
            Some(Resource::Buffer { allocation, .. } | Resource::Image { allocation, .. }) => {
                allocation.as_mut()
            }
            _ => None,
        }
    }

    /// The value the next retirement must wait for: the open command buffer's (it may use
    /// anything alive now), or the last submitted one.
    pub(crate) fn pending(&self) -> u64 {
        self.submit.submitted + u64::from(self.submit.open.is_some())
    }

    /// The value the last submission signals.
    pub(crate) fn submitted(&self) -> u64 {
        self.submit.submitted
    }

    fn retire(&mut self, id: u64) {
        let tag = self.pending();
        if let Some(mut r) = self.live.remove(&id) {
            r.start_retiring();
            self.deferred.push_back((tag, r));
        }
        if let Some(cache) = self.sets.remove(&id) {
            self.deferred.push_back((tag, Resource::Pools(cache.pools)));
        }
    }

    /// Retires objects that were never registered (the old uniform ring, descriptor pools of
    /// a cache being reset); they were counted by [`created`](Self::created).
    pub(crate) fn retire_now(&mut self, mut resource: Resource) {
        resource.start_retiring();
        let tag = self.pending();
        self.deferred.push_back((tag, resource));
    }

    /// Counts `n` objects made outside [`register`](Self::register) (the uniform ring,
    /// descriptor pools), destroyed later through [`retire_now`](Self::retire_now) or teardown.
    pub(crate) fn created(&mut self, n: usize) {
        self.objects.add(n);
    }

    /// The open command buffer, beginning one when none is open.
    pub(crate) fn cmd(
        &mut self,
        shared: &Shared,
        operation: &'static str,
    ) -> Result<vk::CommandBuffer, DeviceError> {
        if let Some(cmd) = self.submit.open {
            return Ok(cmd);
        }
        self.collect(shared);
        let cmd = match self.submit.free.pop() {
            Some(cmd) => cmd,
            None => {
                let info = vk::CommandBufferAllocateInfo::default()
                    .command_pool(self.submit.pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1);
                // SAFETY: the pool belongs to the device and is only used under the core lock.
                let mut v = unsafe { shared.device.allocate_command_buffers(&info) }
                    .map_err(|e| shared.vk_error(operation, e))?;
                v.pop().ok_or_else(|| shared.vk_error(operation, vk::Result::ERROR_UNKNOWN))?
            }
        };
        let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: `cmd` is not in flight (free buffers completed), and begin resets it (the
        // pool allows resetting individual buffers).
        unsafe { shared.device.begin_command_buffer(cmd, &begin) }
            .map_err(|e| shared.vk_error(operation, e))?;
        self.submit.open = Some(cmd);
        Ok(cmd)
    }

    /// Ends and submits the open command buffer (opening an empty one if none is open, so
    /// the returned value always marks "everything called so far"); returns the timeline value
    /// it signals.
    pub(crate) fn submit(&mut self, shared: &Shared, operation: &'static str) -> Result<u64, DeviceError> {
        self.submit_labelled(shared, operation, operation)
    }

    /// [`submit`](Self::submit), remembering `what` the submission carries for the
    /// watchdog's message.
    pub(crate) fn submit_labelled(
        &mut self,
        shared: &Shared,
        operation: &'static str,
        what: &str,
    ) -> Result<u64, DeviceError> {
        self.submit_with(shared, operation, what, &[], &[])
    }

    /// [`submit_labelled`](Self::submit_labelled) that also waits for `waits` and signals
    /// `signals` (binary semaphores of a swapchain) besides the timeline.
    pub(crate) fn submit_with(
        &mut self,
        shared: &Shared,
        operation: &'static str,
        what: &str,
        waits: &[vk::SemaphoreSubmitInfo<'_>],
        signals: &[vk::SemaphoreSubmitInfo<'_>],
    ) -> Result<u64, DeviceError> {
        let cmd = self.cmd(shared, operation)?;
        self.submit.open = None;
        self.open_bytes = 0;
        // SAFETY: `cmd` is recording (opened by `cmd`).
        if let Err(e) = unsafe { shared.device.end_command_buffer(cmd) } {
            self.submit.free.push(cmd);
            return Err(shared.vk_error(operation, e));
        }
        let value = self.submit.submitted + 1;
        let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(cmd)];
        let mut all_signals = Vec::with_capacity(signals.len() + 1);
        all_signals.extend_from_slice(signals);
        all_signals.push(
            vk::SemaphoreSubmitInfo::default()
                .semaphore(shared.timeline)
                .value(value)
                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS),
        );
        let submit = vk::SubmitInfo2::default()
            .command_buffer_infos(&cmds)
            .wait_semaphore_infos(waits)
            .signal_semaphore_infos(&all_signals);
        // SAFETY: the queue is only used under the core lock; the command buffer is executable;
        // the value is larger than every value signalled before; the caller's binary
        // semaphores have a signal pending (waits) or none (signals).
        if let Err(e) = unsafe { shared.device.queue_submit2(shared.queue, &[submit], vk::Fence::null()) } {
            // The buffer never ran; it can be reused once reset by the next begin.
            self.submit.free.push(cmd);
            return Err(shared.vk_error(operation, e));
        }
        self.submit.submitted = value;
        self.submit.in_flight.push_back((value, cmd));
        shared.note_work(value, what);
        Ok(value)
    }

    /// Recycles command buffers and destroys resources the GPU is done with.
    pub(crate) fn collect(&mut self, shared: &Shared) {
        let Ok(done) = shared.completed_value() else { return };
        self.submit.completed = done;
        while let Some(&(v, cmd)) = self.submit.in_flight.front() {
            if v > done {
                break;
            }
            self.submit.in_flight.pop_front();
            self.submit.free.push(cmd);
        }
        while let Some((tag, _)) = self.deferred.front() {
            if *tag > done {
                break;
            }
            if let Some((_, r)) = self.deferred.pop_front() {
                self.objects.sub(r.objects());
                // SAFETY: the GPU passed the value of every submission that could use it.
                unsafe { r.destroy(&shared.device, self.allocator.as_mut()) };
            }
        }
        self.ring.release(done);
    }

    /// A full memory barrier when recorded work wrote a buffer since the last one: buffers have
    /// no layouts, so this one barrier orders them for everything after.
    pub(crate) fn buffer_reads(&mut self, shared: &Shared, cmd: vk::CommandBuffer) {
        if self.buffers_dirty {
            full_barrier(&shared.device, cmd);
            self.buffers_dirty = false;
        }
    }

    /// Orders a buffer write after everything before it (reads and writes), and marks that
    /// later reads need a barrier.
    pub(crate) fn buffer_write(&mut self, shared: &Shared, cmd: vk::CommandBuffer) {
        full_barrier(&shared.device, cmd);
        self.buffers_dirty = true;
    }

    /// Notes that recorded work (a dispatch) wrote buffers.
    pub(crate) fn mark_buffers_written(&mut self) {
        self.buffers_dirty = true;
    }

    /// Starts a frame: the CPU waits until at most [`FRAMES_IN_FLIGHT`] frames are unfinished
    /// on the GPU, and what the GPU finished is recycled.
    pub(crate) fn begin_frame(&mut self, shared: &Shared) -> Option<u64> {
        self.frames.push_back(self.submit.submitted);
        self.collect(shared);
        if self.frames.len() > FRAMES_IN_FLIGHT {
            self.frames.pop_front().filter(|v| *v > self.submit.completed)
        } else {
            None
        }
    }

    /// Destroys everything: every registered object, whatever still holds its handle.
    ///
    /// # Safety
    ///
    /// The device is idle.
    unsafe fn teardown(&mut self, device: &ash::Device) {
        let mut allocator = self.allocator.take();
        for (_, r) in self.deferred.drain(..).chain(self.live.drain()) {
            self.objects.sub(r.objects());
            // SAFETY: the device is idle (the caller's guarantee).
            unsafe { r.destroy(device, allocator.as_mut()) };
        }
        for (_, cache) in self.sets.drain() {
            let r = Resource::Pools(cache.pools);
            self.objects.sub(r.objects());
            // SAFETY: as above.
            unsafe { r.destroy(device, allocator.as_mut()) };
        }
        if let Some(r) = self.ring.take() {
            self.objects.sub(r.objects());
            // SAFETY: as above.
            unsafe { r.destroy(device, allocator.as_mut()) };
        }
        // SAFETY: as above; freeing the pool frees its command buffers.
        unsafe { device.destroy_command_pool(self.submit.pool, None) };
        self.objects.sub(1);
        // gpu-allocator frees its memory blocks when dropped, which must happen before the
        // device is destroyed.
        drop(allocator);
    }
}

/// Every earlier write made visible to every later access.
pub(crate) fn full_barrier(device: &ash::Device, cmd: vk::CommandBuffer) {
    let barrier = [vk::MemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
        .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)];
    let dep = vk::DependencyInfo::default().memory_barriers(&barrier);
    // SAFETY: `cmd` is recording, outside any render pass instance.
    unsafe { device.cmd_pipeline_barrier2(cmd, &dep) };
}

impl Drop for Shared {
    fn drop(&mut self) {
        let _turn = f3d_hal::backend::driver_lifecycle_turn();
        // SAFETY: waiting is always allowed; a lost device answers at once.
        let _ = unsafe { self.device.device_wait_idle() };
        let core = self.core.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(cmd) = core.submit.open.take() {
            // SAFETY: the buffer was recording and never submitted; ending it is harmless.
            let _ = unsafe { self.device.end_command_buffer(cmd) };
        }
        // SAFETY: the device is idle.
        unsafe { core.teardown(&self.device) };
        crate::pipeline::save_pipeline_cache(self);
        // SAFETY: idle device; each object is destroyed once, children before the device.
        unsafe {
            if self.pipeline_cache != vk::PipelineCache::null() {
                self.device.destroy_pipeline_cache(self.pipeline_cache, None);
            }
            self.device.destroy_semaphore(self.timeline, None);
            self.device.destroy_device(None);
        }
        // The timeline semaphore and the pipeline cache (the pool went in teardown).
        self.objects.sub(1 + usize::from(self.pipeline_cache != vk::PipelineCache::null()));
    }
}
