"""NumPy's own ops, evaluated by NumPy: getitem (basic and advanced
indexing), take and take_along_axis."""

import numpy as np

from common import (CaseError, INT64, INT64_MAX, MAX_RANK, Skip, TooDeep, count_of, exception_class, invalid, ndarray,
                    one_line, out_of_range)
from casefields import load_inputs
from subscript import AdvKey, BadSlice, Named, Refused, parse_index


C_INT_MIN, C_INT_MAX = -2**31, 2**31 - 1  # the range of the C int NumPy reads an axis into


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
            raise out_of_range(msg, exception_class(e))
        raise invalid(msg, exception_class(e))
    except (ValueError, TypeError) as e:
        raise invalid(one_line(e), exception_class(e))
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
                                       "for any axis" % (i + 1, int(a)), "OverflowError")
            elif k != "i" and k != "u" and k != "b":
                raise invalid("item %d: arrays used as indices must be of integer (or boolean) type, "
                              "input %r has dtype %s" % (i + 1, it.name, a.dtype.str), "IndexError")
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
        raise invalid("too many indices for array: array is %d-dimensional, but %d were indexed" % (ndim, used), "IndexError")
    rest = ndim - used  # the dims of the ellipsis, or the implied trailing ones
    new_ndim += rest
    # 3. The result rank.
    if (fancy or newaxis) and new_ndim + fancy_ndim > MAX_RANK:
        raise invalid("number of dimensions must be within [0, %d], indexing result would have %d"
                      % (MAX_RANK, new_ndim + fancy_ndim), "IndexError")
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
                                  "but corresponding boolean dimension is %d" % (pos + j, x.shape[pos + j], it.shape[j]),
                                  "IndexError")
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
            raise invalid("slice step cannot be zero", "ValueError")
        elif it is None or t is bool:
            pass
        elif t is int or (t is ndarray and it.ndim == 0 and it.dtype.kind != "b"):
            v, d = int(it), x.shape[pos]
            if v < -d or v >= d:
                raise out_of_range("index %d is out of bounds for axis %d with size %d" % (v, pos, d), "IndexError")
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
        # Each item is at most one index array, but a boolean array one per
        # dim it covers: fewer than 31 items and dims cannot reach a limit.
        if len(key) + ndim >= MAX_RANK - 1:
            iterator_limits(x, key, rest)
    # 8. NumPy itself: what it can still refuse is a value out of bounds.
    try:
        r = x[tuple(key)]
        if not isinstance(r, ndarray):
            r = np.asarray(r)  # a full integer index of 0-d integer arrays
    except IndexError as e:
        raise out_of_range(one_line(e), exception_class(e))
    except (ValueError, TypeError) as e:
        raise invalid(one_line(e), exception_class(e))
    except SystemError as e:
        raise Skip("NumPy cannot make a scalar of this element: %s" % one_line(e))
    return r


def iterator_limits(x, key, rest):
    """NumPy's index iterator (mapping.c, PyArray_MapIterNew) takes at most
    32 index arrays, and at most 31 when the subspace (the part of the
    result that slices, new axes and the dims no item indexes make) holds
    one element: more is an IndexError whatever the values, a fault of the
    index (invalid_spec). An index array counts one, a boolean one one per
    dimension (its nonzero() arrays), True and False one each; integers
    and 0-d integer arrays index the subspace and count none. A boolean
    array of x's own shape alone is NumPy's mask index, not the iterator.
    rest is the number of dims the ellipsis (or the implied trailing one)
    covers."""
    if len(key) == 1 and type(key[0]) is ndarray and key[0].shape == x.shape:
        return
    arrays = 0
    subspace = 1
    pos = 0
    for it in key:
        t = type(it)
        if t is bool:
            arrays += 1
        elif it is Ellipsis:
            subspace *= count_of(x.shape[pos:pos + rest])
            pos += rest
        elif it is None:
            pass
        elif t is slice:
            subspace *= len(range(*it.indices(x.shape[pos])))
            pos += 1
        elif t is ndarray and it.dtype.kind == "b":
            arrays += max(it.ndim, 1)
            pos += it.ndim
        elif t is ndarray and it.ndim:
            arrays += 1
            pos += 1
        else:  # an integer or a 0-d integer array
            pos += 1
    subspace *= count_of(x.shape[pos:])  # the implied trailing dims
    if arrays > MAX_RANK:
        raise invalid("too many advanced (array) indices: %d, more than %d" % (arrays, MAX_RANK), "IndexError")
    if subspace == 1 and arrays > MAX_RANK - 1:
        raise invalid("when no subspace is given, the number of index arrays cannot be above %d, but %d index "
                      "arrays found" % (MAX_RANK - 1, arrays), "IndexError")


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
                              % " ".join(str(tuple(s)) for s in shapes), "IndexError")
    return tuple(out)


