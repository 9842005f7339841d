//! Moving bytes between host and GPU: staging uploads, and readback through a staging buffer.
//!
//! ```text
//!  readback(texture, region)                 PendingReadback::wait()
//!  ─────────────────────────                 ───────────────────────
//!  subresource → TRANSFER_SRC_OPTIMAL         wait for the timeline value (no lock held)
//!  copy image → host-visible buffer           read the mapped bytes (rows from the top:
//!  barrier TRANSFER_WRITE → HOST_READ           Vulkan's row 0 is the top row)
//!  submit now (after every earlier call)      convert_for_readback (the HAL's one rule)
//! ```
//!
//! The copy is recorded and submitted when the readback is asked for, so it sees exactly the
//! work called before it; work submitted later runs after the copy on the queue, so waiting
//! late cannot see it.

use std::sync::{Arc, Weak};

use ash::vk;
use f3d_hal::{
    BackendId, DeviceError, LossReason, MemoryKind, PendingReadback, ReadbackImage, TextureDescriptor,
    TextureRegion, convert_for_readback, readback_format,
};

use crate::alloc::{BufferPlan, create_buffer};
use crate::sync::{Core, Resource, Shared};

fn gone(operation: &'static str) -> DeviceError {
    DeviceError::Lost { operation, backend: BackendId::VULKAN, reason: LossReason::Destroyed }
}

fn vanished(operation: &'static str) -> DeviceError {
    DeviceError::Backend {
        operation,
        backend: BackendId::VULKAN,
        message: "a staging buffer was destroyed while in use".into(),
    }
}

/// A registered host-visible buffer holding `bytes`, ready to be copied from (TRANSFER_SRC).
pub(crate) fn staging_upload(
    core: &mut Core,
    shared: &Shared,
    bytes: &[u8],
    name: &str,
) -> Result<u64, DeviceError> {
    let plan = BufferPlan::upload(bytes.len() as u64, vk::BufferUsageFlags::TRANSFER_SRC);
    let allocator = core.allocator("upload")?;
    let (buffer, mut allocation) = create_buffer(&shared.device, allocator, &plan, name, "upload")?;
    match allocation.mapped_slice_mut().and_then(|m| m.get_mut(..bytes.len())) {
        Some(dst) => dst.copy_from_slice(bytes),
        None => {
            // SAFETY: the buffer was never used.
            unsafe { shared.device.destroy_buffer(buffer, None) };
            let _ = allocator.free(allocation);
            return Err(DeviceError::Backend {
                operation: "upload",
                backend: BackendId::VULKAN,
                message: "the staging buffer is not host-visible".into(),
            });
        }
    }
    Ok(core.register(Resource::buffer(buffer, allocation, MemoryKind::Staging)))
}

/// The buffer of the registered resource `id`.
pub(crate) fn buffer_of(core: &Core, id: u64, operation: &'static str) -> Result<vk::Buffer, DeviceError> {
    match core.resource(id) {
        Some(Resource::Buffer { buffer, .. }) => Ok(*buffer),
        _ => Err(vanished(operation)),
    }
}

/// Makes everything copies wrote into host-visible memory visible to the host once the
/// submission's timeline value is reached.
fn host_barrier(shared: &Shared, cmd: vk::CommandBuffer) {
    let barrier = [vk::MemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
        .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
        .dst_stage_mask(vk::PipelineStageFlags2::HOST)
        .dst_access_mask(vk::AccessFlags2::HOST_READ)];
    let dep = vk::DependencyInfo::default().memory_barriers(&barrier);
    // SAFETY: `cmd` is recording outside a render pass instance.
    unsafe { shared.device.cmd_pipeline_barrier2(cmd, &dep) };
}

/// A registered buffer the GPU writes `len` bytes into and the host reads.
fn readback_buffer(
    core: &mut Core,
    shared: &Shared,
    len: u64,
    operation: &'static str,
) -> Result<(u64, vk::Buffer), DeviceError> {
    let (buffer, allocation) = create_buffer(
        &shared.device,
        core.allocator(operation)?,
        &BufferPlan::readback(len),
        "f3d readback",
        operation,
    )?;
    Ok((core.register(Resource::buffer(buffer, allocation, MemoryKind::Staging)), buffer))
}

