"""The planted bugs of examples/planted/adapter.py as causes: exact by construction.

A refusal bug's predicate is its condition, read from the case, where the refusal changes the
answer (the reference does not already give that error kind or bad_input); a bug that changes an
output's predicate runs the bug on the case and compares with the expected answer. The order is
the adapter's: with every bug planted, the first bug of an op that changes the answer decides.
examples/planted/verify.py checks each predicate against the adapter run with that bug alone.

    go run ./cmd/conform check --impl '/usr/bin/python3 examples/planted/adapter.py' --json /tmp/planted.json
    /usr/bin/python3 scripts/causes_eval.py /tmp/planted.json examples/planted/causes.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import adapter as planted  # noqa: E402
from case_tools import is_array, key  # noqa: E402


def named_arrays(c):
    return [c.inputs[n] for n in c.inputs if n != "x"] + (
        [c.inputs["x"]] if any(k is c.inputs["x"] for k in key(c)) else [])


def refusal(op, kind, condition):
    return lambda c: c.op == op and c.expect_error not in (kind, "bad_input") and condition(c)


def changes(op, bug):
    """The bug's own answer on the case differs from the expected one."""
    def predicate(c):
        if c.op != op:
            return False
        try:
            got = ("output", np.asarray(bug(dict(c.inputs), dict(c.spec, op=op))))
        except planted.plain.Rejected as e:
            got = ("error", e.kind)
        want = ("error", c.expect_error) if c.expect_error else ("output", c.expect_output)
        return not planted.same(got, want)
    return predicate


CAUSES = {
    "planted/negative-step": (
        "getitem refuses a slice with a negative step (invalid_spec)",
        refusal("getitem", "invalid_spec", lambda c: any(
            isinstance(k, slice) and isinstance(k.step, int) and k.step < 0 for k in key(c)))),
    "planted/0d-index-refused": (
        "getitem refuses a 0-d integer index array (invalid_spec)",
        refusal("getitem", "invalid_spec", lambda c: any(a.ndim == 0 and a.dtype.kind in "iu" for a in named_arrays(c)))),
    "planted/small-int-index": (
        "getitem refuses integer index arrays narrower than 64 bits (int8 to int32, uint8 to uint32; invalid_spec)",
        refusal("getitem", "invalid_spec", lambda c: any(
            a.dtype.kind in "iu" and a.dtype.itemsize < 8 for a in named_arrays(c)))),
    "planted/no-broadcast": (
        "getitem refuses integer index arrays of different shapes instead of broadcasting them (invalid_spec)",
        refusal("getitem", "invalid_spec", lambda c: len({
            k.shape for k in key(c) if is_array(k) and k.dtype.kind in "iu"}) > 1)),
    "planted/bool-as-int": (
        "getitem reads a Python True/False as the integer 1/0",
        changes("getitem", planted.bool_as_int)),
    "planted/separated-in-place": (
        "getitem keeps the dims of separated advanced indices in place instead of first",
        changes("getitem", planted.separated_in_place)),
    "planted/zero-stride-as-one": (
        "strided_slice takes a stride of 0 as 1",
        changes("strided_slice", planted.zero_stride_as_one)),
    "planted/check-order": (
        "strided_slice checks every shrink index's bounds before any stride (TF's order swapped)",
        changes("strided_slice", planted.check_order)),
    "planted/xla-clamp": (
        "gather_nd clamps out-of-range index rows into bounds (XLA) instead of failing",
        changes("gather_nd", planted.xla_clamp)),
    "planted/clip-wraps-negative": (
        "take's clip mode counts a negative index from the end before clipping",
        changes("take", planted.clip_wraps_negative)),
    "planted/negative-refused": (
        "take_along_axis refuses negative indices (out_of_range)",
        lambda c: c.op == "take_along_axis" and c.expect_output is not None
        and c.inputs["indices"].dtype.kind == "i" and c.inputs["indices"].size > 0
        and c.inputs["indices"].min() < 0),
    "planted/size-minus-one": (
        "slice refuses size -1, 'to the end' (invalid_spec)",
        lambda c: c.op == "slice" and c.expect_output is not None and -1 in c.spec.get("size", [])),
}
