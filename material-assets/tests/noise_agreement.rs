//! `noise.wgsl` and its CPU port agree: the integer hashes bit for bit, the float noise within
//! the stated tolerance. The WGSL is run by a small interpreter of the naga IR naga built from
//! it (scalar, vector and control-flow subset, each operation rounded to f32 as a GPU without
//! fused multiply-add would), so the test needs no device.

use f3d_hal::naga::{self, Expression as E, Handle, Statement as S};
use f3d_materials::contract::compile_library_module;
use f3d_materials::noise;

#[derive(Clone, Debug, PartialEq)]
enum V {
    F(f32),
    I(i32),
    U(u32),
    B(bool),
    /// A vector, struct or array.
    C(Vec<V>),
    /// A pointer to a local: its index and the access path into it.
    P(usize, Vec<usize>),
}

impl V {
    fn f(&self) -> f32 {
        match self {
            V::F(v) => *v,
            other => panic!("not a float: {other:?}"),
        }
    }
    fn index(&self) -> usize {
        match self {
            V::I(i) => *i as usize,
            V::U(u) => *u as usize,
            other => panic!("not an index: {other:?}"),
        }
    }
    fn truthy(&self) -> bool {
        match self {
            V::B(b) => *b,
            other => panic!("not a bool: {other:?}"),
        }
    }
}

enum Flow {
    Normal,
    Break,
    Continue,
    Return(Option<V>),
}

struct Interp<'m> {
    module: &'m naga::Module,
}

struct Frame<'f> {
    func: &'f naga::Function,
    args: Vec<V>,
    cache: Vec<Option<V>>,
    locals: Vec<V>,
}

fn zero(module: &naga::Module, ty: Handle<naga::Type>) -> V {
    let scalar = |s: &naga::Scalar| match s.kind {
        naga::ScalarKind::Float => V::F(0.0),
        naga::ScalarKind::Sint => V::I(0),
        naga::ScalarKind::Uint => V::U(0),
        naga::ScalarKind::Bool => V::B(false),
        other => panic!("{other:?}"),
    };
    match &module.types[ty].inner {
        naga::TypeInner::Scalar(s) => scalar(s),
        naga::TypeInner::Vector { size, scalar: s } => V::C(vec![scalar(s); *size as usize]),
        naga::TypeInner::Struct { members, .. } => V::C(members.iter().map(|m| zero(module, m.ty)).collect()),
        naga::TypeInner::Array { base, size: naga::ArraySize::Constant(n), .. } => {
            V::C(vec![zero(module, *base); n.get() as usize])
        }
        other => panic!("no zero for {other:?}"),
    }
}

fn literal(l: &naga::Literal) -> V {
    match *l {
        naga::Literal::F32(v) => V::F(v),
        naga::Literal::I32(v) => V::I(v),
        naga::Literal::U32(v) => V::U(v),
        naga::Literal::Bool(v) => V::B(v),
        naga::Literal::AbstractFloat(v) => V::F(v as f32),
        naga::Literal::AbstractInt(v) => V::I(v as i32),
        other => panic!("{other:?}"),
    }
}

/// Applies `f` componentwise, broadcasting a scalar against a vector.
fn zip(a: &V, b: &V, f: &dyn Fn(&V, &V) -> V) -> V {
    match (a, b) {
        (V::C(x), V::C(y)) => V::C(x.iter().zip(y).map(|(p, q)| zip(p, q, f)).collect()),
        (V::C(x), s) => V::C(x.iter().map(|p| zip(p, s, f)).collect()),
        (s, V::C(y)) => V::C(y.iter().map(|q| zip(s, q, f)).collect()),
        _ => f(a, b),
    }
}

fn map(a: &V, f: &dyn Fn(&V) -> V) -> V {
    match a {
        V::C(x) => V::C(x.iter().map(|p| map(p, f)).collect()),
        s => f(s),
    }
}

