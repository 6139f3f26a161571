"""What the modules of the NumPy oracle share: the limits it checks, the
errors a case is answered with (CaseError) or skipped with (Skip), and
small helpers on messages and index arrays."""

import binascii
import json

import numpy as np


a2b_base64 = binascii.a2b_base64
b2a_base64 = binascii.b2a_base64
ndarray = np.ndarray


MAX_RANK = 32          # NPY_MAXDIMS
MAX_SPEC_LENGTH = 31   # TF: strided_slice specs have n < 32 entries
MAX_ITEMS = 64         # NumPy: at most 2*NPY_MAXDIMS index items
MAX_SOURCE = 64 << 10  # internal/expr: longest index source
MAX_HEADER = 10000     # NumPy 1.24 max_header_size
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
MASK32 = (1 << 32) - 1
MASK64 = (1 << 64) - 1


INT64 = np.dtype(np.int64)
INTP = np.dtype(np.intp)

# Index arrays of at most this many values are checked and turned into
# positions in plain Python (a list from tolist()): on a few dozen values
# that is cheaper than the NumPy calls a vectorized check makes, each of
# which costs about a microsecond whatever the size. Larger ones take the
# vectorized path.
SMALL = 256


def short(v):
    s = json.dumps(v) if not isinstance(v, str) else v
    return s if len(s) <= 40 else s[:40] + "..."


class CaseError(Exception):
    """A rejected case: kind is invalid_spec, out_of_range or bad_input;
    type is the Python exception class NumPy raises for it ("IndexError",
    "numpy.AxisError", see exception_class), or None where the error is
    conform's own decision rather than NumPy's."""

    def __init__(self, kind, message, type=None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.type = type


class Skip(Exception):
    """A case this oracle cannot answer with NumPy's result: it is skipped
    with the message."""


class TooDeep(Skip):
    """An index expression nested deeper than Python's own parser allows
    (internal/expr's LALR parser has no such limit): the case is skipped."""


def invalid(msg, type=None):
    return CaseError("invalid_spec", msg, type)


def out_of_range(msg, type=None):
    return CaseError("out_of_range", msg, type)


def bad(msg):
    return CaseError("bad_input", msg)


def exception_class(e):
    """The name of e's class as the error answer's "type" gives it: a
    builtin by its name ("IndexError"), any other with its module
    ("numpy.AxisError")."""
    t = type(e)
    if t.__module__ == "builtins":
        return t.__qualname__
    return t.__module__ + "." + t.__qualname__


def one_line(e):
    s = str(e).strip().replace("\n", " ")
    return s if s else type(e).__name__


def int64_indices(indices):
    """indices as int64 values, unsigned ones beyond int64 as INT64_MIN:
    out of bounds for every axis, negative or not."""
    if indices.dtype.kind == "u" and indices.dtype.itemsize == 8:
        big = indices > INT64_MAX
        idx = indices.astype(INT64)
        if big.any():
            idx[big] = INT64_MIN
        return idx
    return indices.astype(INT64, copy=False)


def shape_count(shape, itemsize):
    """Raises invalid_spec when an array of shape cannot be counted in
    int64 elements and bytes; returns the element count."""
    count = 1
    for d in shape:
        count *= d
        if count > INT64_MAX:
            break
    if count > INT64_MAX // itemsize:
        raise invalid("output shape %s is too large" % (shape,))
    return count


def unravel(i, shape):
    """The position of flat (C-order) element i of an array of shape, as a
    list: np.unravel_index in plain Python."""
    pos = []
    for d in reversed(shape):
        i, r = divmod(i, d)
        pos.append(r)
    pos.reverse()
    return pos


def c_strides(shape):
    """The C-order strides of shape, in elements."""
    strides = [1] * len(shape)
    for j in range(len(shape) - 2, -1, -1):
        strides[j] = strides[j + 1] * shape[j + 1]
    return strides


def count_of(shape):
    """The number of elements of an array of shape."""
    n = 1
    for d in shape:
        n *= d
    return n