/// A staging buffer a readback waits on; released when dropped (read or not).
struct Staging {
    shared: Weak<Shared>,
    id: u64,
    value: u64,
}

impl Staging {
    /// Waits for the copy and hands the buffer's first `len` bytes to `read`.
    fn read<T>(
        &self,
        operation: &'static str,
        len: usize,
        read: impl FnOnce(&[u8]) -> T,
    ) -> Result<T, DeviceError> {
        let shared = self.shared.upgrade().ok_or_else(|| gone(operation))?;
        shared.wait(self.value, operation)?;
        let mut core = shared.core();
        let bytes = core
            .allocation_mut(self.id)
            .and_then(|a| a.mapped_slice())
            .and_then(|m| m.get(..len))
            .ok_or_else(|| vanished(operation))?;
        Ok(read(bytes))
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.upgrade() {
            shared.release(self.id);
        }
    }
}

/// Records a copy of `region` of `image` (already in `TRANSFER_SRC_OPTIMAL`) into a fresh
/// staging buffer, submits it now, and returns the readback that maps it when waited for.
pub(crate) fn read_texture(
    shared: &Arc<Shared>,
    core: &mut Core,
    cmd: vk::CommandBuffer,
    image: vk::Image,
    desc: &TextureDescriptor,
    region: TextureRegion,
) -> Result<PendingReadback, DeviceError> {
    const OP: &str = "readback";
    let format = desc.format;
    let len = format.image_bytes(region.width, region.height);
    let (id, buffer) = readback_buffer(core, shared, len, OP)?;
    let copy = vk::BufferImageCopy::default()
        .image_subresource(vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: region.mip_level,
            base_array_layer: region.layer,
            layer_count: 1,
        })
        .image_offset(vk::Offset3D { x: region.x as i32, y: region.y as i32, z: 0 })
        .image_extent(vk::Extent3D { width: region.width, height: region.height, depth: 1 });
    // SAFETY: recording outside a render pass; the subresource is in TRANSFER_SRC_OPTIMAL and
    // the buffer holds the whole region, tightly packed.
    unsafe {
        shared.device.cmd_copy_image_to_buffer(
            cmd,
            image,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            buffer,
            &[copy],
        )
    };
    host_barrier(shared, cmd);
    let value = match core.submit(shared, OP) {
        Ok(v) => v,
        Err(e) => {
            core.release_now(id);
            return Err(e);
        }
    };
    let staging = Staging { shared: Arc::downgrade(shared), id, value };
    Ok(PendingReadback::deferred(move || {
        let raw = staging.read(OP, len as usize, <[u8]>::to_vec)?;
        Ok(ReadbackImage {
            width: region.width,
            height: region.height,
            format: readback_format(format),
            data: convert_for_readback(format, raw),
        })
    }))
}

/// Reads `len` bytes of `buffer` from `offset` now: a copy into a staging buffer, submitted
/// and waited for (the core lock is released while waiting).
pub(crate) fn read_buffer(
    shared: &Arc<Shared>,
    buffer: vk::Buffer,
    offset: u64,
    len: u64,
    operation: &'static str,
) -> Result<Vec<u8>, DeviceError> {
    let staging = {
        let mut core = shared.core();
        let cmd = core.cmd(shared, operation)?;
        core.buffer_reads(shared, cmd);
        let (id, dst) = readback_buffer(&mut core, shared, len, operation)?;
        let copy = vk::BufferCopy { src_offset: offset, dst_offset: 0, size: len.max(1) };
        // SAFETY: recording outside a render pass; both buffers are alive and large enough.
        unsafe { shared.device.cmd_copy_buffer(cmd, buffer, dst, &[copy]) };
        host_barrier(shared, cmd);
        match core.submit(shared, operation) {
            Ok(value) => Staging { shared: Arc::downgrade(shared), id, value },
            Err(e) => {
                core.release_now(id);
                return Err(e);
            }
        }
    };
    staging.read(operation, len as usize, <[u8]>::to_vec)
}
