//! The HAL's errors: one enum for everything a device can refuse.

use crate::{BackendId, DeviceFeature, LossReason, ValidationError};

/// Why a device operation was refused. Every variant names the operation (a `GraphicsDevice`
/// or encoder method, e.g. `"write_texture"`) so a user can find the call at fault.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DeviceError {
    /// The device does not have `feature`; the operation needs it.
    #[error("{feature} is not supported by the {backend} backend")]
    Unsupported {
        /// The missing feature.
        feature: DeviceFeature,
        /// The backend that refused.
        backend: BackendId,
    },
    /// The device was lost (or dropped) before `operation`; every handle it made is spent.
    #[error("{operation}: the {backend} device is lost ({reason})")]
    Lost {
        /// The refused operation.
        operation: &'static str,
        /// The device's backend.
        backend: BackendId,
        /// Why it was lost.
        reason: LossReason,
    },
    /// A handle made by one device was given to another.
    #[error("{operation}: {handle} belongs to another device ({owner} backend), not this {device} device")]
    WrongDevice {
        /// The refused operation.
        operation: &'static str,
        /// The handle's label.
        handle: String,
        /// The backend of the device that made it.
        owner: BackendId,
        /// The backend of the device it was given to.
        device: BackendId,
    },
    /// A descriptor asks for something impossible (zero size, too many mips, a format that
    /// cannot be rendered to, ...).
    #[error("{operation}: {label}: {reason}")]
    InvalidDescriptor {
        /// The refused operation.
        operation: &'static str,
        /// The descriptor's label.
        label: String,
        /// What is wrong, in words.
        reason: String,
    },
    /// A value is over one of the device's limits.
    #[error("{operation}: {limit} is {max} on this device, {requested} was asked for")]
    LimitExceeded {
        /// The refused operation.
        operation: &'static str,
        /// The [`DeviceLimits`](crate::DeviceLimits) field (or other named limit).
        limit: &'static str,
        /// What was asked for.
        requested: u64,
        /// The device's limit.
        max: u64,
    },
    /// A data buffer has the wrong length for what it should fill.
    #[error("{operation}: expected {expected} bytes, got {given}")]
    DataSize {
        /// The refused operation.
        operation: &'static str,
        /// The exact length needed.
        expected: u64,
        /// The length given.
        given: u64,
    },
    /// A region, range or index lies outside the resource it addresses.
    #[error("{operation}: {what}")]
    OutOfBounds {
        /// The refused operation.
        operation: &'static str,
        /// What lies where, in words.
        what: String,
    },
    /// The operation is impossible for this resource (reading back a depth texture, a
    /// multisampled one, copying between different formats, ...).
    #[error("{operation}: {reason}")]
    Refused {
        /// The refused operation.
        operation: &'static str,
        /// Why, in words.
        reason: String,
    },
    /// A resource lacks a usage flag the operation needs.
    #[error("{operation}: {label} was not created with usage {usage}")]
    MissingUsage {
        /// The refused operation.
        operation: &'static str,
        /// The resource's label.
        label: String,
        /// The missing usage flag.
        usage: &'static str,
    },
    /// A draw was recorded with no pipeline set.
    #[error("{operation}: no pipeline is set in this pass")]
    NoPipeline {
        /// The refused operation.
        operation: &'static str,
    },
    /// A shader could not be turned into the backend's form.
    #[error("shader {label}: {message}")]
    Shader {
        /// The shader's label.
        label: String,
        /// What the backend said.
        message: String,
    },
    /// The validation layer caught a misuse (see [`ValidatingDevice`](crate::ValidatingDevice)).
    #[error(transparent)]
    Validation(#[from] ValidationError),
    /// The device ran out of memory.
    #[error("{operation}: out of memory allocating {bytes} bytes")]
    OutOfMemory {
        /// The refused operation.
        operation: &'static str,
        /// The allocation's size.
        bytes: u64,
    },
    /// The underlying API reported an error f3d has no better name for.
    #[error("{operation}: {backend}: {message}")]
    Backend {
        /// The failed operation.
        operation: &'static str,
        /// The backend.
        backend: BackendId,
        /// The API's message.
        message: String,
    },
}

impl DeviceError {
    /// The feature named by an [`Unsupported`](Self::Unsupported) refusal.
    pub fn unsupported_feature(&self) -> Option<DeviceFeature> {
        match self {
            Self::Unsupported { feature, .. } => Some(*feature),
            _ => None,
        }
    }
}
