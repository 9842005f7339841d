//! Opening: the loader, the instance (with the Khronos validation layer and a debug-utils
//! messenger when asked), the physical device chosen by the request's power preference, its
//! queue families, and the logical device with the features f3d uses that the device has.
//!
//! ```text
//!  Entry::load (libvulkan.so.1, at run time) ─► Instance 1.3 (+ VK_LAYER_KHRONOS_validation,
//!        VK_EXT_debug_utils → ValidationLog; + VK_KHR_surface and the Xlib / XCB / Wayland
//!        surface extensions, those the loader offers) ─► physical devices, filtered:
//!        Vulkan 1.3, dynamicRendering, synchronization2, timelineSemaphore, a graphics+compute
//!        family ─► ranked by power preference ─► Device (required + available optional
//!        features; VK_KHR_swapchain where offered and the instance has VK_KHR_surface)
//! ```
//!
//! Anything missing is [`OpenError::DeviceUnavailable`] with a sentence saying what, so a
//! registry moves on to the next backend. Presentation is optional: a loader or device
//! without the surface and swapchain extensions opens headless, and the device does not
//! report `DeviceFeature::PRESENT`.

use std::ffi::{CStr, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ash::vk;
use f3d_hal::{BackendId, OpenError, PowerPreference};

/// The layer turned on when a request asks for validation.
const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

fn unavailable(reason: impl Into<String>) -> OpenError {
    OpenError::DeviceUnavailable { backend: BackendId::VULKAN, reason: reason.into() }
}

/// Messages the Khronos validation layer reported, collected from a debug-utils messenger.
///
/// One log may serve several devices (the conformance test hands the same log to every
/// device it opens and asserts it stays empty). Validation warnings and errors land here and
/// are logged as `tracing` warnings prefixed `vulkan validation:`; a device opened with validation
/// also fails the call during which a message arrived (see the crate docs).
#[derive(Clone, Default)]
pub struct ValidationLog(Arc<LogInner>);

#[derive(Default)]
struct LogInner {
    messages: Mutex<Vec<String>>,
    count: AtomicUsize,
}

impl std::fmt::Debug for ValidationLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ValidationLog({} messages)", self.len())
    }
}

impl ValidationLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every message so far, oldest first.
    pub fn messages(&self) -> Vec<String> {
        self.0.messages.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// How many messages arrived so far.
    pub fn len(&self) -> usize {
        self.0.count.load(Ordering::Acquire)
    }

    /// Whether no message arrived.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The messages from the `from`-th on.
    pub(crate) fn since(&self, from: usize) -> Vec<String> {
        let messages = self.0.messages.lock().unwrap_or_else(|e| e.into_inner());
        messages.get(from..).map(<[String]>::to_vec).unwrap_or_default()
    }

    #[cfg(test)]
    fn push(&self, message: String) {
        self.0.push(message);
    }
}

impl LogInner {
    fn push(&self, message: String) {
        tracing::warn!("vulkan validation: {message}");
        self.messages.lock().unwrap_or_else(|e| e.into_inner()).push(message);
        self.count.fetch_add(1, Ordering::AcqRel);
    }
}

/// The messenger callback: validation warnings and errors go to the log whose `LogInner` the
/// user data points at; everything else (loader chatter, info) is dropped.
unsafe extern "system" fn messenger_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    let serious = severity.intersects(
        vk::DebugUtilsMessageSeverityFlagsEXT::WARNING | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
    );
    if !serious || !types.contains(vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION) || user.is_null() {
        return vk::FALSE;
    }
    // SAFETY: the layer passes callback data valid for the duration of the call (or null).
    let message = match unsafe { data.as_ref() } {
        Some(d) if !d.p_message.is_null() => {
            // SAFETY: `p_message` is a NUL-terminated string the layer owns for this call.
            unsafe { CStr::from_ptr(d.p_message) }.to_string_lossy().into_owned()
        }
        _ => "(no message)".to_owned(),
    };
    // SAFETY: `user` is `Arc::as_ptr` of the log's inner value, which the instance keeps alive
    // (it holds a clone of the log) until after the messenger and the instance are destroyed.
    let inner = unsafe { &*(user as *const LogInner) };
    inner.push(message);
    vk::FALSE
}

