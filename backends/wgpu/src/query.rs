//! Query sets: timestamps written inside passes, occlusion counts; resolved into a buffer and
//! read back when asked for.

use f3d_hal::backend;
use f3d_hal::{BackendId, DeviceError, GraphicsDevice, QueryKind, QuerySetDescriptor, QuerySetHandle};

use crate::device::WgpuDevice;
use crate::pipeline::WgpuQuerySet;
use crate::readback::read_buffer;

/// The largest query set wgpu makes.
const MAX_QUERIES: u32 = wgpu::QUERY_SET_MAX_QUERIES;

pub(crate) fn create_query_set(
    dev: &WgpuDevice,
    label: &str,
    kind: QueryKind,
    count: u32,
) -> Result<QuerySetHandle, DeviceError> {
    const OP: &str = "create_query_set";
    if !dev.features().has(kind.feature()) {
        return Err(DeviceError::Unsupported { feature: kind.feature(), backend: BackendId::WGPU });
    }
    dev.alive(OP)?;
    if count == 0 {
        return Err(DeviceError::InvalidDescriptor {
            operation: OP,
            label: label.to_owned(),
            reason: "a query set of 0 queries".into(),
        });
    }
    if count > MAX_QUERIES {
        return Err(DeviceError::LimitExceeded {
            operation: OP,
            limit: "queries per set",
            requested: count.into(),
            max: MAX_QUERIES.into(),
        });
    }
    let set = dev.scoped(OP, u64::from(count) * 8, || {
        dev.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some(label),
            ty: match kind {
                QueryKind::Timestamp => wgpu::QueryType::Timestamp,
                QueryKind::Occlusion => wgpu::QueryType::Occlusion,
            },
            count,
        })
    })?;
    let desc = QuerySetDescriptor { label: label.to_owned(), kind, count };
    Ok(backend::wrap_query_set(dev.owner(), desc, WgpuQuerySet { set, _live: dev.live_token() }))
}

pub(crate) fn read_query_set(dev: &WgpuDevice, set: &QuerySetHandle) -> Result<Vec<u64>, DeviceError> {
    const OP: &str = "read_query_set";
    let feature = set.descriptor().kind.feature();
    if !dev.features().has(feature) {
        return Err(DeviceError::Unsupported { feature, backend: BackendId::WGPU });
    }
    dev.alive(OP)?;
    let q = backend::query_set_payload::<WgpuQuerySet>(dev.owner(), set, OP)?;
    let count = set.descriptor().count;
    let bytes = u64::from(count) * 8;
    let resolve = dev.scoped(OP, bytes, || {
        let resolve = dev.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("f3d query resolve"),
            size: bytes,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut encoder =
            dev.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(OP) });
        encoder.resolve_query_set(&q.set, 0..count, &resolve, 0);
        dev.queue.submit([encoder.finish()]);
        resolve
    })?;
    let raw = read_buffer(&dev.device, &dev.queue, &dev.loss, OP, &[(&resolve, 0, bytes)])?;
    let values =
        raw.chunks_exact(8).map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
    Ok(match set.descriptor().kind {
        QueryKind::Occlusion => values.collect(),
        QueryKind::Timestamp => {
            let period = f64::from(dev.queue.get_timestamp_period());
            values.map(|t| (t as f64 * period).round() as u64).collect()
        }
    })
}
