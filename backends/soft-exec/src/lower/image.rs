//! Texture sampling, loads and queries.

use naga::{Handle, SampleLevel};
use smallvec::smallvec;

use super::builder::Val;
use super::{Frame, LResult, Lowerer, Value};
use crate::interface::ResourceKind;
use crate::ir::{Dst, Inst, LevelArg, Src, TexKind, TexOp, TexQuery};

/// The operands of `Expression::ImageSample`.
pub(super) struct SampleArgs {
    pub(super) image: Handle<naga::Expression>,
    pub(super) sampler: Handle<naga::Expression>,
    pub(super) gather: Option<naga::SwizzleComponent>,
    pub(super) coordinate: Handle<naga::Expression>,
    pub(super) array_index: Option<Handle<naga::Expression>>,
    pub(super) offset: Option<Handle<naga::Expression>>,
    pub(super) level: SampleLevel,
    pub(super) depth_ref: Option<Handle<naga::Expression>>,
    pub(super) clamp_to_edge: bool,
}

impl<'m> Lowerer<'m> {
    fn texture_resource(
        &mut self,
        f: &mut Frame<'m>,
        image: Handle<naga::Expression>,
    ) -> LResult<(u16, bool)> {
        match self.value(f, image)? {
            Value::Image(res) => match self.resource_info.get(usize::from(res)).map(|r| r.kind) {
                Some(ResourceKind::Texture { depth, .. }) => Ok((res, depth)),
                _ => Err(self.unsupported("a texture binding that is not a sampled texture")),
            },
            _ => Err(self.unsupported("a texture operation on something that is not a texture")),
        }
    }

    fn srcs(&mut self, v: &[Val]) -> [Src; 3] {
        let mut out = [Src::U(0); 3];
        let zero = self.b.src(Val::C(0));
        for (i, o) in out.iter_mut().enumerate() {
            *o = match v.get(i) {
                Some(&x) => self.b.src(x),
                None => zero,
            };
        }
        out
    }

    fn opt_scalar(&mut self, f: &mut Frame<'m>, h: Option<Handle<naga::Expression>>) -> LResult<Option<Src>> {
        match h {
            Some(h) => {
                let v = self.scalar(f, h)?;
                Ok(Some(self.b.src(v)))
            }
            None => Ok(None),
        }
    }

    fn emit_texture(&mut self, op: TexOp) -> Value {
        let n = usize::from(op.dst_len);
        let out = op.dst[..n].iter().map(|&r| Val::V(r)).collect();
        self.b.push(Inst::Texture(Box::new(op)));
        Value::Comps(out)
    }

    pub(super) fn image_sample(&mut self, f: &mut Frame<'m>, s: SampleArgs) -> LResult<Value> {
        let (texture, depth) = self.texture_resource(f, s.image)?;
        let sampler = match self.value(f, s.sampler)? {
            Value::Sampler(r) => r,
            _ => return Err(self.unsupported("sampling with something that is not a sampler")),
        };
        let coord = self.comps(f, s.coordinate)?;
        let coord = self.srcs(&coord);
        let array_index = self.opt_scalar(f, s.array_index)?;
        let mut offset = [0i32; 2];
        if let Some(h) = s.offset {
            let v = self.comps(f, h)?;
            for (o, x) in offset.iter_mut().zip(v) {
                match x {
                    Val::C(bits) => *o = bits as i32,
                    _ => return Err(self.unsupported("a texture offset that is not a constant")),
                }
            }
        }
        let level = match s.level {
            SampleLevel::Auto => {
                if self.stage != f3d_hal::ShaderStage::Fragment {
                    return Err(self.unsupported("implicit-level sampling outside the fragment stage"));
                }
                LevelArg::Auto
            }
            SampleLevel::Zero => LevelArg::Zero,
            SampleLevel::Exact(h) => {
                let v = self.scalar(f, h)?;
                LevelArg::Exact(self.b.src(v))
            }
            SampleLevel::Bias(h) => {
                if self.stage != f3d_hal::ShaderStage::Fragment {
                    return Err(self.unsupported("biased sampling outside the fragment stage"));
                }
                let v = self.scalar(f, h)?;
                LevelArg::Bias(self.b.src(v))
            }
            SampleLevel::Gradient { x, y } => {
                let (gx, gy) = (self.comps(f, x)?, self.comps(f, y)?);
                LevelArg::Grad(self.srcs(&gx), self.srcs(&gy))
            }
        };
        let depth_ref = self.opt_scalar(f, s.depth_ref)?;
        let gather = s.gather.map(|c| c as u8);
        let dst_len = if depth && gather.is_none() { 1 } else { 4 };
        let dst = std::array::from_fn(|i| if i < dst_len { self.b.new_v() } else { 0 });
        Ok(self.emit_texture(TexOp {
            kind: TexKind::Sample { level, depth_ref, gather, clamp_to_edge: s.clamp_to_edge, offset },
            texture,
            sampler,
            coord,
            array_index,
            dst,
            dst_len: dst_len as u8,
        }))
    }

    pub(super) fn image_load(
        &mut self,
        f: &mut Frame<'m>,
        image: Handle<naga::Expression>,
        coordinate: Handle<naga::Expression>,
        array_index: Option<Handle<naga::Expression>>,
        sample: Option<Handle<naga::Expression>>,
        level: Option<Handle<naga::Expression>>,
    ) -> LResult<Value> {
        if sample.is_some() {
            return Err(self.unsupported("multisampled textures"));
        }
        let (texture, depth) = self.texture_resource(f, image)?;
        let coord = self.comps(f, coordinate)?;
        let coord = self.srcs(&coord);
        let array_index = self.opt_scalar(f, array_index)?;
        let level = self.opt_scalar(f, level)?;
        let dst_len = if depth { 1 } else { 4 };
        let dst = std::array::from_fn(|i| if i < dst_len { self.b.new_v() } else { 0 });
        Ok(self.emit_texture(TexOp {
            kind: TexKind::Load { level },
            texture,
            sampler: 0,
            coord,
            array_index,
            dst,
            dst_len: dst_len as u8,
        }))
    }

    pub(super) fn image_query(
        &mut self,
        f: &mut Frame<'m>,
        image: Handle<naga::Expression>,
        query: naga::ImageQuery,
    ) -> LResult<Value> {
        let (res, _) = self.texture_resource(f, image)?;
        let one = |this: &mut Self, query: TexQuery, level: Option<Val>| {
            let varying = level.is_some_and(|l| l.varying());
            let (d, v) = if varying {
                let r = this.b.new_v();
                (Dst::V(r), Val::V(r))
            } else {
                let r = this.b.new_u();
                (Dst::U(r), Val::U(r))
            };
            let level = level.map(|l| this.b.src(l));
            this.b.push(Inst::TexQuery { d, res, query, level });
            v
        };
        Ok(Value::Comps(match query {
            naga::ImageQuery::Size { level } => {
                let level = match level {
                    Some(h) => Some(self.scalar(f, h)?),
                    None => None,
                };
                smallvec![one(self, TexQuery::Width, level), one(self, TexQuery::Height, level)]
            }
            naga::ImageQuery::NumLevels => smallvec![one(self, TexQuery::Levels, None)],
            naga::ImageQuery::NumLayers => smallvec![one(self, TexQuery::Layers, None)],
            naga::ImageQuery::NumSamples => return Err(self.unsupported("multisampled textures")),
        }))
    }
}
