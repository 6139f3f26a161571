"""The getitem subscript parser: a subscript such as "x[1:3, ..., i]"
becomes a NumPy key, read by fast_index for its common shapes and by the
ast module (never eval'd) otherwise, accepting what conform's internal/expr
accepts, with its errors."""

import ast
import io
import keyword
import re

import numpy as np

from common import (CaseError, INT64_MAX, INT64_MIN, MASK64, MAX_ITEMS, MAX_SOURCE, TooDeep, bad, exception_class, invalid, ndarray, one_line, out_of_range, short)


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
    """Evaluates e as internal/expr does: a literal, True, False, None or
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
    internal/expr rejects with the same kinds."""
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
        hit = (CaseError, (e.kind, e.message, e.type))
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

    __slots__ = ("kind", "message", "type")

    def __init__(self, error):
        self.kind, self.message, self.type = error.kind, error.message, error.type

    def error(self):
        """A fresh CaseError (the parsed key is cached and reused)."""
        return CaseError(self.kind, self.message, self.type)


class BadSlice:
    """A slice with a bound that is a literal but not an integer or None
    (x[1.5:], x[:'a']): NumPy's TypeError, raised where NumPy reads the
    slice (with the bounds of the integer items, in item order)."""

    __slots__ = ("kind", "message", "type")

    def __init__(self, error):
        self.kind, self.message, self.type = error.kind, error.message, error.type

    def error(self):
        """A fresh CaseError (the parsed key is cached and reused)."""
        return CaseError(self.kind, self.message, self.type)


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
    return Refused(invalid("item %d: an index can only have a single ellipsis ('...')" % (i + 1), "IndexError"))


def huge_index(i):
    return Refused(out_of_range("item %d: index does not fit in int64 and is out of bounds for any axis" % (i + 1),
                                "IndexError"))


def parse_index_ast(src):
    norm = src.replace("\r\n", "\n").replace("\r", "\n")
    text = norm.lstrip(" \t\n")
    # Drop comments: a '#' outside a comment can only be inside a string
    # literal, and any string literal makes the index invalid either way.
    # (Python refuses a NUL byte even inside a comment; internal/expr does not.)
    code = "\n".join(line.split("#", 1)[0] for line in text.split("\n"))
    if "\f" in code or "\v" in code:
        # Python's tokenizer takes form feed (and, inside brackets, vertical
        # tab) as white space; the Python 3.4 lexer of internal/expr does not.
        raise invalid("syntax error: form feed or vertical tab in index %r" % src[:120])
    try:
        tree = ast.parse(code, mode="eval")
    except (RecursionError, MemoryError) as e:
        raise TooDeep("Python's parser cannot parse index %r: %s" % (src[:60], type(e).__name__))
    except SyntaxError as e:
        if "too many nested" in str(e) or "too complex" in str(e):
            raise TooDeep("Python's parser cannot parse index %r: %s" % (src[:60], one_line(e)))
        raise invalid("cannot parse index %r: %s" % (src[:120], one_line(e)), exception_class(e))
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
        raise invalid("too many indices for array: %d items, at most %d are allowed" % (len(dims), MAX_ITEMS),
                      "IndexError")
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
    err = invalid("item %d is %s: %s" % (i + 1, what, MSG_INVALID_INDEX), "IndexError")
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
                              % (i + 1, short(n), MSG_INVALID_INDEX), "IndexError")
        elif kind != K_BOOL:
            raise invalid("item %d: a list index holds %s; only integers and booleans are valid "
                          "in an index array" % (i + 1, "None" if kind == K_NONE else what), "IndexError")
        return n

    values = walk(e)
    if small and large:
        raise invalid("item %d: the list mixes integers of int64 and of uint64 beyond int64 (a float64 "
                      "array): %s" % (i + 1, MSG_INVALID_INDEX), "IndexError")
    try:
        arr = np.array(values, dtype=np.int64)
    except ValueError as err:  # ragged, or more than 32 dimensions
        raise invalid("item %d: the list is not an array: %s" % (i + 1, one_line(err)), exception_class(err))
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
                bad = BadSlice(invalid("item %d: slice %s is %s: %s" % (i + 1, name, what, MSG_SLICE_INDEX),
                                       "TypeError"))
            parts.append(None)
        else:
            raise invalid("item %d: slice %s is %s: conform evaluates no expressions" % (i + 1, name, what))
    return slice(*parts) if bad is None else bad
