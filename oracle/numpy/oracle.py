#!/usr/bin/python3
"""conform/1 oracle backed by NumPy.

Run with /usr/bin/python3 (Debian's python3-numpy). It reads one JSON request
per line on stdin and writes one JSON response per request on stdout, after a
hello line; see "Protocol conform/1" in the project's design notes and
oracle/README.md.

Ops:
  getitem        NumPy basic indexing, x[key], evaluated by NumPy itself. The
                 index string is parsed with the ast module (never eval'd) and
                 must be what conform's engine/expr accepts.
  strided_slice  TF's StridedSlice, translated entry by entry into a NumPy
                 index with TF's extra rules, then evaluated by NumPy.
  slice          tf.slice: TF's checks, then NumPy slicing.
  gather_nd      tf.gather_nd (batch_dims, bad_indices error|zero) written
                 with NumPy fancy indexing.

Every result keeps the dtype of x (params for gather_nd), byte order
included, and is written with np.save.
"""

import ast
import base64
import binascii
import io
import json
import os
import re
import sys
import time

import numpy as np

NAME = "numpy"
OPS = ["getitem", "strided_slice", "slice", "gather_nd"]

MAX_RANK = 32          # NPY_MAXDIMS
MAX_SPEC_LENGTH = 31   # TF: strided_slice specs have n < 32 entries
MAX_ITEMS = 64         # NumPy: at most 2*NPY_MAXDIMS index items
MAX_SOURCE = 64 << 10  # engine/expr: longest index source
MAX_HEADER = 10000     # NumPy 1.24 max_header_size
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
MASK64 = (1 << 64) - 1

OP_INPUTS = {
    "getitem": ["x"],
    "strided_slice": ["x"],
    "slice": ["x"],
    "gather_nd": ["params", "indices"],
}
OP_FIELDS = {
    "getitem": ["index"],
    "strided_slice": ["begin", "end", "strides", "begin_mask", "end_mask",
                      "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"],
    "slice": ["begin", "size"],
    "gather_nd": ["batch_dims", "bad_indices"],
}
ALL_OPS = ["getitem", "strided_slice", "slice", "gather_nd"]

if hasattr(sys, "set_int_max_str_digits"):
    # Integer literals of any length are valid indices or slice bounds.
    sys.set_int_max_str_digits(0)


