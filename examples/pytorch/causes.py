"""PyTorch 1.13 (Debian python3-torch): the root causes of its failures, found by hand.

Each cause: an ID, a one-line explanation with a minimal reproduction run directly on torch
(not on conform), and a predicate over a case (scripts/causes_eval.py's Case) saying whether
this cause makes the case fail. Predicates are tried in order; the first that holds labels a
failing case, so where torch's own check order decides, the cause torch checks first comes first.

Measure a grouping against them:
    go run ./cmd/conform check --impl '/usr/bin/python3 examples/pytorch/adapter.py' --json /tmp/torch.json
    /usr/bin/python3 scripts/causes_eval.py /tmp/torch.json examples/pytorch/causes.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from case_tools import expected_shape, is_array, is_int, key  # noqa: E402

INT64_MAX = 2**63 - 1


def getitem_items(case):
    return key(case) if case.op == "getitem" else []


def index_arrays(case):
    """The index arrays the subscript names (inline lists excluded: torch takes them as lists)."""
    if case.op != "getitem":
        return []
    names = [n for n in case.inputs if n != "x"]
    arrays = [case.inputs[n] for n in names]
    if any(is_array(k) and k is case.inputs["x"] for k in key(case)):
        arrays.append(case.inputs["x"])  # x[x]
    return arrays


def torch_result(x, items):
    """What torch's getitem gives when integers (and 0-d integer tensors) are basic indices,
    applied in place first; then the index tensors, lists and booleans (0-d masks) are applied to
    what is left, as NumPy applies advanced indices."""
    first, second = [], []
    for k in items:
        if is_array(k) and k.ndim == 0 and k.dtype.kind == "b" or isinstance(k, bool):
            second.append(np.array(bool(k)))  # a 0-d mask: consumes no dimension, adds one
        elif is_int(k) or (is_array(k) and k.ndim == 0):
            first.append(int(k))
        elif is_array(k):
            first.extend([slice(None)] * (k.ndim if k.dtype.kind == "b" else 1))
            second.append(k)
        elif k is None or isinstance(k, slice):
            first.append(k)
            second.append(slice(None))
        else:
            first.append(k)
            second.append(k)
    return np.asarray(np.asarray(x[tuple(first)])[tuple(second)])


def without_empty_ellipsis(x_shape, items):
    """The items without an ellipsis that covers no dimension (torch drops it)."""
    from case_tools import is_array as arr
    used = sum(k.ndim if arr(k) and k.dtype.kind == "b" else 1 for k in items
               if arr(k) or is_int(k) or isinstance(k, slice))
    if any(k is Ellipsis for k in items) and used >= len(x_shape):
        return [k for k in items if k is not Ellipsis]
    return items


def empty_ellipsis_joins(case):
    """Advanced indices that only an ellipsis covering no dimension separates."""
    items, want = getitem_items(case), expected_shape(case)
    if want is None or not any(is_array(k) or isinstance(k, bool) for k in items):
        return False
    joined = without_empty_ellipsis(case.inputs["x"].shape, items)
    if joined is items:
        return False
    try:
        return np.broadcast_to(np.zeros((), np.int8), case.inputs["x"].shape)[tuple(joined)].shape != want
    except Exception:
        return False


def scalar_placement(case):
    items = getitem_items(case)
    want = case.expect_output
    if want is None or not any(is_int(k) or isinstance(k, bool) or (is_array(k) and k.ndim == 0) for k in items):
        return False
    if not any(is_array(k) or isinstance(k, bool) for k in items):
        return False
    x = case.inputs["x"]
    try:
        got = torch_result(x, without_empty_ellipsis(x.shape, items))
    except Exception:
        return False
    return got.shape != want.shape or got.astype(want.dtype).tobytes() != want.tobytes()


def newaxis_after_mask(case):
    items = getitem_items(case)
    for i, k in enumerate(items):
        if is_array(k) and k.dtype.kind == "b" and k.ndim >= 2:
            return any(j is None or isinstance(j, bool) or (is_array(j) and j.ndim == 0 and j.dtype.kind == "b")
                       for j in items[i + 1:])
    return False


def mask_empty_dim(case):
    """A boolean array with a dimension of length 0 against a dimension that is not empty."""
    from case_tools import dims_of_items
    x = case.inputs["x"] if case.op == "getitem" else None
    if x is None:
        return False
    for k, dims in dims_of_items(case):
        if is_array(k) and k.dtype.kind == "b" and k.ndim:
            if any(b == 0 and d < x.ndim and x.shape[d] != 0 for b, d in zip(k.shape, dims)):
                return True
    return False


def take_dtype(case):
    if case.op != "take":
        return False
    dt = case.inputs["indices"].dtype
    if case.spec.get("axis") is None:
        return dt != np.int64
    return dt not in (np.int32, np.int64)


def refused(c):
    """Whether torch refused the case with an error the reference does not give (a refusal cause
    explains only the cases torch refused)."""
    return (c.got_error is not None and c.got_error != c.expect_error) or c.class_mismatch is not None


def raised(c, got, want=None):
    """Whether torch raised the exception class got where NumPy raises want (any, if None): a
    failure compared by class."""
    m = c.class_mismatch
    return m is not None and m[0] == got and want in (None, m[1])


def indices_broadcast(c):
    """Whether take_along_axis's indices broadcast against arr off the axis."""
    arr, indices, axis = c.inputs["arr"], c.inputs["indices"], c.spec.get("axis")
    if axis is None or arr.ndim != indices.ndim:
        return axis is None
    shape_a = [1 if d == axis % arr.ndim else n for d, n in enumerate(arr.shape)]
    shape_i = [1 if d == axis % arr.ndim else n for d, n in enumerate(indices.shape)]
    try:
        np.broadcast_shapes(tuple(shape_a), tuple(shape_i))
    except ValueError:
        return False
    return True


