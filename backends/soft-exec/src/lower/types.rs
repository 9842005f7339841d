//! How naga types flatten into scalars: in registers (component counts) and in uniform
//! blocks and storage buffers (byte offsets from naga's layout). Runtime-sized arrays have no
//! constant length: indexing them (`access.rs`) reads the bound buffer's length instead.

use naga::{ArraySize, Module, ScalarKind, TypeInner};

use crate::ExecError;
use crate::interface::Refuse;

/// The constant length of an array, or the construct that makes it unsupported.
pub(crate) fn array_len(size: ArraySize, refuse: &Refuse) -> Result<u32, ExecError> {
    match size {
        ArraySize::Constant(n) => Ok(n.get()),
        ArraySize::Pending(_) => Err(refuse.unsupported("arrays sized by a pipeline-overridable constant")),
        ArraySize::Dynamic => Err(refuse.unsupported("runtime-sized arrays")),
    }
}

/// Checks a scalar is one the executor holds (32-bit numbers and booleans).
pub(crate) fn check_scalar(s: naga::Scalar, refuse: &Refuse) -> Result<(), ExecError> {
    crate::interface::scalar_type(s, refuse).map(|_| ())
}

/// How many scalars a value of this type flattens into.
pub(crate) fn flat_len(module: &Module, inner: &TypeInner, refuse: &Refuse) -> Result<u32, ExecError> {
    Ok(match *inner {
        TypeInner::Scalar(s) => {
            check_scalar(s, refuse)?;
            1
        }
        TypeInner::Vector { size, scalar } => {
            check_scalar(scalar, refuse)?;
            size as u32
        }
        TypeInner::Matrix { columns, rows, scalar } => {
            check_scalar(scalar, refuse)?;
            columns as u32 * rows as u32
        }
        TypeInner::Array { base, size, .. } => {
            let n = array_len(size, refuse)?;
            let each = flat_len(module, &module.types[base].inner, refuse)?;
            n.checked_mul(each)
                .filter(|&t| t <= 1 << 16)
                .ok_or_else(|| refuse.too_large("an array of more than 65536 scalars"))?
        }
        TypeInner::Struct { ref members, .. } => {
            let mut total = 0u32;
            for m in members {
                total = total.saturating_add(flat_len(module, &module.types[m.ty].inner, refuse)?);
            }
            if total > 1 << 16 {
                return Err(refuse.too_large("a struct of more than 65536 scalars"));
            }
            total
        }
        TypeInner::Atomic(_) => return Err(refuse.unsupported("atomic operations")),
        TypeInner::Pointer { .. } | TypeInner::ValuePointer { .. } => {
            return Err(refuse.unsupported("pointers stored in values"));
        }
        TypeInner::Image { .. } | TypeInner::Sampler { .. } => {
            return Err(refuse.unsupported("textures or samplers inside composite values"));
        }
        TypeInner::AccelerationStructure { .. } => return Err(refuse.unsupported("acceleration structures")),
        TypeInner::RayQuery { .. } => return Err(refuse.unsupported("ray queries")),
        TypeInner::BindingArray { .. } => return Err(refuse.unsupported("binding arrays")),
        TypeInner::CooperativeMatrix { .. } => return Err(refuse.unsupported("cooperative matrices")),
    })
}

/// The scalar kind of a scalar, vector or matrix type (the component kind of a value).
pub(crate) fn scalar_kind(inner: &TypeInner) -> Option<ScalarKind> {
    match *inner {
        TypeInner::Scalar(s) | TypeInner::Vector { scalar: s, .. } | TypeInner::Matrix { scalar: s, .. } => {
            Some(s.kind)
        }
        TypeInner::ValuePointer { scalar, .. } => Some(scalar.kind),
        _ => None,
    }
}

/// Where member or element `index` of a composite starts, and how many scalars it spans, in
/// flattened components.
pub(crate) fn component_range(
    module: &Module,
    inner: &TypeInner,
    index: u32,
    refuse: &Refuse,
) -> Result<(u32, u32), ExecError> {
    Ok(match *inner {
        TypeInner::Vector { size, .. } => (index.min(size as u32 - 1), 1),
        TypeInner::Matrix { columns, rows, .. } => (index.min(columns as u32 - 1) * rows as u32, rows as u32),
        TypeInner::Array { base, size, .. } => {
            let n = array_len(size, refuse)?;
            let each = flat_len(module, &module.types[base].inner, refuse)?;
            (index.min(n.saturating_sub(1)) * each, each)
        }
        TypeInner::Struct { ref members, .. } => {
            let mut start = 0;
            for (i, m) in members.iter().enumerate() {
                let len = flat_len(module, &module.types[m.ty].inner, refuse)?;
                if i as u32 == index {
                    return Ok((start, len));
                }
                start += len;
            }
            return Err(refuse.unsupported("a struct member index out of range"));
        }
        _ => return Err(refuse.unsupported("indexing into a non-composite value")),
    })
}