class CaseError(Exception):
    """A rejected case: kind is invalid_spec, out_of_range or bad_input."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind
        self.message = message


class TooDeep(Exception):
    """An index expression nested deeper than Python's own parser allows
    (engine/expr's LALR parser has no such limit): the case is skipped."""


def invalid(msg):
    return CaseError("invalid_spec", msg)


def out_of_range(msg):
    return CaseError("out_of_range", msg)


def bad(msg):
    return CaseError("bad_input", msg)


# ---------------------------------------------------------------- case file


def is_int(v):
    return type(v) is int  # JSON integers; bool is not one


def int64(v, what):
    if not is_int(v):
        raise bad("%s: not an integer: %s" % (what, short(v)))
    if v < INT64_MIN or v > INT64_MAX:
        raise bad("%s: %s is not an integer within int64" % (what, short(v)))
    return v


def short(v):
    s = json.dumps(v) if not isinstance(v, str) else v
    return s if len(s) <= 40 else s[:40] + "..."


def ints(case, name, required):
    if name not in case:
        if required:
            raise bad("%s case has no %r field" % (case["op"], name))
        return None
    v = case[name]
    if not isinstance(v, list):
        raise bad("%r must be a list of integers" % name)
    return [int64(x, "%s[%d]" % (name, i)) for i, x in enumerate(v)]


class Mask:
    """A strided_slice mask: bits 0-63 plus a count of set list entries
    beyond position 63 (they only matter for the ellipsis count)."""

    __slots__ = ("bits", "extra")

    def __init__(self, bits=0, extra=0):
        self.bits = bits
        self.extra = extra

    def has(self, i):
        return i < 64 and (self.bits >> i) & 1 == 1

    def count(self):
        return bin(self.bits).count("1") + self.extra


def mask(case, name):
    if name not in case:
        return Mask()
    v = case[name]
    if isinstance(v, list):
        lst = ints(case, name, True)
        m = Mask()
        for i, e in enumerate(lst):
            if e == 1:
                if i < 64:
                    m.bits |= 1 << i
                else:
                    m.extra += 1
            elif e != 0:
                raise invalid("%s: mask list entry %d is %d; entries must be 0 or 1" % (name, i, e))
        return m
    if not is_int(v):
        raise bad("%r must be an integer bitmask or a list of 0/1" % name)
    return Mask(int64(v, name) & MASK64)


def parse_spec(case):
    """Checks the case fields in the order internal/casefile does."""
    if "op" not in case:
        raise bad('case has no "op" field')
    op = case["op"]
    if not isinstance(op, str):
        raise bad('"op" must be a string')
    if op not in OP_FIELDS:
        raise bad("unknown op %r (want one of %s)" % (op, ", ".join(ALL_OPS)))
    own = OP_FIELDS[op]
    for other in ALL_OPS:
        if other == op:
            continue
        for f in OP_FIELDS[other]:
            if f in case and f not in own:
                raise bad("field %r does not apply to op %s" % (f, op))
    spec = {"op": op}
    if op == "getitem":
        if "index" not in case:
            raise bad('getitem case has no "index" field')
        if case["index"] is None:
            case["index"] = ""  # Go's json.Unmarshal leaves the string empty
        if not isinstance(case["index"], str):
            raise bad('"index" must be a string such as "x[1:3, ...]"')
        spec["index"] = case["index"]
    elif op == "strided_slice":
        spec["begin"] = ints(case, "begin", True)
        spec["end"] = ints(case, "end", True)
        spec["strides"] = ints(case, "strides", False)
        for name in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"):
            spec[name] = mask(case, name)
    elif op == "slice":
        spec["begin"] = ints(case, "begin", True)
        spec["size"] = ints(case, "size", True)
    else:
        b = 0
        if "batch_dims" in case:
            b = case["batch_dims"]
            if not is_int(b) or b < INT64_MIN or b > INT64_MAX:
                raise bad('"batch_dims" must be an integer')
            if b < -(1 << 31) or b >= 1 << 31:
                raise invalid("batch_dims %d is out of range" % b)
        spec["batch_dims"] = b
        policy = case.get("bad_indices", "error")
        if policy not in ("error", "zero") or not isinstance(policy, str):
            raise bad('"bad_indices" must be "error" or "zero"')
        spec["bad_indices"] = policy
    return spec


def load_inputs(case, op):
    if "inputs" not in case:
        raise bad('case has no "inputs" field')
    inputs = case["inputs"]
    if not isinstance(inputs, dict):
        raise bad('"inputs" must be an object mapping input names to .npy files')
    want = OP_INPUTS[op]
    for name in sorted(inputs):
        if name not in want:
            raise bad("op %s has no input %r (it takes %s)" % (op, name, ", ".join(want)))
    out = {}
    for name in want:
        if name not in inputs:
            raise bad("op %s needs input %r" % (op, name))
        v = inputs[name]
        if not isinstance(v, str):
            raise bad("input %r must be a string" % name)
        try:
            data = base64.b64decode(v.encode("ascii"), validate=True)
        except (binascii.Error, ValueError, UnicodeEncodeError) as e:
            raise bad("input %r: invalid base64: %s" % (name, e))
        out[name] = load_npy(name, data)
    return out


SIZES = {"b": (1,), "i": (1, 2, 4, 8), "u": (1, 2, 4, 8), "f": (2, 4, 8), "c": (8, 16)}


def check_dtype(dt):
    """Raises unless dt is a dtype conform's engine supports."""
    if dt.fields is not None or dt.subdtype is not None or dt.hasobject:
        raise bad("unsupported dtype %s" % dt.str)
    k = dt.kind
    if k in SIZES:
        if dt.itemsize not in SIZES[k]:
            raise bad("unsupported dtype %s" % dt.str)
    elif k in "SU":
        if dt.itemsize == 0:
            raise bad("unsupported dtype %s: size must be a positive integer" % dt.str)
    else:
        raise bad("unsupported dtype %s: kind must be one of b, i, u, f, c, S, U" % dt.str)


# The header np.save (and conform's engine/npy) writes; parsed without
# NumPy's slow general header parser.
CANONICAL_HEADER = re.compile(
    rb"\{'descr': '([<>|][biufcSU][1-9][0-9]{0,9})', 'fortran_order': (False|True), "
    rb"'shape': \(((?:(?:0|[1-9][0-9]{0,18}), )*(?:0|[1-9][0-9]{0,18})?,?)\), \} *\n")


def read_header(data):
    """Returns (shape, fortran_order, dtype, payload offset) of a .npy
    file, or raises."""
    if data[:6] == b"\x93NUMPY" and data[6:8] == b"\x01\x00" and len(data) >= 10:
        hlen = data[8] | data[9] << 8
        m = CANONICAL_HEADER.fullmatch(data, 10, 10 + hlen)
        if m is not None:
            shape = m.group(3).decode("ascii").rstrip(",")
            shape = tuple(int(d) for d in shape.split(", ")) if shape else ()
            if m.group(3).endswith(b",") == (len(shape) == 1):
                return shape, m.group(2) == b"True", np.dtype(m.group(1).decode("ascii")), 10 + hlen
    f = io.BytesIO(data)
    version = np.lib.format.read_magic(f)
    if version not in ((1, 0), (2, 0), (3, 0)):
        raise ValueError("unsupported format version %d.%d" % version)
    shape, fortran, dt = np.lib.format._read_array_header(f, version, max_header_size=MAX_HEADER)
    return shape, fortran, dt, f.tell()


def load_npy(name, data):
    try:
        shape, fortran, dt, start = read_header(data)
    except Exception as e:  # NumPy raises ValueError, SyntaxError, ...
        raise bad("input %r: npy: %s" % (name, one_line(e)))
    check_dtype(dt)
    if len(shape) > MAX_RANK:
        raise bad("input %r: rank %d exceeds the maximum of %d" % (name, len(shape), MAX_RANK))
    n = 1
    for d in shape:
        n *= d
    want = n * dt.itemsize
    have = len(data) - start
    if have != want:
        raise bad("input %r: npy: shape %s of %s needs %d payload bytes, the file has %d" % (name, shape, dt.str, want, have))
    if n == 0:
        return np.empty(shape, dtype=dt)
    a = np.frombuffer(data, dtype=dt, count=n, offset=start)
    return a.reshape(shape, order="F" if fortran else "C")


def one_line(e):
    s = str(e).strip().replace("\n", " ")
    return s if s else type(e).__name__


# ---------------------------------------------------------------- getitem

NEWAXIS_BASES = ("np", "numpy", "tf")
MSG_INVALID_INDEX = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                     "and integer or boolean arrays are valid indices")
MSG_ADVANCED = "advanced indexing is not supported yet"
MSG_SLICE_INDEX = "slice indices must be integers or None or have an __index__ method"

