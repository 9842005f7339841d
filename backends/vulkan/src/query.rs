//! Query sets: timestamps written inside passes, exact occlusion counts; reset when made and
//! before every pass that writes them, read back after the GPU passed the last submission.

use std::sync::{Arc, Weak};

use ash::vk;
use f3d_hal::backend::{self, LiveToken};
use f3d_hal::{BackendId, DeviceError, GraphicsDevice, QueryKind, QuerySetDescriptor, QuerySetHandle};

use crate::device::VulkanDevice;
use crate::sync::{Resource, Shared};

/// The largest query set made.
const MAX_QUERIES: u32 = 8192;

/// A query pool.
pub(crate) struct VkQuerySet {
    pub(crate) shared: Weak<Shared>,
    pub(crate) id: u64,
    pub(crate) pool: vk::QueryPool,
    pub(crate) _live: LiveToken,
}

impl Drop for VkQuerySet {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.upgrade() {
            shared.release(self.id);
        }
    }
}

pub(crate) fn create_query_set(
    dev: &VulkanDevice,
    label: &str,
    kind: QueryKind,
    count: u32,
) -> Result<QuerySetHandle, DeviceError> {
    const OP: &str = "create_query_set";
    if !dev.features().has(kind.feature()) {
        return Err(DeviceError::Unsupported { feature: kind.feature(), backend: BackendId::VULKAN });
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
    let shared = &dev.shared;
    let (id, pool) = dev.checked(OP, || {
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(match kind {
                QueryKind::Timestamp => vk::QueryType::TIMESTAMP,
                QueryKind::Occlusion => vk::QueryType::OCCLUSION,
            })
            .query_count(count);
        // SAFETY: the query type is one the device reported support for.
        let pool =
            unsafe { shared.device.create_query_pool(&info, None) }.map_err(|e| shared.vk_error(OP, e))?;
        let mut core = shared.core();
        let id = core.register(Resource::Query(pool));
        let cmd = match core.cmd(shared, OP) {
            Ok(cmd) => cmd,
            Err(e) => {
                core.release_now(id);
                return Err(e);
            }
        };
        // Unwritten queries then read back as unavailable rather than as stale values.
        // SAFETY: recording outside a render pass; the range is the whole pool.
        unsafe { shared.device.cmd_reset_query_pool(cmd, pool, 0, count) };
        Ok((id, pool))
    })?;
    let desc = QuerySetDescriptor { label: label.to_owned(), kind, count };
    let payload = VkQuerySet { shared: Arc::downgrade(&dev.shared), id, pool, _live: dev.live_token() };
    Ok(backend::wrap_query_set(dev.owner(), desc, payload))
}

pub(crate) fn read_query_set(dev: &VulkanDevice, set: &QuerySetHandle) -> Result<Vec<u64>, DeviceError> {
    const OP: &str = "read_query_set";
    let feature = set.descriptor().kind.feature();
    if !dev.features().has(feature) {
        return Err(DeviceError::Unsupported { feature, backend: BackendId::VULKAN });
    }
    dev.alive(OP)?;
    let q = backend::query_set_payload::<VkQuerySet>(dev.owner(), set, OP)?;
    let shared = &dev.shared;
    let value = dev.checked(OP, || shared.core().submit(shared, OP))?;
    shared.wait(value, OP)?;
    let count = set.descriptor().count as usize;
    let mut results = vec![[0u64; 2]; count];
    let flags = vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY;
    // SAFETY: the pool belongs to the device; every submission that wrote it completed; the
    // slice holds a value and an availability word per query.
    match unsafe { shared.device.get_query_pool_results(q.pool, 0, &mut results, flags) } {
        Ok(()) | Err(vk::Result::NOT_READY) => {}
        Err(e) => return Err(shared.vk_error(OP, e)),
    }
    let period = f64::from(shared.caps.timestamp_period.unwrap_or(1.0));
    Ok(results
        .iter()
        .map(|&[value, available]| match (available, set.descriptor().kind) {
            (0, _) => 0,
            (_, QueryKind::Occlusion) => value,
            (_, QueryKind::Timestamp) => (value as f64 * period).round() as u64,
        })
        .collect())
}
