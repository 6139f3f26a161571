#!/usr/bin/python3
# A conform/1 adapter: puts an implementation of tf.slice under test.
import base64, io, json, sys
import numpy as np

def my_slice(x, begin, size):  # the implementation under test
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise ValueError("invalid_spec", "begin and size need one entry per dimension")
    index = []
    for d, b, s in zip(x.shape, begin, size):
        s = d - b if s == -1 else s
        if not (0 <= b <= d and 0 <= s <= d - b):
            raise ValueError("out_of_range", f"begin {b}, size {s} outside a dimension of {d}")
        index.append(slice(b, b + s))
    return x[tuple(index)]

print(json.dumps({"hello": {"name": "my-slice", "version": "1.0", "ops": ["slice"]}}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    response = {"id": request["id"]}
    try:
        x = np.load(io.BytesIO(base64.b64decode(request["inputs"]["x"])), allow_pickle=False)
        out = np.array(my_slice(x, request["begin"], request["size"]), dtype=x.dtype, order="C")
        buf = io.BytesIO()
        np.save(buf, out, allow_pickle=False)
        response["output"] = base64.b64encode(buf.getvalue()).decode()
    except ValueError as e:
        kind, message = e.args if len(e.args) == 2 else ("bad_input", str(e))
        response["error"] = {"kind": kind, "message": message}
    print(json.dumps(response), flush=True)
