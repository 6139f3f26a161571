#!/usr/bin/python3
"""A conform/1 adapter for Dask arrays (Debian python3-dask), written as a Dask user would.

Run:  go run ./cmd/conform check --impl '/usr/bin/python3 examples/dask/adapter.py'
      go run ./cmd/conform fuzz --impl '/usr/bin/python3 examples/dask/adapter.py' --oracle numpy --duration 30s

Ops: getitem is da.from_array(x, chunks=2)[key].compute() (index arrays and inline lists as
NumPy arrays and lists, as a user passes them); take is da.take on the same chunked array
(axis=None: along the raveled array). da.take has no mode: other modes than raise are skipped.
Every dimension is cut into chunks of 2 so that the chunk logic is exercised.
Errors: ../python/conform_adapter.py's mapping (IndexError -> out_of_range unless NumPy's own
rules make it a spec fault; ValueError, TypeError -> invalid_spec; anything else out_of_range).
"""
import os
import sys

import dask
import dask.array as da
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from conform_adapter import Skip, serve  # noqa: E402

dask.config.set(scheduler="synchronous")  # one case at a time; no thread pool


def chunked(a):
    return da.from_array(a, chunks=2)


def getitem(inputs, request):
    return np.asarray(chunked(inputs["x"])[request["key"]].compute())


def take(inputs, request):
    if request.get("mode", "raise") != "raise":
        raise Skip("da.take has no mode")
    a, axis = chunked(inputs["a"]), request.get("axis")
    if axis is None:
        a, axis = a.ravel(), 0
    return np.asarray(da.take(a, inputs["indices"], axis=axis).compute())


if __name__ == "__main__":
    serve("dask", dask.__version__, {"getitem": getitem, "take": take})
