#!/usr/bin/python3
"""conform/1 oracle backed by NumPy.

Run with /usr/bin/python3 (Debian's python3-numpy). It reads one JSON request
per line on stdin and writes one JSON response per request on stdout, after a
hello line; see "Protocol conform/1" in the project's design notes and
oracle/README.md.

Ops:
  getitem        NumPy indexing, np.asarray(x[key]), evaluated by NumPy
                 itself. The index string is parsed with the ast module
                 (never eval'd) and must be what conform's engine/expr
                 accepts; its common simple shapes are read by fast_index,
                 which gives the same keys and errors without ast. Advanced
                 indices: names of integer or boolean index arrays (the
                 case's other inputs), inline lists of integers or booleans
                 (nested), True and False (see advanced_index).
  strided_slice  TF's StridedSlice, translated entry by entry into a NumPy
                 index with TF's extra rules, then evaluated by NumPy.
  slice          tf.slice: TF's checks, then NumPy slicing.
  gather_nd      tf.gather_nd (batch_dims, bad_indices error|zero) written
                 with NumPy fancy indexing.
  onnx_slice     ONNX Slice-13 (starts, ends, optional axes and steps): the
                 specification's clamping, then a NumPy basic slice.
  onnx_gather_nd ONNX GatherND-13 (batch_dims): int64 indices, negative
                 components wrapped once, gathered with np.ravel_multi_index
                 and NumPy fancy indexing.
  take, take_along_axis
                 np.take (axis or flattened, mode raise|wrap|clip) and
                 np.take_along_axis, by NumPy itself after NumPy's own checks.
  gather         tf.gather (axis, batch_dims, bad_indices error|zero) with
                 NumPy fancy indexing.
  onnx_gather, onnx_gather_elements
                 ONNX Gather-13 and GatherElements-13 (axis): int32 or int64 indices,
                 negative ones wrapped once; np.take and np.take_along_axis.

Every result keeps the dtype of x (params for gather_nd, data for the ONNX
ops, a or arr for take and take_along_axis), byte order included, and is
written with np.save; except getitem, whose
result is np.asarray(x[key]): a full integer index (x[1, 2]; x[()] on a 0-d
array) makes NumPy return a scalar, whose array has native byte order and, for
S and U, the string's own length (see op_getitem).
"""

import ast
import binascii
import io
import json
import keyword
import os
import re
import sys
import time
import warnings

import numpy as np

a2b_base64 = binascii.a2b_base64
b2a_base64 = binascii.b2a_base64
ndarray = np.ndarray

NAME = "numpy"
OPS = ["getitem", "strided_slice", "slice", "gather_nd", "onnx_slice", "onnx_gather_nd",
       "take", "take_along_axis", "gather", "onnx_gather", "onnx_gather_elements"]

MAX_RANK = 32          # NPY_MAXDIMS
MAX_SPEC_LENGTH = 31   # TF: strided_slice specs have n < 32 entries
MAX_ITEMS = 64         # NumPy: at most 2*NPY_MAXDIMS index items
MAX_SOURCE = 64 << 10  # engine/expr: longest index source
MAX_HEADER = 10000     # NumPy 1.24 max_header_size
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
MASK64 = (1 << 64) - 1

# The inputs of each op; getitem takes "x" plus one input per name its
# subscript uses (see load_getitem_inputs).
OP_INPUTS = {
    "getitem": ["x"],
    "strided_slice": ["x"],
    "slice": ["x"],
    "gather_nd": ["params", "indices"],
    "onnx_slice": ["data"],
    "onnx_gather_nd": ["data", "indices"],
    "take": ["a", "indices"],
    "take_along_axis": ["arr", "indices"],
    "gather": ["params", "indices"],
    "onnx_gather": ["data", "indices"],
    "onnx_gather_elements": ["data", "indices"],
}
OP_INPUT_SET = {op: frozenset(names) for op, names in OP_INPUTS.items()}
# The fields of each op, in the order of OPS.
OP_FIELDS = {
    "getitem": ["index"],
    "strided_slice": ["begin", "end", "strides", "begin_mask", "end_mask",
                      "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"],
    "slice": ["begin", "size"],
    "gather_nd": ["batch_dims", "bad_indices"],
    "onnx_slice": ["starts", "ends", "axes", "steps"],
    "onnx_gather_nd": ["batch_dims"],
    "take": ["axis", "mode"],
    "take_along_axis": ["axis"],
    "gather": ["axis", "batch_dims", "bad_indices"],
    "onnx_gather": ["axis"],
    "onnx_gather_elements": ["axis"],
}
# Foreign fields, one rule for every op: a field that belongs to any other
# op and not to the case's own op is bad_input ("axes" in a getitem case,
# "mode" in a gather case); any other unknown field is metadata. FOREIGN
# lists them per op in a fixed order (OPS, then each op's fields), so the
# first one present is the one reported.
FOREIGN = {op: [f for other in OPS if other != op for f in OP_FIELDS[other] if f not in OP_FIELDS[op]]
           for op in OPS}
FOREIGN = {op: list(dict.fromkeys(fs)) for op, fs in FOREIGN.items()}
FOREIGN_SET = {op: frozenset(fs) for op, fs in FOREIGN.items()}

# NumPy 1.24 warns (DeprecationWarning) where it still ignores an index out
# of bounds because the result of an advanced index is empty; the warning
# is no part of the answer and would only fill the log.
warnings.filterwarnings("ignore", category=DeprecationWarning)

if hasattr(sys, "set_int_max_str_digits"):
    # Integer literals of any length are valid indices or slice bounds.
    sys.set_int_max_str_digits(0)


