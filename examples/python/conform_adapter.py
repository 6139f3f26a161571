"""The conform/1 protocol for the Python examples (examples/pytorch, examples/dask, examples/planted).

An example adapter imports this module and calls serve(name, version, ops), where ops maps an
op name to a function f(inputs, request) -> array: inputs are the case's NumPy arrays by name,
request is the case (its spec fields), and for getitem request["key"] is the subscript already
parsed into a Python key (ints, slices, None, Ellipsis, bools, lists, floats..., and the index
arrays the subscript names, as NumPy arrays). The function returns anything np.asarray takes.

Errors. conform compares errors by kind (invalid_spec, out_of_range, bad_input); libraries raise
Python exceptions. This module maps them the way the plain NumPy adapter does
(cmd/conform/testdata/numpy_adapter.py) and as docs/protocol.md suggests:
    ValueError, TypeError, OverflowError          -> invalid_spec
    IndexError, and every other exception type    -> out_of_range (torch's RuntimeError, ...)
    Rejected(kind, message) raised by an adapter  -> kind
    KeyError (a field the op needs is missing)    -> bad_input
with one exception, made for NumPy's own rules rather than any library's: NumPy raises IndexError
both for a position out of bounds and for faults of the spec (too many indices, index arrays that
do not broadcast, a mis-shaped mask, an axis out of range). So for an IndexError or RuntimeError
the module asks NumPy whether the same spec, with every integer moved into bounds, still fails
(spec_fault below; for onnx_gather_elements, ONNX's shape rules): if so the error is invalid_spec. The library's own answer is always what is
reported; NumPy is never asked for an output.

Run an adapter with: go run ./cmd/conform check --impl '/usr/bin/python3 examples/<lib>/adapter.py'
"""
import ast
import base64
import io
import json
import sys

import numpy as np


class Rejected(Exception):
    """An error of a given conform kind, raised by an adapter or by this module."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


class Skip(Exception):
    """A case the library cannot express (a dtype it lacks): answered as a skip."""


# ---- getitem: the subscript as a Python key ---------------------------------------------------

NEWAXIS = {"np", "numpy", "tf"}


def literal(node):
    """One expression of a subscript as its Python value; evaluates nothing but literals, unary
    operators on numbers and None / Ellipsis / np.newaxis."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id == "Ellipsis":
        return Ellipsis
    if isinstance(node, ast.Attribute) and node.attr == "newaxis" and isinstance(node.value, ast.Name) \
            and node.value.id in NEWAXIS:
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert, ast.Not)):
        v = literal(node.operand)
        if isinstance(v, (int, float, complex)) and not (isinstance(node.op, ast.Invert) and not isinstance(v, int)):
            return {ast.USub: lambda a: -a, ast.UAdd: lambda a: +a, ast.Invert: lambda a: ~a,
                    ast.Not: lambda a: not a}[type(node.op)](v)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [literal(e) for e in node.elts]
    raise Rejected("invalid_spec", f"unsupported index expression {ast.unparse(node)!r}")


class Name(str):
    """An item of the subscript naming an input (an index array)."""


def parse_subscript(text):
    """'x[1:, i, [0, 2]]' -> a tuple of key items; names stay Name until the inputs are known."""
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        raise Rejected("invalid_spec", f"syntax error at column {e.offset}")
    if not (isinstance(tree, ast.Subscript) and isinstance(tree.value, ast.Name)):
        raise Rejected("invalid_spec", "the index must be one subscript of a name, x[...]")
    items = tree.slice.elts if isinstance(tree.slice, ast.Tuple) else [tree.slice]
    key = []
    for item in items:
        if isinstance(item, ast.Slice):
            key.append(slice(*(None if p is None else literal(p) for p in (item.lower, item.upper, item.step))))
        elif isinstance(item, ast.Name) and item.id != "Ellipsis":
            key.append(Name(item.id))
        else:
            key.append(literal(item))
    return key


def getitem_key(inputs, request):
    """The request's subscript as a key tuple with the named index arrays filled in; bad_input
    when the names and the inputs differ (as conform's reference does)."""
    try:
        key, error = parse_subscript(request["index"]), None
    except Rejected as e:
        key, error = [], e
    names = {k for k in key if isinstance(k, Name)}
    if inputs.keys() - names - {"x"}:
        raise Rejected("bad_input", "an input is not named in the index")
    if names - inputs.keys():
        raise Rejected("bad_input", "the index names an input that is missing")
    if error:
        raise error
    return tuple(inputs[k] if isinstance(k, Name) else k for k in key)


def as_array(items):
    """An inline list as the array NumPy makes of it (an empty list is an integer index)."""
    try:
        a = np.array(items)
    except Exception:
        return items  # NumPy refuses it: left for NumPy to refuse again
    return a.astype(np.intp) if a.size == 0 else a


