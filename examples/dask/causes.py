"""Dask 2022.12 (Debian python3-dask): the root causes of its failures, found by hand.

Each cause: an ID, a one-line explanation with a minimal reproduction run directly on dask.array
(da = dask.array, x = da.from_array(np.arange(24).reshape(4, 6), chunks=2)), and a predicate
over a case (scripts/causes_eval.py's Case) saying whether this cause makes the case fail.
Predicates are tried in order; the first that holds labels a failing case.

Measure a grouping against them:
    go run ./cmd/conform check --impl '/usr/bin/python3 examples/dask/adapter.py' --json /tmp/dask.json
    /usr/bin/python3 scripts/causes_eval.py /tmp/dask.json examples/dask/causes.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from case_tools import dims_of_items, expected_shape, is_array, is_int, key, numpy_advanced_separated  # noqa: E402


def items(c):
    return key(c) if c.op == "getitem" else []


def failed(c):
    return c.result.get("status", "fail") == "fail"


def int_arrays(c):
    """The integer index arrays of a getitem case, or take's indices."""
    if c.op == "take":
        return [c.inputs["indices"]] if c.inputs["indices"].dtype.kind in "iu" else []
    return [k for k in items(c) if is_array(k) and k.dtype.kind in "iu"]


def float_index(c):
    for k in items(c):
        if isinstance(k, float) or (is_array(k) and k.dtype.kind == "f"):
            return True
        if isinstance(k, slice) and any(isinstance(p, float) for p in (k.start, k.stop, k.step)):
            return True
    return False


def negative_step_start_below(c):
    """A slice with a negative step whose start is below -n (NumPy: empty)."""
    if c.op != "getitem":
        return False
    x = c.inputs["x"]
    for k, dims in dims_of_items(c):
        if isinstance(k, slice) and is_int(k.step) and k.step < 0 and is_int(k.start) and dims:
            if dims[0] < x.ndim and k.start < -x.shape[dims[0]]:
                return True
    return False


def zero_d_dtype_rule(c):
    """NumPy's 0-d result is a NumPy scalar (native byte order, strings as wide as their value) when
    every dimension is taken by an integer and nothing else is in the subscript, and otherwise a
    0-d array of the input's dtype; only string and non-native dtypes show the difference."""
    out = c.expect_output
    x = c.inputs.get("x")
    return c.op == "getitem" and out is not None and out.ndim == 0 and (
        x.dtype.kind in "SU" or not x.dtype.isnative)


def separated_in_place(c):
    its, want = items(c), expected_shape(c)
    return want is not None and numpy_advanced_separated(its) and any(is_int(k) for k in its)


def several_index_arrays(c):
    """Two or more index arrays (integer or boolean, named or inline, not 0-d) in one subscript."""
    return sum(1 for k in items(c) if is_array(k) and k.ndim >= 1) >= 2


def empty_mask(c):
    """A 1-D boolean index of length 0 against a dimension that is not empty."""
    if c.op != "getitem":
        return False
    x = c.inputs["x"]
    return any(is_array(k) and k.dtype.kind == "b" and k.ndim == 1 and k.shape[0] == 0 and dims
               and dims[0] < x.ndim and x.shape[dims[0]] != 0 for k, dims in dims_of_items(c))


def int_between_array_and_newaxis(c):
    its = items(c)
    first = next((i for i, k in enumerate(its) if is_array(k) and k.ndim >= 1), None)
    if first is None:
        return False
    ints = [i for i, k in enumerate(its) if is_int(k) and i > first]
    return bool(ints) and any(k is None for k in its[ints[0] + 1:])


def nd_mask_not_whole(c):
    its = items(c)
    masks = [k for k in its if is_array(k) and k.dtype.kind == "b" and k.ndim >= 2]
    return bool(masks) and (len(its) > 1 or masks[0].ndim != c.inputs["x"].ndim)