/// The window-system extensions the instance was made with (see [`Instance::new`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SurfaceExtensions {
    /// `VK_KHR_surface`: without it no surface can exist and the device opens headless.
    pub(crate) surface: bool,
    /// `VK_KHR_xlib_surface`.
    pub(crate) xlib: bool,
    /// `VK_KHR_xcb_surface`.
    pub(crate) xcb: bool,
    /// `VK_KHR_wayland_surface`.
    pub(crate) wayland: bool,
}

/// The loader and the instance, with the messenger when validating.
pub(crate) struct Instance {
    /// The loaded library; every function pointer of the instance points into it.
    pub(crate) entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    /// The surface extensions enabled (only those the loader offers).
    pub(crate) surfaces: SurfaceExtensions,
    messenger: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    /// The log the messenger writes into; kept alive as long as the instance.
    pub(crate) log: Option<ValidationLog>,
}

impl Instance {
    /// Loads Vulkan and makes an instance (1.3), with validation when `log` is given.
    pub(crate) fn new(log: Option<ValidationLog>) -> Result<Self, OpenError> {
        // SAFETY: loading the system's Vulkan loader runs its initialisation; that is what the
        // loader is for, and nothing else in this process depends on it not being loaded.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| {
            unavailable(format!(
                "the Vulkan loader (libvulkan.so.1) did not load (is libvulkan1 installed?): {e}"
            ))
        })?;
        // SAFETY: a plain query of the loader.
        let version = unsafe { entry.try_enumerate_instance_version() }
            .map_err(|e| unavailable(format!("the Vulkan loader did not answer its version: {e}")))?
            .unwrap_or(vk::API_VERSION_1_0);
        if version < vk::API_VERSION_1_3 {
            return Err(unavailable(format!(
                "the Vulkan loader offers Vulkan {}.{}, and f3d needs 1.3",
                vk::api_version_major(version),
                vk::api_version_minor(version)
            )));
        }
        let app = vk::ApplicationInfo::default()
            .application_name(c"f3d")
            .engine_name(c"f3d")
            .api_version(vk::API_VERSION_1_3);
        let mut layers = Vec::new();
        // SAFETY: a plain query of the loader. A loader that does not answer offers nothing
        // optional: the instance is made headless.
        let offered = unsafe { entry.enumerate_instance_extension_properties(None) }.unwrap_or_default();
        let offers =
            |name: &CStr| offered.iter().any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name));
        let (mut extensions, surfaces) = surface_extensions(offers);
        if log.is_some() {
            // SAFETY: a plain query of the loader.
            let available = unsafe { entry.enumerate_instance_layer_properties() }.unwrap_or_default();
            let has = available.iter().any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == VALIDATION_LAYER));
            if !has {
                return Err(unavailable(
                    "validation was asked for, but VK_LAYER_KHRONOS_validation is not installed (apt-get install vulkan-validationlayers)",
                ));
            }
            layers.push(VALIDATION_LAYER.as_ptr());
            extensions.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        let user = log.as_ref().map_or(std::ptr::null_mut(), |l| Arc::as_ptr(&l.0) as *mut c_void);
        let mut early_messenger = messenger_info(user);
        let mut info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&extensions);
        if log.is_some() {
            // Messages from vkCreateInstance and vkDestroyInstance themselves.
            info = info.push_next(&mut early_messenger);
        }
        // SAFETY: every pointer in `info` refers to locals alive for the call; the messenger
        // user data points at the log, which `Self` keeps alive.
        let instance = unsafe { entry.create_instance(&info, None) }
            .map_err(|e| match e {
                vk::Result::ERROR_INCOMPATIBLE_DRIVER => unavailable(
                    "no Vulkan 1.3 device with dynamic rendering, synchronization2 and timeline semaphores (is mesa-vulkan-drivers installed?): the loader found no driver",
                ),
                other => unavailable(format!("vkCreateInstance failed: {other}")),
            })?;
        let messenger = match &log {
            Some(_) => {
                let du = ash::ext::debug_utils::Instance::new(&entry, &instance);
                // SAFETY: the instance was made with VK_EXT_debug_utils; the user data lives as
                // long as `Self`, which destroys the messenger before the instance.
                match unsafe { du.create_debug_utils_messenger(&messenger_info(user), None) } {
                    Ok(m) => Some((du, m)),
                    Err(e) => {
                        // SAFETY: nothing was made from the instance yet.
                        unsafe { instance.destroy_instance(None) };
                        return Err(unavailable(format!("vkCreateDebugUtilsMessengerEXT failed: {e}")));
                    }
                }
            }
            None => None,
        };
        keep_drivers_loaded(&entry, &app);
        Ok(Self { entry, instance, surfaces, messenger, log })
    }
}

