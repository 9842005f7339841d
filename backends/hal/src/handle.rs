//! Handles: the only way code outside a backend refers to device resources.
//!
//! A handle is a reference-counted pointer to what its device made: the description it was
//! made from, the owner (the device's [`DeviceOwner`] identity) and the backend's payload.
//! Handles are made only by [`backend::wrap_*`](crate::backend), so code outside a backend
//! cannot forge one. Cloning is cheap; dropping the last clone drops the payload, and the
//! payload's `Drop` releases the resource to its device. There is no `==` on handles:
//! identity is by pointer ([`TextureHandle::same`]).

use std::any::Any;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::{
    BackendId, BindingLayout, BindingSlot, DeviceError, GeometryDescriptor, PipelineDescriptor, QueryKind,
    SamplerDescriptor, ShaderDescriptor, TextureDescriptor,
};

/// Why a device was lost.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LossReason {
    /// The device was dropped.
    Destroyed,
    /// The driver reported the loss (reset, removal, hang).
    Driver(String),
    /// [`GraphicsDevice::simulate_loss`](crate::GraphicsDevice::simulate_loss) was called.
    Simulated(String),
}

impl fmt::Display for LossReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Destroyed => f.write_str("destroyed"),
            Self::Driver(why) => write!(f, "driver: {why}"),
            Self::Simulated(why) => write!(f, "simulated: {why}"),
        }
    }
}

#[derive(Debug)]
struct OwnerState {
    lost: Option<LossReason>,
}

/// The identity and liveness of one device, shared with every handle it makes.
#[derive(Debug)]
pub(crate) struct OwnerShared {
    backend: BackendId,
    label: String,
    state: Mutex<OwnerState>,
    loss_reported: AtomicBool,
}

impl OwnerShared {
    fn lost(&self) -> Option<LossReason> {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).lost.clone()
    }

    fn lose(&self, reason: LossReason) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        // The first loss wins: a device lost to its driver and then dropped stays lost to the
        // driver, which is what the app wants to hear.
        if state.lost.is_none() {
            state.lost = Some(reason);
        }
    }
}

/// A device's identity: held by exactly one device, shared with every
/// handle the device makes. Dropping it — which happens when the device drops — marks the
/// device lost with [`LossReason::Destroyed`], so handles that outlive their device answer
/// [`DeviceError::Lost`] instead of touching freed memory.
#[derive(Debug)]
pub struct DeviceOwner {
    shared: Arc<OwnerShared>,
}

impl DeviceOwner {
    /// A new identity for a device of `backend`, labelled for errors.
    pub fn new(backend: BackendId, label: impl Into<String>) -> Self {
        Self {
            shared: Arc::new(OwnerShared {
                backend,
                label: label.into(),
                state: Mutex::new(OwnerState { lost: None }),
                loss_reported: AtomicBool::new(false),
            }),
        }
    }

    /// The backend of this device.
    pub fn backend(&self) -> &BackendId {
        &self.shared.backend
    }

    /// The device's label.
    pub fn label(&self) -> &str {
        &self.shared.label
    }

    /// Why the device was lost, if it was.
    pub fn lost(&self) -> Option<LossReason> {
        self.shared.lost()
    }

    /// Marks the device lost. The first reason sticks.
    pub fn lose(&self, reason: LossReason) {
        self.shared.lose(reason)
    }

    /// The loss, the first time it is asked for after the device was lost; `None` before the
    /// loss and every time after the first report.
    pub fn take_loss_report(&self) -> Option<LossReason> {
        let lost = self.lost()?;
        (!self.shared.loss_reported.swap(true, Ordering::AcqRel)).then_some(lost)
    }

    /// `Ok` while the device is alive, [`DeviceError::Lost`] naming `operation` after.
    pub fn check_alive(&self, operation: &'static str) -> Result<(), DeviceError> {
        match self.lost() {
            None => Ok(()),
            Some(reason) => {
                Err(DeviceError::Lost { operation, backend: self.shared.backend.clone(), reason })
            }
        }
    }

    fn owns(&self, other: &Arc<OwnerShared>) -> bool {
        Arc::ptr_eq(&self.shared, other)
    }
}