def first_slice_fault(c):
    """torch checks the slices in item order: the first negative step or huge negative bound."""
    for k in getitem_items(c):
        if isinstance(k, slice):
            if is_int(k.step) and k.step < 0:
                return "negative-step"
            if any(is_int(b) and b <= -INT64_MAX for b in (k.start, k.stop)):
                return "huge-bound"
    return None


def has_negative(a):
    return a.dtype.kind == "i" and a.size and a.min() < 0


CAUSES = {
    "torch/negative-step": (
        "getitem refuses negative slice steps: torch.arange(3)[::-1] -> ValueError: step must be "
        "greater than zero (NumPy reverses)",
        lambda c: refused(c) and first_slice_fault(c) == "negative-step"),
    "torch/huge-negative-bound": (
        "a slice bound at or below -(2**63-1) fails inside torch: torch.zeros(5)[-2**63:] -> "
        "RuntimeError: Expected !is_symbolic() to be true (NumPy clamps it to 0)",
        lambda c: refused(c) and first_slice_fault(c) == "huge-bound"),
    "torch/huge-step-overflow": (
        "a slice step near 2**63 overflows the length computation: torch.zeros(10)[:9:2**63-1] has "
        "shape (0,), NumPy (1,)",
        lambda c: any(isinstance(k, slice) and is_int(k.step) and k.step > 2**62 for k in getitem_items(c))),
    "torch/two-ellipses": (
        "getitem accepts two ellipses: torch.zeros(3)[..., ...] has shape (3,); NumPy: IndexError "
        "an index can only have a single ellipsis",
        lambda c: sum(k is Ellipsis for k in getitem_items(c)) >= 2),
    "torch/getitem-small-int-index": (
        "getitem refuses int8/int16/int32 index tensors: torch.arange(3)[torch.tensor([1], "
        "dtype=torch.int32)] -> IndexError: tensors used as indices must be long, byte or bool tensors",
        lambda c: refused(c)
        and any(a.dtype in (np.int8, np.int16, np.int32) for a in index_arrays(c))),
    "torch/uint8-index-is-mask": (
        "getitem takes a uint8 index tensor as a boolean mask (deprecated behaviour): "
        "torch.arange(3)[torch.tensor([2], dtype=torch.uint8)] -> IndexError: the shape of the mask "
        "[1] does not match ...; NumPy takes the value 2 as a position",
        lambda c: any(a.dtype == np.uint8 for a in index_arrays(c))),
    "torch/newaxis-after-mask": (
        "None/True after a multi-dimensional boolean mask is inserted before the mask is applied, "
        "so the mask no longer lines up: torch.zeros(1, 3)[torch.tensor([[False, False, True]]), None] "
        "-> IndexError: The shape of the mask [1, 3] at index 1 does not match; NumPy gives (1, 1)",
        newaxis_after_mask),
    "torch/mask-empty-dim": (
        "a boolean index with a dimension of length 0 is refused against a non-empty dimension: "
        "torch.zeros(2)[torch.zeros(0, dtype=torch.bool)] -> IndexError; NumPy 1.24 gives shape (0,)",
        mask_empty_dim),
    "torch/empty-ellipsis-not-a-separator": (
        "an ellipsis that covers no dimension does not separate advanced indices in torch (in NumPy "
        "it does, and their dimensions go first): torch.zeros(5)[None, True, ..., torch.ones(5, "
        "dtype=torch.bool)] has shape (1, 5), NumPy (5, 1)",
        empty_ellipsis_joins),
    "torch/scalars-are-basic": (
        "integers beside index tensors (or True/False) are basic indices in torch, so advanced indices "
        "that an integer separates are kept in place: torch.zeros(1, 3, 5)[0, :, [0]] has shape (3, 1), "
        "NumPy (1, 3); torch.zeros(1, 3, 5)[0, :, True] (3, 1, 5), NumPy (1, 3, 5)",
        scalar_placement),
    "torch/take-index-dtype": (
        "torch.take needs int64 indices, index_select int32/int64: torch.take(t, torch.tensor([0], "
        "dtype=torch.int32)) -> RuntimeError: take(): Expected a long tensor for index",
        lambda c: take_dtype(c) and refused(c)),
    "torch/index-select-negative": (
        "index_select refuses negative indices: torch.index_select(torch.zeros(3), 0, torch.tensor([-1])) "
        "-> IndexError: index out of range in self (np.take counts from the end)",
        lambda c: c.op == "take" and c.spec.get("axis") is not None and c.spec.get("mode", "raise") == "raise"
        and has_negative(c.inputs["indices"]) and refused(c)),
    "torch/index-select-0d": (
        "torch.index_select on a 0-d tensor ignores the index count and writes past its result: "
        "torch.index_select(torch.tensor(5.), 0, torch.tensor([0, 0, 0])) has shape () (np.take: (3,)), "
        "larger index tensors abort the process (free(): invalid size)",
        lambda c: c.op == "take" and c.inputs["a"].ndim == 0 and c.spec.get("axis") is not None
        and c.result.get("status") == "fail"),
    "torch/take-along-dim-index-dtype": (
        "torch.take_along_dim needs int64 indices: torch.take_along_dim(t, torch.tensor([0], "
        "dtype=torch.int32), 0) -> RuntimeError: dtype of indices should be Long",
        lambda c: c.op == "take_along_axis" and c.inputs["indices"].dtype.kind in "iu"
        and c.inputs["indices"].dtype != np.int64 and refused(c)),
    "torch/take-along-dim-dim-none-flattens-indices": (
        "torch.take_along_dim(t, i, dim=None) flattens indices of any rank; np.take_along_axis with "
        "axis=None needs 1-D indices: torch.take_along_dim(torch.zeros(4), torch.tensor([[0]])) "
        "has shape (1,), NumPy: ValueError",
        lambda c: c.op == "take_along_axis" and c.spec.get("axis") is None and c.inputs["indices"].ndim != 1),
    "torch/take-along-dim-negative": (
        "torch.take_along_dim does not count negative indices from the end: "
        "torch.take_along_dim(torch.zeros(3), torch.tensor([-1]), 0) -> RuntimeError: index -1 is out "
        "of bounds",
        lambda c: c.op == "take_along_axis" and has_negative(c.inputs["indices"]) and refused(c)),
    "torch/gather-int32-index": (
        "torch.gather needs int64 indices; ONNX GatherElements takes int32 too: "
        "torch.gather(t, 0, torch.tensor([0], dtype=torch.int32)) -> RuntimeError: Expected dtype int64",
        lambda c: c.op == "onnx_gather_elements" and c.inputs["indices"].dtype == np.int32
        and refused(c)),
    "torch/gather-negative": (
        "torch.gather does not count negative indices from the end (ONNX does): "
        "torch.gather(torch.zeros(3), 0, torch.tensor([-1])) -> RuntimeError: index -1 is out of bounds",
        lambda c: c.op == "onnx_gather_elements" and has_negative(c.inputs["indices"])
        and refused(c)),
    "torch/gather-0d": (
        "torch.gather takes 0-d data and indices; ONNX GatherElements needs rank >= 1: "
        "torch.gather(torch.tensor(5.), 0, torch.tensor(0)) -> tensor(5.)",
        lambda c: c.op == "onnx_gather_elements" and c.inputs["data"].ndim == 0),
    "torch/gather-empty-index-unchecked": (
        "torch.gather skips its shape checks when the index is empty: torch.gather(torch.zeros(2, 5), 0, "
        "torch.zeros(2, 0, 1, dtype=torch.long)) has shape (2, 0, 1); ONNX refuses the rank",
        lambda c: c.op == "onnx_gather_elements" and c.inputs["indices"].size == 0 and c.expect_error is not None
        and c.got_error is None),
    "torch/int-beyond-int64-runtime-error": (
        "an integer index past int64 raises RuntimeError (NumPy: IndexError): torch.zeros(3)[2**64] "
        "-> RuntimeError: Overflow when unpacking long",
        lambda c: raised(c, "RuntimeError", "IndexError") and any(is_int(k) and not -2**63 <= k < 2**63
                                                                  for k in getitem_items(c))),
    "torch/no-axis-error": (
        "torch has no AxisError: an axis out of range raises IndexError (RuntimeError on a 0-d tensor): "
        "torch.index_select(torch.zeros(3), 1, torch.tensor([0])) -> IndexError: Dimension out of range "
        "(NumPy: numpy.AxisError, a subclass of IndexError and ValueError)",
        lambda c: c.op in ("take", "take_along_axis") and raised(c, "IndexError", "numpy.AxisError")
        or raised(c, "RuntimeError", "numpy.AxisError")),
    "torch/take-out-of-range-runtime-error": (
        "torch.take raises RuntimeError for an index out of range (NumPy: IndexError): "
        "torch.take(torch.zeros(3), torch.tensor([5])) -> RuntimeError: out of range",
        lambda c: c.op == "take" and raised(c, "RuntimeError", "IndexError")),
    "torch/take-along-dim-dtype-runtime-error": (
        "torch.take_along_dim raises RuntimeError for indices that are not integers (NumPy: "
        "IndexError): torch.take_along_dim(torch.zeros(3), torch.tensor([True]), 0) -> RuntimeError",
        lambda c: c.op == "take_along_axis" and c.inputs["indices"].dtype.kind not in "iu"
        and raised(c, "RuntimeError")),
    "torch/take-along-dim-shape-runtime-error": (
        "torch.take_along_dim raises RuntimeError for indices of another rank or that do not broadcast "
        "(NumPy: ValueError, IndexError): torch.take_along_dim(torch.zeros(4, 5), torch.zeros(1, 6, "
        "dtype=torch.long), 0) -> RuntimeError: shape mismatch",
        lambda c: c.op == "take_along_axis" and raised(c, "RuntimeError") and not indices_broadcast(c)),
    "torch/take-along-dim-bounds-runtime-error": (
        "torch.take_along_dim raises RuntimeError for an index out of range (NumPy: IndexError): "
        "torch.take_along_dim(torch.zeros(3), torch.tensor([3]), 0) -> RuntimeError: index 3 is out of bounds",
        lambda c: c.op == "take_along_axis" and raised(c, "RuntimeError", "IndexError")),
    "torch/heap-corrupted-earlier": (
        "the child dies on a case torch can run (malloc(): invalid size) because an earlier case of "
        "torch/index-select-0d corrupted the heap of the same process; the case passes when replayed alone",
        lambda c: "child died" in c.result.get("detail", "") and not (c.op == "take" and c.inputs["a"].ndim == 0)),
}
