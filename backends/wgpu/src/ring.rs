//! The uniform ring: one buffer that every pass's per-draw uniform bytes go into, bound with
//! dynamic offsets, so no buffer and (with the bind-group cache) no bind group is made per
//! draw.
//!
//! A pass collects its uniform bytes while it records (each block at an offset aligned to
//! `min_uniform_buffer_offset_alignment`) and, at submit, reserves one contiguous range of the
//! ring, uploads it with one `write_buffer`, and binds each block at `base + its offset`.
//! `write_buffer` is ordered on the queue after every earlier submission, so a range reused
//! after the ring wraps never changes under work that still reads it. A pass larger than the
//! ring grows it (a new buffer, a new generation; bind groups are keyed by generation).

use f3d_hal::MemoryKind;
use f3d_hal::backend::{MemoryCharge, MemoryCounter};

/// The ring, held by the device behind a mutex from reserve to submit.
pub(crate) struct UniformRing {
    buffer: wgpu::Buffer,
    /// The buffer's bytes in the device's memory report.
    memory: MemoryCharge,
    counter: MemoryCounter,
    capacity: u64,
    cursor: u64,
    generation: u64,
    align: u64,
}

const INITIAL_CAPACITY: u64 = 256 << 10;

fn make(device: &wgpu::Device, capacity: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("f3d uniform ring"),
        size: capacity,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl UniformRing {
    /// An empty ring whose ranges start at multiples of `align`.
    pub(crate) fn new(device: &wgpu::Device, align: u32, counter: &MemoryCounter) -> Self {
        Self {
            buffer: make(device, INITIAL_CAPACITY),
            memory: counter.charge(MemoryKind::UniformRings, INITIAL_CAPACITY),
            counter: counter.clone(),
            capacity: INITIAL_CAPACITY,
            cursor: 0,
            generation: 0,
            align: u64::from(align.max(wgpu::COPY_BUFFER_ALIGNMENT as u32)),
        }
    }

    /// The buffer blocks are bound from.
    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// Changes whenever [`buffer`](Self::buffer) is replaced.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// The alignment of every range and of every block inside one.
    pub(crate) fn align(&self) -> u64 {
        self.align
    }

    /// Reserves `len` bytes and returns where they start. Wraps to the start when the end is
    /// reached and grows when `len` does not fit at all; `None` when it would have to grow past
    /// `max` (the device's largest buffer).
    pub(crate) fn reserve(&mut self, device: &wgpu::Device, len: u64, max: u64) -> Option<u64> {
        // Dynamic offsets are 32-bit.
        let max = max.min(u64::from(u32::MAX));
        let len = len.div_ceil(self.align) * self.align;
        if len > self.capacity {
            let capacity = len.checked_next_power_of_two()?.max(self.capacity * 2).min(max);
            if capacity < len {
                return None;
            }
            self.buffer = make(device, capacity);
            self.memory = self.counter.charge(MemoryKind::UniformRings, capacity);
            self.capacity = capacity;
            self.generation += 1;
            self.cursor = 0;
        }
        if self.cursor + len > self.capacity {
            self.cursor = 0;
        }
        let base = self.cursor;
        self.cursor += len;
        Some(base)
    }
}

/// Appends `bytes` to a pass's uniform staging at the ring's alignment; returns its offset.
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
        assert_eq!(push_block(&mut staging, 256, &[1; 48]), 0);
        assert_eq!(push_block(&mut staging, 256, &[2; 16]), 256);
        assert_eq!(staging.len(), 272);
        assert_eq!(staging[256], 2);
    }
}