/// Another reference to a device's identity, for what a device hands out that lives on after
/// the call that made it (a window's [`PresentSurface`](crate::PresentSurface)): it checks
/// liveness and handle ownership as the [`DeviceOwner`] does, but dropping it loses nothing.
#[derive(Clone, Debug)]
pub struct OwnerLink {
    shared: Arc<OwnerShared>,
}

impl OwnerLink {
    /// The backend of the device.
    pub fn backend(&self) -> &BackendId {
        &self.shared.backend
    }

    /// `Ok` while the device is alive, [`DeviceError::Lost`] naming `operation` after (also
    /// once the device was dropped).
    pub fn check_alive(&self, operation: &'static str) -> Result<(), DeviceError> {
        match self.shared.lost() {
            None => Ok(()),
            Some(reason) => {
                Err(DeviceError::Lost { operation, backend: self.shared.backend.clone(), reason })
            }
        }
    }
}

impl DeviceOwner {
    /// A link to this identity that outlives calls (see [`OwnerLink`]).
    pub fn link(&self) -> OwnerLink {
        OwnerLink { shared: self.shared.clone() }
    }
}

/// What a handle's payload is checked against: a device's owner or a link to it.
pub(crate) trait Identity {
    fn shared(&self) -> &Arc<OwnerShared>;
}

impl Identity for DeviceOwner {
    fn shared(&self) -> &Arc<OwnerShared> {
        &self.shared
    }
}

impl Identity for OwnerLink {
    fn shared(&self) -> &Arc<OwnerShared> {
        &self.shared
    }
}

impl Drop for DeviceOwner {
    fn drop(&mut self) {
        self.shared.lose(LossReason::Destroyed);
    }
}

struct HandleInner<D> {
    owner: Arc<OwnerShared>,
    desc: D,
    payload: Box<dyn Any + Send + Sync>,
}

impl<D> HandleInner<D> {
    fn check(
        &self,
        device: &impl Identity,
        operation: &'static str,
        label: impl FnOnce(&D) -> String,
    ) -> Result<(), DeviceError> {
        let device = device.shared();
        if !Arc::ptr_eq(device, &self.owner) {
            return Err(DeviceError::WrongDevice {
                operation,
                handle: label(&self.desc),
                owner: self.owner.backend.clone(),
                device: device.backend.clone(),
            });
        }
        match device.lost() {
            None => Ok(()),
            Some(reason) => Err(DeviceError::Lost { operation, backend: device.backend.clone(), reason }),
        }
    }
}

/// Whether a handle is still alive ([`TextureHandle::watch`] and the other handles' `watch`).
pub struct HandleWatch {
    label: String,
    alive: Box<dyn Fn() -> bool + Send + Sync>,
}

impl HandleWatch {
    /// Whether some clone of the handle is still alive.
    pub fn is_alive(&self) -> bool {
        (self.alive)()
    }

    /// The handle's label.
    pub fn label(&self) -> &str {
        &self.label
    }
}

