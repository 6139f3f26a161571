#!/usr/bin/python3
"""conform/1 adapter for PyTorch (Debian python3-torch), on the helper `conform adapter python` writes.
Run: conform check --impl '/usr/bin/python3 examples/pytorch/adapter.py' \
         --known-failures examples/pytorch/known-failures.txt"""
import os, sys
import numpy as np, torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from conform_adapter import Rejected, Skip, serve  # noqa: E402


def tensor(a):  # dtypes torch has no tensor for are skipped, not failed
    if a.dtype.kind in "SUV" or a.dtype in (np.uint16, np.uint32, np.uint64) or not a.dtype.isnative:
        raise Skip(f"torch has no tensor of {a.dtype.str}")
    return torch.from_numpy(np.array(a))  # a writable copy


def take(a, indices, axis=None, mode="raise"):  # torch.take flattened, index_select along an axis
    a, i = tensor(a), tensor(indices)
    if mode != "raise":  # they have no mode: wrap and clip are done on the indices
        n = max(a.numel() if axis is None or not a.dim() else a.size(axis), 1)
        i = i % n if mode == "wrap" else i.clamp(0, n - 1)
    if axis is None:
        return torch.take(a, i)
    if a.dim() == 0 and i.numel() > 1:
        raise Skip("torch.index_select on a 0-d tensor writes past its result (heap corruption)")
    out, d = torch.index_select(a, axis, i.reshape(-1)), axis % max(a.dim(), 1)
    return out.reshape(a.shape[:d] + i.shape + a.shape[d + 1:])


def gather_elements(data, indices, axis=0):  # ONNX GatherElements-13 types its indices int32 / int64
    if indices.dtype.newbyteorder("=") not in (np.int32, np.int64):
        raise Rejected("bad_input", f"GatherElements takes int32 or int64 indices, not {indices.dtype}")
    return torch.gather(tensor(data), axis, tensor(indices))


serve({"getitem": lambda x, key: tensor(x)[tuple(tensor(k) if isinstance(k, np.ndarray) else k for k in key)],
       "take": take,
       "take_along_axis": lambda arr, indices, axis: torch.take_along_dim(tensor(arr), tensor(indices), axis),
       "onnx_gather_elements": gather_elements}, name="pytorch", version=torch.__version__)