fn binary(op: naga::BinaryOperator, a: &V, b: &V) -> V {
    use naga::BinaryOperator as O;
    zip(a, b, &|a, b| match (a, b) {
        (V::F(x), V::F(y)) => {
            let (x, y) = (*x, *y);
            match op {
                O::Add => V::F(x + y),
                O::Subtract => V::F(x - y),
                O::Multiply => V::F(x * y),
                O::Divide => V::F(x / y),
                O::Less => V::B(x < y),
                O::LessEqual => V::B(x <= y),
                O::Greater => V::B(x > y),
                O::GreaterEqual => V::B(x >= y),
                O::Equal => V::B(x == y),
                O::NotEqual => V::B(x != y),
                other => panic!("f32 {other:?}"),
            }
        }
        (V::I(x), V::I(y)) => {
            let (x, y) = (*x, *y);
            match op {
                O::Add => V::I(x.wrapping_add(y)),
                O::Subtract => V::I(x.wrapping_sub(y)),
                O::Multiply => V::I(x.wrapping_mul(y)),
                O::Less => V::B(x < y),
                O::LessEqual => V::B(x <= y),
                O::Greater => V::B(x > y),
                O::GreaterEqual => V::B(x >= y),
                O::Equal => V::B(x == y),
                O::NotEqual => V::B(x != y),
                other => panic!("i32 {other:?}"),
            }
        }
        (V::U(x), V::U(y)) => {
            let (x, y) = (*x, *y);
            match op {
                O::Add => V::U(x.wrapping_add(y)),
                O::Subtract => V::U(x.wrapping_sub(y)),
                O::Multiply => V::U(x.wrapping_mul(y)),
                O::Modulo => V::U(x % y),
                O::And => V::U(x & y),
                O::InclusiveOr => V::U(x | y),
                O::ExclusiveOr => V::U(x ^ y),
                O::ShiftLeft => V::U(x << (y & 31)),
                O::ShiftRight => V::U(x >> (y & 31)),
                O::Less => V::B(x < y),
                O::LessEqual => V::B(x <= y),
                O::Greater => V::B(x > y),
                O::GreaterEqual => V::B(x >= y),
                O::Equal => V::B(x == y),
                O::NotEqual => V::B(x != y),
                other => panic!("u32 {other:?}"),
            }
        }
        (V::B(x), V::B(y)) => match op {
            O::LogicalAnd | O::And => V::B(*x && *y),
            O::LogicalOr | O::InclusiveOr => V::B(*x || *y),
            O::Equal => V::B(x == y),
            O::NotEqual => V::B(x != y),
            other => panic!("bool {other:?}"),
        },
        other => panic!("{op:?} on {other:?}"),
    })
}

