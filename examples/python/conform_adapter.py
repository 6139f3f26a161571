"""conform_adapter: a conform/1 adapter for a NumPy-like Python library, in one call.

Written by `conform adapter python` (conform's docs/protocol.md describes it). It needs NumPy
and the standard library only; keep it beside your adapter and import it:

    #!/usr/bin/python3
    import numpy as np, torch
    from conform_adapter import serve

    serve({
        "getitem": lambda x, key: torch.from_numpy(x)[key].numpy(),
        "take": lambda a, indices, axis=None, mode="raise": ...,
    }, name="torch", version=torch.__version__)

then run `conform check --impl 'python3 my_adapter.py'`.

serve(ops) answers conform's requests with the functions of ops, one per op name (the ops of
the hello). Each is called with the case's input arrays, as NumPy arrays in the op's input
order, then:
  - getitem: f(x, key), key a ready Python key: a tuple of ints, slices, None, Ellipsis,
    bools and NumPy arrays (the index arrays the subscript names, and its inline lists),
    made from the request's structured key ("key");
  - every other op: f(*inputs, **fields), the op's spec fields present in the case as keyword
    arguments (e.g. take(a, indices, axis=..., mode=...)): give the optional ones defaults.
It returns anything np.asarray takes; the result is sent as .npy, dtype and shape kept.

Errors. The hello says the adapter's errors are Python exceptions ("errors": "python"), and
each error answer carries its exception's class ("type": IndexError, numpy.AxisError): conform
compares them by class on the ops NumPy defines (getitem, take, take_along_axis; a subclass of
the class NumPy raises agrees), by kind elsewhere. The kind is sent too; kind_of maps exceptions
to kinds (invalid_spec, out_of_range, bad_input):
    Rejected(kind, message), raised by your function   -> kind
    KeyError (a field the op needs is missing)          -> bad_input
    ValueError, TypeError, OverflowError               -> invalid_spec
    IndexError, and every other exception type          -> out_of_range, unless the spec is at
        fault: NumPy raises IndexError both for a position out of bounds and for faults of
        the spec (too many indices, index arrays that do not broadcast, a mis-shaped mask, an
        axis out of range), so kind_of asks NumPy whether the same spec, with every integer
        moved into bounds, still fails (spec_fault; for onnx_gather_elements, ONNX's shape
        rules): if so, invalid_spec.
Your function's own answer is always what is reported; NumPy is never asked for an output.
Pass serve(..., kind_of=f) to map exceptions yourself: f(exc, op, inputs, fields, key) returns
a kind, or None for the mapping above. Raise Skip(reason) for a case your library cannot
express (a dtype it lacks): it is counted as skipped.
"""
import ast
import base64
import io
import json
import sys

import numpy as np

# The ops conform defines: their inputs, in order, their spec fields and those a case must have
# (from conform's op registry, as of the conform that wrote this file).
OPS = {"gather":{"inputs":["params","indices"],"fields":["axis","batch_dims","bad_indices"],"required":[]},"gather_nd":{"inputs":["params","indices"],"fields":["batch_dims","bad_indices"],"required":[]},"getitem":{"inputs":["x"],"fields":["index"],"required":["index"]},"onnx_gather":{"inputs":["data","indices"],"fields":["axis"],"required":[]},"onnx_gather_elements":{"inputs":["data","indices"],"fields":["axis"],"required":[]},"onnx_gather_nd":{"inputs":["data","indices"],"fields":["batch_dims"],"required":[]},"onnx_slice":{"inputs":["data"],"fields":["starts","ends","axes","steps"],"required":["starts","ends"]},"slice":{"inputs":["x"],"fields":["begin","size"],"required":["begin","size"]},"strided_slice":{"inputs":["x"],"fields":["begin","end","strides","begin_mask","end_mask","ellipsis_mask","new_axis_mask","shrink_axis_mask"],"required":["begin","end"]},"take":{"inputs":["a","indices"],"fields":["axis","mode"],"required":[]},"take_along_axis":{"inputs":["arr","indices"],"fields":["axis"],"required":["axis"]}}

# Every op's spec fields: a field of another op in a case is bad_input.
ALL_FIELDS = {f for o in OPS.values() for f in o["fields"]}


