//! The uniform ring: one host-visible buffer every pass's per-draw uniform bytes go into,
//! bound with dynamic offsets, so no buffer (and, with the descriptor cache, no descriptor
//! set) is made per draw.
//!
//! A pass collects its uniform bytes while it records (each block aligned to
//! `minUniformBufferOffsetAlignment`); at submit it reserves one contiguous range, copies the
//! bytes in with one `memcpy`, and binds each block at `base + its offset`. Each range is
//! tagged with the timeline value of the submission that reads it and is reused only after
//! the GPU passed that value. When no range is free the ring grows: a new buffer (the old one
//! is destroyed once the GPU is done with it) and a new generation, which descriptor sets are
//! keyed by.

use std::collections::VecDeque;

use ash::vk;
use gpu_allocator::vulkan::Allocation;

use f3d_hal::{BackendId, DeviceError, LossReason};

use f3d_hal::MemoryKind;
use f3d_hal::backend::{MemoryCharge, MemoryCounter};

use crate::alloc::{BufferPlan, create_buffer};
use crate::sync::{Core, Resource, Shared};

const INITIAL_CAPACITY: u64 = 256 << 10;

/// The ring, kept in the device core.
pub(crate) struct UniformRing {
    buffer: Option<(vk::Buffer, Allocation)>,
    /// The buffer's bytes in the device's memory report.
    charge: Option<MemoryCharge>,
    capacity: u64,
    head: u64,
    /// Ranges the GPU may still read: (timeline value, start, end), oldest first.
    busy: VecDeque<(u64, u64, u64)>,
    generation: u64,
    align: u64,
}

impl UniformRing {
    /// A ring with no buffer yet, whose ranges start at multiples of `align`.
    pub(crate) fn empty(align: u64) -> Self {
        Self {
            buffer: None,
            charge: None,
            capacity: 0,
            head: 0,
            busy: VecDeque::new(),
            generation: 0,
            align: align.max(16),
        }
    }

    /// The alignment of every range and of every block inside one.
    pub(crate) fn align(&self) -> u64 {
        self.align
    }

    /// Changes whenever the buffer is replaced.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// The buffer blocks are bound from, once there is one.
    pub(crate) fn buffer(&self) -> Option<vk::Buffer> {
        self.buffer.as_ref().map(|(b, _)| *b)
    }

    /// Frees the ranges whose submissions the GPU finished (`done` is the timeline value).
    pub(crate) fn release(&mut self, done: u64) {
        while self.busy.front().is_some_and(|(v, _, _)| *v <= done) {
            self.busy.pop_front();
        }
        if self.busy.is_empty() {
            self.head = 0;
        }
    }

    /// Where `len` bytes fit in the current buffer, if they do.
    fn fit(&self, len: u64) -> Option<u64> {
        let Some(&(_, tail, _)) = self.busy.front() else {
            return (len <= self.capacity).then_some(0);
        };
        if self.head >= tail {
            if self.head + len <= self.capacity {
                Some(self.head)
            } else if len < tail {
                Some(0)
            } else {
                None
            }
        } else if self.head + len < tail {
            Some(self.head)
        } else {
            None
        }
    }

    /// Reserves `len` bytes for the submission that signals `value`, growing the ring (never
    /// past `max`, nor past what a 32-bit dynamic offset reaches) when they do not fit.
    /// `make` creates a buffer of the given size; the old buffer comes back to be retired.
    pub(crate) fn reserve(
        &mut self,
        len: u64,
        value: u64,
        max: u64,
        memory: &MemoryCounter,
        make: impl FnOnce(u64) -> Option<(vk::Buffer, Allocation)>,
    ) -> Option<(u64, Option<Resource>)> {
        let len = len.max(1).div_ceil(self.align) * self.align;
        let mut retired = None;
        let offset = match (self.buffer.is_some(), self.fit(len)) {
            (true, Some(offset)) => offset,
            _ => {
                let max = max.min(u64::from(u32::MAX));
                let capacity =
                    len.checked_next_power_of_two()?.max(self.capacity * 2).max(INITIAL_CAPACITY).min(max);
                if capacity < len {
                    return None;
                }
                let fresh = make(capacity)?;
                let charge = memory.charge(MemoryKind::UniformRings, fresh.1.size());
                let old_charge = self.charge.replace(charge);
                if let Some((buffer, allocation)) = self.buffer.replace(fresh) {
                    retired = Some(Resource::Buffer {
                        buffer,
                        allocation: Some(allocation),
                        kind: MemoryKind::UniformRings,
                        charge: old_charge,
                    });
                }
                self.capacity = capacity;
                self.busy.clear();
                self.generation += 1;
                0
            }
        };
        self.head = offset + len;
        self.busy.push_back((value, offset, offset + len));
        Some((offset, retired))
    }