/// The surface extensions to enable among those `offers` says the loader has:
/// `VK_KHR_surface` and every platform one f3d can make surfaces for (X11 through Xlib or
/// XCB, Wayland). Without `VK_KHR_surface` none is enabled.
fn surface_extensions(offers: impl Fn(&CStr) -> bool) -> (Vec<*const std::ffi::c_char>, SurfaceExtensions) {
    let mut names = Vec::new();
    let mut on = SurfaceExtensions::default();
    if !offers(ash::khr::surface::NAME) {
        return (names, on);
    }
    names.push(ash::khr::surface::NAME.as_ptr());
    on.surface = true;
    for (name, flag) in [
        (ash::khr::xlib_surface::NAME, &mut on.xlib),
        (ash::khr::xcb_surface::NAME, &mut on.xcb),
        (ash::khr::wayland_surface::NAME, &mut on.wayland),
    ] {
        if offers(name) {
            names.push(name.as_ptr());
            *flag = true;
        }
    }
    (names, on)
}

/// Makes, once per process, an instance that is never destroyed, so the drivers the loader
/// opened for it stay loaded. The loader closes a driver's library when the last instance
/// using it is destroyed, and NVIDIA's driver does not survive being unloaded and loaded
/// again in one process: on the H200, opening and dropping devices one after another failed
/// from about the thirtieth (`vkCreateInstance`: `ERROR_INCOMPATIBLE_DRIVER`), and sixteen
/// threads doing so at once hung in the driver. With this instance alive the driver is loaded
/// once. It has no layers and no messenger; if it cannot be made, nothing changes.
fn keep_drivers_loaded(entry: &ash::Entry, app: &vk::ApplicationInfo<'_>) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let info = vk::InstanceCreateInfo::default().application_info(app);
        // SAFETY: `info` and `app` point at values alive for the call. The instance is made
        // and deliberately never destroyed (nothing is ever made from it), and the loader
        // it lives in stays loaded too (`Instance::drop` keeps a reference to it).
        let _kept = unsafe { entry.create_instance(&info, None) };
    });
}

fn messenger_info<'a>(user: *mut c_void) -> vk::DebugUtilsMessengerCreateInfoEXT<'a> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(messenger_callback))
        .user_data(user)
}

impl Drop for Instance {
    fn drop(&mut self) {
        if let Some((du, m)) = self.messenger.take() {
            // SAFETY: the messenger was made from this instance and is destroyed once.
            unsafe { du.destroy_debug_utils_messenger(m, None) };
        }
        // SAFETY: every child of the instance (the device and all it made) was destroyed
        // before this (the device's teardown runs first; see `Shared::drop`).
        unsafe { self.instance.destroy_instance(None) };
        // The loader stays in the process, and with it the instance `keep_drivers_loaded`
        // made and the drivers it keeps loaded (NVIDIA's does not survive being unloaded and
        // loaded again). Keeping one more reference to the library, never released, keeps it
        // loaded.
        std::mem::forget(self.entry.clone());
    }
}

/// The optional device features f3d uses, as enabled on the device.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Enabled {
    pub(crate) fill_mode_non_solid: bool,
    pub(crate) depth_clamp: bool,
    pub(crate) multi_draw_indirect: bool,
    pub(crate) draw_indirect_first_instance: bool,
    pub(crate) sampler_anisotropy: bool,
    pub(crate) texture_compression_bc: bool,
    pub(crate) occlusion_query_precise: bool,
    pub(crate) independent_blend: bool,
    pub(crate) image_cube_array: bool,
    pub(crate) sample_rate_shading: bool,
    pub(crate) shader_float64: bool,
    pub(crate) shader_int64: bool,
    pub(crate) shader_int16: bool,
    pub(crate) shader_clip_distance: bool,
    pub(crate) fragment_stores: bool,
    pub(crate) vertex_stores: bool,
    pub(crate) multiview: bool,
    pub(crate) shader_float16: bool,
    pub(crate) depth_bias_clamp: bool,
    /// `VK_KHR_swapchain`: the device offers it and the instance has `VK_KHR_surface`.
    pub(crate) swapchain: bool,
}