class Rejected(Exception):
    """An error of a given conform kind, raised by a function or by this module."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


class Skip(Exception):
    """A case the library cannot express (a dtype it lacks): answered as a skip."""


# ---- getitem: the key -----------------------------------------------------------------------

def to_key(items, inputs):
    """The structured key of a getitem request (docs/protocol.md) as a Python key."""
    def item(k):
        if k is None or isinstance(k, (bool, int)):
            return k
        if k == "...":
            return Ellipsis
        if "name" in k:
            return inputs[k["name"]]
        if "array" in k:
            return np.array(k["array"], dtype=k["dtype"])
        return slice(k["start"], k["stop"], k["step"])
    return tuple(item(k) for k in items)


class Name(str):
    """An item of a subscript naming an input (an index array)."""


def literal(node):
    """One expression of a subscript as its Python value; evaluates nothing but literals, unary
    operators on numbers and None / Ellipsis / np.newaxis."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id == "Ellipsis":
        return Ellipsis
    if isinstance(node, ast.Attribute) and node.attr == "newaxis" and isinstance(node.value, ast.Name) \
            and node.value.id in ("np", "numpy", "tf"):
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert, ast.Not)):
        v = literal(node.operand)
        if isinstance(v, (int, float, complex)) and not (isinstance(node.op, ast.Invert) and not isinstance(v, int)):
            return {ast.USub: lambda a: -a, ast.UAdd: lambda a: +a, ast.Invert: lambda a: ~a,
                    ast.Not: lambda a: not a}[type(node.op)](v)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [literal(e) for e in node.elts]
    raise Rejected("invalid_spec", "unsupported index expression %r" % ast.unparse(node))


def parse_subscript(text):
    """A subscript conform sends without a structured key (one holding an item NumPy refuses,
    such as x[1.5], or none at all): its items as Python values, for the library to refuse as it
    does; names stay Name until the inputs are known."""
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        raise Rejected("invalid_spec", "syntax error at column %s" % e.offset)
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
    """The request's key with the named index arrays filled in; bad_input when the names and
    the inputs differ (as conform's reference does)."""
    error = None
    if isinstance(request.get("key"), list):
        items = request["key"]
        names = {k["name"] for k in items if isinstance(k, dict) and "name" in k}
    elif not isinstance(request.get("index"), str):
        raise Rejected("bad_input", '"index" must be a string such as "x[1:3, ...]"')
    else:
        try:
            items = parse_subscript(request["index"])
        except (Rejected, RecursionError) as e:
            items, error = [], e
        names = {k for k in items if isinstance(k, Name)}
    if inputs.keys() - names - {"x"}:
        raise Rejected("bad_input", "an input is not named in the index")
    if names - inputs.keys():
        raise Rejected("bad_input", "the index names an input that is missing")
    if error:
        raise error
    if isinstance(request.get("key"), list):
        return to_key(items, inputs)
    return tuple(inputs[k] if isinstance(k, Name) else k for k in items)


# ---- errors ---------------------------------------------------------------------------------

def as_array(k):
    """An inline list as the array NumPy makes of it (an empty list is an integer index)."""
    try:
        a = np.array(k)
    except Exception:
        return k  # NumPy refuses it: left for NumPy to refuse again
    return a.astype(np.intp) if a.size == 0 else a


def spec_fault(op, inputs, fields, key):
    """Whether the reference refuses this case's spec whatever the positions: whether NumPy
    still raises with every integer (and index array value) moved into bounds (getitem, take,
    take_along_axis), or ONNX's shape rules (onnx_gather_elements)."""
    if op == "getitem":
        if key is None:
            return True
        x = inputs["x"]
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
                # NumPy checks a mask's shape against x's, whatever the positions.
                if a.dtype.kind == "b" and a.ndim and tuple(a.shape) != tuple(x.shape[dim:dim + a.ndim]):
                    return True
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
        data, indices, axis = inputs["data"], inputs["indices"], fields.get("axis", 0)
        if data.ndim == 0 or indices.ndim != data.ndim or not -data.ndim <= axis < data.ndim:
            return True
        return any(m > n for d, (n, m) in enumerate(zip(data.shape, indices.shape)) if d != axis % data.ndim)
    if op not in ("take", "take_along_axis"):
        return False
    # take, take_along_axis: NumPy's own function on a stub of the same shape, the indices
    # moved into bounds. An empty axis gets length 1 (a non-empty take from it is
    # out_of_range); take has no other shape rule, take_along_axis's other dimensions must
    # broadcast, so they stay as they are.
    a, indices = inputs.get("a", inputs.get("arr")), inputs["indices"]
    axis = fields.get("axis")
    if op == "take":  # np.take reads a 0-d a as a vector
        shape = tuple(max(d, 1) for d in (a.shape or (1,)))
    elif axis is None:  # along the flattened arr
        shape, axis = (max(a.size, 1),), 0
    else:
        shape = tuple(max(d, 1) if -a.ndim <= axis < a.ndim and i == axis % a.ndim else d
                      for i, d in enumerate(a.shape))
    n = np.prod(shape) if axis is None else (shape[axis] if -len(shape) <= axis < len(shape) else 0)
    # np.take casts boolean indices to integers; np.take_along_axis refuses them.
    if indices.dtype.kind in ("biu" if op == "take" else "iu") and indices.size and n:
        indices = np.asarray(np.clip(indices.astype(object), -n, n - 1)).astype(np.int64).reshape(indices.shape)
    stub = np.broadcast_to(np.zeros((), np.int8), shape)
    try:
        if op == "take":
            np.take(stub, indices, axis=axis, mode=fields.get("mode", "raise"))
        else:
            np.take_along_axis(stub, indices, axis)
    except (IndexError, ValueError, TypeError, OverflowError):
        return True
    except Exception:
        return False
    return False