/// The element count and component stride of a dynamically indexable composite (vector,
/// matrix, array).
pub(crate) fn dynamic_shape(
    module: &Module,
    inner: &TypeInner,
    refuse: &Refuse,
) -> Result<(u32, u32), ExecError> {
    Ok(match *inner {
        TypeInner::Vector { size, .. } => (size as u32, 1),
        TypeInner::Matrix { columns, rows, .. } => (columns as u32, rows as u32),
        TypeInner::Array { base, size, .. } => {
            (array_len(size, refuse)?, flat_len(module, &module.types[base].inner, refuse)?)
        }
        _ => return Err(refuse.unsupported("dynamic indexing into this type")),
    })
}

/// The byte stride between columns of a matrix in a uniform block (a column is a vector,
/// aligned as one).
pub(crate) fn column_stride(rows: naga::VectorSize) -> u32 {
    match rows {
        naga::VectorSize::Bi => 8,
        _ => 16,
    }
}

/// Byte offset and size of member or element `index` of a composite in a uniform block.
pub(crate) fn byte_range(
    _module: &Module,
    inner: &TypeInner,
    index: u32,
    refuse: &Refuse,
) -> Result<u32, ExecError> {
    Ok(match *inner {
        TypeInner::Vector { size, .. } => index.min(size as u32 - 1) * 4,
        TypeInner::Matrix { columns, rows, .. } => index.min(columns as u32 - 1) * column_stride(rows),
        TypeInner::Array { size, stride, .. } => {
            index.min(array_len(size, refuse)?.saturating_sub(1)) * stride
        }
        TypeInner::Struct { ref members, .. } => match members.get(index as usize) {
            Some(m) => m.offset,
            None => return Err(refuse.unsupported("a struct member index out of range")),
        },
        _ => return Err(refuse.unsupported("indexing into a non-composite value")),
    })
}

/// The element count and byte stride of a dynamically indexable composite in a uniform block.
pub(crate) fn byte_shape(inner: &TypeInner, refuse: &Refuse) -> Result<(u32, u32), ExecError> {
    Ok(match *inner {
        TypeInner::Vector { size, .. } => (size as u32, 4),
        TypeInner::Matrix { columns, rows, .. } => (columns as u32, column_stride(rows)),
        TypeInner::Array { size, stride, .. } => (array_len(size, refuse)?, stride),
        _ => return Err(refuse.unsupported("dynamic indexing into this type")),
    })
}

/// The byte offset of every scalar of a value of this type in a uniform block, in flattened
/// order.
pub(crate) fn byte_offsets(
    module: &Module,
    inner: &TypeInner,
    base: u32,
    out: &mut Vec<u32>,
    refuse: &Refuse,
) -> Result<(), ExecError> {
    match *inner {
        TypeInner::Scalar(_) => out.push(base),
        TypeInner::Vector { size, .. } => out.extend((0..size as u32).map(|i| base + 4 * i)),
        TypeInner::Matrix { columns, rows, .. } => {
            for c in 0..columns as u32 {
                out.extend((0..rows as u32).map(|r| base + c * column_stride(rows) + 4 * r));
            }
        }
        TypeInner::Array { base: elem, size, stride } => {
            let n = array_len(size, refuse)?;
            if n > 1 << 16 {
                return Err(refuse.too_large("a uniform array of more than 65536 elements"));
            }
            for i in 0..n {
                byte_offsets(module, &module.types[elem].inner, base + i * stride, out, refuse)?;
            }
        }
        TypeInner::Struct { ref members, .. } => {
            for m in members {
                byte_offsets(module, &module.types[m.ty].inner, base + m.offset, out, refuse)?;
            }
        }
        TypeInner::Atomic(_) => return Err(refuse.unsupported("atomic operations")),
        _ => return Err(refuse.unsupported("this type in a uniform block")),
    }
    Ok(())
}
