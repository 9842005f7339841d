//! Memory: gpu-allocator over the device, and the plans images and buffers are made from.
//!
//! A texture's Vulkan image is made from an [`ImagePlan`] and the payload keeps that same
//! plan, so what the wrapper believes about the image (format, usage, aspects, levels,
//! layers) and what Vulkan was told can never disagree: every later decision (may this be
//! sampled? copied? which aspects does a barrier name?) reads the plan, never the HAL
//! descriptor again. Buffers likewise come from a [`BufferPlan`].

use ash::vk;
use f3d_hal::{DeviceError, TextureDescriptor, TextureDimension, TextureUsages};
use gpu_allocator::MemoryLocation;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme, Allocator};

use crate::conv;
use crate::texture::FormatCaps;

/// Everything Vulkan is told about one image, decided once from the HAL descriptor and what
/// the device can do with its format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ImagePlan {
    pub(crate) format: vk::Format,
    pub(crate) usage: vk::ImageUsageFlags,
    pub(crate) flags: vk::ImageCreateFlags,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) mips: u32,
    pub(crate) layers: u32,
    pub(crate) samples: vk::SampleCountFlags,
    /// Every aspect of the format (what barriers and attachments name).
    pub(crate) aspects: vk::ImageAspectFlags,
    /// The aspect shaders sample (depth only for depth-stencil formats).
    pub(crate) sampled_aspect: vk::ImageAspectFlags,
    /// The view type shaders see (2D, 2D array, cube).
    pub(crate) view_type: vk::ImageViewType,
    /// Block-compressed: zeroed by a copy from zeroed memory, since Vulkan cannot clear it.
    pub(crate) compressed: bool,
}

impl ImagePlan {
    /// The plan for `desc` on a device whose format support is `caps`. Usages the format does
    /// not allow here are left out (`texture_format_support` said so first; what needs them
    /// is refused by name); transfer-destination is always in, since every image starts
    /// zeroed by the device.
    pub(crate) fn new(desc: &TextureDescriptor, caps: &FormatCaps) -> Result<Self, DeviceError> {
        let invalid = |reason: String| DeviceError::InvalidDescriptor {
            operation: "create_texture",
            label: desc.label.clone(),
            reason,
        };
        let support = caps.support;
        if !support.create {
            return Err(invalid(format!("{} is not supported by this Vulkan device", desc.format)));
        }
        let color = desc.format.is_color();
        let multisampled = desc.sample_count > 1;
        if multisampled {
            if !support.multisample {
                return Err(invalid(format!("{} cannot be multisampled on this device", desc.format)));
            }
            if !desc.usage.contains(TextureUsages::RENDER_ATTACHMENT) {
                return Err(invalid("a multisampled texture is only ever a render attachment".into()));
            }
        }
        if !color && desc.usage.contains(TextureUsages::RENDER_ATTACHMENT) && !support.renderable {
            return Err(invalid(format!("{} cannot be a depth attachment on this device", desc.format)));
        }
        let mut usage = vk::ImageUsageFlags::TRANSFER_DST;
        // A sampled colour texture may be a frame shown in a window, and a surface blits
        // from it (`swapchain.rs`).
        if color && !multisampled && desc.usage.intersects(TextureUsages::COPY_SRC | TextureUsages::SAMPLED) {
            usage |= vk::ImageUsageFlags::TRANSFER_SRC;
        }
        if desc.usage.contains(TextureUsages::SAMPLED) && support.sampled && !multisampled {
            usage |= vk::ImageUsageFlags::SAMPLED;
        }
        if desc.usage.contains(TextureUsages::RENDER_ATTACHMENT) && support.renderable {
            usage |= if color {
                vk::ImageUsageFlags::COLOR_ATTACHMENT
            } else {
                vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
            };
        }
        let flags = if desc.dimension == TextureDimension::Cube {
            vk::ImageCreateFlags::CUBE_COMPATIBLE
        } else {
            vk::ImageCreateFlags::empty()
        };
        Ok(Self {
            format: caps.vk,
            usage,
            flags,
            width: desc.width,
            height: desc.height,
            mips: desc.mip_level_count,
            layers: desc.array_layers,
            samples: conv::samples(desc.sample_count),
            aspects: conv::aspects(desc.format),
            sampled_aspect: conv::sampled_aspect(desc.format),
            view_type: conv::view_type(desc.dimension),
            compressed: desc.format.is_compressed(),
        })
    }

