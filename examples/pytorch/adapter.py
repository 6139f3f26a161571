#!/usr/bin/python3
"""A conform/1 adapter for PyTorch (Debian python3-torch), written as a PyTorch user would.

Run:  go run ./cmd/conform check --impl '/usr/bin/python3 examples/pytorch/adapter.py'
      go run ./cmd/conform fuzz --impl '/usr/bin/python3 examples/pytorch/adapter.py' --oracle numpy --duration 30s

Ops: getitem is torch.from_numpy(x)[key] (index arrays as tensors, inline lists as lists);
take is torch.take for axis=None and torch.index_select along an axis (the indices flattened,
the result reshaped as np.take's), wrap and clip modes done on the index tensor with % and
clamp; take_along_axis is torch.take_along_dim; onnx_gather_elements is torch.gather (after
ONNX's own type constraint: indices other than int32/int64 are bad_input).
Skipped: dtypes torch has no tensor for (uint16/32/64, strings) and non-native byte order.
Errors: ../python/conform_adapter.py's mapping. torch raises IndexError for positions and
"too many indices", ValueError for slice steps, RuntimeError from its kernels (index bounds of
gather/take_along_dim, and index dtypes it refuses): RuntimeError is read as out_of_range.
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from conform_adapter import Rejected, Skip, serve  # noqa: E402


def tensor(a):
    if a.dtype.kind in "SUV" or a.dtype in (np.uint16, np.uint32, np.uint64):
        raise Skip(f"torch has no {a.dtype} tensor")
    if not a.dtype.isnative:
        raise Skip("torch tensors have native byte order only")
    return torch.from_numpy(np.array(a))  # a writable copy


def result(t):
    return t.resolve_conj().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)


def getitem(inputs, request):
    x = tensor(inputs["x"])
    key = tuple(tensor(k) if isinstance(k, np.ndarray) else k for k in request["key"])
    return result(x[key])


def take(inputs, request):
    a, indices = tensor(inputs["a"]), tensor(inputs["indices"])
    axis, mode = request.get("axis"), request.get("mode", "raise")
    if axis is None:
        a, axis = a.reshape(-1), 0
    if -a.dim() <= axis < a.dim():
        axis %= a.dim()  # an axis out of range is left to torch
    n = a.shape[axis] if a.dim() else 1
    if mode == "wrap":
        indices = indices % n
    elif mode == "clip":
        indices = indices.clamp(0, n - 1)
    if a.dim() == 1 and request.get("axis") is None:
        return result(torch.take(a, indices))
    out = torch.index_select(a, axis, indices.reshape(-1))
    return result(out.reshape(a.shape[:axis] + indices.shape + a.shape[axis + 1:]))


def take_along_axis(inputs, request):
    return result(torch.take_along_dim(tensor(inputs["arr"]), tensor(inputs["indices"]), request["axis"]))


def gather_elements(inputs, request):
    if inputs["indices"].dtype.newbyteorder("=") not in (np.int32, np.int64):  # GatherElements-13's Tind
        raise Rejected("bad_input", f"ONNX GatherElements takes int32 or int64 indices, not {inputs['indices'].dtype}")
    return result(torch.gather(tensor(inputs["data"]), request.get("axis", 0), tensor(inputs["indices"])))


if __name__ == "__main__":
    serve("pytorch", torch.__version__, {"getitem": getitem, "take": take, "take_along_axis": take_along_axis,
                                         "onnx_gather_elements": gather_elements})