# value kinds of an evaluated item expression
K_OTHER, K_INT, K_BOOL, K_NONE = 0, 1, 2, 3


def describe(e):
    if isinstance(e, ast.Constant):
        v = e.value
        if v is None:
            return "None"
        if v is Ellipsis:
            return "an ellipsis"
        if isinstance(v, bool):
            return "a constant"
        if isinstance(v, float):
            return "a float"
        if isinstance(v, complex):
            return "a complex number"
        if isinstance(v, int):
            return "a number"
        if isinstance(v, str):
            return "a string"
        if isinstance(v, bytes):
            return "a bytes literal"
    if isinstance(e, ast.Name):
        return "the name '%s'" % e.id[:40]
    if isinstance(e, ast.Attribute):
        return "an attribute"
    return "a " + type(e).__name__ + " expression"


def leaf(e):
    """Evaluates a non-unary expression: (kind, int value, description,
    is_number)."""
    if isinstance(e, ast.Constant):
        v = e.value
        if v is None:
            return K_NONE, None, "None", False
        if isinstance(v, bool):
            return K_BOOL, int(v), "a boolean", False
        if isinstance(v, int):
            return K_INT, v, "a number", False
        if isinstance(v, (float, complex)):
            return K_OTHER, None, describe(e), True
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.attr == "newaxis" \
            and e.value.id in NEWAXIS_BASES:
        return K_NONE, None, "newaxis", False
    return K_OTHER, None, describe(e), False


def evaluate(e):
    """Evaluates e as engine/expr does: a literal, True, False, None or
    np.newaxis under any chain of unary -, +, ~ and not."""
    ops = []
    while isinstance(e, ast.UnaryOp):
        ops.append(e.op)
        e = e.operand
    kind, n, what, number = leaf(e)
    for op in reversed(ops):
        if isinstance(op, ast.Not):
            if kind not in (K_INT, K_BOOL):
                return K_OTHER, None, "a 'not' expression"
            kind, n = K_BOOL, int(n == 0)
            continue
        if kind not in (K_INT, K_BOOL):
            if number and not isinstance(op, ast.Invert):
                continue  # -1.5 is still a float
            return K_OTHER, None, "a unary operation on " + what
        kind = K_INT
        if isinstance(op, ast.USub):
            n = -n
        elif isinstance(op, ast.Invert):
            n = ~n
        elif not isinstance(op, ast.UAdd):
            return K_OTHER, None, "an unknown unary operation"
    return kind, n, what