    /// The Vulkan description of the image.
    pub(crate) fn info(&self) -> vk::ImageCreateInfo<'static> {
        vk::ImageCreateInfo::default()
            .flags(self.flags)
            .image_type(vk::ImageType::TYPE_2D)
            .format(self.format)
            .extent(vk::Extent3D { width: self.width, height: self.height, depth: 1 })
            .mip_levels(self.mips)
            .array_layers(self.layers)
            .samples(self.samples)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(self.usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
    }

    /// The subresources of level `level`, layers `layers`, every aspect.
    pub(crate) fn range(
        &self,
        level: u32,
        levels: u32,
        layer: u32,
        layers: u32,
    ) -> vk::ImageSubresourceRange {
        vk::ImageSubresourceRange {
            aspect_mask: self.aspects,
            base_mip_level: level,
            level_count: levels,
            base_array_layer: layer,
            layer_count: layers,
        }
    }
}

/// Everything Vulkan is told about one buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BufferPlan {
    /// The Vulkan size: never 0.
    pub(crate) size: u64,
    pub(crate) usage: vk::BufferUsageFlags,
    pub(crate) location: MemoryLocation,
}

impl BufferPlan {
    /// A device-local buffer of `size` bytes.
    pub(crate) fn device(size: u64, usage: vk::BufferUsageFlags) -> Self {
        Self { size: size.max(4), usage, location: MemoryLocation::GpuOnly }
    }

    /// A host-visible buffer the CPU writes and the GPU reads (staging uploads, uniforms).
    pub(crate) fn upload(size: u64, usage: vk::BufferUsageFlags) -> Self {
        Self { size: size.max(4), usage, location: MemoryLocation::CpuToGpu }
    }

    /// A host-visible buffer the GPU writes and the CPU reads (readback).
    pub(crate) fn readback(size: u64) -> Self {
        Self {
            size: size.max(4),
            usage: vk::BufferUsageFlags::TRANSFER_DST,
            location: MemoryLocation::GpuToCpu,
        }
    }
}

fn memory_error(operation: &'static str, bytes: u64, e: gpu_allocator::AllocationError) -> DeviceError {
    match e {
        gpu_allocator::AllocationError::OutOfMemory => DeviceError::OutOfMemory { operation, bytes },
        other => DeviceError::Backend {
            operation,
            backend: f3d_hal::BackendId::VULKAN,
            message: format!("allocating {bytes} bytes: {other}"),
        },
    }
}

pub(crate) fn vk_error(operation: &'static str, e: vk::Result) -> DeviceError {
    match e {
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY | vk::Result::ERROR_OUT_OF_HOST_MEMORY => {
            DeviceError::OutOfMemory { operation, bytes: 0 }
        }
        other => DeviceError::Backend {
            operation,
            backend: f3d_hal::BackendId::VULKAN,
            message: format!("Vulkan returned {other}"),
        },
    }
}

/// Makes the image `plan` describes and binds memory to it.
pub(crate) fn create_image(
    device: &ash::Device,
    allocator: &mut Allocator,
    plan: &ImagePlan,
    name: &str,
    operation: &'static str,
) -> Result<(vk::Image, Allocation), DeviceError> {
    // SAFETY: the plan's values were checked against the device's limits and format support.
    let image = unsafe { device.create_image(&plan.info(), None) }.map_err(|e| vk_error(operation, e))?;
    // SAFETY: `image` was just made on `device`.
    let requirements = unsafe { device.get_image_memory_requirements(image) };
    let allocation = allocator.allocate(&AllocationCreateDesc {
        name,
        requirements,
        location: MemoryLocation::GpuOnly,
        linear: false,
        allocation_scheme: AllocationScheme::GpuAllocatorManaged,
    });
    let allocation = match allocation {
        Ok(a) => a,
        Err(e) => {
            // SAFETY: nothing else refers to the image yet.
            unsafe { device.destroy_image(image, None) };
            return Err(memory_error(operation, requirements.size, e));
        }
    };
    // SAFETY: the allocation satisfies the image's requirements and is bound once.
    if let Err(e) = unsafe { device.bind_image_memory(image, allocation.memory(), allocation.offset()) } {
        // SAFETY: nothing else refers to the image yet.
        unsafe { device.destroy_image(image, None) };
        let _ = allocator.free(allocation);
        return Err(vk_error(operation, e));
    }
    Ok((image, allocation))
}

