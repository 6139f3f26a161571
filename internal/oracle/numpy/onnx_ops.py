"""The ONNX ops written with NumPy: Slice-13, GatherND-13, Gather-13 and
GatherElements-13, with the specification's checks."""

import numpy as np

from common import INT64, INT64_MAX, MAX_RANK, bad, invalid, out_of_range, shape_count


def onnx_slice_item(d, start, end, step):
    """The Python slice that selects what ONNX Slice-13 selects on an axis
    of size d (step != 0). The specification: a negative start or end gets
    d added once; then, for step > 0, start and end are clamped into [0, d];
    for step < 0, start into [0, d-1] and end into [-1, d-1], where -1 means
    "before position 0". An axis of size 0 selects nothing (the clamp into
    [0, -1] is empty)."""
    if d == 0:
        return slice(0, 0, 1)
    if start < 0:
        start += d
    if end < 0:
        end += d
    if step > 0:
        return slice(min(max(start, 0), d), min(max(end, 0), d), step)
    start = min(max(start, 0), d - 1)
    end = min(max(end, -1), d - 1)
    # Both are now positions (non-negative), which a Python slice reads as
    # such; "before position 0" has no position, so it is an omitted end.
    return slice(start, None if end < 0 else end, step)


def op_onnx_slice(spec, inputs):
    x = inputs["data"]
    rank = x.ndim
    if rank == 0:
        raise invalid("cannot slice a scalar: ONNX Slice needs data of rank >= 1")
    starts, ends, axes, steps = spec["starts"], spec["ends"], spec["axes"], spec["steps"]
    n = len(starts)
    if len(ends) != n:
        raise invalid("starts and ends must have the same length, got %d and %d" % (n, len(ends)))
    if axes is not None and len(axes) != n:
        raise invalid("axes must have the length of starts (%d), got %d" % (n, len(axes)))
    if steps is not None and len(steps) != n:
        raise invalid("steps must have the length of starts (%d), got %d" % (n, len(steps)))
    key = [slice(None)] * rank
    named = set()
    for i in range(n):
        a = i if axes is None else axes[i]
        axis = a + rank if a < 0 else a
        if not 0 <= axis < rank:
            raise invalid("axes[%d] = %d is outside [-%d, %d) for data of rank %d" % (i, a, rank, rank, rank))
        if axis in named:
            raise invalid("axes[%d] = %d repeats axis %d" % (i, a, axis))
        named.add(axis)
        step = 1 if steps is None else steps[i]
        if step == 0:
            raise invalid("steps[%d] must be non-zero" % i)
        key[axis] = onnx_slice_item(x.shape[axis], starts[i], ends[i], step)
    return x[tuple(key)], x.dtype


def op_onnx_gather_nd(spec, inputs):
    data, indices = inputs["data"], inputs["indices"]
    b = spec["batch_dims"]
    if indices.dtype.kind != "i" or indices.dtype.itemsize != 8:
        raise bad("ONNX GatherND takes int64 indices, got dtype %s" % indices.dtype.str)
    r, q = data.ndim, indices.ndim
    if r < 1 or q < 1:
        raise invalid("data and indices must have rank >= 1, got shapes %s and %s" % (data.shape, indices.shape))
    if b < 0 or b >= min(q, r):
        raise invalid("batch_dims = %d must be in [0, min(rank(indices), rank(data))) = [0, %d)" % (b, min(q, r)))
    if data.shape[:b] != indices.shape[:b]:
        raise invalid("batch dimensions differ: data.shape[:%d] = %s, indices.shape[:%d] = %s"
                      % (b, data.shape[:b], b, indices.shape[:b]))
    k = indices.shape[-1]
    if k > r - b:
        raise invalid("indices.shape[-1] = %d must be <= rank(data) - batch_dims = %d" % (k, r - b))
    out_shape = indices.shape[:-1] + data.shape[b + k:]
    if len(out_shape) > MAX_RANK:
        raise invalid("number of dimensions must be within [0, %d], GatherND result would have %d"
                      % (MAX_RANK, len(out_shape)))
    # The element count, dimension by dimension, and the byte size must
    # stay within int64.
    count = 1
    for d in out_shape:
        count *= d
        if count > INT64_MAX:
            break
    if count > INT64_MAX // data.dtype.itemsize:
        raise invalid("output shape %s is too large" % (out_shape,))
    rows = 1
    for d in indices.shape[:-1]:
        rows *= d
    if rows == 0 or (k == 0 and count == 0):
        # No tuples, or tuples without components (nothing to check) that
        # select empty slices: indices (2**40, 0) holds no data, so nothing
        # the size of its rows is allocated.
        return np.empty(out_shape, dtype=data.dtype), data.dtype
    dims = data.shape[b:b + k]
    tuples = indices.astype(INT64, copy=False).reshape(rows, k)
    if k > 0:
        # Every component must be in [-s, s) on its axis of size s.
        hi = np.array(dims, dtype=INT64)
        outside = (tuples < -hi) | (tuples >= hi)
        if outside.any():
            i = int(np.argmax(outside.any(axis=1)))
            raise out_of_range("indices tuple %d = %s is outside data.shape[%d:%d] = %s"
                               % (i, tuples[i].tolist(), b, b + k, dims))
        tuples = np.where(tuples < 0, tuples + hi, tuples)
        within = np.ravel_multi_index(tuple(tuples.T), dims)  # position in a batch entry
    else:
        within = np.zeros(rows, dtype=INT64)  # each tuple selects the whole entry
    # Rows of data viewed as (batch entries * index positions, slice).
    per_entry = 1
    for d in dims:
        per_entry *= d
    entries = 1
    for d in data.shape[:b]:
        entries *= d
    tail = 1
    for d in data.shape[b + k:]:
        tail *= d
    entry = np.arange(rows, dtype=INT64) // (rows // entries)
    flat = entry * per_entry + within
    res = data.reshape(entries * per_entry, tail)[flat]
    return res.reshape(out_shape), data.dtype


