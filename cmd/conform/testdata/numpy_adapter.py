#!/usr/bin/python3
# A conform/1 adapter for plain NumPy: getitem is np.asarray(x[index]) (index arrays being inputs
# named in the subscript, or inline lists), take and take_along_axis are NumPy's, strided_slice is
# TF's spec translated into a NumPy index, tf.slice is basic slicing and gather_nd is a loop over
# index rows. It does not run gather or the ONNX ops.
#
# Errors come from exception types (IndexError -> out_of_range; ValueError, TypeError ->
# invalid_spec) and from the checks NumPy and TF document, made explicitly where one exception
# type covers faults of different kinds (NumPy raises IndexError both for "index 5 is out of
# bounds" and for "too many indices"). Messages are for people; they are never parsed.
import ast, base64, io, json, sys
import numpy as np

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
MAX_DIMS = 32  # NumPy's limit on the number of dimensions of an array


class Rejected(Exception):
    """A case the op refuses: kind is a conform error kind."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


class Refused(Rejected):
    """An item of the subscript that NumPy refuses whatever the input (a float, a string, a
    list that makes no integer or boolean array, an integer beyond int64): unlike a subscript
    that does not parse, the rest of the subscript, its names above all, is still read."""


# ---- getitem: x[index] -------------------------------------------------------------------------

NEWAXIS_NAMES = {"np", "numpy", "tf"}  # np.newaxis, numpy.newaxis, tf.newaxis


def subscript_value(node):
    """Turns one expression of the subscript into its Python value, evaluating nothing but
    literals, unary operators on integers and the names of None / Ellipsis / newaxis."""
    if isinstance(node, ast.Constant) and (node.value is None or node.value is Ellipsis
                                           or isinstance(node.value, int)):  # bool is an int
        return node.value
    if isinstance(node, ast.Name) and node.id == "Ellipsis":
        return Ellipsis
    if (isinstance(node, ast.Attribute) and node.attr == "newaxis"
            and isinstance(node.value, ast.Name) and node.value.id in NEWAXIS_NAMES):
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert, ast.Not)):
        operand = subscript_value(node.operand)
        if isinstance(operand, int):
            return {ast.USub: lambda v: -v, ast.UAdd: lambda v: +v,
                    ast.Invert: lambda v: ~v, ast.Not: lambda v: not v}[type(node.op)](operand)
        if isinstance(operand, (float, complex)) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return operand  # -1.5 is still a float
    if isinstance(node, ast.Constant) and isinstance(node.value, REFUSED_LITERALS):
        return node.value
    raise Rejected("invalid_spec", f"unsupported index expression {ast.unparse(node)!r}")


# Literals a subscript may hold that NumPy refuses as indices (IndexError).
REFUSED_LITERALS = (float, complex, str, bytes)


class InputName(str):
    """An item of the subscript that names an input of the case: an index array, x[i]."""


def list_index(node):
    """An inline list (or tuple) of integers and booleans, nested or not, as the index array
    NumPy makes of it."""
    def values(n):
        if isinstance(n, (ast.List, ast.Tuple)):
            return [values(e) for e in n.elts]
        v = subscript_value(n)
        if not isinstance(v, int):  # None, Ellipsis, a float, ...
            raise Refused("invalid_spec", f"an index list holds {ast.unparse(n)!r}, not an integer")
        return v
    try:
        array = np.array(values(node))
    except ValueError as e:  # a ragged list, or one nested more than 32 deep
        raise Refused("invalid_spec", f"the index list is not an array: {e}")
    if array.size == 0:
        return array.astype(np.intp)  # NumPy reads an empty list as an integer index
    if array.dtype.kind not in "biu":  # float64 (int64 and uint64 values mixed) or object (too big)
        raise Refused("invalid_spec", f"the index list makes a {array.dtype} array, not an integer one")
    return array


def parse_index(text):
    """Parses 'x[...]' with Python's own parser (nothing is evaluated) into a NumPy key: a tuple
    of ints, slices, None, Ellipsis, True/False (0-d boolean indices), arrays (inline lists)
    and InputNames (index arrays given as inputs)."""
    try:
        # Leading white space and blank lines are allowed, as before Python's eval.
        tree = ast.parse(text.lstrip(" \t\r\n"), mode="eval").body
    except SyntaxError as e:
        raise Rejected("invalid_spec", f"syntax error in {text!r} at column {e.offset}")
    if not (isinstance(tree, ast.Subscript) and isinstance(tree.value, ast.Name)):
        raise Rejected("invalid_spec", "the index must be one subscript of a name, x[...]")
    items = tree.slice.elts if isinstance(tree.slice, ast.Tuple) else [tree.slice]
    if len(items) > 2 * MAX_DIMS:  # NumPy counts the items before it reads any
        raise Rejected("invalid_spec", f"too many indices: {len(items)} items")
    key = []
    for item in items:
        try:
            key.append(parse_item(item, key))
        except Refused as e:
            key.append(e)  # the item's error; the items after it are still read
    return tuple(key)


def parse_item(item, key):
    """One item of the subscript as a NumPy key item; key holds the items before it."""
    if isinstance(item, ast.Slice):
        # A bound NumPy refuses (x[1.0:2]) is left in the slice for NumPy to refuse (TypeError)
        # when it reaches it: after the checks it makes on reading the items (an integer beyond
        # int64, a second ellipsis, too many indices), before the positions after it.
        parts = [None if p is None else subscript_value(p) for p in (item.lower, item.upper, item.step)]
        return slice(*parts)  # bounds beyond int64 are clamped by NumPy, as CPython does
    if isinstance(item, ast.Name) and item.id != "Ellipsis":
        return InputName(item.id)
    if isinstance(item, (ast.List, ast.Tuple)):
        return list_index(item)
    value = subscript_value(item)
    if isinstance(value, REFUSED_LITERALS):
        raise Refused("invalid_spec", f"an index of type {type(value).__name__}")
    # NumPy reads the items in order and stops at the first integer it cannot convert or
    # the second ellipsis, before it counts indices: x[2**63, 0, 0] on a vector is
    # out_of_range, x[..., ..., 2**63] invalid_spec. Both are IndexErrors there, so they
    # are told apart here.
    if isinstance(value, int) and not isinstance(value, bool) and not INT64_MIN <= value <= INT64_MAX:
        raise Refused("out_of_range", f"index {value} does not fit in int64")
    if value is Ellipsis and any(k is Ellipsis for k in key):
        raise Refused("invalid_spec", "an index can only have a single ellipsis")
    return value


def is_bool_index(k):
    return isinstance(k, bool) or (isinstance(k, np.ndarray) and k.dtype.kind == "b")


def is_int_index(k):
    """An integer, or a 0-d integer array, which NumPy takes as an integer."""
    return (isinstance(k, int) and not isinstance(k, bool)) or (
        isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype.kind in "iu")


def dims_used(k):
    """How many dimensions of x an index item consumes."""
    if isinstance(k, np.ndarray) and k.dtype.kind == "b":
        return k.ndim
    if isinstance(k, np.ndarray) or (isinstance(k, (int, slice)) and not isinstance(k, bool)):
        return 1
    return 0  # None, Ellipsis, True, False


def check_index(key, shape):
    """The checks NumPy makes once it has read the items, before it looks at any position:
    too many indices, the result's rank, the shapes of boolean arrays. Each is an IndexError
    in NumPy, which would otherwise read as out_of_range."""
    ndim = len(shape)
    used = sum(dims_used(k) for k in key)
    if used > ndim:
        raise Rejected("invalid_spec", f"too many indices: {used} for {ndim} dimensions")
    arrays = [k for k in key if isinstance(k, (bool, np.ndarray)) and not is_int_index(k)]
    basic = sum(isinstance(k, slice) or k is None for k in key) + ndim - used
    if arrays:  # the basic dims and the index arrays' broadcast dims (a boolean array gives one)
        rank = basic + max(1 if is_bool_index(k) else k.ndim for k in arrays)
    else:
        rank = ndim - sum(is_int_index(k) for k in key) + sum(k is None for k in key)
    if rank > MAX_DIMS:
        raise Rejected("invalid_spec", f"the result would have {rank} dimensions")
    dim = 0
    for k in key:
        if k is Ellipsis:
            dim += ndim - used
            continue
        if isinstance(k, np.ndarray) and k.dtype.kind == "b":
            # NumPy does not compare a boolean dimension of size 0
            if any(b != d and b != 0 for b, d in zip(k.shape, shape[dim:])):
                raise Rejected("invalid_spec", f"boolean index of shape {k.shape} does not match "
                                               f"dimensions {shape[dim:dim + k.ndim]}")
        dim += dims_used(k)


def ints_in_bounds(key, shape):
    """Whether every integer of the index (0-d integer arrays too) is in bounds."""
    dim, ellipsis_dims = 0, len(shape) - sum(dims_used(k) for k in key)
    for k in key:
        if is_int_index(k) and not -shape[dim] <= int(k) < shape[dim]:
            return False
        dim += ellipsis_dims if k is Ellipsis else dims_used(k)
    return True


def broadcast_fault(key, shape):
    """After an IndexError, with every integer in bounds (NumPy checks those first): whether
    it was the index arrays not broadcasting together."""
    # An index array stands for its shape, a boolean one for its count of true elements.
    shapes = [(np.count_nonzero(k),) if is_bool_index(k) else k.shape
              for k in key if isinstance(k, (bool, np.ndarray))]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        return True
    return False


def iterator_fault(key, shape):
    """After an IndexError, with every integer in bounds: whether it was NumPy's index
    iterator refusing the index arrays. It takes at most 32 (a boolean array is one per
    dimension, True and False one each; integers are not arrays), and at most 31 when the
    rest of the result (its slices, new axes and the dims no item indexes) is one element.
    A single boolean array of x's shape is NumPy's mask index, which needs no iterator."""
    if len(key) == 1 and is_bool_index(key[0]) and np.shape(key[0]) == shape:
        return False
    arrays = sum(max(np.ndim(k), 1) if is_bool_index(k) else 1 for k in key
                 if isinstance(k, (bool, np.ndarray)) and not is_int_index(k))
    ellipsis_dims = len(shape) - sum(dims_used(k) for k in key)
    rest, dim = 1, 0
    for k in key:
        if k is Ellipsis:
            rest *= int(np.prod(shape[dim:dim + ellipsis_dims]))
            dim += ellipsis_dims
        elif isinstance(k, slice):
            rest *= len(range(*k.indices(shape[dim])))
            dim += 1
        else:
            dim += dims_used(k)
    rest *= int(np.prod(shape[dim:]))  # the dims after the last item
    return arrays > MAX_DIMS or (arrays == MAX_DIMS and rest == 1)


def getitem(inputs, request):
    x = inputs["x"]
    try:
        key, error = parse_index(request["index"]), None
    except Rejected as e:  # reported once the inputs are checked: it names no inputs
        key, error = (), e
    names = {k for k in key if isinstance(k, InputName)}
    unnamed, missing = inputs.keys() - names - {"x"}, names - inputs.keys()
    if unnamed:
        raise Rejected("bad_input", f"inputs {sorted(unnamed)} are not named in the index")
    if missing:
        raise Rejected("bad_input", f"the index names {sorted(missing)}, which are not inputs")
    if error:
        raise error
    key = tuple(inputs[k] if isinstance(k, InputName) else k for k in key)
    for k in key:
        # NumPy converts the items in order and stops at the first it refuses: a refused
        # literal, an index array of another dtype than integer or bool, a 0-d unsigned
        # index beyond int64.
        if isinstance(k, Refused):
            raise k
        if isinstance(k, np.ndarray):
            if k.dtype.kind not in "biu":
                raise Rejected("invalid_spec", f"an index array of dtype {k.dtype}")
            if k.ndim == 0 and k.dtype.kind == "u" and int(k) > INT64_MAX:
                raise Rejected("out_of_range", f"index {int(k)} does not fit in int64")
    check_index(key, x.shape)
    try:
        # A full integer index (x[1, 2] on a matrix) gives a NumPy scalar; np.asarray makes it
        # the 0-d array conform expects (native byte order, strings as wide as their value).
        return np.asarray(x[key])
    except IndexError as e:
        if ints_in_bounds(key, x.shape) and (broadcast_fault(key, x.shape) or iterator_fault(key, x.shape)):
            raise Rejected("invalid_spec", str(e))
        raise


# ---- strided_slice: TF's StridedSlice translated into a NumPy index ------------------------------

def mask_bits(request, name):
    """A mask as an integer bitmask; OpenVINO writes it as a list of 0/1, entry i being bit i."""
    mask = request.get(name, 0)
    if isinstance(mask, list):
        if any(bit not in (0, 1) or isinstance(bit, bool) for bit in mask):
            raise Rejected("invalid_spec", f"{name} entries must be 0 or 1")
        mask = sum(bit << i for i, bit in enumerate(mask))
    # TF's masks are int32 attributes: a value within int32 is its 32-bit two's complement
    # (-2**31 is bit 31 alone); a larger one, which TF refuses, keeps the 64 bits two's
    # complement gives (-2**63 is bit 63 alone, not every bit from 63 up as a Python int has it).
    if -2**31 <= mask < 2**31:
        return mask & (2**32 - 1)
    return mask & (2**64 - 1)


def strided_slice(inputs, request):
    x = inputs["x"]
    begin, end = request["begin"], request["end"]
    strides = request.get("strides", [1] * len(begin))
    n = len(begin)
    if len(end) != n or len(strides) != n:
        raise Rejected("invalid_spec", "begin, end and strides must have the same length")
    if n >= 32:
        raise Rejected("invalid_spec", "a spec of 32 or more entries")
    begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask = (
        mask_bits(request, m) for m in
        ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"))
    if ellipsis_mask & (ellipsis_mask - 1):  # TF counts the bits of the whole mask
        raise Rejected("invalid_spec", "multiple ellipses in slice spec")

    # Each spec entry becomes one NumPy index item. When one entry has several bits, TF's order
    # decides: ellipsis, then new axis, then shrink. Bits past the spec's entries are ignored.
    key, checks = [], []  # checks: (entry, stride, shrink index or None) of each entry taking a dim
    for i in range(n):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_mask & bit:  # an integer index; TF ignores begin/end masks here
            key.append(begin[i])
            checks.append((i, strides[i], begin[i]))
        else:
            key.append(slice(None if begin_mask & bit else begin[i],
                             None if end_mask & bit else end[i], strides[i]))
            checks.append((i, strides[i], None))
    if Ellipsis not in key:
        key.append(Ellipsis)  # TF adds an ellipsis after the spec, as NumPy does
    if len(checks) > x.ndim:
        raise Rejected("invalid_spec", f"the spec indexes {len(checks)} dims; the input has {x.ndim}")
    rank = x.ndim - sum(isinstance(k, int) for k in key) + key.count(None)
    if rank > MAX_DIMS:
        raise Rejected("invalid_spec", f"the result would have {rank} dimensions")

    # TF's per-dimension checks, in order. The ellipsis stands for the dims no entry uses, so
    # the entries after it refer to the last dims.
    before_ellipsis = sum(isinstance(k, (int, slice)) for k in key[:key.index(Ellipsis)])
    covered = x.ndim - len(checks)
    for j, (i, stride, index) in enumerate(checks):
        dim = j if j < before_ellipsis else j + covered
        if stride == 0:
            raise Rejected("invalid_spec", f"strides[{i}] must be non-zero")
        if index is not None:
            if stride < 0:
                raise Rejected("invalid_spec", "only stride 1 allowed on non-range indexing")
            if not -x.shape[dim] <= index < x.shape[dim]:
                raise Rejected("out_of_range", f"slice index {index} of dimension {dim} out of bounds")
    # The trailing ellipsis keeps the result an array (a view) even when every dim is shrunk,
    # so its dtype stays the input's, byte order included, as TF's and ONNX's results do.
    return x[tuple(key)]


# ---- slice: tf.slice(x, begin, size) ------------------------------------------------------------

def tf_slice(inputs, request):
    x, begin, size = inputs["x"], request["begin"], request["size"]
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise Rejected("invalid_spec", "begin and size need one entry per dimension")
    index = []
    for d, b, s in zip(x.shape, begin, size):
        s = d - b if s == -1 else s
        if not (0 <= b <= d and 0 <= s <= d - b):
            raise Rejected("out_of_range", f"begin {b}, size {s} outside a dimension of {d}")
        index.append(slice(b, b + s))
    # The trailing ... keeps a 0-d input a 0-d array (x[()] would be a scalar, of native byte
    # order): tf.slice keeps the input's dtype.
    return x[tuple(index) + (...,)]


# ---- gather_nd: tf.gather_nd(params, indices, batch_dims) -------------------------------------

def gather_nd(inputs, request):
    params, indices = inputs["params"], inputs["indices"]
    batch_dims = request.get("batch_dims", 0)
    zero_bad_rows = request.get("bad_indices", "error") == "zero"  # TF on GPU: zeros, no error
    if indices.dtype.kind not in "iu":
        raise Rejected("bad_input", f"indices must be integers, not {indices.dtype}")
    if params.ndim == 0 or indices.ndim == 0:
        raise Rejected("invalid_spec", "params and indices must be at least vectors")
    if not 0 <= batch_dims < min(params.ndim, indices.ndim):
        raise Rejected("invalid_spec", f"batch_dims {batch_dims} out of range")
    if indices.shape[:batch_dims] != params.shape[:batch_dims]:
        raise Rejected("invalid_spec", "the batch dims of params and indices differ")
    depth = indices.shape[-1]
    if depth > params.ndim - batch_dims:
        raise Rejected("invalid_spec", f"index depth {depth} beyond the rank of params")
    rows_shape = indices.shape[:-1]
    out_shape = rows_shape + params.shape[batch_dims + depth:]
    if len(out_shape) > MAX_DIMS:
        raise Rejected("invalid_spec", f"the result would have {len(out_shape)} dimensions")
    # TF refuses any row of an empty params tensor (CPU and GPU alike), even where NumPy
    # could return an empty slice.
    if params.size == 0 and np.prod(rows_shape, dtype=np.int64) > 0:
        raise Rejected("out_of_range", "requested more than 0 entries, but params is empty")

    out = np.zeros(out_shape, dtype=params.dtype)  # zeros for the rows TF on GPU zeroes
    for row in np.ndindex(*rows_shape):
        position = tuple(int(i) for i in indices[row])  # Python ints: no uint64/int64 surprises
        bounds = params.shape[batch_dims:batch_dims + depth]
        if not all(0 <= i < d for i, d in zip(position, bounds)):  # negative indices do not wrap
            if zero_bad_rows:
                continue
            raise Rejected("out_of_range", f"index {list(position)} of row {list(row)} out of bounds")
        # The trailing ... makes both sides arrays, so elements are copied as bytes (NaN payloads).
        out[row + (...,)] = params[row[:batch_dims] + position + (...,)]
    return out


# ---- take: np.take(a, indices, axis, mode) -------------------------------------------------------

def take(inputs, request):
    a, indices = inputs["a"], inputs["indices"]
    axis, mode = request.get("axis"), request.get("mode", "raise")
    shape = (a.size,) if axis is None else a.shape or (1,)  # np.take reads a 0-d a as a vector
    # NumPy 1.24 does not check the rank of take's result (past 64 dimensions it writes beyond
    # its shape buffer), so it is checked here. NumPy's own checks before it (the axis, the
    # index dtype) are invalid_spec too.
    rank = len(shape) - 1 + indices.ndim
    if rank > MAX_DIMS:
        raise Rejected("invalid_spec", f"the result would have {rank} dimensions")
    # In wrap mode NumPy moves an index into the axis one length at a time: an index near -2**63
    # takes ages and, on an axis of length 0, it never ends. So the indices are reduced here,
    # when NumPy would take them (they cast safely to intp) and the axis is valid.
    if mode == "wrap" and np.can_cast(indices, np.intp):
        try:
            n = shape[0 if axis is None else axis]
        except (IndexError, TypeError):
            n = None  # NumPy refuses the axis
        if n == 0:
            mode = "clip"  # nothing to wrap into: clip mode gives what NumPy would, and ends
        elif n is not None:
            indices = np.mod(indices.astype(np.intp), n)
    # A 0-d result is a NumPy scalar: np.asarray gives it native byte order and, for strings, the
    # width of its value, as getitem's full integer index does.
    return np.asarray(np.take(a, indices, axis=axis, mode=mode))


# ---- take_along_axis: np.take_along_axis(arr, indices, axis) -------------------------------------

def take_along_axis(inputs, request):
    arr, indices = inputs["arr"], inputs["indices"]
    if "axis" not in request:  # NumPy's axis has no default; null (None) flattens arr
        raise Rejected("bad_input", "take_along_axis needs an axis (null flattens)")
    axis = request["axis"]
    # NumPy raises IndexError for indices of a non-integer dtype and for indices that do not
    # broadcast against arr, as for an index out of bounds; so its checks are made here, in its
    # order: the axis, the dtype, the rank, the other dims.
    if axis is not None and not -arr.ndim <= axis < arr.ndim:
        raise Rejected("invalid_spec", f"axis {axis} out of bounds for {arr.ndim} dimensions")
    if axis is None:
        arr, axis = arr.reshape(-1), 0  # along the flattened arr
    if indices.dtype.kind not in "iu":
        raise Rejected("invalid_spec", f"indices must be integers, not {indices.dtype}")
    if indices.ndim != arr.ndim:
        raise Rejected("invalid_spec", f"indices have {indices.ndim} dimensions, arr {arr.ndim}")
    for d, (n, m) in enumerate(zip(arr.shape, indices.shape)):
        if d != axis % arr.ndim and n != m and n != 1 and m != 1:
            raise Rejected("invalid_spec", f"indices of shape {indices.shape} do not broadcast "
                                           f"against arr of shape {arr.shape}")
    if arr.ndim >= MAX_DIMS:  # one index array per dim, no subspace: NumPy takes 31 at most
        raise Rejected("invalid_spec", f"{arr.ndim} dimensions: too many index arrays for NumPy")
    return np.take_along_axis(arr, indices, axis)


# ---- the conform/1 protocol --------------------------------------------------------------------

OPS = {"getitem": getitem, "strided_slice": strided_slice, "slice": tf_slice, "gather_nd": gather_nd,
       "take": take, "take_along_axis": take_along_axis}
SUPPORTED_KINDS = "biufcSU"  # conform's dtypes: bool, integers, floats, complex, byte and unicode strings


def load(b64):
    try:
        array = np.load(io.BytesIO(base64.b64decode(b64)), allow_pickle=False)
    except Exception as e:  # a corrupt or unreadable .npy, whatever NumPy raised
        raise Rejected("bad_input", f"unreadable .npy: {e}")
    if array.dtype.kind not in SUPPORTED_KINDS:
        raise Rejected("bad_input", f"unsupported dtype {array.dtype}")
    return array


def answer(request, ops=OPS):
    op = ops[request["op"]]
    inputs = {name: load(data) for name, data in request["inputs"].items()}
    try:
        out = op(inputs, request)
    except np.AxisError as e:  # an axis out of range: also an IndexError, and a ValueError
        raise Rejected("invalid_spec", str(e))
    except IndexError as e:  # what NumPy raises for an index outside a dimension
        raise Rejected("out_of_range", str(e))
    except (ValueError, TypeError) as e:  # e.g. a slice step of zero
        raise Rejected("invalid_spec", str(e))
    buf = io.BytesIO()
    np.save(buf, np.array(out, order="C"), allow_pickle=False)  # C order, dtype kept
    return {"output": base64.b64encode(buf.getvalue()).decode()}


def main(ops=OPS, name="plain-numpy"):
    print(json.dumps({"hello": {"name": name, "version": np.__version__, "ops": list(ops)}}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            response = answer(request, ops)
        except Rejected as e:
            response = {"error": {"kind": e.kind, "message": str(e)}}
        except RecursionError:  # a subscript nested deeper than Python's parser goes
            response = {"skip": "the index is nested too deeply for Python's parser"}
        except Exception as e:  # a bug in this adapter: say so rather than guess an error kind
            response = {"crash": f"{type(e).__name__}: {e}"}
        response["id"] = request["id"]
        print(json.dumps(response), flush=True)


if __name__ == "__main__":
    main()