impl<'m> Interp<'m> {
    fn function(&self, name: &str) -> &'m naga::Function {
        self.module
            .functions
            .iter()
            .find(|(_, f)| f.name.as_deref() == Some(name))
            .map(|(_, f)| f)
            .unwrap_or_else(|| panic!("no function {name}"))
    }

    fn call(&self, func: &naga::Function, args: Vec<V>) -> Option<V> {
        let mut frame = Frame { func, args, cache: vec![None; func.expressions.len()], locals: Vec::new() };
        for (_, local) in func.local_variables.iter() {
            let init = match local.init {
                Some(h) => self.eval(&mut frame, h),
                None => zero(self.module, local.ty),
            };
            frame.locals.push(init);
        }
        match self.block(&mut frame, &func.body) {
            Flow::Return(v) => v,
            _ => None,
        }
    }

    fn global_const(&self, h: Handle<naga::Expression>) -> V {
        match &self.module.global_expressions[h] {
            E::Literal(l) => literal(l),
            E::Constant(c) => self.global_const(self.module.constants[*c].init),
            E::ZeroValue(ty) => zero(self.module, *ty),
            E::Compose { components, .. } => V::C(components.iter().map(|c| self.global_const(*c)).collect()),
            E::Splat { size, value } => V::C(vec![self.global_const(*value); *size as usize]),
            other => panic!("global {other:?}"),
        }
    }

    fn load(frame: &Frame, ptr: &V) -> V {
        let V::P(local, path) = ptr else { panic!("load of {ptr:?}") };
        let mut v = &frame.locals[*local];
        for &i in path {
            let V::C(items) = v else { panic!("path into a scalar") };
            v = &items[i];
        }
        v.clone()
    }

    fn store(frame: &mut Frame, ptr: &V, value: V) {
        let V::P(local, path) = ptr else { panic!("store to {ptr:?}") };
        let mut v = &mut frame.locals[*local];
        for &i in path {
            let V::C(items) = v else { panic!("path into a scalar") };
            v = &mut items[i];
        }
        *v = value;
    }

    fn eval(&self, frame: &mut Frame, h: Handle<naga::Expression>) -> V {
        if let Some(v) = &frame.cache[h.index()] {
            return v.clone();
        }
        let v = self.compute(frame, h);
        // Expressions that are never emitted are constant for the call; emitted ones are
        // overwritten by their Emit.
        frame.cache[h.index()] = Some(v.clone());
        v
    }

    fn compute(&self, frame: &mut Frame, h: Handle<naga::Expression>) -> V {
        let m = self.module;
        match &frame.func.expressions[h] {
            E::Literal(l) => literal(l),
            E::Constant(c) => self.global_const(m.constants[*c].init),
            E::ZeroValue(ty) => zero(m, *ty),
            E::FunctionArgument(i) => frame.args[*i as usize].clone(),
            E::LocalVariable(l) => V::P(l.index(), Vec::new()),
            E::Compose { components, .. } => V::C(components.iter().map(|c| self.eval(frame, *c)).collect()),
            E::Splat { size, value } => V::C(vec![self.eval(frame, *value); *size as usize]),
            E::Swizzle { size, vector, pattern } => {
                let V::C(items) = self.eval(frame, *vector) else { panic!("swizzle") };
                V::C(pattern[..*size as usize].iter().map(|c| items[*c as usize].clone()).collect())
            }
            E::AccessIndex { base, index } => self.access(frame, *base, *index as usize),
            E::Access { base, index } => {
                let i = self.eval(frame, *index).index();
                self.access(frame, *base, i)
            }
            E::Load { pointer } => {
                let p = self.eval(frame, *pointer);
                Self::load(frame, &p)
            }
            E::Binary { op, left, right } => {
                let (a, b) = (self.eval(frame, *left), self.eval(frame, *right));
                binary(*op, &a, &b)
            }
            E::Unary { op, expr } => {
                let v = self.eval(frame, *expr);
                map(&v, &|s| match (op, s) {
                    (naga::UnaryOperator::Negate, V::F(x)) => V::F(-x),
                    (naga::UnaryOperator::Negate, V::I(x)) => V::I(x.wrapping_neg()),
                    (naga::UnaryOperator::LogicalNot, V::B(x)) => V::B(!x),
                    other => panic!("{other:?}"),
                })
            }
            E::Select { condition, accept, reject } => {
                let c = self.eval(frame, *condition);
                let (a, r) = (self.eval(frame, *accept), self.eval(frame, *reject));
                match c {
                    V::B(true) => a,
                    V::B(false) => r,
                    V::C(flags) => {
                        let (V::C(a), V::C(r)) = (a, r) else { panic!("select") };
                        V::C(
                            flags
                                .iter()
                                .zip(a)
                                .zip(r)
                                .map(|((f, a), r)| if f.truthy() { a } else { r })
                                .collect(),
                        )
                    }
                    other => panic!("select on {other:?}"),
                }
            }
            E::Relational { fun, argument } => {
                let V::C(items) = self.eval(frame, *argument) else { panic!("relational") };
                match fun {
                    naga::RelationalFunction::All => V::B(items.iter().all(V::truthy)),
                    naga::RelationalFunction::Any => V::B(items.iter().any(V::truthy)),
                    other => panic!("{other:?}"),
                }
            }
            E::Math { fun, arg, arg1, arg2, .. } => {
                let a = self.eval(frame, *arg);
                let b = arg1.map(|x| self.eval(frame, x));
                let c = arg2.map(|x| self.eval(frame, x));
                self.math(*fun, a, b, c)
            }
            E::As { expr, kind, convert } => {
                let v = self.eval(frame, *expr);
                map(&v, &|s| match (kind, convert, s) {
                    (naga::ScalarKind::Sint, Some(_), V::F(x)) => V::I(*x as i32),
                    (naga::ScalarKind::Float, Some(_), V::I(x)) => V::F(*x as f32),
                    (naga::ScalarKind::Float, Some(_), V::U(x)) => V::F(*x as f32),
                    (naga::ScalarKind::Uint, None, V::I(x)) => V::U(*x as u32),
                    (naga::ScalarKind::Sint, None, V::U(x)) => V::I(*x as i32),
                    (naga::ScalarKind::Uint, Some(_), V::I(x)) => V::U(*x as u32),
                    (naga::ScalarKind::Sint, Some(_), V::I(x)) => V::I(*x),
                    (naga::ScalarKind::Float, Some(_), V::F(x)) => V::F(*x),
                    other => panic!("as {other:?}"),
                })
            }
            E::CallResult(_) => panic!("call result read before its call"),
            other => panic!("unsupported expression {other:?}"),
        }
    }

    fn access(&self, frame: &mut Frame, base: Handle<naga::Expression>, i: usize) -> V {
        match self.eval(frame, base) {
            V::P(local, mut path) => {
                path.push(i);
                V::P(local, path)
            }
            V::C(items) => items[i].clone(),
            other => panic!("index into {other:?}"),
        }
    }

    fn math(&self, fun: naga::MathFunction, a: V, b: Option<V>, c: Option<V>) -> V {
        use naga::MathFunction as M;
        let un = |f: fn(f32) -> f32| map(&a, &|s| V::F(f(s.f())));
        match fun {
            M::Floor => un(f32::floor),
            M::Abs => map(&a, &|s| match s {
                V::F(x) => V::F(x.abs()),
                V::I(x) => V::I(x.wrapping_abs()),
                other => panic!("{other:?}"),
            }),
            M::Sqrt => un(f32::sqrt),
            M::Min | M::Max => {
                let b = b.unwrap();
                zip(&a, &b, &|x, y| match (x, y) {
                    (V::F(x), V::F(y)) => V::F(if fun == M::Min { x.min(*y) } else { x.max(*y) }),
                    (V::I(x), V::I(y)) => V::I(if fun == M::Min { *x.min(y) } else { *x.max(y) }),
                    other => panic!("{other:?}"),
                })
            }
            M::Clamp => {
                let lo = self.math(M::Max, a, b, None);
                self.math(M::Min, lo, c, None)
            }
            M::Step => zip(&a, &b.unwrap(), &|edge, x| V::F(if x.f() >= edge.f() { 1.0 } else { 0.0 })),
            M::Dot => {
                let (V::C(x), Some(V::C(y))) = (&a, &b) else { panic!("dot") };
                let mut sum = x[0].f() * y[0].f();
                for i in 1..x.len() {
                    sum += x[i].f() * y[i].f();
                }
                V::F(sum)
            }
            M::Length => {
                let d = self.math(M::Dot, a.clone(), Some(a), None);
                V::F(d.f().sqrt())
            }
            other => panic!("unsupported math {other:?}"),
        }
    }

    fn block(&self, frame: &mut Frame, block: &naga::Block) -> Flow {
        for stmt in block.iter() {
            match stmt {
                S::Emit(range) => {
                    for h in range.clone() {
                        let v = self.compute(frame, h);
                        frame.cache[h.index()] = Some(v);
                    }
                }
                S::Block(b) => match self.block(frame, b) {
                    Flow::Normal => {}
                    other => return other,
                },
                S::If { condition, accept, reject } => {
                    let branch = if self.eval(frame, *condition).truthy() { accept } else { reject };
                    match self.block(frame, branch) {
                        Flow::Normal => {}
                        other => return other,
                    }
                }
                S::Loop { body, continuing, break_if } => loop {
                    match self.block(frame, body) {
                        Flow::Break => break,
                        Flow::Return(v) => return Flow::Return(v),
                        Flow::Normal | Flow::Continue => {}
                    }
                    if let Flow::Return(v) = self.block(frame, continuing) {
                        return Flow::Return(v);
                    }
                    if let Some(b) = break_if
                        && self.eval(frame, *b).truthy()
                    {
                        break;
                    }
                },
                S::Break => return Flow::Break,
                S::Continue => return Flow::Continue,
                S::Return { value } => return Flow::Return(value.map(|v| self.eval(frame, v))),
                S::Store { pointer, value } => {
                    let (p, v) = (self.eval(frame, *pointer), self.eval(frame, *value));
                    Self::store(frame, &p, v);
                }
                S::Call { function, arguments, result } => {
                    let args: Vec<V> = arguments.iter().map(|a| self.eval(frame, *a)).collect();
                    let out = self.call(&self.module.functions[*function], args);
                    if let (Some(r), Some(v)) = (result, out) {
                        frame.cache[r.index()] = Some(v);
                    }
                }
                other => panic!("unsupported statement {other:?}"),
            }
        }
        Flow::Normal
    }
}