def parse_index(src):
    """Parses "x[...]" into a tuple key for NumPy, rejecting what
    engine/expr rejects with the same kinds."""
    if len(src.encode("utf-8", "surrogatepass")) > MAX_SOURCE:
        raise invalid("index source is longer than the limit of %d bytes" % MAX_SOURCE)
    norm = src.replace("\r\n", "\n").replace("\r", "\n")
    text = norm.lstrip(" \t\n")
    # Drop comments: a '#' outside a comment can only be inside a string
    # literal, and any string literal makes the index invalid either way.
    # (Python refuses a NUL byte even inside a comment; engine/expr does not.)
    code = "\n".join(line.split("#", 1)[0] for line in text.split("\n"))
    if "\f" in code or "\v" in code:
        # Python's tokenizer takes form feed (and, inside brackets, vertical
        # tab) as white space; the Python 3.4 lexer of engine/expr does not.
        raise invalid("syntax error: form feed or vertical tab in index %r" % src[:120])
    check_tokens(code)
    try:
        tree = ast.parse(code, mode="eval")
    except (RecursionError, MemoryError) as e:
        raise TooDeep("Python's parser cannot parse index %r: %s" % (src[:60], type(e).__name__))
    except SyntaxError as e:
        if "too many nested" in str(e) or "too complex" in str(e):
            raise TooDeep("Python's parser cannot parse index %r: %s" % (src[:60], one_line(e)))
        raise invalid("cannot parse index %r: %s" % (src[:120], one_line(e)))
    except Exception as e:  # ValueError (NUL bytes), ...
        raise invalid("cannot parse index %r: %s" % (src[:120], one_line(e)))
    body = tree.body
    if not isinstance(body, ast.Subscript):
        raise invalid("index must be a single subscript of a name, like x[1, 2:4]")
    if not isinstance(body.value, ast.Name):
        raise invalid("index must subscript a plain name, like x[1, 2:4]")
    s = body.slice
    if isinstance(s, ast.Tuple):
        dims = s.elts
    else:
        dims = [s]
    if len(dims) > MAX_ITEMS:
        raise invalid("too many indices for array: %d items, at most %d are allowed" % (len(dims), MAX_ITEMS))
    key = []
    ellipsis = False
    for i, d in enumerate(dims):
        if isinstance(d, ast.Slice):
            item = convert_slice(i, d)
        else:
            item = convert_item(i, d)
        if item is Ellipsis:
            if ellipsis:
                raise invalid("item %d: an index can only have a single ellipsis ('...')" % (i + 1))
            ellipsis = True
        key.append(item)
    return tuple(key)


def check_tokens(text):
    """Rejects numeric literals that Python 3.11 accepts but the Python 3.4
    grammar of engine/expr does not (digit group underscores)."""
    if "_" not in text:
        return
    import tokenize
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except Exception:
        return  # ast.parse reports it
    for t in toks:
        if t.type == tokenize.NUMBER and "_" in t.string:
            raise invalid("syntax error: digit separators in %r are not Python 3.4 syntax" % t.string)


def convert_item(i, e):
    if isinstance(e, ast.Constant) and e.value is Ellipsis:
        return Ellipsis
    if isinstance(e, ast.Name) and e.id == "Ellipsis":
        return Ellipsis  # the builtin name of ...
    if isinstance(e, (ast.Tuple, ast.List, ast.ListComp)):
        raise invalid("item %d is an array-like index: %s" % (i + 1, MSG_ADVANCED))
    kind, n, what = evaluate(e)
    if kind == K_NONE:
        return None
    if kind == K_BOOL:
        raise invalid("item %d is a boolean, a boolean index: %s" % (i + 1, MSG_ADVANCED))
    if kind == K_INT:
        if n < INT64_MIN or n > INT64_MAX:
            raise out_of_range("item %d: index does not fit in int64 and is out of bounds for any axis" % (i + 1))
        return n
    raise invalid("item %d is %s: %s" % (i + 1, what, MSG_INVALID_INDEX))


