#!/usr/bin/python3
"""A correct NumPy adapter with twelve realistic bugs planted, each switchable: a known ground truth
for grouping failures by cause (issue #23's acceptance measurement).

Run (all bugs; CONFORM_PLANTED_BUGS=a,b for some, =none for the correct adapter):
    go run ./cmd/conform check --impl '/usr/bin/python3 examples/planted/adapter.py' --json /tmp/planted.json
    /usr/bin/python3 scripts/causes_eval.py /tmp/planted.json examples/planted/causes.py
Check that each bug's predicate is exact (runs the corpus once per bug, about 5 minutes):
    /usr/bin/python3 examples/planted/verify.py

The correct adapter is cmd/conform/testdata/numpy_adapter.py (conform's tests run it on the whole
corpus, where it passes every case of its six ops). Each bug is a wrapper around one of its ops,
written the way such bugs are found in real libraries (PyTorch, Dask, XLA, TF ports):

getitem (six bugs, four of them answering invalid_spec):
  negative-step         refuses a slice with a negative step (invalid_spec), as PyTorch does
  0d-index-refused      refuses a 0-d integer index array (invalid_spec)
  small-int-index       refuses integer index arrays narrower than 64 bits (int8 to int32, uint8 to
                        uint32; invalid_spec), as PyTorch's int64-only indexing does
  no-broadcast          refuses integer index arrays of different shapes instead of broadcasting them
                        (invalid_spec)
  bool-as-int           reads a Python True/False in the subscript as the integer 1/0, as Dask does
  separated-in-place    keeps the dimensions of separated advanced indices in place instead of first,
                        as PyTorch and Dask do when an integer separates them
strided_slice:
  zero-stride-as-one    takes a stride of 0 as 1 (no error)
  check-order           makes TF's per-dimension checks in another order: every shrink index's bounds
                        (out_of_range) before any stride check (invalid_spec)
gather_nd:
  xla-clamp             clamps out-of-range index rows into bounds instead of failing, as XLA does
take:
  clip-wraps-negative   in mode="clip", counts a negative index from the end before clipping
take_along_axis:
  negative-refused      refuses negative indices (out_of_range), as torch.take_along_dim does
slice:
  size-minus-one        refuses size -1 ("to the end") with invalid_spec
Refusals are made after the adapter's bad_input checks (names and inputs), before the others.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "cmd", "conform", "testdata"))
import numpy_adapter as plain  # noqa: E402


def reference(op, inputs, request):
    """The correct adapter's answer: ("output", array) or ("error", kind), mapped as it maps them."""
    try:
        return "output", np.asarray(plain.OPS[op](inputs, request))
    except plain.Rejected as e:
        return "error", e.kind
    except np.AxisError:
        return "error", "invalid_spec"
    except IndexError:
        return "error", "out_of_range"
    except (ValueError, TypeError):
        return "error", "invalid_spec"


def give(answer):
    kind, value = answer
    if kind == "error":
        raise plain.Rejected(value, "(the correct adapter's error)")
    return value


def key_items(request):
    """The subscript's items as the correct adapter parses them ([] when it does not parse)."""
    try:
        return list(plain.parse_index(request["index"]))
    except plain.Rejected:
        return []


def named(inputs, items):
    return [inputs[k] for k in items if isinstance(k, plain.InputName) and k in inputs]


def refusing(op, condition, kind="invalid_spec"):
    """A bug that refuses, with kind, every case where condition(inputs, request) holds, after the
    correct adapter's bad_input checks."""
    def buggy(inputs, request):
        answer = reference(op, inputs, request)
        if answer != ("error", "bad_input") and condition(inputs, request):
            raise plain.Rejected(kind, f"planted bug: {op} refuses this")
        return give(answer)
    return buggy


# ---- getitem ------------------------------------------------------------------------------------

def has_negative_step(inputs, request):
    return any(isinstance(k, slice) and isinstance(k.step, int) and k.step < 0 for k in key_items(request))


def has_0d_index(inputs, request):
    return any(a.ndim == 0 and a.dtype.kind in "iu" for a in named(inputs, key_items(request)))