class CaseError(Exception):
    """A rejected case: kind is invalid_spec, out_of_range or bad_input."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind
        self.message = message


class Skip(Exception):
    """A case this oracle cannot answer with NumPy's result: it is skipped
    with the message."""


class TooDeep(Skip):
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
    for x in v:
        if type(x) is not int or x < INT64_MIN or x > INT64_MAX:
            return [int64(x, "%s[%d]" % (name, i)) for i, x in enumerate(v)]
    return list(v)


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


NO_MASK = Mask()  # never modified


def mask(case, name):
    if name not in case:
        return NO_MASK
    v = case[name]
    if type(v) is int:
        return Mask(int64(v, name) & MASK64)
    if type(v) is list and len(v) <= 64:
        bits = 0
        for i, e in enumerate(v):
            if e.__class__ is not int or (e != 0 and e != 1):
                break
            if e:
                bits |= 1 << i
        else:
            return Mask(bits)
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
    """Checks the case fields in the order casefile does."""
    if "op" not in case:
        raise bad('case has no "op" field')
    op = case["op"]
    if not isinstance(op, str):
        raise bad('"op" must be a string')
    if op not in OP_FIELDS:
        raise bad("unknown op %r (want one of %s)" % (op, ", ".join(OPS)))
    if not FOREIGN_SET[op].isdisjoint(case):
        for f in FOREIGN[op]:
            if f in case:
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
    elif op == "gather_nd" or op == "onnx_gather_nd":
        spec["batch_dims"] = batch_dims(case)
        if op == "gather_nd":
            spec["bad_indices"] = bad_indices(case)
    elif op == "onnx_slice":
        spec["starts"] = ints(case, "starts", True)
        spec["ends"] = ints(case, "ends", True)
        spec["axes"] = ints(case, "axes", False)    # None: omitted
        spec["steps"] = ints(case, "steps", False)  # None: omitted
    elif op == "take":
        spec["axis"] = axis_field(case, None, True)  # None: flattened
        mode = case.get("mode", "raise")
        if not isinstance(mode, str) or mode not in ("raise", "wrap", "clip"):
            raise bad('"mode" must be "raise", "wrap" or "clip"')
        spec["mode"] = mode
    elif op == "take_along_axis":
        if "axis" not in case:
            raise bad('take_along_axis case has no "axis" field (null flattens)')
        spec["axis"] = axis_field(case, None, True)
    elif op == "gather":
        spec["batch_dims"] = batch_dims(case)
        # tf.gather: axis defaults to batch_dims, the first non-batch dim
        spec["axis"] = axis_field(case, spec["batch_dims"], False)
        spec["bad_indices"] = bad_indices(case)
    else:  # onnx_gather, onnx_gather_elements
        spec["axis"] = axis_field(case, 0, False)
    return spec


def batch_dims(case):
    b = 0
    if "batch_dims" in case:
        b = case["batch_dims"]
        if not is_int(b) or b < INT64_MIN or b > INT64_MAX:
            raise bad('"batch_dims" must be an integer')
        if b < -(1 << 31) or b >= 1 << 31:
            raise invalid("batch_dims %d is out of range" % b)
    return b


def bad_indices(case):
    policy = case.get("bad_indices", "error")
    if policy not in ("error", "zero") or not isinstance(policy, str):
        raise bad('"bad_indices" must be "error" or "zero"')
    return policy


def axis_field(case, default, nullable):
    """The "axis" field: an integer within int64; absent gives default,
    null gives None where nullable (NumPy's axis=None)."""
    if "axis" not in case:
        return default
    v = case["axis"]
    if v is None and nullable:
        return None
    if not is_int(v) or v < INT64_MIN or v > INT64_MAX:
        raise bad('"axis" must be an integer%s' % (" or null" if nullable else ""))
    return v


def load_inputs(case, op, want=None, want_set=None):
    """Loads the inputs named want (default: the op's), in that order,
    after checking that there are no others."""
    if "inputs" not in case:
        raise bad('case has no "inputs" field')
    inputs = case["inputs"]
    if not isinstance(inputs, dict):
        raise bad('"inputs" must be an object mapping input names to .npy files')
    if want is None:
        want, want_set = OP_INPUTS[op], OP_INPUT_SET[op]
    if inputs.keys() != want_set:
        for name in sorted(inputs):
            if name not in want_set:
                if op == "getitem" and name != "x":
                    raise bad("getitem input %r is not a name of the index" % name)
                raise bad("op %s has no input %r (it takes %s)" % (op, name, ", ".join(want)))
    out = {}
    for name in want:
        if name not in inputs:
            if op == "getitem" and name != "x":
                raise bad("the index names %r, which is not an input of the case" % name)
            raise bad("op %s needs input %r" % (op, name))
        v = inputs[name]
        if not isinstance(v, str):
            raise bad("input %r must be a string" % name)
        try:
            # base64.b64decode(v.encode("ascii"), validate=True), inlined
            # (binascii reads an ASCII str as its bytes)
            data = a2b_base64(v if v.isascii() else v.encode("ascii"), strict_mode=True)
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


# Checked canonical headers: the bytes up to the payload (version 1.0
# files) -> (shape, order, dtype, payload offset, element count, payload
# size).
NPY_CACHE = {}
NPY_MAGIC_1_0 = b"\x93NUMPY\x01\x00"


# Parts of canonical headers: descr -> checked dtype (or False), shape text
# -> (shape, element count) (or False).
DESCRS = {}
SHAPES = {}


def canonical_header(data, start):
    """The NPY_CACHE entry of a version 1.0 file whose header (ending at
    start) is canonical and acceptable, or None: the general path then
    decides, with its own errors."""
    m = CANONICAL_HEADER.fullmatch(data, 10, start)
    if m is None:
        return None
    descr, fortran, sh = m.groups()
    dt = DESCRS.get(descr)
    if dt is None:
        try:
            dt = np.dtype(descr.decode("ascii"))
            check_dtype(dt)
        except Exception:
            dt = False
        if len(DESCRS) < 4096:
            DESCRS[descr] = dt
    sn = SHAPES.get(sh)
    if sn is None:
        sn = False
        try:
            if sh:
                shape = tuple([int(d) for d in sh.rstrip(b",").split(b", ")])
                if sh.endswith(b",") != (len(shape) == 1):
                    shape = None
            else:
                shape = ()
        except Exception:
            shape = None
        if shape is not None and len(shape) <= MAX_RANK:
            n = 1
            for d in shape:
                n *= d
            sn = (shape, n)
        if len(sh) <= 1024:
            if len(SHAPES) >= 4096:
                SHAPES.clear()
            SHAPES[sh] = sn
    if dt is False or sn is False:
        return None
    shape, n = sn
    return shape, ("F" if fortran == b"True" else "C"), dt, start, n, n * dt.itemsize


def load_npy(name, data):
    if data[:8] == NPY_MAGIC_1_0 and len(data) >= 10:
        start = 10 + (data[8] | data[9] << 8)
        if len(data) >= start:
            head = data[:start]
            hit = NPY_CACHE.get(head)
            if hit is None:
                hit = canonical_header(data, start)
                if hit is not None and start <= 1024:
                    if len(NPY_CACHE) >= 4096:
                        NPY_CACHE.clear()
                    NPY_CACHE[head] = hit
            if hit is not None:
                shape, order, dt, start, n, want = hit
                have = len(data) - start
                if have != want:
                    raise bad("input %r: npy: shape %s of %s needs %d payload bytes, the file has %d"
                              % (name, shape, dt.str, want, have))
                if n == 0:
                    return np.empty(shape, dtype=dt)
                return ndarray(shape, dt, data, start, None, order)
    return load_npy_slow(name, data)


def load_npy_slow(name, data):
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
    is_number, is_literal). A literal of K_OTHER is a float or complex
    number, a string, bytes or the ellipsis (also written Ellipsis): a
    value NumPy refuses as an index, not an expression."""
    if isinstance(e, ast.Constant):
        v = e.value
        if v is None:
            return K_NONE, None, "None", False, True
        if isinstance(v, bool):
            return K_BOOL, int(v), "a boolean", False, True
        if isinstance(v, int):
            return K_INT, v, "a number", False, True
        if isinstance(v, (float, complex)):
            return K_OTHER, None, describe(e), True, True
        if isinstance(v, (str, bytes)) or v is Ellipsis:
            return K_OTHER, None, describe(e), False, True
    if isinstance(e, ast.Name) and e.id == "Ellipsis":
        return K_OTHER, None, "an ellipsis", False, True
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.attr == "newaxis" \
            and e.value.id in NEWAXIS_BASES:
        return K_NONE, None, "newaxis", False, True
    return K_OTHER, None, describe(e), False, False


def evaluate(e):
    """Evaluates e as engine/expr does: a literal, True, False, None or
    np.newaxis under any chain of unary -, +, ~ and not. Returns (kind,
    int value, description, is_literal): see leaf."""
    ops = []
    while isinstance(e, ast.UnaryOp):
        ops.append(e.op)
        e = e.operand
    kind, n, what, number, literal = leaf(e)
    for op in reversed(ops):
        if isinstance(op, ast.Not):
            if kind not in (K_INT, K_BOOL):
                return K_OTHER, None, "a 'not' expression", False
            kind, n = K_BOOL, int(n == 0)
            continue
        if kind not in (K_INT, K_BOOL):
            if number and not isinstance(op, ast.Invert):
                continue  # -1.5 is still a float
            return K_OTHER, None, "a unary operation on " + what, False
        kind = K_INT
        if isinstance(op, ast.USub):
            n = -n
        elif isinstance(op, ast.Invert):
            n = ~n
        elif not isinstance(op, ast.UAdd):
            return K_OTHER, None, "an unknown unary operation", False
    return kind, n, what, literal


def non_literal(e):
    """The description of the first part of e that is not a literal (see
    leaf; lists and tuples of literals are literals), or None."""
    stack = [e]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.List, ast.Tuple)):
            stack.extend(node.elts)
            continue
        kind, _, what, literal = evaluate(node)
        if kind == K_OTHER and not literal:
            return what
    return None


# parse_index results by source: (None, key) or (exception class, args).
INDEX_CACHE = {}


def parse_index(src):
    """Parses "x[...]" into a tuple key for NumPy, rejecting what
    engine/expr rejects with the same kinds."""
    hit = INDEX_CACHE.get(src)
    if hit is not None:
        if hit[0] is None:
            return hit[1]
        raise hit[0](*hit[1])
    try:
        if len(src.encode("utf-8", "surrogatepass")) > MAX_SOURCE:
            raise invalid("index source is longer than the limit of %d bytes" % MAX_SOURCE)
        key = fast_index(src)
        if key is None:
            key = parse_index_ast(src)
        hit = (None, key)
    except CaseError as e:
        hit = (CaseError, (e.kind, e.message))
        raise
    except TooDeep as e:
        hit = (TooDeep, e.args)
        raise
    finally:
        if hit is not None and len(src) <= 1000:
            if len(INDEX_CACHE) >= 4096:
                INDEX_CACHE.clear()
            INDEX_CACHE[src] = hit
    return key


# The common shape of an index, "x[" items "]" with items of the forms
# below, possibly all in one pair of parentheses, which fast_index reads
# without the ast module. Anything else goes to ast.
FAST_INDEX = re.compile(r"[ \t\n]*x[ \t]*\[([-+~ \t\n0-9:,.()a-zA-Z_]*)\][ \t]*\n*")
# a name of an index array (an input of the case), as fast_index reads it
FAST_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
# a literal (decimal, hex, octal, binary integer, True, False) under unary -,
# + and ~ and parentheses; all short enough for Python's parser
FAST_VALUE = re.compile(r"([-+~( \t\n]{0,20})(0+|[1-9][0-9]{0,99}|0[xX][0-9a-fA-F]{1,100}|0[oO][0-7]{1,100}"
                        r"|0[bB][01]{1,300}|True|False)([) \t\n]{0,20})")
FAST_NONE = {"None": None, "np.newaxis": None, "numpy.newaxis": None, "tf.newaxis": None}
FAST_ATOMS = dict(FAST_NONE, **{"...": Ellipsis, "Ellipsis": Ellipsis})
WS = " \t\n"


class Named:
    """An index item that names an input of the case: an integer or
    boolean index array (x[i], x[m, 1:])."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class Refused:
    """An index item NumPy refuses when its pass over the items reaches it
    (a float, a string, a list NumPy makes no integer or boolean array of,
    a second ellipsis: invalid_spec; an integer beyond int64: out_of_range,
    conform's decision): the CaseError it raises there. The parse keeps it
    as an item so that the names of the subscript are still known."""

    __slots__ = ("kind", "message")

    def __init__(self, error):
        self.kind, self.message = error.kind, error.message

    def error(self):
        """A fresh CaseError (the parsed key is cached and reused)."""
        return CaseError(self.kind, self.message)


