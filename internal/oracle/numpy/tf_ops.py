"""TF's ops written with NumPy: strided_slice, slice, gather_nd and
gather, with TF's checks."""

import numpy as np

from common import (INT64_MAX, INTP, MAX_RANK, MAX_SPEC_LENGTH, SMALL, bad, int64_indices, invalid, out_of_range,
                    shape_count, unravel)
from numpy_ops import numpy_index


def op_strided_slice(spec, inputs):
    x = inputs["x"]
    begin, end, strides = spec["begin"], spec["end"], spec["strides"]
    n = len(begin)
    if strides is None:
        strides = [1] * n
    if len(end) != n or len(strides) != n:
        raise invalid("begin, end and strides must have equal lengths, got %d, %d and %d" % (n, len(end), len(strides)))
    if n > MAX_SPEC_LENGTH:
        raise invalid("spec has %d entries; at most %d are allowed" % (n, MAX_SPEC_LENGTH))
    bm, em = spec["begin_mask"], spec["end_mask"]
    ell, new, shr = spec["ellipsis_mask"], spec["new_axis_mask"], spec["shrink_axis_mask"]
    if ell.count() > 1:
        raise invalid("multiple ellipses in slice spec not allowed")

    # n < 32 from here on, so bit i of a mask is mask.has(i).
    bm, em = bm.bits, em.bits
    ell, new, shr = ell.bits, new.bits, shr.bits

    # Sparse spec: an implicit ellipsis at position n if none in 0..n-1.
    ellipsis_at = -1
    new_after = 0
    if ell:
        for i in range(n):
            if ellipsis_at >= 0 and (new >> i) & 1:
                new_after += 1
            if (ell >> i) & 1:
                ellipsis_at = i
    sparse_len = n
    if ellipsis_at < 0:
        ellipsis_at, sparse_len = n, n + 1

    # Dense spec, in output order: dense index, or -1 for a new axis.
    shape = x.shape
    rank = len(shape)
    dense = [None] * rank  # per input dim: (begin, end, stride, bmask, emask, shrink)
    order = []
    full = 0
    out_rank = 0
    for i in range(sparse_len):
        if i == ellipsis_at:
            nxt = min(rank - (sparse_len - i) + 1 + new_after, rank)
            while full < nxt:
                dense[full] = (0, 0, 1, True, True, False)
                order.append(full)
                full += 1
                out_rank += 1
        elif (new >> i) & 1:
            order.append(-1)
            out_rank += 1
        else:
            if full == rank:
                raise invalid("index out of range using input dim %d; input has only %d dims" % (full, rank))
            shrink = (shr >> i) & 1 == 1
            dense[full] = (begin[i], end[i], strides[i], (bm >> i) & 1, (em >> i) & 1, shrink)
            order.append(full)
            full += 1
            if not shrink:
                out_rank += 1
    if out_rank > MAX_RANK:
        raise invalid("number of dimensions must be within [0, %d], the result would have %d" % (MAX_RANK, out_rank))

    # Per dimension, in order: TF's checks; the range itself goes to NumPy.
    items = [None] * rank
    for i in range(rank):
        b, e, s, bmask, emask, shrink = dense[i]
        if s == 0:
            raise invalid("strides[%d] must be non-zero" % i)
        if shrink:
            d = shape[i]
            if s < 0:
                raise invalid("only stride 1 allowed on non-range indexing (dimension %d has stride %d)" % (i, s))
            pos = b + d if b < 0 else b
            if pos < 0 or pos >= d:
                raise out_of_range("slice index %d of dimension %d out of bounds (size %d)" % (b, i, d))
            items[i] = b
        else:
            items[i] = slice(None if bmask else b, None if emask else e, s)
    key = tuple([None if o < 0 else items[o] for o in order]) + (Ellipsis,)
    return numpy_index(x, key), x.dtype


# ---------------------------------------------------------------- slice


def op_slice(spec, inputs):
    x = inputs["x"]
    begin, size = spec["begin"], spec["size"]
    rank = x.ndim
    if len(begin) != rank or len(size) != rank:
        raise invalid("expected begin and size to have %d entries (the input rank), got %d and %d"
                      % (rank, len(begin), len(size)))
    key = []
    for i, d in enumerate(x.shape):
        b, s = begin[i], size[i]
        if s == -1:
            s = d - b
        if d == 0:
            if b != 0 or s != 0:
                raise out_of_range("expected begin[%d] == 0 and size[%d] == 0 when input dimension %d is 0"
                                   % (i, i, i))
        else:
            if b < 0 or b > d:
                raise out_of_range("expected begin[%d] in [0, %d], but got %d" % (i, d, b))
            if s < 0 or s > d - b:
                raise out_of_range("expected size[%d] in [0, %d], but got %d" % (i, d - b, size[i]))
        key.append(slice(b, b + s))
    return numpy_index(x, tuple(key) + (Ellipsis,)), x.dtype


# ---------------------------------------------------------------- gather_nd


