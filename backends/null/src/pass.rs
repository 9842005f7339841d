//! The null device's side of a pass: the HAL's [`Recorder`](f3d_hal::record::Recorder) checks
//! every call; at submit the null device applies the clears and draws nothing.

use f3d_hal::backend;
use f3d_hal::record::{PassSink, RecordedPass};
use f3d_hal::{DeviceError, GraphicsDevice, LoadOp, PipelineHandle, encode_clear_color};

use crate::device::NullDevice;
use crate::pipeline::NullPipeline;

impl PassSink for NullDevice {
    fn device(&self) -> &dyn GraphicsDevice {
        self
    }

    /// The null device runs no shaders: every pipeline is refused (reported once) at its first
    /// draw, and its draws are dropped.
    fn pipeline_draws(&self, pipeline: &PipelineHandle) -> bool {
        if let Ok(payload) = backend::pipeline_payload::<NullPipeline>(self.owner(), pipeline, "draw") {
            self.refuse_once(pipeline, payload);
        }
        false
    }

    fn submit(&self, pass: RecordedPass) -> Result<(), DeviceError> {
        for a in &pass.desc.color_attachments {
            if let LoadOp::Clear(color) = a.load {
                let texel = encode_clear_color(a.view.texture.descriptor().format, color.to_array());
                self.texture(&a.view.texture, "submit")?.clear(a.view.mip_level, a.view.layer, &texel);
            }
        }
        Ok(())
    }
}