def has_small_int_index(inputs, request):
    return any(a.dtype.kind in "iu" and a.dtype.itemsize < 8 for a in named(inputs, key_items(request)))


def unequal_index_shapes(inputs, request):
    items = key_items(request)
    arrays = [k for k in items if isinstance(k, np.ndarray)] + named(inputs, items)
    shapes = {a.shape for a in arrays if a.dtype.kind in "iu"}
    return len(shapes) > 1


def bool_as_int(inputs, request):
    answer = reference("getitem", inputs, request)
    items = key_items(request)
    if answer == ("error", "bad_input") or not any(isinstance(k, bool) for k in items) \
            or any(isinstance(k, plain.Rejected) for k in items):
        return give(answer)
    # The correct adapter on the subscript with each bool item written as an integer.
    rewritten = "x[" + ", ".join(item_text(k) for k in items) + ",]"
    return give(reference("getitem", inputs, dict(request, index=rewritten)))


def item_text(k):
    """An item of a parsed subscript written back as text (bools as integers)."""
    if isinstance(k, bool):
        return str(int(k))
    if k is None:
        return "None"
    if k is Ellipsis:
        return "..."
    if isinstance(k, slice):
        return ":".join("" if p is None else repr(p) for p in (k.start, k.stop, k.step))
    if isinstance(k, np.ndarray):
        return repr(k.tolist())
    return str(k)


def separated_in_place(inputs, request):
    answer = reference("getitem", inputs, request)
    if answer[0] != "output":
        return give(answer)
    x, items = inputs["x"], key_items(request)
    key = [inputs[k] if isinstance(k, plain.InputName) else k for k in items]
    advanced = [i for i, k in enumerate(key) if isinstance(k, (np.ndarray, bool)) or
                (isinstance(k, int) and any(isinstance(j, (np.ndarray, bool)) for j in key))]
    if not advanced or advanced[-1] - advanced[0] + 1 == len(advanced):
        return give(answer)  # not separated: NumPy keeps them in place already
    out = answer[1]
    # NumPy put the broadcast index dims first; move them to where the first advanced item is.
    adv_ndim = out.ndim - basic_dims(x, key)
    before = basic_dims_before(x, key, advanced[0])
    order = list(range(adv_ndim, adv_ndim + before)) + list(range(adv_ndim)) + list(range(adv_ndim + before, out.ndim))
    return np.ascontiguousarray(out.transpose(order))


def item_dims(x, key):
    """(item, dims it consumes of x, dims it gives to a basic result)."""
    used = sum(k.ndim if isinstance(k, np.ndarray) and k.dtype.kind == "b" else 1 for k in key
               if isinstance(k, (np.ndarray, slice)) or (isinstance(k, int) and not isinstance(k, bool)))
    out = []
    for k in key:
        if k is Ellipsis:
            out.append((k, x.ndim - used, x.ndim - used))
        elif k is None:
            out.append((k, 0, 1))
        elif isinstance(k, slice):
            out.append((k, 1, 1))
        else:
            out.append((k, k.ndim if isinstance(k, np.ndarray) and k.dtype.kind == "b" else
                        (0 if isinstance(k, bool) else 1), 0))
    return out, x.ndim - used


def basic_dims(x, key):
    dims, rest = item_dims(x, key)
    return sum(g for _, _, g in dims) + (rest if not any(k is Ellipsis for k in key) else 0)


def basic_dims_before(x, key, position):
    dims, _ = item_dims(x, key)
    return sum(g for _, _, g in dims[:position])


# ---- strided_slice --------------------------------------------------------------------------------

def zero_stride_as_one(inputs, request):
    strides = request.get("strides")
    if strides and 0 in strides:
        request = dict(request, strides=[1 if s == 0 else s for s in strides])
    return give(reference("strided_slice", inputs, request))


def check_order(inputs, request):
    strides = request.get("strides")
    if strides:  # the bounds first: the same spec with every stride valid
        fixed = dict(request, strides=[1 if s <= 0 else s for s in strides])
        if reference("strided_slice", inputs, fixed) == ("error", "out_of_range"):
            raise plain.Rejected("out_of_range", "planted bug: bounds checked before strides")
    return give(reference("strided_slice", inputs, request))