class BadSlice:
    """A slice with a bound that is a literal but not an integer or None
    (x[1.5:], x[:'a']): NumPy's TypeError, raised where NumPy reads the
    slice (with the bounds of the integer items, in item order)."""

    __slots__ = ("kind", "message")

    def __init__(self, error):
        self.kind, self.message = error.kind, error.message

    def error(self):
        """A fresh CaseError (the parsed key is cached and reused)."""
        return CaseError(self.kind, self.message)


class AdvKey:
    """A parsed index with advanced items: index arrays given by name
    (Named), inline lists (int64 or bool arrays) or True/False (Python
    bools, which NumPy reads as 0-d boolean arrays). want lists the inputs
    the case must have: "x", then each name of the index in order."""

    __slots__ = ("items", "want", "want_set")

    def __init__(self, items):
        self.items = items
        names = [it.name for it in items if type(it) is Named]
        self.want = list(dict.fromkeys(["x"] + names))
        self.want_set = frozenset(self.want)


def is_advanced(item):
    """Whether item needs advanced_index: an index array, or an item NumPy
    refuses (whose error advanced_index raises in NumPy's order)."""
    t = type(item)
    return t is Named or t is bool or t is ndarray or t is Refused or t is BadSlice


def make_key(items):
    """The parse result of items: a plain tuple for basic indexing, or an
    AdvKey when some item is advanced."""
    key = tuple(items)
    for item in key:
        if is_advanced(item):
            return AdvKey(key)
    return key


def fast_value(t):
    """evaluate() of a FAST_VALUE: (K_INT or K_BOOL, value), or None."""
    m = FAST_VALUE.fullmatch(t)
    if m is None:
        return None
    pre, lit, post = m.groups()
    if pre.count("(") != post.count(")"):
        return None
    if lit == "True" or lit == "False":
        kind, n = K_BOOL, int(lit == "True")
    else:
        kind, n = K_INT, int(lit, 0) if lit[1:2].isalpha() else int(lit)
    for op in reversed(pre):
        if op == "-":
            kind, n = K_INT, -n
        elif op == "~":
            kind, n = K_INT, ~n
        elif op == "+":
            kind = K_INT
    return kind, n


NOT_FAST = object()  # an item fast_index does not read
FAST_ITEMS = {}  # fast_item results by item text


def fast_item(p):
    """One item of a fast_index: an int, a bool, None, Ellipsis, a slice,
    a Named or NOT_FAST."""
    t = p.strip(WS)
    if t in FAST_ATOMS:
        return FAST_ATOMS[t]
    if FAST_NAME.fullmatch(t) and t not in ("True", "False") and not keyword.iskeyword(t):
        return Named(t)
    if ":" in t:
        bounds = t.split(":")
        if len(bounds) > 3:
            return NOT_FAST
        for j, b in enumerate(bounds):
            b = b.strip(WS)
            if not b or b in FAST_NONE:
                bounds[j] = None
            else:
                v = fast_value(b)
                if v is None:
                    return NOT_FAST
                bounds[j] = v[1]
        return slice(*bounds)
    v = fast_value(t)
    if v is None:
        return NOT_FAST  # also an empty item: "x[]", "x[1,,2]"
    return v[1] if v[0] == K_INT else v[1] == 1