impl fmt::Debug for HandleWatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HandleWatch({:?}, alive: {})", self.label, self.is_alive())
    }
}

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident, $desc:ty, $label:expr) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name(Arc<HandleInner<$desc>>);

        impl $name {
            /// The description the handle was made from.
            pub fn descriptor(&self) -> &$desc {
                &self.0.desc
            }

            /// The label, for logs and errors.
            pub fn label(&self) -> String {
                ($label)(&self.0.desc)
            }

            /// The address of what the handle points at: unique among handles alive or
            /// [watched](Self::watch) (a watch keeps the address from being reused).
            pub(crate) fn key(&self) -> usize {
                Arc::as_ptr(&self.0) as usize
            }

            /// Whether both handles point at the same resource (identity, not equality).
            pub fn same(&self, other: &Self) -> bool {
                Arc::ptr_eq(&self.0, &other.0)
            }

            /// The backend of the device that made it.
            pub fn owner_backend(&self) -> &BackendId {
                &self.0.owner.backend
            }

            /// `Ok` while the owning device is alive; [`DeviceError::Lost`] naming `operation`
            /// after it was lost or dropped.
            pub fn check_owner_alive(&self, operation: &'static str) -> Result<(), DeviceError> {
                match self.0.owner.lost() {
                    None => Ok(()),
                    Some(reason) => {
                        Err(DeviceError::Lost { operation, backend: self.0.owner.backend.clone(), reason })
                    }
                }
            }

            /// Whether `device` made this handle.
            pub fn is_owned_by(&self, device: &DeviceOwner) -> bool {
                device.owns(&self.0.owner)
            }

            /// How many clones of this handle are alive, this one and the device's own
            /// included (for tests and leak hunting).
            pub fn clone_count(&self) -> usize {
                Arc::strong_count(&self.0)
            }

            /// A watch on this handle that says whether any clone of it is still alive
            /// anywhere — the device's own included — without keeping it alive. Its payload,
            /// which releases the resource, is dropped with the last clone, so tests use this
            /// to see a release without taking the device's word for it (its live counter).
            pub fn watch(&self) -> HandleWatch {
                let weak = Arc::downgrade(&self.0);
                HandleWatch { label: self.label(), alive: Box::new(move || weak.strong_count() > 0) }
            }

            pub(crate) fn wrap(
                owner: &DeviceOwner,
                desc: $desc,
                payload: Box<dyn Any + Send + Sync>,
            ) -> Self {
                Self(Arc::new(HandleInner { owner: owner.shared.clone(), desc, payload }))
            }

            /// `Ok` when `device` made this handle and is alive; the refusal a backend gives
            /// for a foreign handle or a lost device otherwise (the pass recorder's check).
            pub fn check_usable(&self, device: &DeviceOwner, operation: &'static str) -> Result<(), DeviceError> {
                self.0.check(device, operation, $label)
            }

            pub(crate) fn payload<T: 'static>(
                &self,
                device: &impl Identity,
                operation: &'static str,
            ) -> Result<&T, DeviceError> {
                self.0.check(device, operation, $label)?;
                // The owner check above proves this device made the payload, and a device
                // wraps one payload type per handle kind: a mismatch is a backend bug, which
                // is still reported rather than panicking.
                self.0.payload.downcast_ref::<T>().ok_or_else(|| DeviceError::Backend {
                    operation,
                    backend: device.shared().backend.clone(),
                    message: format!("{} holds a payload of another type", ($label)(&self.0.desc)),
                })
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({:?} on {})", stringify!($name), self.label(), self.0.owner.backend)
            }
        }
    };
}

handle!(
    /// A texture made by a device.
    TextureHandle,
    TextureDescriptor,
    |d: &TextureDescriptor| d.label.clone()
);
handle!(
    /// A geometry buffer (vertices, indices, indirect arguments) made by a device.
    GeometryBuffer,
    GeometryDescriptor,
    |d: &GeometryDescriptor| d.label.clone()
);
handle!(
    /// A sampler made by a device.
    SamplerHandle,
    SamplerDescriptor,
    |d: &SamplerDescriptor| d.label.clone()
);
handle!(
    /// One entry point of a validated module, made into a shader by a device.
    ShaderHandle,
    ShaderDescriptor,
    |d: &ShaderDescriptor| d.label.clone()
);
handle!(
    /// A render or compute pipeline made by a device, with its reflected binding table.
    PipelineHandle,
    PipelineInfo,
    |d: &PipelineInfo| d.label.clone()
);
handle!(
    /// A set of timestamp or occlusion queries.
    QuerySetHandle,
    QuerySetDescriptor,
    |d: &QuerySetDescriptor| d.label.clone()
);

/// What a pipeline handle remembers: its label, its binding table, and (for render
/// pipelines) the descriptor it was made from.
#[derive(Clone, Debug)]
pub struct PipelineInfo {
    /// The pipeline's label.
    pub label: String,
    /// Every binding its stages declare.
    pub bindings: BindingLayout,
    /// The render pipeline's descriptor; `None` for compute pipelines.
    pub render: Option<PipelineDescriptor>,
}

impl PipelineHandle {
    /// The slot of the binding called `name`, resolved once so draws bind by slot.
    pub fn slot(&self, name: &str) -> Option<BindingSlot> {
        self.0.desc.bindings.slot(name)
    }

    /// Every binding the pipeline's stages declare.
    pub fn bindings(&self) -> &BindingLayout {
        &self.0.desc.bindings
    }
}

/// How to create a query set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuerySetDescriptor {
    /// A name for logs and errors.
    pub label: String,
    /// Timestamps or occlusion counts.
    pub kind: QueryKind,
    /// Number of queries.
    pub count: u32,
}
