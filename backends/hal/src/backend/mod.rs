//! For backend authors: making handles and reaching their payloads (here), the checks every
//! backend shares (`checks.rs`, re-exported here), and counting live resources (`live.rs`).
//!
//! A backend wraps what it creates with `wrap_*`, giving the payload that its `Drop` releases;
//! it reaches the payload again with `*_payload`, which refuses handles of another device and
//! handles whose device is lost, naming the operation. The `check_*` functions hold the rules
//! that do not depend on the backend (limits, features, usages, region bounds), so that every
//! backend refuses the same things with the same words.

use std::any::Any;

use crate::{
    DeviceError, DeviceOwner, GeometryBuffer, GeometryDescriptor, PipelineHandle, PipelineInfo,
    QuerySetDescriptor, QuerySetHandle, SamplerDescriptor, SamplerHandle, ShaderDescriptor, ShaderHandle,
    TextureDescriptor, TextureHandle,
};

pub use crate::host::HostPlanes;
pub use crate::memory::{MemoryCharge, MemoryCounter};
pub use crate::readback::check_region;
pub use crate::watchdog::Watchdog;

mod checks;
mod live;

pub use checks::*;
pub use live::{LiveCounter, LiveToken};

/// The turn a backend takes to make or destroy a driver device: one at a time across the
/// process, whichever backend (and so whichever API wrapper) the devices belong to.
///
/// NVIDIA's driver (580.159, on an H100 and an H200) deadlocks when one thread destroys a
/// device while other threads make, use or destroy other devices of the same process. Stacks
/// of hung `f3d conformance --backend vulkan --tier lifecycle` runs (sixteen checks at a time)
/// all show one thread inside `vkDestroyDevice` waiting, a driver thread spinning, and the
/// rest blocked on the driver's and the loader's locks (`vkFreeMemory` of another device's
/// teardown, `vkQueueSubmit`, `vkCreateInstance`, `vkEnumeratePhysicalDevices`). With this
/// turn taken around instance and device creation and around the whole teardown, that tier
/// ran ten times out of ten where the build before hung five times out of ten, alternately in
/// one sitting; wgpu's whole suite, with wgpu's device opened and dropped under the turn too,
/// ran four times out of four where it hung in two of four without. Making and destroying a
/// device is a start- and exit-time cost, so taking turns costs a multi-device process
/// little.
///
/// Hold it only around driver calls: never while calling code that may take it again (it is
/// not re-entrant).
pub fn driver_lifecycle_turn() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Wraps a texture the device created.
pub fn wrap_texture(
    owner: &DeviceOwner,
    desc: TextureDescriptor,
    payload: impl Any + Send + Sync,
) -> TextureHandle {
    TextureHandle::wrap(owner, desc, Box::new(payload))
}

/// Wraps a geometry buffer the device created.
pub fn wrap_geometry(
    owner: &DeviceOwner,
    desc: GeometryDescriptor,
    payload: impl Any + Send + Sync,
) -> GeometryBuffer {
    GeometryBuffer::wrap(owner, desc, Box::new(payload))
}

/// Wraps a sampler the device created (with the anisotropy it really uses).
pub fn wrap_sampler(
    owner: &DeviceOwner,
    desc: SamplerDescriptor,
    payload: impl Any + Send + Sync,
) -> SamplerHandle {
    SamplerHandle::wrap(owner, desc, Box::new(payload))
}

/// Wraps a shader the device created.
pub fn wrap_shader(
    owner: &DeviceOwner,
    desc: ShaderDescriptor,
    payload: impl Any + Send + Sync,
) -> ShaderHandle {
    ShaderHandle::wrap(owner, desc, Box::new(payload))
}

/// Wraps a pipeline the device created, with its reflected binding table.
pub fn wrap_pipeline(
    owner: &DeviceOwner,
    info: PipelineInfo,
    payload: impl Any + Send + Sync,
) -> PipelineHandle {
    PipelineHandle::wrap(owner, info, Box::new(payload))
}

/// Wraps a query set the device created.
pub fn wrap_query_set(
    owner: &DeviceOwner,
    desc: QuerySetDescriptor,
    payload: impl Any + Send + Sync,
) -> QuerySetHandle {
    QuerySetHandle::wrap(owner, desc, Box::new(payload))
}

macro_rules! payload_fn {
    ($(#[$doc:meta])* $fn:ident, $handle:ty) => {
        $(#[$doc])*
        pub fn $fn<'a, T: 'static>(
            owner: &DeviceOwner,
            handle: &'a $handle,
            operation: &'static str,
        ) -> Result<&'a T, DeviceError> {
            handle.payload::<T>(owner, operation)
        }
    };
}

payload_fn!(
    /// The payload of a texture this device made; refuses foreign handles and lost devices.
    texture_payload,
    TextureHandle
);

/// [`texture_payload`] through an [`OwnerLink`](crate::OwnerLink) (for a surface that
/// outlives the call that made it).
pub fn texture_payload_linked<'a, T: 'static>(
    link: &crate::OwnerLink,
    handle: &'a TextureHandle,
    operation: &'static str,
) -> Result<&'a T, DeviceError> {
    handle.payload::<T>(link, operation)
}
payload_fn!(
    /// The payload of a geometry buffer this device made.
    geometry_payload,
    GeometryBuffer
);
payload_fn!(
    /// The payload of a sampler this device made.
    sampler_payload,
    SamplerHandle
);
payload_fn!(
    /// The payload of a shader this device made.
    shader_payload,
    ShaderHandle
);
payload_fn!(
    /// The payload of a pipeline this device made.
    pipeline_payload,
    PipelineHandle
);
payload_fn!(
    /// The payload of a query set this device made.
    query_set_payload,
    QuerySetHandle
);

#[cfg(test)]
mod tests {
    /// A panic while a device was being made or destroyed (in a test, in an app's drop) must
    /// not poison the turn for good: every later device would then fail to open.
    #[test]
    fn the_driver_turn_survives_a_panic_while_held() {
        let panicked = std::thread::spawn(|| {
            let _turn = super::driver_lifecycle_turn();
            panic!("a device's teardown panicked");
        })
        .join();
        assert!(panicked.is_err());
        drop(super::driver_lifecycle_turn());
        // And it is one turn: a second taker gets it only after the first lets go.
        static RELEASED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        let first = super::driver_lifecycle_turn();
        let waiter = std::thread::spawn(|| {
            let _turn = super::driver_lifecycle_turn();
            RELEASED.load(std::sync::atomic::Ordering::SeqCst)
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        RELEASED.store(true, std::sync::atomic::Ordering::SeqCst);
        drop(first);
        assert!(waiter.join().expect("the waiter ran"), "the turn was taken while it was held");
    }
}