def op_take(spec, inputs):
    """np.take(a, indices, axis, mode), NumPy 1.24. Its own checks come
    first, made here in NumPy's order because two of them share an
    exception class with the bounds: the axis (a ValueError beyond a C int,
    else AxisError; a 0-d a reads as a vector), the index dtype (cast to intp with the 'safe' rule: bool and
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
        if not C_INT_MIN <= axis <= C_INT_MAX:
            # np.take reads its axis as a C int (PyArray_AxisConverter).
            raise invalid("axis %d: integer won't fit into a C int" % axis, "ValueError")
        if not -nd <= axis < nd:
            raise invalid("axis %d is out of bounds for array of dimension %d" % (axis, nd), "numpy.AxisError")
        ax = axis + nd if axis < 0 else axis
    dt = indices.dtype
    # A 0-d index is cast by its value: a uint64 within int64 passes.
    if not (dt.kind == "b" or dt.kind == "i" or (dt.kind == "u" and dt.itemsize < 8)
            or (dt.kind == "u" and indices.ndim == 0 and int(indices) <= INT64_MAX)):
        raise invalid("cannot cast indices of dtype %s to int64 according to the rule 'safe'" % dt.str, "TypeError")
    out_shape = shape[:ax] + indices.shape + shape[ax + 1:]
    if len(out_shape) > MAX_RANK:
        raise invalid("number of dimensions must be within [0, %d], take result would have %d"
                      % (MAX_RANK, len(out_shape)), "ValueError")
    if mode == "wrap":
        # NumPy's wrap mode steps an index into range one axis length at a
        # time: an index near INT64_MIN or INT64_MAX takes ages, and into an axis of
        # length 0 it never ends (NumPy refuses that only when the result
        # has elements). The same positions, reduced here at once.
        n = shape[ax]
        if n == 0:
            if count_of(out_shape):
                raise out_of_range("cannot do a non-empty take from an empty axes.", "IndexError")
            return np.empty(out_shape, a.dtype), a.dtype
        indices = np.mod(indices.astype(INT64), n)
    try:
        r = np.asarray(a.take(indices, axis=axis, mode=mode))  # what np.take calls
    except IndexError as e:
        raise out_of_range(one_line(e), exception_class(e))
    except (ValueError, TypeError) as e:
        raise invalid(one_line(e), exception_class(e))
    return r, r.dtype


def op_take_along_axis(spec, inputs):
    """np.take_along_axis(arr, indices, axis), NumPy 1.24: the axis
    (OverflowError beyond a C int, else AxisError; None takes along the
    flattened arr), indices of an integer
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
        if not C_INT_MIN <= axis <= C_INT_MAX:
            # normalize_axis_index takes a C int.
            raise invalid("axis %d: Python int too large to convert to C int" % axis, "OverflowError")
        if not -nd <= axis < nd:
            raise invalid("axis %d is out of bounds for array of dimension %d" % (axis, nd), "numpy.AxisError")
        src, ax = arr, axis + nd if axis < 0 else axis
    if indices.dtype.kind not in "iu":
        raise invalid("`indices` must be an integer array, got dtype %s" % indices.dtype.str, "IndexError")
    if indices.ndim != src.ndim:
        raise invalid("`indices` and `arr` must have the same number of dimensions, got %d and %d"
                      % (indices.ndim, src.ndim), "ValueError")
    for d in range(src.ndim):
        n, m = src.shape[d], indices.shape[d]
        if d != ax and n != m and n != 1 and m != 1:
            raise invalid("shape mismatch: indices of shape %s do not broadcast against arr of shape %s "
                          "outside axis %d" % (indices.shape, src.shape, ax), "IndexError")
    if src.ndim > MAX_RANK - 1:
        # NumPy indexes arr with one index array per dimension and no
        # subspace: IndexError "the number of index arrays cannot be above
        # 31", a fault of the spec, also for an empty result.
        raise invalid("when no subspace is given, the number of index arrays cannot be above %d, "
                      "but %d index arrays found" % (MAX_RANK - 1, src.ndim), "IndexError")
    try:
        r = np.take_along_axis(src, indices, ax)
    except IndexError as e:
        raise out_of_range(one_line(e), exception_class(e))
    except (ValueError, TypeError) as e:
        raise invalid(one_line(e), exception_class(e))
    return r, arr.dtype
