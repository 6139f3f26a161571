"""The ONNX ops written with NumPy: Slice-13, GatherND-13, Gather-13 and
GatherElements-13, with the specification's checks."""

import numpy as np

from common import (INT64, INT64_MAX, INTP, MAX_RANK, SMALL, bad, c_strides, invalid, out_of_range, shape_count,
                    unravel)


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
    if rows * max(k, 1) <= SMALL:
        flat = gather_nd_rows(indices.ravel().tolist(), rows, k, dims, b, rows // entries, per_entry)
        return take_rows(data, entries * per_entry, tail, flat).reshape(out_shape), data.dtype
    tuples = indices.astype(INT64, copy=False).reshape(rows, k)
    if k > 0:
        # Every component must be in [-s, s) on its axis of size s.
        hi = np.array(dims, dtype=INT64)
        outside = (tuples < -hi) | (tuples >= hi)
        if outside.any():
            i = int(np.argmax(outside.any(axis=1)))
            raise tuple_outside(i, tuples[i].tolist(), b, dims)
        tuples = np.where(tuples < 0, tuples + hi, tuples)
        within = np.ravel_multi_index(tuple(tuples.T), dims)  # position in a batch entry
    else:
        within = np.zeros(rows, dtype=INT64)  # each tuple selects the whole entry
    entry = np.arange(rows, dtype=INT64) // (rows // entries)
    flat = entry * per_entry + within
    res = data.reshape(entries * per_entry, tail)[flat]
    return res.reshape(out_shape), data.dtype


def tuple_outside(i, row, b, dims):
    return out_of_range("indices tuple %d = %s is outside data.shape[%d:%d] = %s" % (i, row, b, b + len(dims), dims))


def gather_nd_rows(vals, rows, k, dims, b, per_entry_rows, per_entry):
    """op_onnx_gather_nd's row positions in plain Python, for few index
    values: vals is indices flattened, rows tuples of k components; tuple r
    belongs to batch entry r // per_entry_rows and reads the row of data
    that its components name in that entry (C order over dims)."""
    flat = []
    pos = 0
    for r in range(rows):
        f = 0
        for j in range(k):
            v, s = vals[pos + j], dims[j]
            if v < -s or v >= s:
                raise tuple_outside(r, vals[pos:pos + k], b, dims)
            f = f * s + (v + s if v < 0 else v)
        flat.append(r // per_entry_rows * per_entry + f)
        pos += k
    return flat


def take_rows(data, nrows, tail, flat):
    """The rows flat (a list of positions) of data viewed as (nrows, tail),
    as an array of shape (len(flat), tail)."""
    if tail == 1:
        return data.reshape(nrows)[np.array(flat, dtype=INTP)]
    return data.reshape(nrows, tail).take(flat, 0)


def onnx_indices(indices, op):
    """Gather-13 and GatherElements-13 take int32 and int64 indices (Tind)."""
    if indices.dtype.kind != "i" or indices.dtype.itemsize not in (4, 8):
        raise bad("ONNX %s takes int32 or int64 indices, got dtype %s" % (op, indices.dtype.str))


def onnx_axis(axis, r):
    if not -r <= axis < r:
        raise invalid("axis %d is outside [-%d, %d] for data of rank %d" % (axis, r, r - 1, r))
    return axis + r if axis < 0 else axis


def onnx_wrap(indices, s):
    """The positions along an axis of size s that indices name, each index
    in [-s, s-1] (else out_of_range), negative ones wrapped once: a list in
    C order for a small array (SMALL values), else an int64 array of
    indices' shape."""
    if indices.size <= SMALL:
        vals = indices.ravel().tolist()
        if vals and (min(vals) < -s or max(vals) >= s):
            i = next(i for i, v in enumerate(vals) if v < -s or v >= s)
            raise index_outside(unravel(i, indices.shape), vals[i], s)
        return [v + s if v < 0 else v for v in vals]
    idx = indices.astype(INT64, copy=False)
    outside = (idx < -s) | (idx >= s)
    if outside.any():
        pos = np.unravel_index(int(np.argmax(outside)), idx.shape)
        raise index_outside(list(map(int, pos)), int(idx[pos]), s)
    return np.where(idx < 0, idx + s, idx)


def index_outside(pos, v, s):
    return out_of_range("indices%s = %d is outside [-%d, %d]" % (pos, v, s, s - 1))


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
    if len(idx) == 0:
        return np.empty(out_shape, dtype=data.dtype), data.dtype
    res = data.take(idx if type(idx) is list else idx.reshape(-1), axis)
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
    if len(idx) == 0:
        return np.empty(indices.shape, dtype=data.dtype), data.dtype
    if type(idx) is list:
        # Few values: the flat position in data of each result element,
        # its own position but along the axis, where the index says.
        strides = c_strides(data.shape)
        base = [0]
        for d in range(r):
            n = indices.shape[d]
            if d == axis:
                base = [p for p in base for _ in range(n)]
            else:
                st = strides[d]
                base = [p + j * st for p in base for j in range(n)]
        st = strides[axis]
        flat = np.array([p + v * st for p, v in zip(base, idx)], dtype=INTP)
        return data.reshape(-1)[flat].reshape(indices.shape), data.dtype
    part = data[tuple(slice(None) if d == axis else slice(0, indices.shape[d]) for d in range(r))]
    return np.take_along_axis(part, idx, axis), data.dtype