def fast_index(src):
    """parse_index for the common shapes of index (see FAST_INDEX): the key,
    or None for "ask the ast module"."""
    m = FAST_INDEX.fullmatch(src)
    if m is None:
        return None
    body = m.group(1)
    if "(" in body:
        inner = body.strip(WS)
        if inner[:1] == "(" and inner[-1:] == ")" and inner.count("(") == 1 and inner.count(")") == 1:
            # one parenthesized expression or tuple: no slices in it
            body = inner[1:-1]
            if ":" in body:
                return None
            if not body.strip(WS):
                return ()  # x[()]
    parts = body.split(",")
    if len(parts) > 1 and not parts[-1].strip(WS):
        parts.pop()  # a trailing comma
    if len(parts) > MAX_ITEMS:
        return None
    items = []
    for p in parts:
        item = FAST_ITEMS.get(p, FAST_ITEMS)
        if item is FAST_ITEMS:
            item = fast_item(p)
            if len(p) <= 200:
                if len(FAST_ITEMS) >= 4096:
                    FAST_ITEMS.clear()
                FAST_ITEMS[p] = item
        if item is NOT_FAST:
            return None
        items.append(item)
    # As in parse_index_ast: the items NumPy refuses.
    ellipsis = False
    for i, item in enumerate(items):
        if item is Ellipsis:
            if ellipsis:
                items[i] = second_ellipsis(i)
            ellipsis = True
        elif type(item) is int and (item < INT64_MIN or item > INT64_MAX):
            items[i] = huge_index(i)
    return make_key(items)


def second_ellipsis(i):
    return Refused(invalid("item %d: an index can only have a single ellipsis ('...')" % (i + 1)))


def huge_index(i):
    return Refused(out_of_range("item %d: index does not fit in int64 and is out of bounds for any axis" % (i + 1)))


def parse_index_ast(src):
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
                item = second_ellipsis(i)
            ellipsis = True
        key.append(item)
    return make_key(key)


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
    if isinstance(e, ast.Name):
        return Named(e.id)  # an index array: the input of that name
    if isinstance(e, (ast.List, ast.Tuple)):
        what = non_literal(e)
        if what is not None:
            raise invalid("item %d is a list holding %s: conform evaluates no expressions" % (i + 1, what))
        try:
            return convert_list(i, e)  # x[[0, 2]], x[(0, 1), 2]
        except CaseError as err:
            return Refused(err)
    kind, n, what, literal = evaluate(e)
    if kind == K_NONE:
        return None
    if kind == K_BOOL:
        return n == 1  # True or False: NumPy's 0-d boolean index
    if kind == K_INT:
        if n < INT64_MIN or n > INT64_MAX:
            return huge_index(i)
        return n
    err = invalid("item %d is %s: %s" % (i + 1, what, MSG_INVALID_INDEX))
    if literal:
        return Refused(err)
    raise err


def convert_list(i, e):
    """An inline list or tuple (nested ones allowed) of integers and
    booleans as the array NumPy 1.24 makes of it for an index: bool if
    every element is a boolean (and there is one); otherwise integers, the
    booleans among them counting as 0 and 1: int64 when every integer fits
    in int64, uint64 when every one is beyond int64 but within uint64 (which
    NumPy casts to intp without a check: 2**64-1 reads as -1); integers of
    both ranges make a float64 array and one beyond both an object array,
    neither a valid index (invalid_spec), as is any other element or a
    ragged nesting (ValueError). An empty list is an intp index."""
    small = large = 0

    def walk(node):
        nonlocal small, large
        if isinstance(node, (ast.List, ast.Tuple)):
            return [walk(el) for el in node.elts]
        kind, n, what, _ = evaluate(node)
        if kind == K_INT:
            if INT64_MIN <= n <= INT64_MAX:
                small += 1
            elif 0 < n <= MASK64:
                large += 1
                n -= 1 << 64  # the int64 of the same bits
            else:
                raise invalid("item %d: list element %s fits neither int64 nor uint64 (an object array): %s"
                              % (i + 1, short(n), MSG_INVALID_INDEX))
        elif kind != K_BOOL:
            raise invalid("item %d: a list index holds %s; only integers and booleans are valid "
                          "in an index array" % (i + 1, "None" if kind == K_NONE else what))
        return n

    values = walk(e)
    if small and large:
        raise invalid("item %d: the list mixes integers of int64 and of uint64 beyond int64 (a float64 "
                      "array): %s" % (i + 1, MSG_INVALID_INDEX))
    try:
        arr = np.array(values, dtype=np.int64)
    except ValueError as err:  # ragged, or more than 32 dimensions
        raise invalid("item %d: the list is not an array: %s" % (i + 1, one_line(err)))
    if small == 0 and large == 0 and arr.size:
        arr = arr.astype(np.bool_)  # booleans only
    arr.flags.writeable = False  # cached with the parsed index
    return arr


def convert_slice(i, s):
    parts = []
    bad = None
    for e, name in ((s.lower, "start"), (s.upper, "stop"), (s.step, "step")):
        if e is None:
            parts.append(None)
            continue
        kind, n, what, literal = evaluate(e)
        if kind == K_NONE:
            parts.append(None)
        elif kind in (K_INT, K_BOOL):
            parts.append(n)  # NumPy clamps out-of-range bounds like CPython
        elif (non_literal(e) is None) if isinstance(e, (ast.List, ast.Tuple)) else literal:
            # A literal that is not an integer: NumPy's TypeError when it
            # reads the slice.
            if bad is None:
                bad = BadSlice(invalid("item %d: slice %s is %s: %s" % (i + 1, name, what, MSG_SLICE_INDEX)))
            parts.append(None)
        else:
            raise invalid("item %d: slice %s is %s: conform evaluates no expressions" % (i + 1, name, what))
    return slice(*parts) if bad is None else bad


def numpy_index(x, key, scalars=False):
    """x[key] by NumPy, with NumPy's errors mapped to kinds. A full integer
    index gives a NumPy scalar: with scalars, as np.asarray makes it (a 0-d
    array of the scalar's dtype: native byte order for numbers, S and U as
    wide as the string without trailing NULs); otherwise as the 0-d array
    view, bytes and dtype untouched."""
    try:
        r = x[key]
        if not isinstance(r, ndarray):
            # The same index with a trailing ellipsis gives the 0-d view.
            r = np.asarray(r) if scalars else x[key + (Ellipsis,)]
    except IndexError as e:
        msg = one_line(e)
        if "out of bounds" in msg:
            raise out_of_range(msg)
        raise invalid(msg)
    except (ValueError, TypeError) as e:
        raise invalid(one_line(e))
    except SystemError as e:
        # A U element holding a code point beyond U+10FFFF has no str
        # scalar (PyUnicode_New refuses it): NumPy itself has no answer.
        raise Skip("NumPy cannot make a scalar of this element: %s" % one_line(e))
    return r


def load_getitem_inputs(case, spec):
    """The inputs of a getitem case: "x" and one per name of the index, no
    others (bad_input). An index that does not parse names no inputs; its
    error comes after the inputs are read, as for every index error."""
    err = None
    try:
        key = parse_index(spec["index"])
    except (CaseError, TooDeep, RecursionError) as e:
        key, err = None, e
    if type(key) is AdvKey:
        inputs = load_inputs(case, "getitem", key.want, key.want_set)
    else:
        inputs = load_inputs(case, "getitem")
    if err is not None:
        raise err
    spec["key"] = key
    return inputs