def kind_of(exc, op, inputs, fields, key):
    """conform's kind for an exception the library raised (see the module doc)."""
    if isinstance(exc, Rejected):
        return exc.kind
    if isinstance(exc, KeyError):
        return "bad_input"
    # getitem: an integer beyond int64 is out of range for any axis, whichever class the
    # library raises for it (NumPy: IndexError alone, OverflowError among other items).
    if op == "getitem" and isinstance(exc, OverflowError):
        return "invalid_spec" if spec_fault(op, inputs, fields, key) else "out_of_range"
    if isinstance(exc, (ValueError, TypeError, OverflowError)) and not isinstance(exc, IndexError):
        return "invalid_spec"
    return "invalid_spec" if spec_fault(op, inputs, fields, key) else "out_of_range"


# ---- the conform/1 loop ---------------------------------------------------------------------

def load(name, b64):
    try:
        return np.load(io.BytesIO(base64.b64decode(b64)), allow_pickle=False)
    except Exception as e:
        raise Rejected("bad_input", "input %r: unreadable .npy: %s" % (name, e))


def answer(request, ops, kinds):
    """The answer to one request (without its id)."""
    op = request.get("op")
    if op not in ops:
        return {"skip": "the adapter does not implement %r" % (op,)}
    spec = OPS.get(op, {"inputs": [], "fields": [], "required": []})
    foreign = sorted(ALL_FIELDS.intersection(request) - set(spec["fields"]))
    if foreign:
        raise Rejected("bad_input", "field %r does not apply to op %s" % (foreign[0], op))
    inputs = {name: load(name, data) for name, data in (request.get("inputs") or {}).items()}
    fields = {f: request[f] for f in spec["fields"] if f in request}
    missing = [f for f in spec["required"] if f not in request]
    if missing:
        raise Rejected("bad_input", "op %s needs the field %r" % (op, missing[0]))
    key = None
    try:
        if op == "getitem":
            key = getitem_key(inputs, request)
            out = ops[op](inputs["x"], key)
        else:
            if set(inputs) != set(spec["inputs"]):
                raise Rejected("bad_input", "op %s takes the inputs %s, the case has %s"
                               % (op, ", ".join(spec["inputs"]), ", ".join(sorted(inputs))))
            out = ops[op](*[inputs[n] for n in spec["inputs"]], **fields)
        out = np.asarray(out)
    except Skip as e:
        return {"skip": str(e)}
    except RecursionError:
        return {"skip": "the subscript is nested too deeply for Python's parser"}
    except MemoryError as e:
        return {"crash": "MemoryError: %s" % e}
    except Exception as e:
        kind = kinds(e, op, inputs, fields, key) if kinds else None
        if kind is None:
            kind = kind_of(e, op, inputs, fields, key)
        if isinstance(e, Rejected):
            return {"error": {"kind": kind, "message": str(e)[:2000]}}
        message = "%s: %s" % (type(e).__name__, e)
        return {"error": {"kind": kind, "message": message[:2000], "type": class_name(e)}}
    buf = io.BytesIO()
    np.save(buf, np.array(out, order="C"), allow_pickle=False)  # C order, dtype and rank kept
    return {"output": base64.b64encode(buf.getvalue()).decode()}


def class_name(exc):
    """The exception's class as conform names it: IndexError for a builtin, numpy.AxisError for
    another module's (the top package's name and the class)."""
    cls = type(exc)
    module = cls.__module__.split(".")[0]
    return cls.__qualname__ if module == "builtins" else "%s.%s" % (module, cls.__qualname__)


def serve(ops, name="python", version="", kind_of=None):
    """Runs the conform/1 loop over stdin and stdout: ops maps op names to functions (see the
    module doc); name and version are the hello's; kind_of(exc, op, inputs, fields, key), if
    given, maps an exception to a kind first (None: the default mapping)."""
    unknown = sorted(set(ops) - set(OPS))
    if unknown:
        raise ValueError("conform has no op %s (its ops: %s)" % (", ".join(unknown), ", ".join(OPS)))
    print(json.dumps({"hello": {"name": name, "version": str(version), "ops": list(ops), "errors": "python"}}),
          flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            response = answer(request, ops, kind_of)
        except Rejected as e:
            response = {"error": {"kind": e.kind, "message": str(e)}}
        except Exception as e:  # a bug of the adapter itself
            response = {"crash": "%s: %s" % (type(e).__name__, e)}
        response["id"] = request["id"]
        print(json.dumps(response), flush=True)
