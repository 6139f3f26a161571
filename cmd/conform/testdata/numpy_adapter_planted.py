#!/usr/bin/python3
# The plain NumPy adapter (numpy_adapter.py) with realistic bugs planted, for conform's own tests:
# fuzzing it must find each bug as a distinct signature. CONFORM_PLANTED lists the bugs to plant,
# comma-separated (all three when unset):
#   drop-ones    tf.slice drops the size-1 dimensions of its result (a squeeze too many)
#   empty-error  getitem refuses a result with no elements (an empty range as an error)
#   wrap         gather_nd counts negative indices from the end of their axis (as ONNX does)
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy_adapter as plain  # noqa: E402


def dropping_slice(inputs, request):
    out = plain.tf_slice(inputs, request)
    return np.asarray(out).reshape([d for d in np.shape(out) if d != 1])


def empty_refusing_getitem(inputs, request):
    out = plain.getitem(inputs, request)
    if np.size(out) == 0:
        raise plain.Rejected("invalid_spec", "empty result")
    return out


def wrapping_gather_nd(inputs, request):
    indices = inputs["indices"]
    if indices.dtype.kind == "i" and indices.ndim >= 1:
        batch_dims = request.get("batch_dims", 0)
        dims = np.array(inputs["params"].shape[batch_dims:batch_dims + indices.shape[-1]], dtype=np.int64)
        if len(dims) == indices.shape[-1]:
            wide = indices.astype(np.int64)
            wrapped = np.where((wide < 0) & (wide >= -dims), wide + dims, wide)
            inputs = dict(inputs, indices=wrapped.astype(indices.dtype))
    return plain.gather_nd(inputs, request)


BUGS = {"drop-ones": ("slice", dropping_slice), "empty-error": ("getitem", empty_refusing_getitem),
        "wrap": ("gather_nd", wrapping_gather_nd)}

if __name__ == "__main__":
    ops = dict(plain.OPS)
    for bug in (os.environ.get("CONFORM_PLANTED") or ",".join(BUGS)).split(","):
        op, fn = BUGS[bug]
        ops[op] = fn
    plain.main(ops, name="plain-numpy-planted")