def op_gather_nd(spec, inputs):
    params, indices = inputs["params"], inputs["indices"]
    b = spec["batch_dims"]
    policy = spec["bad_indices"]
    if policy not in ("error", "zero"):
        raise invalid("bad_indices must be 'error' or 'zero'")
    if indices.dtype.kind not in "iu":
        raise bad("indices must be an integer tensor, got dtype %s" % indices.dtype.str)
    pr, ir = params.ndim, indices.ndim
    if pr < 1:
        raise invalid("params must be at least a vector, got shape %s" % (params.shape,))
    if ir < 1:
        raise invalid("indices must be at least a vector, got shape %s" % (indices.shape,))
    if b < 0:
        raise invalid("batch_dims must be non-negative, got %d" % b)
    if b >= ir:
        raise invalid("batch_dims = %d must be less than rank(indices) = %d" % (b, ir))
    if b >= pr:
        raise invalid("batch_dims = %d must be less than rank(params) = %d" % (b, pr))
    if params.shape[:b] != indices.shape[:b]:
        raise invalid("batch dimensions differ: params.shape[:%d] = %s, indices.shape[:%d] = %s"
                      % (b, params.shape[:b], b, indices.shape[:b]))
    k = indices.shape[-1]
    if k > pr - b:
        raise invalid("index depth indices.shape[-1] = %d must be <= rank(params) - batch_dims = %d" % (k, pr - b))
    out_shape = indices.shape[:-1] + params.shape[b + k:]
    if len(out_shape) > MAX_RANK:
        raise invalid("number of dimensions must be within [0, %d], gather_nd result would have %d"
                      % (MAX_RANK, len(out_shape)))
    rows = 1
    for d in indices.shape[:-1]:
        rows *= d
    if rows == 0:
        return np.empty(out_shape, dtype=params.dtype), params.dtype
    if params.size == 0:
        raise out_of_range("requested %d rows, but params (shape %s) is empty" % (rows, params.shape))

    # Row r of the flattened indices reads row flat[r] of params viewed as
    # (batch * prod(dims), prod(tail)).
    batch = 1
    for d in params.shape[:b]:
        batch *= d
    per_batch = rows // batch
    dims = params.shape[b:b + k]
    tail = 1
    for d in params.shape[b + k:]:
        tail *= d
    size = 1
    for d in dims:
        size *= d
    if rows * max(k, 1) <= SMALL:
        return gather_small(params, indices, policy, rows, k, dims, size, tail, per_batch, out_shape)
    # uint64 values above int64 wrap to negative numbers: out of range.
    idx = indices.astype(np.int64).reshape(rows, k)
    # a negative index is a huge uint64: one comparison checks both bounds
    ok = (idx.view(np.uint64) < np.array(dims, dtype=np.uint64)).all(1)
    good = ok.all()
    if not good:
        if policy == "error":
            r = int(np.argmin(ok))
            row = idx[r].tolist()
            raise out_of_range("indices row %d = %s does not index into param shape %s" % (r, row, params.shape))
        idx = np.where(ok[:, None], idx, 0)
    if k == 1:
        flat = idx.reshape(rows)
    elif k == 0:
        flat = np.zeros(rows, dtype=np.int64)
    else:
        strides = [1] * k
        for j in range(k - 2, -1, -1):
            strides[j] = strides[j + 1] * dims[j + 1]
        flat = idx @ np.array(strides, dtype=np.int64)
    if batch > 1:
        flat = flat + (np.arange(rows, dtype=np.int64) // per_batch) * size
    res = params.reshape(batch * size, tail)[flat]
    if not good:
        res[~ok] = np.zeros((), dtype=params.dtype)
    return res.reshape(out_shape), params.dtype


def gather_small(params, indices, policy, rows, k, dims, size, tail, per_batch, out_shape):
    """The rest of op_gather_nd for few index values, in plain Python."""
    vals = indices.ravel().tolist()
    flat = []
    bad_rows = []
    pos = 0
    for r in range(rows):
        f = 0
        for j in range(k):
            v = vals[pos + j]
            d = dims[j]
            if v < 0 or v >= d:
                if policy == "error":
                    # as indices.astype(np.int64) shows it
                    row = [v - (1 << 64) if v > INT64_MAX else v for v in vals[pos:pos + k]]
                    raise out_of_range("indices row %d = %s does not index into param shape %s" % (r, row, params.shape))
                bad_rows.append(r)
                f = 0
                break
            f = f * d + v
        flat.append(f + (r // per_batch) * size)
        pos += k
    if tail == 1:
        res = params.reshape(-1)[np.array(flat, dtype=INTP)]
    else:
        res = params.reshape(-1, tail).take(flat, 0)
    if bad_rows:
        res[bad_rows] = np.zeros((), dtype=params.dtype)
    return res.reshape(out_shape), params.dtype


def op_gather(spec, inputs):
    """tf.gather(params, indices, axis, batch_dims) with TF's checks in
    TF's order (GatherV2): int32 or int64 indices (GatherV2's Tindices; else
    bad_input, as gather_nd's non-integer ones),
    params of rank >= 1, axis in [-rank, rank), batch_dims in [-q, q] for
    indices of rank q (negative counts from q), batch_dims <= axis, equal
    batch dims. An empty result is returned without looking at the
    values. Otherwise every index must be in [0, params.shape[axis])
    (negative ones too are out of range): bad_indices "error" (TF's CPU)
    raises out_of_range, "zero" (TF's GPU) writes zeros for that slice.
    GatherV2 has no "params is empty" check (GatherNd's rule): on an empty
    gathered axis every index is outside. Written with NumPy fancy
    indexing."""
    params, indices = inputs["params"], inputs["indices"]
    axis, b, policy = spec["axis"], spec["batch_dims"], spec["bad_indices"]
    if indices.dtype.kind != "i" or indices.dtype.itemsize not in (4, 8):
        raise bad("GatherV2's Tindices is int32 or int64, got indices of dtype %s" % indices.dtype.str)
    r, q = params.ndim, indices.ndim
    if r < 1:
        raise invalid("params must be at least 1 dimensional, got shape %s" % (params.shape,))
    if not -r <= axis < r:
        raise invalid("expected axis in the range [%d, %d), but got %d" % (-r, r, axis))
    if axis < 0:
        axis += r
    if not -q <= b <= q:
        raise invalid("expected batch_dims in the range [%d, %d], but got %d" % (-q, q, b))
    if b < 0:
        b += q
    if b > axis:
        raise invalid("batch_dims (%d) must be less than or equal to axis (%d)" % (b, axis))
    if params.shape[:b] != indices.shape[:b]:
        raise invalid("params.shape[:%d] = %s must equal indices.shape[:%d] = %s"
                      % (b, params.shape[:b], b, indices.shape[:b]))
    out_shape = params.shape[:axis] + indices.shape[b:] + params.shape[axis + 1:]
    if len(out_shape) > MAX_RANK:
        raise invalid("number of dimensions must be within [0, %d], gather result would have %d"
                      % (MAX_RANK, len(out_shape)))
    if shape_count(out_shape, params.dtype.itemsize) == 0:
        return np.empty(out_shape, dtype=params.dtype), params.dtype
    n = params.shape[axis]
    if n == 0:
        # A non-empty result: every index is outside [0, 0).
        if policy == "error":
            pos = np.unravel_index(0, indices.shape)
            raise out_of_range("indices%s = %d is not in [0, 0)" % (list(map(int, pos)), int(indices[pos])))
        return np.zeros(out_shape, dtype=params.dtype), params.dtype
    batch = 1
    for d in params.shape[:b]:
        batch *= d
    outer = 1
    for d in params.shape[b:axis]:
        outer *= d
    inner = 1
    for d in params.shape[axis + 1:]:
        inner *= d
    if indices.size * outer <= SMALL:
        return gather_few(params, indices, policy, n, batch, outer, inner, out_shape), params.dtype
    idx = int64_indices(indices)
    outside = (idx < 0) | (idx >= n)
    any_bad = bool(outside.any())
    if any_bad:
        if policy == "error":
            pos = np.unravel_index(int(np.argmax(outside)), indices.shape)
            raise out_of_range("indices%s = %d is not in [0, %d)"
                               % (list(map(int, pos)), int(idx[pos]), n))
        idx = np.where(outside, 0, idx)
    rows = idx.reshape(batch, -1)  # per batch entry, its index values
    p4 = params.reshape(batch, outer, n, inner)
    res = p4[np.arange(batch)[:, None], :, rows]  # (batch, values, outer, inner)
    if any_bad:
        res[outside.reshape(batch, -1)] = np.zeros((), dtype=params.dtype)
    return res.transpose(0, 2, 1, 3).reshape(out_shape), params.dtype


def gather_few(params, indices, policy, n, batch, outer, inner, out_shape):
    """The rest of op_gather for few index values, in plain Python: params
    viewed as (batch, outer, n, inner) rows of inner elements; the result
    is, in C order over (batch, outer, index value of that batch entry),
    the row the value names, or zeros for a value outside [0, n) under
    bad_indices "zero"."""
    vals = indices.ravel().tolist()
    if min(vals) < 0 or max(vals) >= n:
        if policy == "error":
            i = next(i for i, v in enumerate(vals) if v < 0 or v >= n)
            raise out_of_range("indices%s = %d is not in [0, %d)" % (unravel(i, indices.shape), vals[i], n))
    m = len(vals) // batch  # index values per batch entry
    rows = []
    zero = []
    for bt in range(batch):
        mine = vals[bt * m:(bt + 1) * m]
        for o in range(outer):
            start = (bt * outer + o) * n
            for v in mine:
                if 0 <= v < n:
                    rows.append(start + v)
                else:
                    zero.append(len(rows))
                    rows.append(0)
    if inner == 1:
        res = params.reshape(-1)[np.array(rows, dtype=INTP)]
    else:
        res = params.reshape(-1, inner).take(rows, 0)
    if zero:
        res[zero] = np.zeros((), dtype=params.dtype)
    return res.reshape(out_shape)
