//! Reading the GPU's memory back: textures (a copy into a mapped buffer, 256-byte rows undone,
//! rows from the top), buffers and query results.
//!
//! ```text
//!  readback(texture, region)            PendingReadback::wait()
//!  ─────────────────────────            ───────────────────────
//!  copy texture → staging buffer        map staging, poll until mapped
//!  submit (ordered after every          strip each row's padding to 256 bytes
//!  earlier submit and upload)           convert_for_readback (the HAL's one rule)
//! ```
//!
//! The copy is recorded and submitted when the readback is asked for, so it sees exactly the
//! work submitted before the call; work submitted later runs after the copy on the queue, so
//! waiting late cannot see it.

use std::future::Future;
use std::sync::{Arc, Mutex, mpsc};
use std::task::{Context, Poll, Waker};

use f3d_hal::{
    BackendId, DeviceError, LossReason, PendingReadback, ReadbackImage, TextureDescriptor, TextureRegion,
    convert_for_readback, readback_format,
};

/// Runs a future that wgpu-core resolves by polling (adapter and device requests, error
/// scopes): they are ready at once or after a device poll, so a no-op waker suffices.
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

/// Why a device was lost, shared with waiters that outlive the call that started them.
pub(crate) type LossCell = Arc<Mutex<Option<LossReason>>>;

fn backend_error(operation: &'static str, message: impl Into<String>) -> DeviceError {
    DeviceError::Backend { operation, backend: BackendId::WGPU, message: message.into() }
}

/// Maps `buffer` for reading, waits, and hands its bytes to `read`.
pub(crate) fn map_and_read<T>(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    loss: &LossCell,
    operation: &'static str,
    read: impl FnOnce(&[u8]) -> T,
) -> Result<T, DeviceError> {
    let lost = || loss.lock().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(reason) = lost() {
        return Err(DeviceError::Lost { operation, backend: BackendId::WGPU, reason });
    }
    let (tx, rx) = mpsc::channel();
    buffer.map_async(wgpu::MapMode::Read, .., move |result| {
        // The receiver waits below; if it is gone there is nobody left to tell.
        let _ = tx.send(result);
    });
    let polled = device.poll(wgpu::PollType::wait_indefinitely());
    let mapped = rx.try_recv();
    if let Some(reason) = lost() {
        return Err(DeviceError::Lost { operation, backend: BackendId::WGPU, reason });
    }
    polled.map_err(|e| backend_error(operation, format!("waiting for the GPU: {e}")))?;
    match mapped {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(backend_error(operation, format!("mapping the readback buffer: {e}"))),
        Err(_) => return Err(backend_error(operation, "the readback buffer was not mapped after waiting")),
    }
    let out = {
        let view = buffer
            .get_mapped_range(..)
            .map_err(|e| backend_error(operation, format!("reading the mapped buffer: {e}")))?;
        read(&view)
    };
    buffer.unmap();
    Ok(out)
}

/// Where a region's rows lie in a staging buffer: wgpu wants each row at a multiple of 256.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowLayout {
    /// Bytes of one tightly packed row.
    pub(crate) row_bytes: u32,
    /// Bytes from one row to the next in the buffer.
    pub(crate) padded_row_bytes: u32,
    /// Rows (of blocks).
    pub(crate) rows: u32,
}

impl RowLayout {
    pub(crate) fn of(desc: &TextureDescriptor, region: &TextureRegion) -> Self {
        let row_bytes = desc.format.row_bytes(region.width) as u32;
        let align = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        Self {
            row_bytes,
            padded_row_bytes: row_bytes.div_ceil(align) * align,
            rows: region.height.div_ceil(desc.format.facts().block_size.1),
        }
    }

    pub(crate) fn buffer_size(&self) -> u64 {
        u64::from(self.padded_row_bytes) * u64::from(self.rows)
    }

    /// The tightly packed rows of a padded buffer.
    pub(crate) fn unpad(&self, padded: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.row_bytes as usize * self.rows as usize);
        for row in padded.chunks(self.padded_row_bytes as usize).take(self.rows as usize) {
            out.extend_from_slice(&row[..self.row_bytes as usize]);
        }
        out
    }
}

/// Copies `region` of `texture` into a fresh staging buffer and submits the copy now; the
/// returned readback maps it when waited for.
pub(crate) fn read_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    loss: &LossCell,
    texture: &wgpu::Texture,
    desc: &TextureDescriptor,
    region: TextureRegion,
) -> PendingReadback {
    let layout = RowLayout::of(desc, &region);
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("f3d readback"),
        size: layout.buffer_size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder =
        device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("f3d readback") });
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: region.mip_level,
            origin: wgpu::Origin3d { x: region.x, y: region.y, z: region.layer },
            aspect: wgpu::TextureAspect::All,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &staging,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(layout.padded_row_bytes),
                rows_per_image: Some(layout.rows),
            },
        },
        wgpu::Extent3d { width: region.width, height: region.height, depth_or_array_layers: 1 },
    );
    queue.submit([encoder.finish()]);
    let (device, loss, format) = (device.clone(), loss.clone(), desc.format);
    PendingReadback::deferred(move || {
        let raw = map_and_read(&device, &staging, &loss, "readback", |bytes| layout.unpad(bytes))?;
        Ok(ReadbackImage {
            width: region.width,
            height: region.height,
            format: readback_format(format),
            data: convert_for_readback(format, raw),
        })
    })
}

/// Reads `len` bytes of `buffer` at `offset` (both multiples of 4) now: copies them into a
/// staging buffer, submits, and waits.
pub(crate) fn read_buffer(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    loss: &LossCell,
    operation: &'static str,
    ranges: &[(&wgpu::Buffer, u64, u64)],
) -> Result<Vec<u8>, DeviceError> {
    let total: u64 = ranges.iter().map(|r| r.2).sum();
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("f3d buffer readback"),
        size: total.max(wgpu::COPY_BUFFER_ALIGNMENT),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder =
        device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(operation) });
    let mut at = 0;
    for &(buffer, offset, len) in ranges {
        encoder.copy_buffer_to_buffer(buffer, offset, &staging, at, len);
        at += len;
    }
    queue.submit([encoder.finish()]);
    map_and_read(device, &staging, loss, operation, |bytes| bytes[..total as usize].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use f3d_hal::TextureFormat;

    #[test]
    fn rows_are_padded_to_256_and_unpadded_in_order() {
        let desc = TextureDescriptor::new_2d("t", 3, 2, TextureFormat::Rgba8Unorm);
        let layout = RowLayout::of(&desc, &TextureRegion::full(&desc));
        assert_eq!((layout.row_bytes, layout.padded_row_bytes, layout.rows), (12, 256, 2));
        let mut padded = vec![0u8; 512];
        padded[..12].copy_from_slice(&[1; 12]);
        padded[256..268].copy_from_slice(&[2; 12]);
        assert_eq!(layout.unpad(&padded), [[1u8; 12], [2u8; 12]].concat());
    }

    #[test]
    fn block_rows_count_blocks() {
        let desc = TextureDescriptor::new_2d("bc", 8, 8, TextureFormat::Bc1RgbaUnorm);
        let layout = RowLayout::of(&desc, &TextureRegion::full(&desc));
        assert_eq!((layout.row_bytes, layout.rows), (16, 2));
    }
}