def onnx_indices(indices, op):
    """Gather-13 and GatherElements-13 take int32 and int64 indices (Tind)."""
    if indices.dtype.kind != "i" or indices.dtype.itemsize not in (4, 8):
        raise bad("ONNX %s takes int32 or int64 indices, got dtype %s" % (op, indices.dtype.str))


def onnx_axis(axis, r):
    if not -r <= axis < r:
        raise invalid("axis %d is outside [-%d, %d] for data of rank %d" % (axis, r, r - 1, r))
    return axis + r if axis < 0 else axis


def onnx_wrap(indices, s):
    """int64 indices along an axis of size s, each in [-s, s-1] (else
    out_of_range), negative ones wrapped once."""
    idx = indices.astype(INT64, copy=False)
    if idx.size:
        outside = (idx < -s) | (idx >= s)
        if outside.any():
            pos = np.unravel_index(int(np.argmax(outside)), idx.shape)
            raise out_of_range("indices%s = %d is outside [-%d, %d]" % (list(map(int, pos)), int(idx[pos]), s, s - 1))
        idx = np.where(idx < 0, idx + s, idx)
    return idx


def op_onnx_gather(spec, inputs):
    """ONNX Gather-13: int32 or int64 indices (Tind), data of rank r >= 1,
    axis in [-r, r-1], every index in [-s, s-1] for s = data.shape[axis]
    (negative ones wrap once); the result has shape data.shape[:axis] +
    indices.shape + data.shape[axis+1:], gathered with np.take."""
    data, indices = inputs["data"], inputs["indices"]
    onnx_indices(indices, "Gather")
    r = data.ndim
    if r < 1:
        raise invalid("data must have rank >= 1, got shape %s" % (data.shape,))
    axis = onnx_axis(spec["axis"], r)
    out_shape = data.shape[:axis] + indices.shape + data.shape[axis + 1:]
    if len(out_shape) > MAX_RANK:
        raise invalid("number of dimensions must be within [0, %d], Gather result would have %d"
                      % (MAX_RANK, len(out_shape)))
    shape_count(out_shape, data.dtype.itemsize)
    idx = onnx_wrap(indices, data.shape[axis])
    if idx.size == 0:
        return np.empty(out_shape, dtype=data.dtype), data.dtype
    res = np.take(data, idx.reshape(-1), axis=axis)
    return res.reshape(out_shape), data.dtype


def op_onnx_gather_elements(spec, inputs):
    """ONNX GatherElements-13: int32 or int64 indices (Tind), data of rank
    r >= 1, indices of rank r, axis in [-r, r-1], indices.shape[d] <=
    data.shape[d] on every other dim (no broadcasting), every index in
    [-s, s-1] along the axis (negative ones wrap once). The result has
    indices' shape: np.take_along_axis on the part of data the indices
    cover."""
    data, indices = inputs["data"], inputs["indices"]
    onnx_indices(indices, "GatherElements")
    r = data.ndim
    if r < 1:
        raise invalid("data must have rank >= 1, got shape %s" % (data.shape,))
    if indices.ndim != r:
        raise invalid("indices must have the rank of data (%d), got shape %s" % (r, indices.shape))
    axis = onnx_axis(spec["axis"], r)
    for d in range(r):
        if d != axis and indices.shape[d] > data.shape[d]:
            raise invalid("indices.shape[%d] = %d exceeds data.shape[%d] = %d"
                          % (d, indices.shape[d], d, data.shape[d]))
    idx = onnx_wrap(indices, data.shape[axis])
    if idx.size == 0:
        return np.empty(indices.shape, dtype=data.dtype), data.dtype
    part = data[tuple(slice(None) if d == axis else slice(0, indices.shape[d]) for d in range(r))]
    return np.take_along_axis(part, idx, axis), data.dtype