def op_getitem(spec, inputs):
    """x[key] as np.asarray(x[key]): what NumPy returns, dtype included
    (see numpy_index). Every basic index but a full integer one gives a
    view with x's dtype; advanced indices give copies (advanced_index)."""
    key = spec["key"]
    if type(key) is AdvKey:
        r = advanced_index(inputs["x"], key.items, inputs)
    else:
        r = numpy_index(inputs["x"], key, scalars=True)
    return r, r.dtype


def advanced_index(x, items, inputs):
    """np.asarray(x[key]) for an index with advanced items, the names bound
    to the inputs.

    NumPy raises IndexError both for an index out of bounds (out_of_range)
    and for faults of the index itself (too many indices, a boolean array
    that does not match the dims it covers, index arrays that do not
    broadcast, a result of more than 32 dims: invalid_spec). So the faults
    of the index are checked here first, in the order NumPy 1.24 checks
    them (mapping.c: prepare_index converts each item in turn, then counts
    the indexed dims, then the result rank, then the boolean shapes; the
    integer items are bounds-checked before the index arrays are
    broadcast, and the arrays' values last). What NumPy can still refuse
    afterwards is a position out of bounds: the remaining IndexError is
    out_of_range, whatever its message."""
    ndim = x.ndim
    key = []
    # 1. NumPy's conversion of each item, in order: an array of another
    # kind than integer or boolean is refused. Unsigned values beyond int64
    # are NumPy's: an N-d array is cast to intp (2**64-1 reads as -1), a
    # 0-d one is refused at once (OverflowError: out_of_range).
    for i, it in enumerate(items):
        if type(it) is Refused:
            raise it.error()
        if type(it) is Named:
            a = inputs[it.name]
            k = a.dtype.kind
            if k == "u" and a.dtype.itemsize == 8:
                if a.ndim == 0 and int(a) > INT64_MAX:  # int: NumPy compares uint64 with int64 as float64
                    raise out_of_range("item %d: index %d does not fit in int64 and is out of bounds "
                                       "for any axis" % (i + 1, int(a)))
            elif k != "i" and k != "u" and k != "b":
                raise invalid("item %d: arrays used as indices must be of integer (or boolean) type, "
                              "input %r has dtype %s" % (i + 1, it.name, a.dtype.str))
            it = a
        key.append(it)
    # 2. The dims the items index: too many is invalid_spec.
    used = 0
    fancy = False       # an index array (not a 0-d integer one) or a boolean
    fancy_ndim = 0      # the most dims of an index array (a boolean one: 1)
    new_ndim = 0        # the result dims of slices, new axes and ellipsis
    newaxis = False
    ellipsis = False
    for it in key:
        t = type(it)
        if t is int:
            used += 1
        elif t is slice or t is BadSlice:
            used += 1
            new_ndim += 1
        elif it is None:
            newaxis = True
            new_ndim += 1
        elif it is Ellipsis:
            ellipsis = True
        elif t is bool:
            fancy = True
            fancy_ndim = max(fancy_ndim, 1)
        elif it.dtype.kind == "b":
            fancy = True
            fancy_ndim = max(fancy_ndim, 1)
            used += it.ndim
        elif it.ndim == 0:
            used += 1  # a 0-d integer array is an integer
        else:
            fancy = True
            fancy_ndim = max(fancy_ndim, it.ndim)
            used += 1
    if used > ndim:
        raise invalid("too many indices for array: array is %d-dimensional, but %d were indexed" % (ndim, used))
    rest = ndim - used  # the dims of the ellipsis, or the implied trailing ones
    new_ndim += rest
    # 3. The result rank.
    if (fancy or newaxis) and new_ndim + fancy_ndim > MAX_RANK:
        raise invalid("number of dimensions must be within [0, %d], indexing result would have %d"
                      % (MAX_RANK, new_ndim + fancy_ndim))
    # 4. Each boolean array must have the shape of the dims it covers; a
    # boolean dim of size 0 is not compared (NumPy skips it: x[np.ones(0,
    # bool)] selects nothing from a first dim of any size).
    pos = 0
    for it in key:
        t = type(it)
        if it is Ellipsis:
            pos += rest
        elif it is None or t is bool:
            pass
        elif t is ndarray and it.dtype.kind == "b":
            for j in range(it.ndim):
                if it.shape[j] != x.shape[pos + j] and it.shape[j] != 0:
                    raise invalid("boolean index did not match indexed array along dimension %d; dimension is %d "
                                  "but corresponding boolean dimension is %d" % (pos + j, x.shape[pos + j], it.shape[j]))
            pos += it.ndim
        else:
            pos += 1
    # 5. In item order, the integer items' bounds (0-d integer arrays
    # included) and the slices' steps (a zero step is a ValueError).
    pos = 0
    for it in key:
        t = type(it)
        if it is Ellipsis:
            pos += rest
        elif t is BadSlice:
            raise it.error()
        elif t is slice and it.step == 0:
            raise invalid("slice step cannot be zero")
        elif it is None or t is bool:
            pass
        elif t is int or (t is ndarray and it.ndim == 0 and it.dtype.kind != "b"):
            v, d = int(it), x.shape[pos]
            if v < -d or v >= d:
                raise out_of_range("index %d is out of bounds for axis %d with size %d" % (v, pos, d))
            pos += 1
        elif t is ndarray and it.dtype.kind == "b":
            pos += it.ndim
        else:
            pos += 1
    # 6. The index arrays must broadcast together (a boolean array counts as
    # the 1-d array of its nonzero positions, True as [0], False as []).
    if fancy:
        shapes = []
        for it in key:
            t = type(it)
            if t is bool:
                shapes.append((1 if it else 0,))
            elif t is ndarray:
                if it.dtype.kind == "b":
                    shapes.append((int(np.count_nonzero(it)),) if it.ndim else (1 if it else 0,))
                elif it.ndim:
                    shapes.append(it.shape)
        broadcast_or_fail(shapes)
    # 7. NumPy itself: what it can still refuse is a value out of bounds.
    try:
        r = x[tuple(key)]
        if not isinstance(r, ndarray):
            r = np.asarray(r)  # a full integer index of 0-d integer arrays
    except IndexError as e:
        raise out_of_range(one_line(e))
    except (ValueError, TypeError) as e:
        raise invalid(one_line(e))
    except SystemError as e:
        raise Skip("NumPy cannot make a scalar of this element: %s" % one_line(e))
    return r


def broadcast_or_fail(shapes):
    """The broadcast shape of shapes (NumPy's rule), or invalid_spec."""
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        off = n - len(s)
        for j, d in enumerate(s):
            o = out[off + j]
            if o == 1:
                out[off + j] = d
            elif d != 1 and d != o:
                raise invalid("shape mismatch: indexing arrays could not be broadcast together with shapes %s"
                              % " ".join(str(tuple(s)) for s in shapes))
    return tuple(out)


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
    if rows * k <= 64:
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
    res = params.reshape(-1, tail)[flat]
    if bad_rows:
        res[bad_rows] = np.zeros((), dtype=params.dtype)
    return res.reshape(out_shape), params.dtype


# ---------------------------------------------------------------- ONNX