def ravels_empty(c):
    a = c.inputs["a"] if c.op == "take" else c.inputs["x"]
    if a.size != 0 or a.ndim < 2 or max(a.shape) <= 2:
        return False
    if c.op == "take":
        return c.spec.get("axis") is None
    its = items(c)
    return len(its) == 1 and is_array(its[0]) and its[0].dtype.kind == "b" and its[0].shape == a.shape


CAUSES = {
    "dask/take-0d-array": (
        "da.take refuses a 0-d array; np.take reads it as a vector: da.take(da.from_array(np.array(5.)), "
        "np.array([0]), 0) -> AxisError: axis 0 is out of bounds for array of dimension 0",
        lambda c: c.op == "take" and c.inputs["a"].ndim == 0 and c.spec.get("axis") is not None and failed(c)),
    "dask/ravel-empty": (
        "ravel fails on an empty array of several chunks (the adapter's take with axis=None ravels; "
        "dask ravels for a mask of the array's whole shape): da.from_array(np.zeros((3, 0)), "
        "chunks=2).ravel() -> TypeError: reduce() of empty iterable; (0, 5, 4) -> NotImplementedError: "
        "Dask's reshape only supports ...; (2, 2, 0) works",
        lambda c: ravels_empty(c) and failed(c)),
    "dask/bool-scalar-as-int": (
        "a Python bool in the subscript is taken as the integer 0 or 1: x[True] has shape (6,) (row 1), "
        "x[:, False] (4,) (column 0); NumPy adds a dimension of length 1 or 0",
        lambda c: any(isinstance(k, bool) for k in items(c)) and failed(c)),
    "dask/0d-bool-array-refused": (
        "a 0-d boolean index array is refused: x[np.array(True)] -> IndexError: Boolean array with size 1 "
        "is not long enough for axis 0 with size 4; NumPy adds a dimension",
        lambda c: any(is_array(k) and k.ndim == 0 and k.dtype.kind == "b" for k in items(c)) and failed(c)),
    "dask/several-index-arrays": (
        "only one index array per subscript: x[[0, 1], [0, 1]] and x[mask, [0, 1]] -> "
        "NotImplementedError: Don't yet support nd fancy indexing",
        lambda c: several_index_arrays(c) and failed(c)),
    "dask/nd-mask-not-whole-array": (
        "a boolean mask of 2 or more dimensions works only alone and covering the whole array: "
        "x[m] with m of x's shape works, but da.zeros((1, 2, 5))[np.ones((1, 2), bool)] -> IndexError: "
        "Boolean array with size 2 is not long enough for axis 0 with size 1; beside other indices it "
        "raises that IndexError too, or NotImplementedError (Slicing with dask.array of bools only "
        "permitted when the indexer has only one dimension), or TypeError",
        lambda c: nd_mask_not_whole(c) and failed(c)),
    "dask/nd-index-array": (
        "index arrays of 2 or more dimensions are not supported by dask's slicing (getitem and da.take): "
        "x[np.array([[0, 1]])] -> TypeError: '>' not supported between instances of 'list' and 'int'; "
        "an empty one is read as 1-D: da.take(x, np.zeros((1, 0), int), 0) has shape (0, 6), NumPy (1, 0, 6)",
        lambda c: any(a.ndim >= 2 for a in int_arrays(c)) and failed(c)),
    "dask/take-bool-as-mask": (
        "da.take takes boolean indices as a mask: da.take(x, np.array([True]), 0) -> IndexError: Boolean "
        "array with size 1 is not long enough for axis 0 with size 4; np.take casts them to 0 and 1",
        lambda c: c.op == "take" and c.inputs["indices"].dtype.kind == "b" and failed(c)),
    "dask/0d-index-array": (
        "a 0-d integer index array is mishandled: alone it fails an assertion (x[np.array(1)] and "
        "da.take(x, np.array(1), 0) -> AssertionError), beside an index array it is ignored "
        "(x[np.array(1), [0]] has shape (4, 1), NumPy (1,)); NumPy takes it as an integer",
        lambda c: any(a.ndim == 0 for a in int_arrays(c)) and failed(c)),
    "dask/empty-mask-refused": (
        "a boolean index of length 0 is refused against a non-empty dimension: "
        "da.from_array(np.zeros(1))[np.zeros(0, bool)] -> IndexError: Boolean array with size 0 is not "
        "long enough; NumPy 1.24 gives shape (0,)",
        lambda c: empty_mask(c) and failed(c)),
    "dask/take-uint64": (
        "da.take accepts uint64 indices (it checks their values); np.take refuses the dtype: "
        "da.take(x, np.array([1], np.uint64), 0) has shape (1, 6), NumPy: TypeError: Cannot cast",
        lambda c: c.op == "take" and c.inputs["indices"].dtype.kind == "u" and c.inputs["indices"].itemsize == 8
        and failed(c)),
    "dask/int-after-array-before-newaxis": (
        "an integer after an index array and before None indexes the wrong dimension: "
        "da.zeros((2, 2, 3, 2), chunks=2)[[0], 1, None] has shape (1, 2, 2, 2), NumPy (1, 1, 3, 2)",
        lambda c: int_between_array_and_newaxis(c) and failed(c)),
    "dask/negative-step-start-below-range": (
        "a slice with a negative step and a start below -n is normalised wrongly (NumPy: empty): "
        "da.from_array(np.arange(5), chunks=2)[-6:3:-1] has 1 element, [-6:-7:-1] 5",
        lambda c: negative_step_start_below(c) and failed(c)),
    "dask/separated-advanced-in-place": (
        "integers beside an index array are basic indices in dask, so advanced indices an integer "
        "separates keep their place: da.zeros((2, 3, 4), chunks=2)[0, :, [0]] has shape (3, 1), NumPy (1, 3)",
        lambda c: separated_in_place(c) and failed(c)),
    "dask/0d-result-scalar-rule": (
        "a 0-d result does not follow NumPy's scalar rule: x[()] on a 0-d array gives a 0-d array of the "
        "input's dtype where NumPy gives a scalar (da.from_array(np.array('ab', 'U6'))[()] is <U6, NumPy "
        "<U2), and x[..., -1] gives a scalar where NumPy keeps the input's dtype (>c16 becomes <c16)",
        lambda c: zero_d_dtype_rule(c) and failed(c)),
    "dask/float-index": (
        "dask accepts float indices, in slices, as items and as index arrays: x[::1.0], x[0.0] and "
        "x[np.array([1.0])] all give results; NumPy refuses each (TypeError / IndexError)",
        lambda c: float_index(c) and failed(c)),
    "dask/two-ellipses-type-error": (
        "two ellipses raise TypeError (NumPy: IndexError, an index can only have a single ellipsis): "
        "da.zeros(3)[..., ...] -> TypeError",
        lambda c: c.op == "getitem" and sum(k is Ellipsis for k in items(c)) >= 2 and failed(c)),
    "dask/over-32-dims": (
        "a result of more than 32 dimensions raises ValueError from NumPy's array creation inside dask "
        "(NumPy's getitem: IndexError, too many indices): da.zeros(1)[(None,) * 33] -> ValueError: "
        "maximum supported dimension for an ndarray is 32",
        lambda c: c.op == "getitem" and c.class_mismatch == ("ValueError", "IndexError")
        and sum(k is None for k in items(c)) + c.inputs["x"].ndim > 32),
    "dask/string-item-type-error": (
        "a string item in the subscript raises TypeError (NumPy: IndexError, only integers, "
        "slices ... are valid indices): da.zeros(3)[('',)] -> TypeError",
        lambda c: c.op == "getitem" and c.class_mismatch == ("TypeError", "IndexError")
        and any(isinstance(k, (str, bytes)) for k in items(c))),
}
