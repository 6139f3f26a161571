#!/usr/bin/python3
"""conform/1 oracle backed by NumPy.

Run with /usr/bin/python3 (Debian's python3-numpy). It reads one JSON request
per line on stdin and writes one JSON response per request on stdout, after a
hello line; see "Protocol conform/1" in the project's design notes and
oracle/README.md.

Ops:
  getitem        NumPy indexing, np.asarray(x[key]), evaluated by NumPy
                 itself. The index string is parsed with the ast module
                 (never eval'd) and must be what conform's internal/expr
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

The index ops (gather, gather_nd and the ONNX gathers) check a few index
values (at most common.SMALL) and turn them into positions in plain Python,
then gather with one NumPy call; more values take vectorized NumPy checks.
Both give the same answers; on arrays of a few dozen elements each NumPy
call costs about a microsecond whatever the size, more than the loop.

Every result keeps the dtype of x (params for gather_nd, data for the ONNX
ops, a or arr for take and take_along_axis), byte order included, and is
written with np.save; except getitem, whose
result is np.asarray(x[key]): a full integer index (x[1, 2]; x[()] on a 0-d
array) makes NumPy return a scalar, whose array has native byte order and, for
S and U, the string's own length (see op_getitem).

This file is the protocol loop; the rest is in modules beside it:
common.py (limits, errors), casefields.py (the case fields, the op table
from ../ops.json), npyfile.py (the .npy codec), subscript.py (the getitem
subscript parser), numpy_ops.py, tf_ops.py and onnx_ops.py (the ops by
the library whose semantics they follow).
"""

import json
import os
import sys
import time
import warnings

import numpy as np

# The modules beside this file are imported from its directory, which must
# hold exactly the extracted programs: no __pycache__.
sys.dont_write_bytecode = True

from common import CaseError, Skip, b2a_base64, ndarray, one_line, short  # noqa: E402
from npyfile import HEADERS, npy_header, raw_output  # noqa: E402
from casefields import OPS, load_inputs, parse_spec  # noqa: E402
from numpy_ops import load_getitem_inputs, op_getitem, op_take, op_take_along_axis  # noqa: E402
from tf_ops import op_gather, op_gather_nd, op_slice, op_strided_slice  # noqa: E402
from onnx_ops import op_onnx_gather, op_onnx_gather_elements, op_onnx_gather_nd, op_onnx_slice  # noqa: E402

NAME = "numpy"

# NumPy 1.24 warns (DeprecationWarning) where it still ignores an index out
# of bounds because the result of an advanced index is empty; the warning
# is no part of the answer and would only fill the log.
warnings.filterwarnings("ignore", category=DeprecationWarning)

if hasattr(sys, "set_int_max_str_digits"):
    # Integer literals of any length are valid indices or slice bounds.
    sys.set_int_max_str_digits(0)



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
    """Returns the result array (of the dtype the op gives) or raises
    CaseError."""
    spec = parse_spec(case)
    op = spec["op"]
    if op == "getitem":
        inputs = load_getitem_inputs(case, spec)
    else:
        inputs = load_inputs(case, op)
    result, dtype = OPS_FUNC[op](spec, inputs)
    if type(result) is not ndarray or result.dtype != dtype:
        result = np.array(result, dtype=dtype, order="C", copy=True)
    return result


def output_line(rid, result, case):
    """The answer line (bytes) giving result: a raw array if the request
    gave its inputs as raw arrays (objects, not strings; it has inputs, or
    evaluate_case would have refused it), else the base64 of the .npy file
    np.save writes."""
    for v in case["inputs"].values():
        if type(v) is dict:
            return raw_output(rid, result)
        break
    # tobytes() is the C-order copy np.save writes, contiguous or not.
    h = HEADERS.get((result.dtype.str, result.shape))
    if h is None:
        h = npy_header(result)
    return b'{"id":%s,"output":"%s"}\n' % (rid, b2a_base64(h + result.tobytes(), newline=False))


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
        result = evaluate_case(case)
    except CaseError as e:
        if e.type is None:
            return ('{"id":%s,"error":{"kind":"%s","message":%s}}\n' % (rid, e.kind, json.dumps(e.message))).encode("ascii")
        return ('{"id":%s,"error":{"kind":"%s","message":%s,"type":"%s"}}\n'
                % (rid, e.kind, json.dumps(e.message), e.type)).encode("ascii")
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
    return output_line(rid.encode("ascii"), result, case)


# How long the answers of one chunk of requests may wait to be written:
# a few dozen cases' work.
FLUSH_AFTER = 0.0005

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
    write_all(ofd, (json.dumps({"hello": {"name": NAME, "version": np.__version__, "ops": OPS, "arrays": "raw"}}) + "\n").encode("ascii"))
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
        # Answer every complete line of this chunk, flushing the answers
        # every FLUSH_AFTER seconds of work and at its end: requests that
        # arrive together are answered in a few writes, and conform
        # compares the first answers of a long chunk while the oracle
        # works on the rest instead of waiting for all of them.
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
                if size > (1 << 20) or monotonic() - t0 > FLUSH_AFTER:
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
