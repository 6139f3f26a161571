"""Helpers for the predicates of examples/*/causes.py: a case's getitem key, read as NumPy reads
it, and the features causes are about (a slice's step, a 0-d index array, a Python bool...).

A predicate receives a scripts/causes_eval.py Case: case.op, case.spec (the op's fields: index,
axis, mode...), case.inputs (NumPy arrays), case.expect ({"output": array} or {"error": kind}),
case.result (conform's JSON result: status, detail, signature) and case.got_error (the kind the
implementation answered, if it answered an error).
"""
import numpy as np

from conform_adapter import Rejected, as_array, getitem_key


def key(case):
    """The getitem key as a list of items: ints, slices, None, Ellipsis, bools, floats..., and
    index arrays (named inputs, and inline lists made arrays); [] when it does not parse."""
    try:
        items = getitem_key(case.inputs, case.spec)
    except Rejected:
        return []
    return [as_array(k) if isinstance(k, list) else k for k in items]


def is_int(k):
    return isinstance(k, int) and not isinstance(k, bool)


def is_array(k):
    return isinstance(k, np.ndarray)


def arrays(case):
    return [k for k in key(case) if is_array(k)]


def slices(case):
    return [k for k in key(case) if isinstance(k, slice)]


def bool_scalars(case):
    """Python True/False items."""
    return [k for k in key(case) if isinstance(k, bool)]


def expected_shape(case):
    out = case.expect_output
    return None if out is None else out.shape


def got_output(case):
    """Whether the implementation answered an output (and conform compared it)."""
    return case.got_error is None and "crash" not in case.result.get("detail", "") \
        and "timeout" not in case.result.get("detail", "")


def dims_of_items(case, items=None):
    """Each item with the input dimensions it applies to: [(item, [dims...])]."""
    items = key(case) if items is None else items
    x = case.inputs["x"]

    def used(k):
        if is_array(k) and k.dtype.kind == "b":
            return k.ndim
        return 1 if is_int(k) or isinstance(k, slice) or (is_array(k)) or isinstance(k, float) else 0

    total = sum(used(k) for k in items)
    out, dim = [], 0
    for k in items:
        n = (x.ndim - total) if k is Ellipsis else used(k)
        out.append((k, list(range(dim, dim + max(n, 0)))))
        dim += max(n, 0)
    return out


def numpy_advanced_separated(items):
    """Whether NumPy sees the advanced indices (arrays, bools, and integers when an array or a bool
    is present) separated by a slice, None or Ellipsis: then their dims go first."""
    if not any(is_array(k) or isinstance(k, bool) for k in items):
        return False
    positions = [i for i, k in enumerate(items) if is_array(k) or isinstance(k, bool) or is_int(k)]
    return positions[-1] - positions[0] + 1 != len(positions)
