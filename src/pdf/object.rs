//! Reading lopdf objects: the one home of the accessors every other pdf
//! module uses (following references, numbers, typed dictionary entries).
//!
//! Every reference chain is followed at most
//! [`super::limits::MAX_REFERENCE_CHAIN`] links; every number is finite.

use lopdf::{Dictionary, Document, Object, ObjectId};

use super::error::PdfError;
use super::limits::MAX_REFERENCE_CHAIN;

/// Follows indirect references from `obj` (at most [`MAX_REFERENCE_CHAIN`]
/// of them), returning the last reference's id beside the object (`None`
/// when `obj` is direct).
///
/// # Errors
/// `reference_cycle` when the chain is longer; `malformed_structure` when a
/// referenced object is missing.
pub(crate) fn resolve_with_id<'d>(
    doc: &'d Document,
    mut obj: &'d Object,
) -> Result<(Option<ObjectId>, &'d Object), PdfError> {
    let mut id = None;
    for _ in 0..MAX_REFERENCE_CHAIN {
        match obj {
            Object::Reference(r) => {
                id = Some(*r);
                obj = doc.objects.get(r).ok_or_else(|| {
                    PdfError::structure(format!("object {} {} R is missing", r.0, r.1))
                })?;
            }
            other => return Ok((id, other)),
        }
    }
    Err(PdfError::ReferenceCycle {
        object: match obj {
            Object::Reference(r) => r.0,
            _ => 0,
        },
    })
}

/// [`resolve_with_id`] without the id.
///
/// # Errors
/// As [`resolve_with_id`].
pub(crate) fn resolve<'d>(doc: &'d Document, obj: &'d Object) -> Result<&'d Object, PdfError> {
    resolve_with_id(doc, obj).map(|(_, o)| o)
}

/// `obj` with references followed, or `None` when a reference is missing or
/// the chain is too long.
pub(crate) fn deref<'d>(doc: &'d Document, obj: &'d Object) -> Option<&'d Object> {
    resolve(doc, obj).ok()
}

/// A finite number (integer or real); `None` for anything else, NaN or an
/// infinity.
pub(crate) fn num(obj: &Object) -> Option<f64> {
    match obj {
        Object::Integer(i) => Some(*i as f64),
        Object::Real(r) => Some(f64::from(*r)),
        _ => None,
    }
    .filter(|v| v.is_finite())
}

/// The last `N` operands of `ops` as finite numbers.
pub(crate) fn nums<const N: usize>(ops: &[Object]) -> Option<[f64; N]> {
    let tail = ops.get(ops.len().checked_sub(N)?..)?;
    let mut out = [0.0; N];
    for (o, v) in out.iter_mut().zip(tail) {
        *o = num(v)?;
    }
    Some(out)
}

/// Entry `key` of `dict`, references followed.
pub(crate) fn get<'d>(doc: &'d Document, dict: &'d Dictionary, key: &[u8]) -> Option<&'d Object> {
    deref(doc, dict.get(key).ok()?)
}

/// Entry `key` as a dictionary (a stream's dictionary too).
pub(crate) fn get_dict<'d>(
    doc: &'d Document,
    dict: &'d Dictionary,
    key: &[u8],
) -> Option<&'d Dictionary> {
    match get(doc, dict, key)? {
        Object::Dictionary(d) => Some(d),
        Object::Stream(s) => Some(&s.dict),
        _ => None,
    }
}

/// Entry `key` as a name.
pub(crate) fn get_name<'d>(
    doc: &'d Document,
    dict: &'d Dictionary,
    key: &[u8],
) -> Option<&'d [u8]> {
    match get(doc, dict, key)? {
        Object::Name(n) => Some(n),
        _ => None,
    }
}

/// Entry `key` as an array.
pub(crate) fn get_array<'d>(
    doc: &'d Document,
    dict: &'d Dictionary,
    key: &[u8],
) -> Option<&'d [Object]> {
    match get(doc, dict, key)? {
        Object::Array(a) => Some(a),
        _ => None,
    }
}

/// `obj` (references followed) as `N` finite numbers: a rectangle or a
/// matrix.
pub(crate) fn number_array<const N: usize>(doc: &Document, obj: &Object) -> Option<[f64; N]> {
    let Object::Array(a) = deref(doc, obj)? else {
        return None;
    };
    if a.len() != N {
        return None;
    }
    let mut out = [0.0; N];
    for (slot, o) in out.iter_mut().zip(a) {
        *slot = num(deref(doc, o)?)?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_finite() {
        assert_eq!(num(&Object::Integer(3)), Some(3.0));
        assert_eq!(num(&Object::Real(0.5)), Some(0.5));
        assert_eq!(num(&Object::Real(f32::INFINITY)), None);
        assert_eq!(num(&Object::Real(f32::NAN)), None);
        assert_eq!(num(&Object::Null), None);
        let ops = [
            Object::Name(b"F1".to_vec()),
            Object::Integer(1),
            Object::Real(2.0),
        ];
        assert_eq!(nums::<2>(&ops), Some([1.0, 2.0]));
        assert_eq!(nums::<3>(&ops), None);
        assert_eq!(nums::<4>(&ops), None);
    }

    #[test]
    fn chains_are_bounded() {
        let mut doc = Document::new();
        doc.objects.insert((1, 0), Object::Reference((2, 0)));
        doc.objects.insert((2, 0), Object::Reference((1, 0)));
        doc.objects.insert((3, 0), Object::Integer(7));
        assert!(matches!(
            resolve(&doc, &Object::Reference((1, 0))),
            Err(PdfError::ReferenceCycle { .. })
        ));
        assert_eq!(
            resolve_with_id(&doc, &Object::Reference((3, 0))).ok(),
            Some((Some((3, 0)), &Object::Integer(7)))
        );
        assert!(deref(&doc, &Object::Reference((9, 0))).is_none());
    }
}