def convert_slice(i, s):
    parts = []
    for e, name in ((s.lower, "start"), (s.upper, "stop"), (s.step, "step")):
        if e is None:
            parts.append(None)
            continue
        kind, n, what = evaluate(e)
        if kind == K_NONE:
            parts.append(None)
        elif kind in (K_INT, K_BOOL):
            parts.append(n)  # NumPy clamps out-of-range bounds like CPython
        else:
            raise invalid("item %d: slice %s is %s: %s" % (i + 1, name, what, MSG_SLICE_INDEX))
    return slice(*parts)


def numpy_index(x, key):
    """x[key] by NumPy, as an array (never a scalar), with NumPy's errors
    mapped to kinds."""
    try:
        r = x[key]
        if not isinstance(r, np.ndarray):
            # A full integer index gives a scalar; the same index with a
            # trailing ellipsis gives the 0-d array view, bytes untouched.
            r = x[key + (Ellipsis,)]
    except IndexError as e:
        msg = one_line(e)
        if "out of bounds" in msg:
            raise out_of_range(msg)
        raise invalid(msg)
    except (ValueError, TypeError) as e:
        raise invalid(one_line(e))
    return r


def op_getitem(spec, inputs):
    key = parse_index(spec["index"])
    x = inputs["x"]
    return numpy_index(x, key), x.dtype


# ---------------------------------------------------------------- strided_slice


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

    # Sparse spec: an implicit ellipsis at position n if none in 0..n-1.
    ellipsis_at = -1
    new_after = 0
    for i in range(n):
        if ellipsis_at >= 0 and new.has(i):
            new_after += 1
        if ell.has(i):
            ellipsis_at = i
    sparse_len = n
    if ellipsis_at < 0:
        ellipsis_at, sparse_len = n, n + 1

    # Dense spec, in output order: ("dim", dense index) or ("new",).
    rank = x.ndim
    dense = [None] * rank  # per input dim: (begin, end, stride, bmask, emask, shrink)
    order = []
    full = 0
    for i in range(sparse_len):
        if i == ellipsis_at:
            nxt = min(rank - (sparse_len - i) + 1 + new_after, rank)
            while full < nxt:
                dense[full] = (0, 0, 1, True, True, False)
                order.append(full)
                full += 1
        elif new.has(i):
            order.append(-1)
        else:
            if full == rank:
                raise invalid("index out of range using input dim %d; input has only %d dims" % (full, rank))
            dense[full] = (begin[i], end[i], strides[i], bm.has(i), em.has(i), shr.has(i))
            order.append(full)
            full += 1
    out_rank = sum(1 for o in order if o < 0 or not dense[o][5])
    if out_rank > MAX_RANK:
        raise invalid("number of dimensions must be within [0, %d], the result would have %d" % (MAX_RANK, out_rank))

    # Per dimension, in order: TF's checks; the range itself goes to NumPy.
    items = [None] * rank
    for i in range(rank):
        b, e, s, bmask, emask, shrink = dense[i]
        d = x.shape[i]
        if s == 0:
            raise invalid("strides[%d] must be non-zero" % i)
        if shrink:
            if s < 0:
                raise invalid("only stride 1 allowed on non-range indexing (dimension %d has stride %d)" % (i, s))
            pos = b + d if b < 0 else b
            if pos < 0 or pos >= d:
                raise out_of_range("slice index %d of dimension %d out of bounds (size %d)" % (b, i, d))
            items[i] = b
        else:
            items[i] = slice(None if bmask else b, None if emask else e, s)
    key = tuple(None if o < 0 else items[o] for o in order) + (Ellipsis,)
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

    batch = 1
    for d in params.shape[:b]:
        batch *= d
    per_batch = rows // batch
    dims = params.shape[b:b + k]
    tail = params.shape[b + k:]
    # uint64 values above int64 wrap to negative numbers: out of range.
    idx = indices.astype(np.int64).reshape(batch, per_batch, k)
    ok = np.ones((batch, per_batch), dtype=bool)
    for j, d in enumerate(dims):
        ok &= (idx[:, :, j] >= 0) & (idx[:, :, j] < d)
    if not ok.all():
        if policy == "error":
            r = int(np.argmin(ok.reshape(-1)))
            row = idx.reshape(-1, k)[r].tolist()
            raise out_of_range("indices row %d = %s does not index into param shape %s" % (r, row, params.shape))
        idx = np.where(ok[:, :, None], idx, 0)
    pb = params.reshape((batch,) + dims + tail)
    bidx = np.broadcast_to(np.arange(batch).reshape(batch, 1), (batch, per_batch))
    res = pb[(bidx,) + tuple(idx[:, :, j] for j in range(k))]
    if not ok.all():
        res[~ok] = np.zeros((), dtype=params.dtype)
    return res.reshape(out_shape), params.dtype


