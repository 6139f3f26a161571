"""The array codecs: reading an input given as a .npy file (checked
canonical headers read without NumPy's general header parser, cached;
anything else by numpy.lib.format) or as a raw array (the dtype, shape and
base64 elements of conform/1's "arrays": "raw"), the header np.save
writes for a result, and a result as a raw array."""

import binascii
import io
import re

import numpy as np

from common import MAX_HEADER, MAX_RANK, CaseError, a2b_base64, b2a_base64, bad, ndarray, one_line


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


# The header np.save (and conform's internal/npy) writes; parsed without
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


# Raw arrays: descr -> checked dtype (or the message of its error).
RAW_DTYPES = {}


def raw_dtype(name, descr):
    """The checked dtype of a raw array's "dtype", cached."""
    dt = RAW_DTYPES.get(descr)
    if dt is None:
        if type(descr) is not str or not descr.isascii() or len(descr) > 16:
            raise bad("input %r: raw array: \"dtype\" must be a dtype string such as \"<f4\"" % name)
        try:
            dt = np.dtype(descr)
            check_dtype(dt)
            if dt.str.lstrip("<>|=") != descr.lstrip("<>|="):
                raise ValueError("not in the form of a .npy header")
        except CaseError as e:
            dt = e.message
        except Exception as e:  # TypeError, ValueError, ...
            dt = "unsupported dtype %r: %s" % (descr, one_line(e))
        if len(RAW_DTYPES) < 4096:
            RAW_DTYPES[descr] = dt
    if type(dt) is str:
        raise bad("input %r: raw array: %s" % (name, dt))
    return dt


def load_raw(name, v):
    """The array of a raw input {"dtype": ..., "shape": [...], "data": ...},
    C order, checked as load_npy checks a .npy file."""
    try:
        descr, shape, data = v["dtype"], v["shape"], v["data"]
    except KeyError:
        raise bad('input %r: raw array: want "dtype", "shape" and "data"' % name)
    dt = RAW_DTYPES.get(descr)
    if dt is None or type(dt) is str:
        dt = raw_dtype(name, descr)
    if type(shape) is not list or len(shape) > MAX_RANK:
        raise bad("input %r: raw array: \"shape\" must be a list of at most %d dimensions" % (name, MAX_RANK))
    n = 1
    for d in shape:
        if type(d) is not int or d < 0:
            raise bad("input %r: raw array: dimension %r of shape is not a non-negative integer" % (name, d))
        n *= d
    if type(data) is not str:
        raise bad("input %r: raw array: \"data\" must be a base64 string" % name)
    try:
        b = a2b_base64(data if data.isascii() else data.encode("ascii"), strict_mode=True)
    except (binascii.Error, ValueError, UnicodeEncodeError) as e:
        raise bad("input %r: invalid base64: %s" % (name, e))
    if len(b) != n * dt.itemsize:
        raise bad("input %r: raw array: shape %s of %s needs %d bytes, the data has %d"
                  % (name, tuple(shape), dt.str, n * dt.itemsize, len(b)))
    if n == 0:
        return np.empty(tuple(shape), dtype=dt)
    return ndarray(tuple(shape), dt, b)


# Raw answers: each dtype's .str as bytes, and the answer's format by the
# result's rank (as many %d as dimensions).
DTYPE_STR = {}
RAW_FORMATS = [b'{"id":%s,"output":{"dtype":"%s","shape":[' + b",".join([b"%d"] * n) + b'],"data":"%s"}}\n'
               for n in range(MAX_RANK + 1)]


def raw_output(rid, result):
    """The answer line (bytes) giving result, a C-contiguous array, as a
    raw array."""
    dt = result.dtype
    s = DTYPE_STR.get(dt)
    if s is None:
        if len(DTYPE_STR) >= 4096:
            DTYPE_STR.clear()
        s = DTYPE_STR[dt] = dt.str.encode("ascii")
    return RAW_FORMATS[result.ndim] % ((rid, s) + result.shape + (b2a_base64(result.tobytes(), newline=False),))
