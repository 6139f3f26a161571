"""The case fields of a conform/1 request: the op, its spec fields and its
inputs, read and checked as casefile reads them. The ops, their inputs and
their fields come from ../ops.json, which conform generates from its op
registry; a field of another op in a case is bad_input."""

import binascii
import json
import os

from common import INT64_MAX, INT64_MIN, MASK32, MASK64, a2b_base64, bad, invalid, short
from npyfile import load_npy, load_raw


def _load_registry():
    """The ops of conform's registry (package casefile) as ../ops.json,
    generated from it, has them: each op's name, family, inputs and fields
    with their types."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "ops.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)["ops"]


REGISTRY = _load_registry()
OPS = [o["name"] for o in REGISTRY]
# The inputs of each op; getitem takes "x" plus one input per name its
# subscript uses (see load_getitem_inputs).
OP_INPUTS = {o["name"]: o["inputs"] for o in REGISTRY}
OP_INPUT_SET = {op: frozenset(names) for op, names in OP_INPUTS.items()}
# The fields of each op, in the order of OPS.
OP_FIELDS = {o["name"]: [f["name"] for f in o["fields"]] for o in REGISTRY}
# Foreign fields, one rule for every op: a field that belongs to any other
# op and not to the case's own op is bad_input ("axes" in a getitem case,
# "mode" in a gather case); any other unknown field is metadata. FOREIGN
# lists them per op in a fixed order (OPS, then each op's fields), so the
# first one present is the one reported.
FOREIGN = {op: [f for other in OPS if other != op for f in OP_FIELDS[other] if f not in OP_FIELDS[op]]
           for op in OPS}
FOREIGN = {op: list(dict.fromkeys(fs)) for op, fs in FOREIGN.items()}
FOREIGN_SET = {op: frozenset(fs) for op, fs in FOREIGN.items()}


def is_int(v):
    return type(v) is int  # JSON integers; bool is not one


def int64(v, what):
    if not is_int(v):
        raise bad("%s: not an integer: %s" % (what, short(v)))
    if v < INT64_MIN or v > INT64_MAX:
        raise bad("%s: %s is not an integer within int64" % (what, short(v)))
    return v


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
        return int_mask(int64(v, name))
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
    return int_mask(int64(v, name))


def int_mask(v):
    """The mask of an integer bitmask v. TF's masks are int32 attributes: a
    value within int32 is its 32-bit pattern (-2**31 is bit 31 alone), one
    beyond int32 (which TF refuses) its 64-bit pattern."""
    return Mask(v & (MASK32 if -(1 << 31) <= v < (1 << 31) else MASK64))


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
        if type(v) is dict:
            out[name] = load_raw(name, v)
            continue
        if not isinstance(v, str):
            raise bad("input %r must be a string or a raw array" % name)
        try:
            # base64.b64decode(v.encode("ascii"), validate=True), inlined
            # (binascii reads an ASCII str as its bytes)
            data = a2b_base64(v if v.isascii() else v.encode("ascii"), strict_mode=True)
        except (binascii.Error, ValueError, UnicodeEncodeError) as e:
            raise bad("input %r: invalid base64: %s" % (name, e))
        out[name] = load_npy(name, data)
    return out
