#!/usr/bin/python3
"""conform/1 adapter for Dask arrays (Debian python3-dask), on the helper `conform adapter python` writes.
Every dimension is cut into chunks of 2, so that Dask's chunk logic is exercised.
Run: conform check --impl '/usr/bin/python3 examples/dask/adapter.py' \
         --known-failures examples/dask/known-failures.txt"""
import os, sys
import dask, dask.array as da, numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from conform_adapter import Skip, serve  # noqa: E402

dask.config.set(scheduler="synchronous")  # one case at a time: no thread pool


def take(a, indices, axis=None, mode="raise"):  # da.take; axis=None: along the raveled array
    if mode != "raise":
        raise Skip("da.take has no mode")
    a = da.from_array(a, chunks=2)
    return da.take(a.ravel() if axis is None else a, indices, axis=0 if axis is None else axis).compute()


serve({"getitem": lambda x, key: da.from_array(x, chunks=2)[key].compute(), "take": take},
      name="dask", version=dask.__version__)
