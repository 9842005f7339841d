//! Prints what the vulkan backend opens on this machine: the adapter, its driver, the HAL
//! features and limits it reports, and what each format supports. With `F3D_VALIDATION=1` the
//! validation layers are on (and any message they print is logged as a warning prefixed `vulkan validation:`).
//!
//! `cargo run --release -p f3d_backend_vulkan --example vulkan_info`

use f3d_backend_vulkan::VulkanDevice;
use f3d_hal::{DeviceRequest, GraphicsDevice, TextureFormat};

fn main() -> std::process::ExitCode {
    let request = DeviceRequest::new(256, 256).with_process_env();
    let device = match VulkanDevice::open(&request) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("vulkan did not open: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let info = device.adapter_info();
    println!("adapter: {}", info.name);
    println!("driver: {}", info.driver);
    println!("cpu: {}", info.cpu);
    println!("validation layers: {}", if device.vk_validation_log().is_some() { "on" } else { "off" });
    println!(
        "queue family: {} (dedicated transfer family: {:?})",
        device.vk_queue_family(),
        device.vk_transfer_queue_family()
    );
    let features: Vec<_> = device.features().iter().map(|f| f.name()).collect();
    println!("features: {}", features.join(", "));
    println!("limits: {:?}", device.limits());
    for &format in TextureFormat::ALL {
        println!("  {format:<22} {:?}", device.texture_format_support(format));
    }
    if let Some(path) = device.vk_pipeline_cache_file() {
        println!("pipeline cache: {}", path.display());
    }
    std::process::ExitCode::SUCCESS
}