def onnx_slice_item(d, start, end, step):
    """The Python slice that selects what ONNX Slice-13 selects on an axis
    of size d (step != 0). The specification: a negative start or end gets
    d added once; then, for step > 0, start and end are clamped into [0, d];
    for step < 0, start into [0, d-1] and end into [-1, d-1], where -1 means
    "before position 0". An axis of size 0 selects nothing (the clamp into
    [0, -1] is empty)."""
    if d == 0:
        return slice(0, 0, 1)
    if start < 0:
        start += d
    if end < 0:
        end += d
    if step > 0:
        return slice(min(max(start, 0), d), min(max(end, 0), d), step)
    start = min(max(start, 0), d - 1)
    end = min(max(end, -1), d - 1)
    # Both are now positions (non-negative), which a Python slice reads as
    # such; "before position 0" has no position, so it is an omitted end.
    return slice(start, None if end < 0 else end, step)


def op_onnx_slice(spec, inputs):
    x = inputs["data"]
    rank = x.ndim
    if rank == 0:
        raise invalid("cannot slice a scalar: ONNX Slice needs data of rank >= 1")
    starts, ends, axes, steps = spec["starts"], spec["ends"], spec["axes"], spec["steps"]
    n = len(starts)
    if len(ends) != n:
        raise invalid("starts and ends must have the same length, got %d and %d" % (n, len(ends)))
    if axes is not None and len(axes) != n:
        raise invalid("axes must have the length of starts (%d), got %d" % (n, len(axes)))
    if steps is not None and len(steps) != n:
        raise invalid("steps must have the length of starts (%d), got %d" % (n, len(steps)))
    key = [slice(None)] * rank
    named = set()
    for i in range(n):
        a = i if axes is None else axes[i]
        axis = a + rank if a < 0 else a
        if not 0 <= axis < rank:
            raise invalid("axes[%d] = %d is outside [-%d, %d) for data of rank %d" % (i, a, rank, rank, rank))
        if axis in named:
            raise invalid("axes[%d] = %d repeats axis %d" % (i, a, axis))
        named.add(axis)
        step = 1 if steps is None else steps[i]
        if step == 0:
            raise invalid("steps[%d] must be non-zero" % i)
        key[axis] = onnx_slice_item(x.shape[axis], starts[i], ends[i], step)
    return x[tuple(key)], x.dtype


INT64 = np.dtype(np.int64)


def op_onnx_gather_nd(spec, inputs):
    data, indices = inputs["data"], inputs["indices"]
    b = spec["batch_dims"]
    if indices.dtype.kind != "i" or indices.dtype.itemsize != 8:
        raise bad("ONNX GatherND takes int64 indices, got dtype %s" % indices.dtype.str)
    r, q = data.ndim, indices.ndim
    if r < 1 or q < 1:
        raise invalid("data and indices must have rank >= 1, got shapes %s and %s" % (data.shape, indices.shape))
    if b < 0 or b >= min(q, r):
        raise invalid("batch_dims = %d must be in [0, min(rank(indices), rank(data))) = [0, %d)" % (b, min(q, r)))
    if data.shape[:b] != indices.shape[:b]:
        raise invalid("batch dimensions differ: data.shape[:%d] = %s, indices.shape[:%d] = %s"
                      % (b, data.shape[:b], b, indices.shape[:b]))
    k = indices.shape[-1]
    if k > r - b:
        raise invalid("indices.shape[-1] = %d must be <= rank(data) - batch_dims = %d" % (k, r - b))
    out_shape = indices.shape[:-1] + data.shape[b + k:]
    if len(out_shape) > MAX_RANK:
        raise invalid("number of dimensions must be within [0, %d], GatherND result would have %d"
                      % (MAX_RANK, len(out_shape)))
    # The element count, dimension by dimension, and the byte size must
    # stay within int64.
    count = 1
    for d in out_shape:
        count *= d
        if count > INT64_MAX:
            break
    if count > INT64_MAX // data.dtype.itemsize:
        raise invalid("output shape %s is too large" % (out_shape,))
    rows = 1
    for d in indices.shape[:-1]:
        rows *= d
    if rows == 0 or (k == 0 and count == 0):
        # No tuples, or tuples without components (nothing to check) that
        # select empty slices: indices (2**40, 0) holds no data, so nothing
        # the size of its rows is allocated.
        return np.empty(out_shape, dtype=data.dtype), data.dtype
    dims = data.shape[b:b + k]
    tuples = indices.astype(INT64, copy=False).reshape(rows, k)
    if k > 0:
        # Every component must be in [-s, s) on its axis of size s.
        hi = np.array(dims, dtype=INT64)
        outside = (tuples < -hi) | (tuples >= hi)
        if outside.any():
            i = int(np.argmax(outside.any(axis=1)))
            raise out_of_range("indices tuple %d = %s is outside data.shape[%d:%d] = %s"
                               % (i, tuples[i].tolist(), b, b + k, dims))
        tuples = np.where(tuples < 0, tuples + hi, tuples)
        within = np.ravel_multi_index(tuple(tuples.T), dims)  # position in a batch entry
    else:
        within = np.zeros(rows, dtype=INT64)  # each tuple selects the whole entry
    # Rows of data viewed as (batch entries * index positions, slice).
    per_entry = 1
    for d in dims:
        per_entry *= d
    entries = 1
    for d in data.shape[:b]:
        entries *= d
    tail = 1
    for d in data.shape[b + k:]:
        tail *= d
    entry = np.arange(rows, dtype=INT64) // (rows // entries)
    flat = entry * per_entry + within
    res = data.reshape(entries * per_entry, tail)[flat]
    return res.reshape(out_shape), data.dtype


# ---------------------------------------------------------------- take, gather


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


def count_of(shape):
    """The number of elements of an array of shape."""
    n = 1
    for d in shape:
        n *= d
    return n


def op_take(spec, inputs):
    """np.take(a, indices, axis, mode), NumPy 1.24. Its own checks come
    first, made here in NumPy's order because two of them share an
    exception class with the bounds: the axis (AxisError; a 0-d a reads as
    a vector), the index dtype (cast to intp with the 'safe' rule: bool and
    integers up to uint32 pass, uint64, floats and the rest are a
    TypeError), the result rank (ValueError; NumPy 1.24 overruns its shape
    buffer beyond 64 dims instead). What NumPy raises after that is an
    IndexError, for a value out of bounds or a non-empty take from an
    empty axis: out_of_range. The result is np.asarray of NumPy's: a 0-d
    result is a scalar, so it has the native byte order and a string as
    wide as its value, as getitem's full integer index."""
    a, indices = inputs["a"], inputs["indices"]
    axis, mode = spec["axis"], spec["mode"]
    if axis is None:
        shape = (a.size,)
        ax = 0
    else:
        shape = a.shape if a.ndim else (1,)
        nd = len(shape)
        if not -nd <= axis < nd:
            raise invalid("axis %d is out of bounds for array of dimension %d" % (axis, nd))
        ax = axis + nd if axis < 0 else axis
    dt = indices.dtype
    # A 0-d index is cast by its value: a uint64 within int64 passes.
    if not (dt.kind == "b" or dt.kind == "i" or (dt.kind == "u" and dt.itemsize < 8)
            or (dt.kind == "u" and indices.ndim == 0 and int(indices) <= INT64_MAX)):
        raise invalid("cannot cast indices of dtype %s to int64 according to the rule 'safe'" % dt.str)
    out_shape = shape[:ax] + indices.shape + shape[ax + 1:]
    if len(out_shape) > MAX_RANK:
        raise invalid("number of dimensions must be within [0, %d], take result would have %d"
                      % (MAX_RANK, len(out_shape)))
    if mode == "wrap":
        # NumPy's wrap mode steps an index into range one axis length at a
        # time: an index near INT64_MIN takes ages, and into an axis of
        # length 0 it never ends (NumPy refuses that only when the result
        # has elements). The same positions, reduced here at once.
        n = shape[ax]
        if n == 0:
            if count_of(out_shape):
                raise out_of_range("cannot do a non-empty take from an empty axes.")
            return np.empty(out_shape, a.dtype), a.dtype
        indices = np.mod(indices.astype(INT64), n)
    try:
        r = np.asarray(np.take(a, indices, axis=axis, mode=mode))
    except IndexError as e:
        raise out_of_range(one_line(e))
    except (ValueError, TypeError) as e:
        raise invalid(one_line(e))
    return r, r.dtype