    /// Copies `bytes` into the ring at `offset` (inside a reservation).
    pub(crate) fn write(&mut self, offset: u64, bytes: &[u8]) -> bool {
        let Some((_, allocation)) = self.buffer.as_mut() else { return false };
        let Some(mapped) = allocation.mapped_slice_mut() else { return false };
        let start = offset as usize;
        match mapped.get_mut(start..start + bytes.len()) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                true
            }
            None => false,
        }
    }

    /// The buffer, for teardown.
    pub(crate) fn take(&mut self) -> Option<Resource> {
        let charge = self.charge.take();
        self.buffer.take().map(|(buffer, allocation)| Resource::Buffer {
            buffer,
            allocation: Some(allocation),
            kind: MemoryKind::UniformRings,
            charge,
        })
    }
}

/// Copies `bytes` (uniform blocks at ring-aligned offsets) into a fresh range of the ring for
/// the submission the open command buffer becomes; returns the range's offset.
pub(crate) fn upload(
    core: &mut Core,
    shared: &Shared,
    bytes: &[u8],
    operation: &'static str,
) -> Result<u64, DeviceError> {
    if bytes.is_empty() {
        return Ok(0);
    }
    let value = core.pending();
    let max = shared.caps.max_buffer_size.max(u64::from(shared.caps.limits.max_uniform_buffer_range));
    let device = &shared.device;
    let Core { ring, allocator, memory, .. } = core;
    let Some(allocator) = allocator.as_mut() else {
        return Err(DeviceError::Lost {
            operation,
            backend: BackendId::VULKAN,
            reason: LossReason::Destroyed,
        });
    };
    let mut made = 0;
    let reserved = ring.reserve(bytes.len() as u64, value, max, memory, |capacity| {
        made += 1;
        let plan = BufferPlan::upload(capacity, vk::BufferUsageFlags::UNIFORM_BUFFER);
        create_buffer(device, allocator, &plan, "f3d uniform ring", operation).ok()
    });
    core.created(made);
    let Some((offset, retired)) = reserved else {
        return Err(DeviceError::OutOfMemory { operation, bytes: bytes.len() as u64 });
    };
    if let Some(old) = retired {
        core.retire_now(old);
    }
    if !core.ring.write(offset, bytes) {
        return Err(DeviceError::Backend {
            operation,
            backend: BackendId::VULKAN,
            message: "the uniform ring is not host-visible".into(),
        });
    }
    Ok(offset)
}

/// Appends `bytes` to a pass's uniform staging at `align`; returns its offset.
pub(crate) fn push_block(staging: &mut Vec<u8>, align: u64, bytes: &[u8]) -> u32 {
    let start = (staging.len() as u64).div_ceil(align) * align;
    staging.resize(start as usize, 0);
    staging.extend_from_slice(bytes);
    start as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_start_aligned() {
        let mut staging = Vec::new();
        assert_eq!(push_block(&mut staging, 64, &[1; 48]), 0);
        assert_eq!(push_block(&mut staging, 64, &[2; 16]), 64);
        assert_eq!(staging.len(), 80);
    }

    #[test]
    fn ranges_are_reused_only_after_their_value_passed() {
        let mut ring = UniformRing::empty(16);
        ring.buffer = None;
        // Pretend a buffer of 64 bytes exists by driving `fit` directly.
        ring.capacity = 64;
        ring.busy.push_back((1, 0, 32));
        ring.head = 32;
        assert_eq!(ring.fit(32), Some(32));
        ring.busy.push_back((2, 32, 64));
        ring.head = 64;
        assert_eq!(ring.fit(16), None, "both halves are in flight");
        ring.release(1);
        assert_eq!(ring.fit(16), Some(0), "the first half came back");
        assert_eq!(ring.fit(32), None, "not past the range still in flight");
        ring.release(2);
        assert_eq!((ring.head, ring.fit(64)), (0, Some(0)));
    }
}