# ---------------------------------------------------------------- protocol

OPS_FUNC = {
    "getitem": op_getitem,
    "strided_slice": op_strided_slice,
    "slice": op_slice,
    "gather_nd": op_gather_nd,
}


def evaluate_case(case):
    """Returns the .npy bytes of the result or raises CaseError."""
    spec = parse_spec(case)
    inputs = load_inputs(case, spec["op"])
    result, dtype = OPS_FUNC[spec["op"]](spec, inputs)
    out = np.array(result, dtype=dtype, order="C", copy=True)
    return npy_header(out) + out.tobytes()


HEADERS = {}


def npy_header(arr):
    """Returns the header np.save writes for the C-contiguous arr (made by
    NumPy's own header writer, cached by dtype and shape)."""
    key = (arr.dtype.str, arr.shape)
    h = HEADERS.get(key)
    if h is None:
        buf = io.BytesIO()
        np.lib.format._write_array_header(buf, np.lib.format.header_data_from_array_1_0(arr), None)
        h = buf.getvalue()
        if len(HEADERS) > 10000:
            HEADERS.clear()
        HEADERS[key] = h
    return h


def respond(line):
    """Returns the response line for one request line, or None when the
    request has no usable id."""
    try:
        case = json.loads(line)
    except Exception as e:  # ValueError, UnicodeDecodeError, RecursionError
        log("request is not JSON: %s" % one_line(e))
        return None
    if not isinstance(case, dict) or "id" not in case:
        log("request without an id: %s" % short(case))
        return None
    rid = json.dumps(case["id"])
    try:
        data = evaluate_case(case)
    except CaseError as e:
        return '{"id":%s,"error":{"kind":"%s","message":%s}}\n' % (rid, e.kind, json.dumps(e.message))
    except TooDeep as e:
        return '{"id":%s,"skip":%s}\n' % (rid, json.dumps(str(e)))
    except MemoryError:
        return '{"id":%s,"skip":"out of memory"}\n' % rid
    except RecursionError as e:
        return '{"id":%s,"error":{"kind":"invalid_spec","message":%s}}\n' % (rid, json.dumps(one_line(e)))
    except Exception as e:
        # A bug of this oracle, not a property of the case: say so loudly
        # rather than die or invent an error kind.
        log("internal error on request %s: %s: %s" % (rid, type(e).__name__, one_line(e)))
        return '{"id":%s,"skip":%s}\n' % (rid, json.dumps("numpy oracle internal error: %s: %s" % (type(e).__name__, one_line(e))))
    return '{"id":%s,"output":"%s"}\n' % (rid, base64.b64encode(data).decode("ascii"))


def log(msg):
    sys.stderr.write("numpy oracle: %s\n" % msg)
    sys.stderr.flush()


def main():
    out = sys.stdout
    out.write(json.dumps({"hello": {"name": NAME, "version": np.__version__, "ops": OPS}}) + "\n")
    out.flush()
    fd = sys.stdin.fileno()
    pending = b""
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        pending += chunk
        lines = pending.split(b"\n")
        pending = lines.pop()
        # Answer every complete line of this chunk, then flush: requests
        # that arrive together are answered together. A slow case flushes
        # what came before it.
        batch = []
        size = 0
        t0 = time.monotonic()
        for line in lines:
            if not line.strip():
                continue
            try:
                r = respond(line)
            except Exception as e:  # never die on one request
                log("internal error: %s" % one_line(e))
                r = None
            if r is not None:
                batch.append(r)
                size += len(r)
            if size > (1 << 20) or time.monotonic() - t0 > 0.05:
                out.write("".join(batch))
                out.flush()
                batch, size, t0 = [], 0, time.monotonic()
        if batch:
            out.write("".join(batch))
            out.flush()
    if pending.strip():
        r = respond(pending)
        if r is not None:
            out.write(r)
            out.flush()


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