fn v2(p: [f32; 2]) -> V {
    V::C(vec![V::F(p[0]), V::F(p[1])])
}

fn v3(p: [f32; 3]) -> V {
    V::C(vec![V::F(p[0]), V::F(p[1]), V::F(p[2])])
}

fn floats(v: &V) -> Vec<f32> {
    match v {
        V::F(x) => vec![*x],
        V::C(items) => items.iter().map(V::f).collect(),
        other => panic!("{other:?}"),
    }
}

/// Points spread over positive and negative cells, cell borders included.
fn points() -> Vec<[f32; 3]> {
    let mut s = 0x9e37_79b9_u32;
    let mut out = vec![[0.0, 0.0, 0.0], [1.0, -1.0, 2.0], [-0.5, 0.5, -3.25]];
    for _ in 0..150 {
        let mut r = || {
            s = noise::hash_u32(s);
            (s >> 8) as f32 / 16_777_216.0 * 80.0 - 40.0
        };
        out.push([r(), r(), r()]);
    }
    out
}

#[test]
fn integer_hashes_agree_bit_for_bit() {
    let module = compile_library_module("noise.wgsl").unwrap();
    let it = Interp { module: module.module() };
    let (h1, h2, h3) =
        (it.function("noise_hash_u32"), it.function("noise_hash2"), it.function("noise_hash3"));
    let (unit,) = (it.function("noise_hash_unit"),);
    for (i, p) in points().iter().enumerate() {
        let q = [p[0] as i32 * 977, p[1] as i32 * -131, p[2] as i32 * 65_599];
        let seed = i as i32 * 7919 - 500_000;
        let x = (q[0] as u32).wrapping_mul(2_654_435_761);
        assert_eq!(it.call(h1, vec![V::U(x)]), Some(V::U(noise::hash_u32(x))));
        let pi = V::C(vec![V::I(q[0]), V::I(q[1])]);
        assert_eq!(it.call(h2, vec![pi, V::I(seed)]), Some(V::U(noise::hash2([q[0], q[1]], seed))));
        let pi = V::C(vec![V::I(q[0]), V::I(q[1]), V::I(q[2])]);
        assert_eq!(it.call(h3, vec![pi, V::I(seed)]), Some(V::U(noise::hash3(q, seed))));
        assert_eq!(it.call(unit, vec![V::U(x)]), Some(V::F(noise::hash_unit(x))));
    }
    // Extremes wrap the same way on both sides.
    let pi = V::C(vec![V::I(i32::MAX), V::I(i32::MIN)]);
    assert_eq!(it.call(h2, vec![pi, V::I(-1)]), Some(V::U(noise::hash2([i32::MAX, i32::MIN], -1))));
}

