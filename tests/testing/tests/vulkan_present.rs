//! Presentation on a real X server: starts Xvfb, makes a bare XCB window, presents frame
//! textures to it through the vulkan device (validation on) and reads the window back from the
//! X server to check the frames reached it, sRGB values included, before and after resizes
//! (told to the surface, or only done to the window; frames of another size are scaled);
//! a minimised (zero-sized) surface skips; a window of another system is refused by name;
//! dropping everything leaves no Vulkan object and no validation message.
//!
//! Without Xvfb (or a vulkan device) the window test says why and passes, unless
//! `F3D_REQUIRE_BACKENDS` names vulkan.

use std::error::Error;
use std::num::NonZeroIsize;
use std::sync::Arc;

use f3d::f3d_hal::raw_window_handle::{
    RawDisplayHandle, RawWindowHandle, Win32WindowHandle, WindowsDisplayHandle,
};
use f3d::f3d_hal::{
    DeviceError, DeviceFeature, GraphicsDevice, PresentMode, Presented, SurfaceConfig, SurfaceTarget,
    TextureDescriptor, TextureFormat, TextureUsages,
};
use f3d_backend_vulkan::{ValidationLog, VulkanDevice};
use f3d_conformance::window::{TestWindow, pattern_frame, show};

mod gpu_support;
use gpu_support as common;

type Failure = Box<dyn Error>;

const FIRST: (u32, u32) = (64, 48);
const SECOND: (u32, u32) = (96, 64);
/// Frames shown before the window is compared with the pattern.
const FRAMES: u32 = 3;

#[test]
fn lavapipe_reports_present() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    let Some(device) = common::device(&log) else { return };
    assert!(
        device.features().has(DeviceFeature::PRESENT),
        "{} ({}) opened without PRESENT: the loader or driver lacks VK_KHR_surface / VK_KHR_swapchain",
        device.adapter_info().name,
        device.adapter_info().driver
    );
    drop(device);
    assert!(log.is_empty(), "validation messages: {:#?}", log.messages());
}

#[test]
fn frames_reach_an_xvfb_window() {
    let _turn = common::turn();
    common::quiet_mesa();
    let required = common::vulkan_required();
    let has_xvfb = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("Xvfb").is_file()));
    if !has_xvfb {
        assert!(
            !required,
            "F3D_REQUIRE_BACKENDS names vulkan, but Xvfb is not installed (apt-get install xvfb)"
        );
        println!("skipped: Xvfb is not installed (apt-get install xvfb)");
        return;
    }
    let log = ValidationLog::new();
    let Some(device) = common::device(&log) else { return };
    if let Err(e) = run(device, &log) {
        panic!("{e}");
    }
}

fn run(device: VulkanDevice, log: &ValidationLog) -> Result<(), Failure> {
    let (_server, display) = f3d_testing::xvfb::start(320, 240)?;
    let window = TestWindow::open(Some(&display), FIRST)?;
    let config = SurfaceConfig { width: FIRST.0, height: FIRST.1, present_mode: PresentMode::AutoVsync };
    let mut surface = device.create_surface(&window.target("test window")?, &config)?;
    println!("presenting on {} in {:?} mode", device.adapter_info().name, surface.present_mode());
    assert_eq!(surface.label(), "test window");

    let small = pattern_frame(&device, FIRST)?;
    show(&device, surface.as_mut(), &small, &window, FIRST, FRAMES)?;

    // A texture shaders cannot sample is no frame.
    let plain = device.create_texture(
        &TextureDescriptor::new_2d("not sampled", FIRST.0, FIRST.1, TextureFormat::Rgba8UnormSrgb)
            .with_usage(TextureUsages::RENDER_ATTACHMENT),
    )?;
    match surface.present(&plain) {
        Err(DeviceError::Refused { operation: "present", .. }) => {}
        other => return Err(format!("presenting a texture without SAMPLED answered {other:?}").into()),
    }

    // Minimised: skipped, not an error, and the next frames show again.
    surface.configure(&SurfaceConfig { width: 0, height: 0, ..config })?;
    match surface.present(&small)? {
        Presented::Skipped(why) => println!("zero-sized surface skipped: {why}"),
        Presented::Shown => return Err("a zero-sized surface showed a frame".into()),
    }

    // Resized: a frame of the new size, then the old frame scaled to it.
    window.resize(SECOND)?;
    surface.configure(&SurfaceConfig { width: SECOND.0, height: SECOND.1, ..config })?;
    assert_eq!(surface.config().width, SECOND.0);
    let large = pattern_frame(&device, SECOND)?;
    show(&device, surface.as_mut(), &large, &window, SECOND, FRAMES)?;
    show(&device, surface.as_mut(), &small, &window, SECOND, FRAMES)?;
    // The window shrinks before the surface hears of it: the swapchain follows the window.
    window.resize(FIRST)?;
    show(&device, surface.as_mut(), &large, &window, FIRST, FRAMES)?;

    // A window of a system this backend has no surface for is refused by name, not a panic.
    let hwnd = NonZeroIsize::new(1).ok_or("1 is not zero")?;
    // SAFETY: the handles are never used: the device refuses them before making anything.
    let foreign = unsafe {
        SurfaceTarget::new(
            RawWindowHandle::Win32(Win32WindowHandle::new(hwnd)),
            RawDisplayHandle::Windows(WindowsDisplayHandle::new()),
            "foreign window",
            Arc::new(()),
        )
    };
    match device.create_surface(&foreign, &config) {
        Err(e) if e.to_string().contains("foreign window") && e.to_string().contains("vulkan") => {
            println!("refused: {e}")
        }
        Err(e) => return Err(format!("the refusal names neither the window nor the backend: {e}").into()),
        Ok(_) => return Err("a Win32 window got a surface on X11".into()),
    }

    // The surface outlives the device: it answers Lost, and dropping it cleans up.
    let objects = device.vk_object_counter();
    drop((large, plain));
    drop(device);
    match surface.present(&small) {
        Err(DeviceError::Lost { operation: "present", .. }) => {}
        other => return Err(format!("presenting after the device was dropped answered {other:?}").into()),
    }
    drop(small);
    drop(surface);
    if objects.count() != 0 {
        return Err(format!("{} Vulkan objects outlived the device and its surface", objects.count()).into());
    }
    if !log.is_empty() {
        return Err(format!("{} validation messages: {:#?}", log.len(), log.messages()).into());
    }
    Ok(())
}