# ---- gather_nd, take, take_along_axis, slice ------------------------------------------------------

def xla_clamp(inputs, request):
    params, indices = inputs["params"], inputs["indices"]
    batch_dims = request.get("batch_dims", 0)
    if indices.dtype.kind in "iu" and indices.ndim >= 1 and isinstance(batch_dims, int) and batch_dims >= 0:
        depth = indices.shape[-1]
        bounds = params.shape[batch_dims:batch_dims + depth]
        if len(bounds) == depth and all(b > 0 for b in bounds):
            upper = np.array(bounds, dtype=np.int64) - 1
            clamped = np.clip(indices.astype(object), 0, upper).astype(indices.dtype)
            inputs = dict(inputs, indices=clamped)
    return give(reference("gather_nd", inputs, request))


def clip_wraps_negative(inputs, request):
    a, indices = inputs["a"], inputs["indices"]
    axis = request.get("axis")
    if request.get("mode") == "clip" and indices.dtype.kind == "i" and (indices < 0).any():
        try:
            n = a.size if axis is None else (a.shape or (1,))[axis]
        except (IndexError, TypeError):
            n = 0
        if n > 0:
            wide = indices.astype(np.int64)
            inputs = dict(inputs, indices=np.where(wide < 0, wide + n, wide).astype(indices.dtype))
    return give(reference("take", inputs, request))


def negative_refused(inputs, request):
    answer = reference("take_along_axis", inputs, request)
    indices = inputs["indices"]
    if answer[0] == "output" and indices.dtype.kind == "i" and indices.size and indices.min() < 0:
        raise plain.Rejected("out_of_range", "planted bug: negative index")
    return give(answer)


def size_minus_one(inputs, request):
    answer = reference("slice", inputs, request)
    if answer[0] == "output" and -1 in request.get("size", []):
        raise plain.Rejected("invalid_spec", "planted bug: size -1")
    return give(answer)


BUGS = {
    "negative-step": ("getitem", refusing("getitem", has_negative_step)),
    "0d-index-refused": ("getitem", refusing("getitem", has_0d_index)),
    "small-int-index": ("getitem", refusing("getitem", has_small_int_index)),
    "no-broadcast": ("getitem", refusing("getitem", unequal_index_shapes)),
    "bool-as-int": ("getitem", bool_as_int),
    "separated-in-place": ("getitem", separated_in_place),
    "zero-stride-as-one": ("strided_slice", zero_stride_as_one),
    "check-order": ("strided_slice", check_order),
    "xla-clamp": ("gather_nd", xla_clamp),
    "clip-wraps-negative": ("take", clip_wraps_negative),
    "negative-refused": ("take_along_axis", negative_refused),
    "size-minus-one": ("slice", size_minus_one),
}


def planted_ops(names):
    """The adapter's ops with the named bugs planted; several bugs of one op are tried in the
    order of BUGS, the first that changes the answer deciding."""
    ops = dict(plain.OPS)
    by_op = {}
    for name in names:
        op, fn = BUGS[name]
        by_op.setdefault(op, []).append(fn)
    for op, fns in by_op.items():
        ops[op] = first_change(op, fns)
    return ops


def first_change(op, fns):
    def buggy(inputs, request):
        correct = reference(op, inputs, request)
        for fn in fns:
            try:
                got = ("output", np.asarray(fn(inputs, request)))
            except plain.Rejected as e:
                got = ("error", e.kind)
            if not same(got, correct):
                return give(got)
        return give(correct)
    return buggy


def same(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == "error":
        return a[1] == b[1]
    return a[1].dtype == b[1].dtype and a[1].shape == b[1].shape and a[1].tobytes() == b[1].tobytes()


if __name__ == "__main__":
    chosen = os.environ.get("CONFORM_PLANTED_BUGS", "all")
    names = [] if chosen == "none" else list(BUGS) if chosen == "all" else chosen.split(",")
    unknown = [n for n in names if n not in BUGS]
    if unknown:
        sys.exit(f"unknown planted bugs {unknown}; known: {', '.join(BUGS)}")
    plain.main(planted_ops(names), name="planted-numpy")