/// What the chosen physical device is and can do: every later decision reads this.
pub(crate) struct Caps {
    pub(crate) name: String,
    pub(crate) driver: String,
    pub(crate) device_type: vk::PhysicalDeviceType,
    pub(crate) limits: vk::PhysicalDeviceLimits,
    pub(crate) max_buffer_size: u64,
    pub(crate) max_allocation_size: u64,
    pub(crate) max_multiview_views: u32,
    pub(crate) enabled: Enabled,
    /// Timestamps on the graphics queue, with the period in nanoseconds per tick.
    pub(crate) timestamp_period: Option<f32>,
    pub(crate) pipeline_cache_uuid: [u8; 16],
    pub(crate) vendor_id: u32,
    pub(crate) device_id: u32,
}

/// The physical device picked, with its queue families.
struct Candidate {
    physical: vk::PhysicalDevice,
    props: vk::PhysicalDeviceProperties,
    family: u32,
    transfer_family: Option<u32>,
}

/// Why a physical device cannot serve f3d, or `None` when it can.
fn reject_reason(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
) -> (Option<String>, Option<(u32, Option<u32>)>) {
    // SAFETY: `physical` was enumerated from `instance`.
    let props = unsafe { instance.get_physical_device_properties(physical) };
    if props.api_version < vk::API_VERSION_1_3 {
        return (
            Some(format!(
                "Vulkan {}.{}, not 1.3",
                vk::api_version_major(props.api_version),
                vk::api_version_minor(props.api_version)
            )),
            None,
        );
    }
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f12).push_next(&mut f13);
    // SAFETY: a query into structures that live for the call.
    unsafe { instance.get_physical_device_features2(physical, &mut f2) };
    let mut missing = Vec::new();
    if f13.dynamic_rendering == vk::FALSE {
        missing.push("dynamicRendering");
    }
    if f13.synchronization2 == vk::FALSE {
        missing.push("synchronization2");
    }
    if f12.timeline_semaphore == vk::FALSE {
        missing.push("timelineSemaphore");
    }
    if !missing.is_empty() {
        return (Some(format!("lacks {}", missing.join(", "))), None);
    }
    // SAFETY: as above.
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
    let both = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE;
    let Some(family) = families.iter().position(|f| f.queue_flags.contains(both) && f.queue_count > 0) else {
        return (Some("has no queue family with both graphics and compute".into()), None);
    };
    let transfer = families.iter().position(|f| {
        f.queue_flags.contains(vk::QueueFlags::TRANSFER)
            && !f.queue_flags.intersects(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
            && f.queue_count > 0
    });
    (None, Some((family as u32, transfer.map(|t| t as u32))))
}

fn rank(kind: vk::PhysicalDeviceType, preference: PowerPreference) -> u32 {
    use vk::PhysicalDeviceType as T;
    let order: [T; 4] = match preference {
        PowerPreference::LowPower => [T::INTEGRATED_GPU, T::DISCRETE_GPU, T::VIRTUAL_GPU, T::CPU],
        PowerPreference::None | PowerPreference::HighPerformance => {
            [T::DISCRETE_GPU, T::INTEGRATED_GPU, T::VIRTUAL_GPU, T::CPU]
        }
    };
    order.iter().position(|t| *t == kind).map_or(order.len() as u32, |p| p as u32)
}

fn device_name(props: &vk::PhysicalDeviceProperties) -> String {
    props.device_name_as_c_str().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|_| "?".into())
}

fn choose(instance: &ash::Instance, preference: PowerPreference) -> Result<Candidate, OpenError> {
    // SAFETY: a plain query of the instance.
    let physicals = unsafe { instance.enumerate_physical_devices() }
        .map_err(|e| unavailable(format!("vkEnumeratePhysicalDevices failed: {e}")))?;
    let mut rejected = Vec::new();
    let mut fit = Vec::new();
    for physical in physicals {
        // SAFETY: `physical` was enumerated from `instance`.
        let props = unsafe { instance.get_physical_device_properties(physical) };
        match reject_reason(instance, physical) {
            (Some(why), _) => rejected.push(format!("{}: {why}", device_name(&props))),
            (None, Some((family, transfer_family))) => {
                fit.push(Candidate { physical, props, family, transfer_family })
            }
            (None, None) => {}
        }
    }
    // Stable: among equals, the loader's order stands.
    fit.sort_by_key(|c| rank(c.props.device_type, preference));
    fit.into_iter().next().ok_or_else(|| {
        let found = if rejected.is_empty() {
            "no physical device found".to_owned()
        } else {
            format!("found {}", rejected.join("; "))
        };
        unavailable(format!(
            "no Vulkan 1.3 device with dynamic rendering, synchronization2 and timeline semaphores (is mesa-vulkan-drivers installed?): {found}"
        ))
    })
}