def op_take_along_axis(spec, inputs):
    """np.take_along_axis(arr, indices, axis), NumPy 1.24: the axis
    (AxisError; None takes along the flattened arr), indices of an integer
    dtype (IndexError), of arr's rank (ValueError), broadcasting against
    arr on every other dim (IndexError: shape mismatch), all checked here
    in that order; what NumPy's fancy indexing raises after that is an
    IndexError for a value out of bounds: out_of_range. Unsigned values
    beyond int64 are cast to negative positions as NumPy 1.24 casts them:
    2**64-1 reads as -1."""
    arr, indices = inputs["arr"], inputs["indices"]
    axis = spec["axis"]
    if axis is None:
        src, ax = arr.reshape(-1), 0
    else:
        nd = arr.ndim
        if not -nd <= axis < nd:
            raise invalid("axis %d is out of bounds for array of dimension %d" % (axis, nd))
        src, ax = arr, axis + nd if axis < 0 else axis
    if indices.dtype.kind not in "iu":
        raise invalid("`indices` must be an integer array, got dtype %s" % indices.dtype.str)
    if indices.ndim != src.ndim:
        raise invalid("`indices` and `arr` must have the same number of dimensions, got %d and %d"
                      % (indices.ndim, src.ndim))
    for d in range(src.ndim):
        n, m = src.shape[d], indices.shape[d]
        if d != ax and n != m and n != 1 and m != 1:
            raise invalid("shape mismatch: indices of shape %s do not broadcast against arr of shape %s "
                          "outside axis %d" % (indices.shape, src.shape, ax))
    if src.ndim > MAX_RANK - 1:
        # NumPy indexes arr with one index array per dimension and no
        # subspace: IndexError "the number of index arrays cannot be above
        # 31", a fault of the spec, also for an empty result.
        raise invalid("when no subspace is given, the number of index arrays cannot be above %d, "
                      "but %d index arrays found" % (MAX_RANK - 1, src.ndim))
    try:
        r = np.take_along_axis(src, indices, ax)
    except IndexError as e:
        raise out_of_range(one_line(e))
    except (ValueError, TypeError) as e:
        raise invalid(one_line(e))
    return r, arr.dtype


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
    idx = int64_indices(indices)
    outside = (idx < 0) | (idx >= n)
    any_bad = bool(outside.any())
    if any_bad:
        if policy == "error":
            pos = np.unravel_index(int(np.argmax(outside)), indices.shape)
            raise out_of_range("indices%s = %d is not in [0, %d)"
                               % (list(map(int, pos)), int(idx[pos]), n))
        idx = np.where(outside, 0, idx)
    batch = 1
    for d in params.shape[:b]:
        batch *= d
    outer = 1
    for d in params.shape[b:axis]:
        outer *= d
    inner = 1
    for d in params.shape[axis + 1:]:
        inner *= d
    rows = idx.reshape(batch, -1)  # per batch entry, its index values
    p4 = params.reshape(batch, outer, n, inner)
    res = p4[np.arange(batch)[:, None], :, rows]  # (batch, values, outer, inner)
    if any_bad:
        res[outside.reshape(batch, -1)] = np.zeros((), dtype=params.dtype)
    return res.transpose(0, 2, 1, 3).reshape(out_shape), params.dtype


def onnx_indices(indices, op):
    """Gather-13 and GatherElements-13 take int32 and int64 indices (Tind)."""
    if indices.dtype.kind != "i" or indices.dtype.itemsize not in (4, 8):
        raise bad("ONNX %s takes int32 or int64 indices, got dtype %s" % (op, indices.dtype.str))


def onnx_axis(axis, r):
    if not -r <= axis < r:
        raise invalid("axis %d is outside [-%d, %d] for data of rank %d" % (axis, r, r - 1, r))
    return axis + r if axis < 0 else axis


def onnx_wrap(indices, s):
    """int64 indices along an axis of size s, each in [-s, s-1] (else
    out_of_range), negative ones wrapped once."""
    idx = indices.astype(INT64, copy=False)
    if idx.size:
        outside = (idx < -s) | (idx >= s)
        if outside.any():
            pos = np.unravel_index(int(np.argmax(outside)), idx.shape)
            raise out_of_range("indices%s = %d is outside [-%d, %d]" % (list(map(int, pos)), int(idx[pos]), s, s - 1))
        idx = np.where(idx < 0, idx + s, idx)
    return idx


def op_onnx_gather(spec, inputs):
    """ONNX Gather-13: int32 or int64 indices (Tind), data of rank r >= 1,
    axis in [-r, r-1], every index in [-s, s-1] for s = data.shape[axis]
    (negative ones wrap once); the result has shape data.shape[:axis] +
    indices.shape + data.shape[axis+1:], gathered with np.take."""
    data, indices = inputs["data"], inputs["indices"]
    onnx_indices(indices, "Gather")
    r = data.ndim
    if r < 1:
        raise invalid("data must have rank >= 1, got shape %s" % (data.shape,))
    axis = onnx_axis(spec["axis"], r)
    out_shape = data.shape[:axis] + indices.shape + data.shape[axis + 1:]
    if len(out_shape) > MAX_RANK:
        raise invalid("number of dimensions must be within [0, %d], Gather result would have %d"
                      % (MAX_RANK, len(out_shape)))
    shape_count(out_shape, data.dtype.itemsize)
    idx = onnx_wrap(indices, data.shape[axis])
    if idx.size == 0:
        return np.empty(out_shape, dtype=data.dtype), data.dtype
    res = np.take(data, idx.reshape(-1), axis=axis)
    return res.reshape(out_shape), data.dtype


def op_onnx_gather_elements(spec, inputs):
    """ONNX GatherElements-13: int32 or int64 indices (Tind), data of rank
    r >= 1, indices of rank r, axis in [-r, r-1], indices.shape[d] <=
    data.shape[d] on every other dim (no broadcasting), every index in
    [-s, s-1] along the axis (negative ones wrap once). The result has
    indices' shape: np.take_along_axis on the part of data the indices
    cover."""
    data, indices = inputs["data"], inputs["indices"]
    onnx_indices(indices, "GatherElements")
    r = data.ndim
    if r < 1:
        raise invalid("data must have rank >= 1, got shape %s" % (data.shape,))
    if indices.ndim != r:
        raise invalid("indices must have the rank of data (%d), got shape %s" % (r, indices.shape))
    axis = onnx_axis(spec["axis"], r)
    for d in range(r):
        if d != axis and indices.shape[d] > data.shape[d]:
            raise invalid("indices.shape[%d] = %d exceeds data.shape[%d] = %d"
                          % (d, indices.shape[d], d, data.shape[d]))
    idx = onnx_wrap(indices, data.shape[axis])
    if idx.size == 0:
        return np.empty(indices.shape, dtype=data.dtype), data.dtype
    part = data[tuple(slice(None) if d == axis else slice(0, indices.shape[d]) for d in range(r))]
    return np.take_along_axis(part, idx, axis), data.dtype