#[test]
fn float_noise_agrees_within_tolerance() {
    let module = compile_library_module("noise.wgsl").unwrap();
    let it = Interp { module: module.module() };
    type Cpu = Box<dyn Fn([f32; 3], i32) -> Vec<f32>>;
    let cases: Vec<(&str, bool, Vec<V>, Cpu, f32)> = vec![
        (
            "noise_simplex2",
            false,
            vec![],
            Box::new(|p, s| vec![noise::simplex2([p[0], p[1]], s)]),
            noise::FLOAT_TOLERANCE,
        ),
        (
            "noise_simplex3",
            true,
            vec![],
            Box::new(|p, s| vec![noise::simplex3(p, s)]),
            noise::FLOAT_TOLERANCE,
        ),
        (
            "noise_perlin2",
            false,
            vec![],
            Box::new(|p, s| vec![noise::perlin2([p[0], p[1]], s)]),
            noise::FLOAT_TOLERANCE,
        ),
        ("noise_perlin3", true, vec![], Box::new(|p, s| vec![noise::perlin3(p, s)]), noise::FLOAT_TOLERANCE),
        (
            "noise_value2",
            false,
            vec![],
            Box::new(|p, s| vec![noise::value2([p[0], p[1]], s)]),
            noise::FLOAT_TOLERANCE,
        ),
        ("noise_value3", true, vec![], Box::new(|p, s| vec![noise::value3(p, s)]), noise::FLOAT_TOLERANCE),
        (
            "noise_cellular2",
            false,
            vec![],
            Box::new(|p, s| noise::cellular2([p[0], p[1]], s).to_vec()),
            noise::FLOAT_TOLERANCE,
        ),
        (
            "noise_fbm2",
            false,
            vec![V::I(5)],
            Box::new(|p, s| vec![noise::fbm2([p[0], p[1]], s, 5)]),
            noise::FLOAT_TOLERANCE,
        ),
        (
            "noise_ridged2",
            false,
            vec![V::I(4)],
            Box::new(|p, s| vec![noise::ridged2([p[0], p[1]], s, 4)]),
            noise::FLOAT_TOLERANCE,
        ),
        (
            "noise_domain_warp2",
            false,
            vec![V::F(0.75)],
            Box::new(|p, s| noise::domain_warp2([p[0], p[1]], s, 0.75).to_vec()),
            noise::FLOAT_TOLERANCE,
        ),
        (
            "noise_domain_warp3",
            true,
            vec![V::F(0.75)],
            Box::new(|p, s| noise::domain_warp3(p, s, 0.75).to_vec()),
            noise::FLOAT_TOLERANCE,
        ),
        ("noise_curl3", true, vec![], Box::new(|p, s| noise::curl3(p, s).to_vec()), noise::CURL_TOLERANCE),
    ];
    for (name, three, extra, cpu, tolerance) in &cases {
        let f = it.function(name);
        let mut worst = 0.0f32;
        for (i, p) in points().iter().enumerate() {
            let seed = i as i32 * 31 - 2000;
            let mut args = vec![if *three { v3(*p) } else { v2([p[0], p[1]]) }, V::I(seed)];
            args.extend(extra.iter().cloned());
            let gpu = floats(&it.call(f, args).unwrap());
            let cpu = cpu(*p, seed);
            assert_eq!(gpu.len(), cpu.len(), "{name}");
            for (g, c) in gpu.iter().zip(&cpu) {
                assert!(
                    g.is_finite() && (g - c).abs() <= *tolerance,
                    "{name} at {p:?} seed {seed}: wgsl {g}, rust {c}"
                );
                worst = worst.max((g - c).abs());
            }
        }
        // The noise is not trivially zero: the test would hold nothing otherwise.
        let spread: f32 = points().iter().map(|p| cpu(*p, 1)[0].abs()).sum();
        assert!(spread > 1.0, "{name} is flat");
        eprintln!("{name}: worst difference {worst:e}");
    }
}