/// Makes the buffer `plan` describes and binds memory to it (mapped when host-visible).
pub(crate) fn create_buffer(
    device: &ash::Device,
    allocator: &mut Allocator,
    plan: &BufferPlan,
    name: &str,
    operation: &'static str,
) -> Result<(vk::Buffer, Allocation), DeviceError> {
    let info = vk::BufferCreateInfo::default()
        .size(plan.size)
        .usage(plan.usage)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    // SAFETY: the size was checked against the device's limits.
    let buffer = unsafe { device.create_buffer(&info, None) }.map_err(|e| vk_error(operation, e))?;
    // SAFETY: `buffer` was just made on `device`.
    let requirements = unsafe { device.get_buffer_memory_requirements(buffer) };
    let allocation = allocator.allocate(&AllocationCreateDesc {
        name,
        requirements,
        location: plan.location,
        linear: true,
        allocation_scheme: AllocationScheme::GpuAllocatorManaged,
    });
    let allocation = match allocation {
        Ok(a) => a,
        Err(e) => {
            // SAFETY: nothing else refers to the buffer yet.
            unsafe { device.destroy_buffer(buffer, None) };
            return Err(memory_error(operation, requirements.size, e));
        }
    };
    // SAFETY: the allocation satisfies the buffer's requirements and is bound once.
    if let Err(e) = unsafe { device.bind_buffer_memory(buffer, allocation.memory(), allocation.offset()) } {
        // SAFETY: nothing else refers to the buffer yet.
        unsafe { device.destroy_buffer(buffer, None) };
        let _ = allocator.free(allocation);
        return Err(vk_error(operation, e));
    }
    Ok((buffer, allocation))
}

#[cfg(test)]
mod tests {
    use super::*;
    use f3d_hal::{FormatSupport, TextureFormat};

    fn caps(support: FormatSupport) -> FormatCaps {
        FormatCaps { vk: vk::Format::R8G8B8A8_UNORM, features: vk::FormatFeatureFlags2::empty(), support }
    }

    #[test]
    fn usages_the_format_lacks_are_left_out() {
        let desc = TextureDescriptor::new_2d("t", 4, 4, TextureFormat::Rgba8Unorm);
        let only_create = FormatSupport { create: true, ..FormatSupport::NONE };
        let plan = ImagePlan::new(&desc, &caps(only_create)).expect("plan");
        assert!(!plan.usage.contains(vk::ImageUsageFlags::SAMPLED));
        assert!(!plan.usage.contains(vk::ImageUsageFlags::COLOR_ATTACHMENT));
        assert!(plan.usage.contains(vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC));
    }

    #[test]
    fn a_cube_is_cube_compatible_and_seen_as_a_cube() {
        let desc = TextureDescriptor::new_cube("c", 4, TextureFormat::Rgba8Unorm);
        let all = FormatSupport { create: true, sampled: true, renderable: true, ..FormatSupport::NONE };
        let plan = ImagePlan::new(&desc, &caps(all)).expect("plan");
        assert!(plan.flags.contains(vk::ImageCreateFlags::CUBE_COMPATIBLE));
        assert_eq!((plan.view_type, plan.layers), (vk::ImageViewType::CUBE, 6));
    }

    #[test]
    fn unsupported_formats_are_refused() {
        let desc = TextureDescriptor::new_2d("t", 4, 4, TextureFormat::Rgba8Unorm);
        assert!(ImagePlan::new(&desc, &caps(FormatSupport::NONE)).is_err());
    }
}