# ---------------------------------------------------------------- protocol

OPS_FUNC = {
    "getitem": op_getitem,
    "strided_slice": op_strided_slice,
    "slice": op_slice,
    "gather_nd": op_gather_nd,
    "onnx_slice": op_onnx_slice,
    "onnx_gather_nd": op_onnx_gather_nd,
    "take": op_take,
    "take_along_axis": op_take_along_axis,
    "gather": op_gather,
    "onnx_gather": op_onnx_gather,
    "onnx_gather_elements": op_onnx_gather_elements,
}


def evaluate_case(case):
    """Returns the .npy bytes of the result or raises CaseError."""
    spec = parse_spec(case)
    op = spec["op"]
    if op == "getitem":
        inputs = load_getitem_inputs(case, spec)
    else:
        inputs = load_inputs(case, op)
    result, dtype = OPS_FUNC[op](spec, inputs)
    if type(result) is not ndarray or result.dtype != dtype:
        result = np.array(result, dtype=dtype, order="C", copy=True)
    # tobytes() is the C-order copy np.save writes, contiguous or not.
    h = HEADERS.get((dtype.str, result.shape))
    if h is None:
        h = npy_header(result)
    return h + result.tobytes()


HEADERS = {}


def npy_header(arr):
    """Returns the header np.save writes for a C-contiguous array like arr,
    cached by dtype and shape. It is what numpy.lib.format (1.24) writes for
    a version 1.0 file; anything else is left to NumPy's own writer."""
    dt, shape = arr.dtype, arr.shape
    key = (dt.str, shape)
    h = HEADERS.get(key)
    if h is None:
        h = None
        if dt.names is None and dt.metadata is None and type(shape) is tuple:
            # numpy.lib.format._write_array_header + _wrap_header, version 1.0
            text = "{'descr': %r, 'fortran_order': False, 'shape': %r, }" % (dt.str, shape)
            if shape:
                text += " " * (21 - len(repr(shape[0])))  # GROWTH_AXIS_MAX_DIGITS
            if text.isascii():
                raw = text.encode("latin1")
                hlen = len(raw) + 1
                padlen = 64 - ((8 + 2 + hlen) % 64)  # ARRAY_ALIGN, MAGIC_LEN, '<H'
                if hlen + padlen <= 0xFFFF:
                    h = NPY_MAGIC_1_0 + (hlen + padlen).to_bytes(2, "little") + raw + b" " * padlen + b"\n"
        if h is None:
            if not arr.flags.c_contiguous:
                arr = np.array(arr, order="C", copy=True)
            buf = io.BytesIO()
            np.lib.format._write_array_header(buf, np.lib.format.header_data_from_array_1_0(arr), None)
            h = buf.getvalue()
        if len(HEADERS) > 10000:
            HEADERS.clear()
        HEADERS[key] = h
    return h


def respond(line):
    """Returns the response line (bytes) for one request line, or None when
    the request has no usable id."""
    try:
        case = None
        if len(line) > 1 and line[0] == 123 and line[1]:
            # What json.loads does to bytes that start with "{" (UTF-8 by
            # its detect_encoding) and hold exactly one JSON value; anything
            # else is left to json.loads, errors included.
            text = line.decode("utf-8", "surrogatepass")
            try:
                case, end = json_scan(text, 0)
            except Exception:
                case = None
            else:
                if end != len(text) and json_ws(text, end).end() != len(text):
                    case = None
        if case is None:
            case = json.loads(line)
    except Exception as e:  # ValueError, UnicodeDecodeError, RecursionError
        log("request is not JSON: %s" % one_line(e))
        return None
    if type(case) is not dict or "id" not in case:
        log("request without an id: %s" % short(case))
        return None
    rid = case["id"]
    rid = str(rid) if type(rid) is int else json.dumps(rid)
    try:
        data = evaluate_case(case)
    except CaseError as e:
        return ('{"id":%s,"error":{"kind":"%s","message":%s}}\n' % (rid, e.kind, json.dumps(e.message))).encode("ascii")
    except Skip as e:
        return ('{"id":%s,"skip":%s}\n' % (rid, json.dumps(str(e)))).encode("ascii")
    except MemoryError:
        return ('{"id":%s,"skip":"out of memory"}\n' % rid).encode("ascii")
    except RecursionError as e:
        return ('{"id":%s,"error":{"kind":"invalid_spec","message":%s}}\n' % (rid, json.dumps(one_line(e)))).encode("ascii")
    except Exception as e:
        # A bug of this oracle, not a property of the case: say so loudly
        # rather than die or invent an error kind.
        log("internal error on request %s: %s: %s" % (rid, type(e).__name__, one_line(e)))
        return ('{"id":%s,"skip":%s}\n' % (rid, json.dumps("numpy oracle internal error: %s: %s" % (type(e).__name__, one_line(e))))).encode("ascii")
    return b'{"id":%s,"output":"%s"}\n' % (rid.encode("ascii"), b2a_base64(data, newline=False))


json_scan = json.JSONDecoder().scan_once  # as json.loads uses it
json_ws = json.decoder.WHITESPACE.match


def log(msg):
    sys.stderr.write("numpy oracle: %s\n" % msg)
    sys.stderr.flush()


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def main():
    ofd = sys.stdout.fileno()
    sys.stdout.flush()
    write_all(ofd, (json.dumps({"hello": {"name": NAME, "version": np.__version__, "ops": OPS}}) + "\n").encode("ascii"))
    fd = sys.stdin.fileno()
    pending = []  # the start of an unfinished line, in pieces
    monotonic = time.monotonic
    # One buffer for every read (os.read would map and unmap a fresh one).
    buf = memoryview(bytearray(1 << 20))
    while True:
        n = os.readv(fd, [buf])
        if not n:
            break
        chunk = buf[:n].tobytes()
        if pending:
            if b"\n" not in chunk:
                pending.append(chunk)  # a long line: no quadratic joining
                continue
            pending.append(chunk)
            chunk = b"".join(pending)
        lines = chunk.split(b"\n")
        last = lines.pop()
        pending = [last] if last else []
        # Answer every complete line of this chunk, then flush: requests
        # that arrive together are answered together. A slow case flushes
        # what came before it.
        batch = []
        size = 0
        t0 = monotonic()
        for line in lines:
            if not line or (line[0] != 123 and not line.strip()):  # 123: "{"
                continue
            try:
                r = respond(line)
            except Exception as e:  # never die on one request
                log("internal error: %s" % one_line(e))
                r = None
            if r is not None:
                batch.append(r)
                size += len(r)
                if size > (1 << 20) or monotonic() - t0 > 0.05:
                    write_all(ofd, b"".join(batch))
                    batch, size, t0 = [], 0, monotonic()
        if batch:
            write_all(ofd, b"".join(batch))
    pending = b"".join(pending)
    if pending.strip():
        r = respond(pending)
        if r is not None:
            write_all(ofd, r)


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