def spec_fault(op, inputs, request):
    """Whether the reference refuses this case's spec whatever the positions: whether NumPy
    still raises with every integer (and index array value) moved into bounds (getitem, take,
    take_along_axis), or ONNX's shape rules (onnx_gather_elements)."""
    if op == "getitem":
        x = inputs["x"]
        try:
            key = getitem_key(inputs, request)
        except Rejected:
            return True
        key = [as_array(k) if isinstance(k, list) else k for k in key]
        ndim = x.ndim
        used = sum(1 if isinstance(k, (int, slice, np.ndarray)) and not isinstance(k, bool) else 0 for k in key)
        used += sum(k.ndim - 1 for k in key if isinstance(k, np.ndarray) and k.dtype.kind == "b" and k.ndim)
        # A dimension of size 0 has no position in bounds: the stub gets size 1 there.
        shape = tuple(max(d, 1) for d in x.shape)
        clipped, dim, ellipses = [], 0, 0
        for k in key:
            n = shape[dim] if dim < ndim else 0
            # NumPy's first pass over the items stops at the first of: a second ellipsis, a
            # literal it refuses, an integer beyond int64 (out of range, not a spec fault).
            if isinstance(k, int) and not isinstance(k, bool) and not -2**63 <= k < 2**63:
                return False
            if isinstance(k, (float, complex, str, bytes)) or (k is Ellipsis and ellipses):
                return True
            if k is Ellipsis:
                ellipses += 1
                dim += max(ndim - used, 0)
            elif isinstance(k, int) and not isinstance(k, bool):
                k, dim = (min(max(k, -n), n - 1) if n else k), dim + 1
            elif isinstance(k, np.ndarray):
                a = k
                if a.dtype.kind in "iu" and n and a.size:
                    k = np.asarray(np.clip(a.astype(object), -n, n - 1)).astype(np.int64).reshape(a.shape)
                dim += a.ndim if a.dtype.kind == "b" and a.ndim else 1
            elif isinstance(k, slice):
                dim += 1
            clipped.append(k)
        stub = np.broadcast_to(np.zeros((), np.int8), shape)  # no memory, any shape
        try:
            stub[tuple(clipped)]
        except (IndexError, ValueError, TypeError, OverflowError):
            return True
        except Exception:
            return False
        return False
    if op == "onnx_gather_elements":  # GatherElements-13: axis in range, indices of data's rank
        data, indices, axis = inputs["data"], inputs["indices"], request.get("axis", 0)
        if data.ndim == 0 or indices.ndim != data.ndim or not -data.ndim <= axis < data.ndim:
            return True
        return any(m > n for d, (n, m) in enumerate(zip(data.shape, indices.shape)) if d != axis % data.ndim)
    # take, take_along_axis: NumPy's own function on a stub of the same shape, the indices
    # moved into bounds
    a, indices = inputs.get("a", inputs.get("arr")), inputs["indices"]
    axis = request.get("axis")
    # take has no shape rule but the axis: an empty axis gets length 1 (a non-empty take from it is
    # out_of_range); take_along_axis's shapes must broadcast, so they stay as they are.
    shape = tuple(max(d, 1) for d in a.shape) if op == "take" else a.shape
    n = np.prod(shape) if axis is None else (shape[axis] if -len(shape) <= axis < len(shape) else 0)
    if indices.dtype.kind in "iu" and indices.size and n:
        indices = np.asarray(np.clip(indices.astype(object), -n, n - 1)).astype(np.int64).reshape(indices.shape)
    stub = np.broadcast_to(np.zeros((), np.int8), shape)
    try:
        if op == "take":
            np.take(stub, indices, axis=axis, mode=request.get("mode", "raise"))
        else:
            np.take_along_axis(stub, indices, axis)
    except (IndexError, ValueError, TypeError, OverflowError):
        return True
    except Exception:
        return False
    return False


def kind_of(exc, op, inputs, request):
    """conform's kind for an exception the library raised (see the module doc)."""
    if isinstance(exc, Rejected):
        return exc.kind
    if isinstance(exc, KeyError):  # the case lacks a field the op needs (take_along_axis's axis)
        return "bad_input"
    if isinstance(exc, (ValueError, TypeError, OverflowError)) and not isinstance(exc, IndexError):
        return "invalid_spec"
    return "invalid_spec" if spec_fault(op, inputs, request) else "out_of_range"


# ---- the conform/1 loop -----------------------------------------------------------------------

def load(b64):
    try:
        return np.load(io.BytesIO(base64.b64decode(b64)), allow_pickle=False)
    except Exception as e:
        raise Rejected("bad_input", f"unreadable .npy: {e}")


def answer(request, ops):
    op = request["op"]
    inputs = {name: load(data) for name, data in request["inputs"].items()}
    try:
        if op == "getitem":
            request = dict(request, key=getitem_key(inputs, request))
        out = np.asarray(ops[op](inputs, request))
    except Skip as e:
        return {"skip": str(e)}
    except RecursionError:
        return {"skip": "the subscript is nested too deeply for Python's parser"}
    except MemoryError as e:
        return {"crash": f"MemoryError: {e}"}
    except Exception as e:
        return {"error": {"kind": kind_of(e, op, inputs, request), "message": f"{type(e).__name__}: {e}"[:2000]}}
    buf = io.BytesIO()
    np.save(buf, np.array(out, order="C"), allow_pickle=False)  # C order, dtype and rank kept
    return {"output": base64.b64encode(buf.getvalue()).decode()}


def serve(name, version, ops):
    """Runs the conform/1 loop over stdin/stdout with ops: {op name: f(inputs, request)}."""
    print(json.dumps({"hello": {"name": name, "version": version, "ops": list(ops)}}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            response = answer(request, ops)
        except Rejected as e:
            response = {"error": {"kind": e.kind, "message": str(e)}}
        except Exception as e:  # a bug of the adapter itself
            response = {"crash": f"{type(e).__name__}: {e}"}
        response["id"] = request["id"]
        print(json.dumps(response), flush=True)