/// Whether `physical` offers `VK_KHR_swapchain`.
fn offers_swapchain(instance: &ash::Instance, physical: vk::PhysicalDevice) -> bool {
    // SAFETY: a plain query; `physical` was enumerated from `instance`.
    let offered = unsafe { instance.enumerate_device_extension_properties(physical) }.unwrap_or_default();
    offered.iter().any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == ash::khr::swapchain::NAME))
}

/// An open logical device and where it came from.
pub(crate) struct OpenedDevice {
    pub(crate) physical: vk::PhysicalDevice,
    pub(crate) device: ash::Device,
    pub(crate) family: u32,
    pub(crate) queue: vk::Queue,
    pub(crate) transfer_family: Option<u32>,
    pub(crate) caps: Caps,
}

/// Picks the physical device `preference` ranks first and opens it with the required
/// features and every optional one f3d uses that it has.
pub(crate) fn open_device(
    instance: &Instance,
    preference: PowerPreference,
) -> Result<OpenedDevice, OpenError> {
    let inst = &instance.instance;
    let c = choose(inst, preference)?;
    let mut a11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut a12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut a13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut avail =
        vk::PhysicalDeviceFeatures2::default().push_next(&mut a11).push_next(&mut a12).push_next(&mut a13);
    // SAFETY: a query into structures that live for the call.
    unsafe { inst.get_physical_device_features2(c.physical, &mut avail) };
    let a = avail.features;
    let on = |v: vk::Bool32| v == vk::TRUE;
    let enabled = Enabled {
        fill_mode_non_solid: on(a.fill_mode_non_solid),
        depth_clamp: on(a.depth_clamp),
        multi_draw_indirect: on(a.multi_draw_indirect),
        draw_indirect_first_instance: on(a.draw_indirect_first_instance),
        sampler_anisotropy: on(a.sampler_anisotropy),
        texture_compression_bc: on(a.texture_compression_bc),
        occlusion_query_precise: on(a.occlusion_query_precise),
        independent_blend: on(a.independent_blend),
        image_cube_array: on(a.image_cube_array),
        sample_rate_shading: on(a.sample_rate_shading),
        shader_float64: on(a.shader_float64),
        shader_int64: on(a.shader_int64),
        shader_int16: on(a.shader_int16),
        shader_clip_distance: on(a.shader_clip_distance),
        fragment_stores: on(a.fragment_stores_and_atomics),
        vertex_stores: on(a.vertex_pipeline_stores_and_atomics),
        multiview: on(a11.multiview),
        shader_float16: on(a12.shader_float16),
        depth_bias_clamp: on(a.depth_bias_clamp),
        swapchain: instance.surfaces.surface && offers_swapchain(inst, c.physical),
    };
    let b = |v: bool| if v { vk::TRUE } else { vk::FALSE };
    let core = vk::PhysicalDeviceFeatures {
        // Out-of-range vertex fetches and buffer accesses stay inside their buffers.
        robust_buffer_access: a.robust_buffer_access,
        fill_mode_non_solid: b(enabled.fill_mode_non_solid),
        depth_clamp: b(enabled.depth_clamp),
        multi_draw_indirect: b(enabled.multi_draw_indirect),
        draw_indirect_first_instance: b(enabled.draw_indirect_first_instance),
        sampler_anisotropy: b(enabled.sampler_anisotropy),
        texture_compression_bc: b(enabled.texture_compression_bc),
        occlusion_query_precise: b(enabled.occlusion_query_precise),
        independent_blend: b(enabled.independent_blend),
        image_cube_array: b(enabled.image_cube_array),
        sample_rate_shading: b(enabled.sample_rate_shading),
        shader_float64: b(enabled.shader_float64),
        shader_int64: b(enabled.shader_int64),
        shader_int16: b(enabled.shader_int16),
        shader_clip_distance: b(enabled.shader_clip_distance),
        fragment_stores_and_atomics: b(enabled.fragment_stores),
        vertex_pipeline_stores_and_atomics: b(enabled.vertex_stores),
        depth_bias_clamp: b(enabled.depth_bias_clamp),
        ..Default::default()
    };
    let mut e11 = vk::PhysicalDeviceVulkan11Features::default().multiview(enabled.multiview);
    let mut e12 = vk::PhysicalDeviceVulkan12Features::default()
        .timeline_semaphore(true)
        .shader_float16(enabled.shader_float16);
    let mut e13 =
        vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true).synchronization2(true);
    let priorities = [1.0f32];
    let mut queues =
        vec![vk::DeviceQueueCreateInfo::default().queue_family_index(c.family).queue_priorities(&priorities)];
    if let Some(t) = c.transfer_family {
        queues.push(vk::DeviceQueueCreateInfo::default().queue_family_index(t).queue_priorities(&priorities));
    }
    let extensions = if enabled.swapchain { vec![ash::khr::swapchain::NAME.as_ptr()] } else { Vec::new() };
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&extensions)
        .enabled_features(&core)
        .push_next(&mut e11)
        .push_next(&mut e12)
        .push_next(&mut e13);
    // SAFETY: every feature and extension enabled was reported available above; pointers
    // live for the call.
    let device = unsafe { inst.create_device(c.physical, &info, None) }
        .map_err(|e| unavailable(format!("vkCreateDevice on {} failed: {e}", device_name(&c.props))))?;
    // SAFETY: queue 0 of `family` was created with the device.
    let queue = unsafe { device.get_device_queue(c.family, 0) };

    let mut maint3 = vk::PhysicalDeviceMaintenance3Properties::default();
    let mut maint4 = vk::PhysicalDeviceMaintenance4Properties::default();
    let mut multiview = vk::PhysicalDeviceMultiviewProperties::default();
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut maint3)
        .push_next(&mut maint4)
        .push_next(&mut multiview)
        .push_next(&mut driver);
    // SAFETY: a query into structures that live for the call.
    unsafe { inst.get_physical_device_properties2(c.physical, &mut props2) };
    let props = props2.properties;
    // SAFETY: as above.
    let families = unsafe { inst.get_physical_device_queue_family_properties(c.physical) };
    let ticks = families.get(c.family as usize).is_some_and(|f| f.timestamp_valid_bits > 0);
    let timestamp_period =
        (ticks && props.limits.timestamp_period > 0.0).then_some(props.limits.timestamp_period);
    let driver_name =
        driver.driver_name_as_c_str().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let driver_info =
        driver.driver_info_as_c_str().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let caps = Caps {
        name: device_name(&props),
        driver: format!("{driver_name} {driver_info}").trim().to_owned(),
        device_type: props.device_type,
        limits: props.limits,
        max_buffer_size: maint4.max_buffer_size,
        max_allocation_size: maint3.max_memory_allocation_size,
        max_multiview_views: if enabled.multiview { multiview.max_multiview_view_count } else { 0 },
        enabled,
        timestamp_period,
        pipeline_cache_uuid: props.pipeline_cache_uuid,
        vendor_id: props.vendor_id,
        device_id: props.device_id,
    };
    Ok(OpenedDevice {
        physical: c.physical,
        device,
        family: c.family,
        queue,
        transfer_family: c.transfer_family,
        caps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_preference_ranks_kinds() {
        use vk::PhysicalDeviceType as T;
        assert!(
            rank(T::DISCRETE_GPU, PowerPreference::HighPerformance)
                < rank(T::CPU, PowerPreference::HighPerformance)
        );
        assert!(
            rank(T::INTEGRATED_GPU, PowerPreference::LowPower)
                < rank(T::DISCRETE_GPU, PowerPreference::LowPower)
        );
        assert!(rank(T::OTHER, PowerPreference::None) > rank(T::CPU, PowerPreference::None));
    }

    #[test]
    fn surface_extensions_only_where_offered() {
        let (names, on) = surface_extensions(|_| false);
        assert!(names.is_empty());
        assert_eq!(on, SurfaceExtensions::default());
        // Platform extensions without VK_KHR_surface are useless: none is enabled.
        let (names, on) = surface_extensions(|n| n == ash::khr::xcb_surface::NAME);
        assert!(names.is_empty() && !on.xcb);
        let (names, on) =
            surface_extensions(|n| n == ash::khr::surface::NAME || n == ash::khr::xcb_surface::NAME);
        assert_eq!(names.len(), 2);
        assert_eq!(on, SurfaceExtensions { surface: true, xcb: true, ..Default::default() });
    }

    #[test]
    fn a_log_counts_what_it_keeps() {
        let log = ValidationLog::new();
        assert!(log.is_empty());
        log.push("one".into());
        log.push("two".into());
        assert_eq!(log.len(), 2);
        assert_eq!(log.since(1), vec!["two".to_owned()]);
        assert_eq!(log.since(5), Vec::<String>::new());
    }
}
