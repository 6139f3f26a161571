#!/usr/bin/python3
"""Writes cases/seeds/: the examples of the documents conform was created from.

Run with /usr/bin/python3 (python3-numpy):  /usr/bin/python3 cases/make_seeds.py

Each case records its source. Where a document states the result values,
they are copied here literally (expect.source says "values copied from
..."), and this script asserts that NumPy computes the same values. Where a
document gives only a shape, an equivalence or a wrong result, the expected
output comes from NumPy (an oracle run: expect.source names NumPy and its
version) and the case's "note" quotes what the document says.
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "seeds")
NUMPY = "numpy %s" % np.__version__

DOCS = {
    "tf-op": "TensorFlow StridedSlice op reference (seed 000)",
    "openvino": "OpenVINO StridedSlice-1 specification (seed 001)",
    "qa": "Q&A thread 'What does tf.strided_slice() do?' (seed 002)",
    "tf-doc": "tf.strided_slice API docstring (seed 003)",
    "gather": "tf.compat.v1.gather_nd API docstring (seed 004)",
    "numpy-indexing": "NumPy 'Indexing on ndarrays' documentation",
    "numpy-indexing-old": "NumPy 'Indexing' user guide (numpy/doc/indexing.py, before NumPy 1.23)",
    "numpy-take": "numpy.take API docstring (NumPy 1.24)",
    "numpy-take-along-axis": "numpy.take_along_axis API docstring (NumPy 1.24)",
    "onnx-gather": "ONNX Gather-13 operator documentation",
    "onnx-gather-elements": "ONNX GatherElements-13 operator documentation",
    "tf-gather": "tf.gather API docstring",
    "numpy-test-indexing": "NumPy's test suite, numpy/core/tests/test_indexing.py (NumPy 1.24)",
}

written = []


def save(name, arr):
    arr = np.asarray(arr)
    # np.ascontiguousarray makes a 0-d array 1-d; a 0-d array is contiguous as it is.
    np.save(os.path.join(OUT, name), np.ascontiguousarray(arr) if arr.ndim else arr, allow_pickle=False)
    return name


def case(name, doc, rule, spec, inputs, numpy_result, copied=None, note=None, error=None):
    """Writes one case.

    numpy_result: NumPy's result for the case, or an exception kind.
    copied: the document's literal result, if it states one; it must equal
    NumPy's (checked), and becomes the expected output.
    """
    c = {"id": "seeds/" + name, "rule": rule, "source": DOCS[doc]}
    c.update(spec)
    c["inputs"] = {k: save("%s.%s.npy" % (name, k), v) for k, v in inputs.items()}
    if note:
        c["note"] = note
    if error:
        c["expect"] = {"error": error, "source": "document: " + DOCS[doc] + " (stated behaviour)"}
    elif copied is not None:
        copied = np.asarray(copied, dtype=numpy_result.dtype)
        if copied.shape != numpy_result.shape or copied.tobytes() != numpy_result.tobytes():
            sys.exit("%s: the document's values %r differ from NumPy's %r" % (name, copied, numpy_result))
        c["expect"] = {"output": save(name + ".out.npy", copied),
                       "source": "document: values copied from " + DOCS[doc]}
    else:
        c["expect"] = {"output": save(name + ".out.npy", numpy_result), "source": NUMPY}
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(c, f, indent=1)
        f.write("\n")
    written.append(name)


def arange(*shape, dtype=np.int32):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


def ss(begin, end, strides=None, **masks):
    spec = {"op": "strided_slice", "begin": begin, "end": end}
    if strides is not None:
        spec["strides"] = strides
    spec.update(masks)
    return spec


def getitem(index):
    return {"op": "getitem", "index": index}


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))

    # --- seed 003: tf.strided_slice docstring -----------------------------
    t = np.array([[[1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4]], [[5, 5, 5], [6, 6, 6]]], dtype=np.int32)
    case("tf_doc_1", "tf-doc", "begin/end/strides select one row of one matrix",
         ss([1, 0, 0], [2, 1, 3], [1, 1, 1]), {"x": t}, t[1:2, 0:1, 0:3], copied=[[[3, 3, 3]]])
    case("tf_doc_2", "tf-doc", "a 2-row range of the second matrix",
         ss([1, 0, 0], [2, 2, 3], [1, 1, 1]), {"x": t}, t[1:2, 0:2, 0:3], copied=[[[3, 3, 3], [4, 4, 4]]])
    case("tf_doc_3", "tf-doc", "negative begin/end with a negative stride reverse an axis",
         ss([1, -1, 0], [2, -3, 3], [1, -1, 1]), {"x": t}, t[1:2, -1:-3:-1, 0:3], copied=[[[4, 4, 4], [3, 3, 3]]])
    x = arange(7, 8, 9)
    case("tf_doc_open_bounds", "tf-doc", "foo[5:,:,:3] on 7x8x9 equals foo[5:7,0:8,0:3]",
         getitem("x[5:,:,:3]"), {"x": x}, x[5:7, 0:8, 0:3],
         note="The document states the equivalence foo[5:,:,:3] == foo[5:7,0:8,0:3] without values.")
    x = arange(8)
    case("tf_doc_reverse", "tf-doc", "foo[::-1] reverses a tensor with shape 8",
         ss([0], [0], [-1], begin_mask=1, end_mask=1), {"x": x}, x[::-1],
         note="The document states that foo[::-1] reverses a shape-8 tensor, without values.")
    x = arange(10, 3, 3, 10)
    case("tf_doc_ellipsis_middle", "tf-doc", "foo[3:5,...,4:5] on 10x3x3x10 equals foo[3:5,:,:,4:5]",
         ss([3, 0, 4], [5, 0, 5], [1, 1, 1], ellipsis_mask=2), {"x": x}, x[3:5, :, :, 4:5],
         note="The document states the equivalence without values.")
    case("tf_doc_ellipsis_end", "tf-doc", "foo[3:5,...] equals foo[3:5,:,:,:]",
         getitem("x[3:5,...]"), {"x": x}, x[3:5, :, :, :],
         note="The document states the equivalence without values.")
    x = arange(5, 3)
    case("tf_doc_newaxis", "tf-doc", "foo[:4, tf.newaxis, :2] has shape (4, 1, 2)",
         getitem("x[:4, tf.newaxis, :2]"), {"x": x}, x[:4, np.newaxis, :2],
         note="The document gives the shape (4, 1, 2) only.")
    case("tf_doc_newaxis_mask", "tf-doc", "foo[:4, tf.newaxis, :2] through new_axis_mask",
         ss([0, 0, 0], [4, 0, 2], [1, 1, 1], begin_mask=5, new_axis_mask=2), {"x": x}, x[:4, np.newaxis, :2],
         note="The document gives the shape (4, 1, 2) only.")
    x = arange(3, 5, 2)
    case("tf_doc_shrink", "tf-doc", "foo[:, 3, :] is shrink_axis_mask 2",
         ss([0, 3, 0], [0, 4, 0], [1, 1, 1], begin_mask=5, end_mask=5, shrink_axis_mask=2), {"x": x}, x[:, 3, :],
         note="The document states that foo[:, 3, :] gives shrink_axis_mask == 2, without values.")

    # --- seed 000: StridedSlice op reference ------------------------------
    foo = np.array([1, 2, 3, 4], dtype=np.int32)
    wrong = ("The document claims foo[-2::-1] is [4,3] for foo = [1,2,3,4]; the algorithm "
             "(TF's kernel and NumPy) gives [3,2,1], so this case follows the algorithm.")
    case("tf_op_reverse_from_minus2", "tf-op", "foo[-2::-1] starts at the second-to-last element",
         getitem("x[-2::-1]"), {"x": foo}, foo[-2::-1], note=wrong)
    case("tf_op_reverse_from_minus2_mask", "tf-op", "begin -2, end_mask, stride -1 runs to position 0",
         ss([-2], [0], [-1], end_mask=1), {"x": foo}, foo[-2::-1], note=wrong)
    x = arange(2, 4, 3, 5, 6)
    case("tf_op_encoding_getitem", "tf-op", "foo[1, 2:4, None, ..., :-3:-1, :] as a Python subscript",
         getitem("x[1, 2:4, None, ..., :-3:-1, :]"), {"x": x}, x[1, 2:4, None, ..., :-3:-1, :],
         note="The document gives no values; the input shape is ours.")
    case("tf_op_encoding_masks", "tf-op", "the documented encoding of foo[1, 2:4, None, ..., :-3:-1, :]: masks 48/32/8/4/1",
         ss([1, 2, 0, 0, 0, 0], [2, 4, 0, 0, -3, 0], [1, 1, 1, 1, -1, 1],
            begin_mask=48, end_mask=32, ellipsis_mask=8, new_axis_mask=4, shrink_axis_mask=1),
         {"x": x}, x[1, 2:4, None, ..., :-3:-1, :],
         note="begin/end/strides/masks copied from the document ('x' entries as 0); expected values from NumPy's "
              "evaluation of the same subscript.")
    x = arange(3)
    case("tf_op_full_range", "tf-op", "foo[:] on shape (3,) is begin 0, end 3",
         getitem("x[:]"), {"x": x}, x[:], note="The document states effective begin 0 and end 3.")
    case("tf_op_end_minus1", "tf-op", "foo[0:-1] on shape (3,) is begin 0, end 2",
         ss([0], [-1], [1]), {"x": x}, x[0:-1], note="The document states effective begin 0 and end 2.")
    x = arange(5, 6)
    case("tf_op_single_index", "tf-op", "foo[2, :] on shape (5,6) has shape (6,)",
         getitem("x[2, :]"), {"x": x}, x[2, :], note="The document gives the shape (6,) only.")
    x = arange(3, 4)
    case("tf_op_colon_ellipsis", "tf-op", "foo[:, ...] on shape (3,4) is the identity",
         getitem("x[:, ...]"), {"x": x}, x[:, ...],
         note="The document claims foo[:, ...] on shape (3,4) produces a (1,3,4) tensor; no new axis is "
              "written, so the algorithm (and NumPy) gives (3,4). This case follows the algorithm.")
    x = arange(4, 2, 3)
    case("tf_op_implicit_ellipsis", "tf-op", "foo[3:5] == foo[3:5, ...]: a short spec gets an implicit ellipsis",
         ss([3], [5]), {"x": x}, x[3:5, ...], note="The document states the equivalence without values.")
    x = arange(3, 2, 2, 9)
    case("tf_op_ellipsis_4d", "tf-op", "foo[2, ..., 5:8] on a 4-D tensor is foo[2, :, :, 5:8]",
         getitem("x[2, ..., 5:8]"), {"x": x}, x[2, :, :, 5:8], note="The document states the equivalence without values.")
    x = arange(5)
    case("tf_op_identity", "tf-op", "foo[...] is the identity slice",
         ss([0], [0], [1], ellipsis_mask=1), {"x": x}, x[...], note="The document states it is the identity.")

    # --- seed 002: Q&A thread ----------------------------------------------
    inp = t
    case("qa_q1", "qa", "the question's first example",
         ss([1, 0, 0], [2, 1, 3], [1, 1, 1]), {"x": inp}, inp[1:2, 0:1, 0:3], copied=[[[3, 3, 3]]])
    case("qa_q2", "qa", "the question's second example",
         ss([1, 0, 0], [2, 2, 3], [1, 1, 1]), {"x": inp}, inp[1:2, 0:2, 0:3], copied=[[[3, 3, 3], [4, 4, 4]]])
    case("qa_q3_wrong_doc", "qa", "begin 1, end -1, stride -1 on a size-2 axis is empty",
         ss([1, 1, 0], [2, -1, 3], [1, -1, 1]), {"x": inp}, inp[1:2, 1:-1:-1, 0:3],
         note="The thread quotes an old doc claiming [[[4,4,4],[3,3,3]]] and notes the example is wrong: end -1 "
              "is position 1 (d + end), so the range 1..1 is empty. This case follows the algorithm.")
    a = np.array([[[1, 1.2, 1.3], [2, 2.2, 2.3], [7, 7.2, 7.3]],
                  [[3, 3.2, 3.3], [4, 4.2, 4.3], [8, 8.2, 8.3]],
                  [[5, 5.2, 5.3], [6, 6.2, 6.3], [9, 9.2, 9.3]]])
    case("qa_a2_identity", "qa", "full begin/end with stride 1 returns the tensor itself",
         ss([0, 0, 0], [3, 3, 3], [1, 1, 1]), {"x": a}, a[0:3, 0:3, 0:3], copied=a)
    case("qa_a2_stride2", "qa", "stride 2 on every axis",
         ss([0, 0, 0], [3, 3, 3], [2, 2, 2]), {"x": a}, a[::2, ::2, ::2],
         copied=[[[1., 1.3], [7., 7.3]], [[5., 5.3], [9., 9.3]]])
    case("qa_a2_end_minus1", "qa", "end -1 on a size-3 axis is end 2",
         ss([1, 1, 0], [2, -1, 3], [1, 1, 1]), {"x": a}, a[1:2, 1:2, 0:3],
         note="The thread states this equals tf.strided_slice(input3, [1, 1, 0], [2, 2, 3], [1, 1, 1]) without values.")
    rank1 = np.arange(10, dtype=np.int32)
    case("qa_a3_rank1", "qa", "rank1[1:10:2]",
         ss([1], [10], [2]), {"x": rank1}, rank1[1:10:2], copied=[1, 3, 5, 7, 9])
    rank2 = np.array([[i + j * 10 for i in range(10)] for j in range(10)], dtype=np.int32)
    case("qa_a3_rank2", "qa", "rank2[3:7:1, 5:10:2]: numbers 30-69 ending in 5, 7 or 9",
         ss([3, 5], [7, 10], [1, 2]), {"x": rank2}, rank2[3:7:1, 5:10:2],
         note="The thread describes the values ('numbers 30 - 69, ending in 5, 7, or 9') without listing them.")
    case("qa_a3_rank2_rows", "qa", "rank2[3:7:1]: numbers 30-69",
         ss([3], [7], [1]), {"x": rank2}, rank2[3:7],
         note="The thread describes the values ('numbers 30 - 69') without listing them.")
    sample = np.array([[[11, 12, 13], [21, 22, 23]], [[31, 32, 33], [41, 42, 43]], [[51, 52, 53], [61, 62, 63]]], dtype=np.int32)
    case("qa_a4_stride2", "qa", "stride 2 skips positions past the end",
         ss([0, 0, 0], [3, 2, 3], [2, 2, 2]), {"x": sample}, sample[0:3:2, 0:2:2, 0:3:2], copied=[[[11, 13]], [[51, 53]]])

    # --- seed 001: OpenVINO StridedSlice-1 ---------------------------------
    x = arange(2, 3, 4, dtype=np.float32)
    case("openvino_begin_end_mask", "openvino", "list masks: begin_mask 0,1,1 and end_mask 1,1,0",
         ss([1, 0, 0], [0, 0, 2], [1, 1, 1], begin_mask=[0, 1, 1], end_mask=[1, 1, 0],
            ellipsis_mask=[0, 0, 0], new_axis_mask=[0, 0, 0], shrink_axis_mask=[0, 0, 0]),
         {"x": x}, x[1:, :, :2], note="The document gives the output shape (1,3,2) only.")
    case("openvino_new_axis_mask", "openvino", "list masks: new_axis_mask 1,0,0 inserts a leading axis",
         ss([0, 0, 0], [0, 0, 0], [1, 1, 1], begin_mask=[0, 1, 1], end_mask=[0, 1, 1],
            ellipsis_mask=[0, 0, 0], new_axis_mask=[1, 0, 0], shrink_axis_mask=[0, 0, 0]),
         {"x": x}, x[np.newaxis, :, :],
         note="The document gives the output shape (1,2,3,4) only, and no begin/end values (taken as 0).")
    x = (np.arange(1 * 2 * 384 * 640 * 8) % 251).astype(np.uint8).reshape(1, 2, 384, 640, 8)
    case("openvino_shrink_axis_mask", "openvino", "list masks: shrink_axis_mask 0,1,0,0,0 drops axis 1",
         ss([0, 1, 0, 0, 0], [0, 2, 0, 0, 0], [1, 1, 1, 1, 1], begin_mask=[1, 0, 1, 1, 1], end_mask=[1, 0, 1, 1, 1],
            ellipsis_mask=[0, 0, 0, 0, 0], new_axis_mask=[0, 0, 0, 0, 0], shrink_axis_mask=[0, 1, 0, 0, 0]),
         {"x": x}, x[:, 1, :, :, :],
         note="The document gives the output shape (1,384,640,8) only, and no begin value for the shrunk axis (taken as 1).")

    # --- seed 004: tf.gather_nd ---------------------------------------------
    def gnd(name, rule, params, indices, copied, batch_dims=0, **kw):
        params = np.array(params, dtype="S") if isinstance(params, list) else params
        indices = np.array(indices, dtype=np.int32)
        spec = {"op": "gather_nd"}
        if batch_dims:
            spec["batch_dims"] = batch_dims
        case(name, "gather", rule, spec, {"params": params, "indices": indices},
             gather_nd(params, indices, batch_dims), copied=copied, **kw)

    m = [["a", "b"], ["c", "d"]]
    t3 = [[["a0", "b0"], ["c0", "d0"]], [["a1", "b1"], ["c1", "d1"]]]
    gnd("gather_scalars", "full-depth index rows gather scalars", m, [[0, 0], [1, 1]], [b"a", b"d"])
    gnd("gather_rows", "depth-1 rows gather matrix rows", [["a", "b", "c"], ["d", "e", "f"]], [[1], [0]],
        [[b"d", b"e", b"f"], [b"a", b"b", b"c"]])
    gnd("gather_3d_depth1", "indexing into a 3-tensor with depth 1", t3, [[1]], [[[b"a1", b"b1"], [b"c1", b"d1"]]])
    gnd("gather_3d_depth2", "indexing into a 3-tensor with depth 2", t3, [[0, 1], [1, 0]], [[b"c0", b"d0"], [b"a1", b"b1"]])
    gnd("gather_3d_depth3", "indexing into a 3-tensor with full depth", t3, [[0, 0, 1], [1, 0, 1]], [b"b0", b"b1"])
    gnd("gather_batched_scalars", "leading index dims batch the gather", m, [[[0, 0]], [[0, 1]]], [[b"a"], [b"b"]])
    gnd("gather_batched_rows", "batched slice indexing into a matrix", m, [[[1]], [[0]]], [[[b"c", b"d"]], [[b"a", b"b"]]])
    gnd("gather_batched_3d_depth1", "batched indexing into a 3-tensor, depth 1", t3, [[[1]], [[0]]],
        [[[[b"a1", b"b1"], [b"c1", b"d1"]]], [[[b"a0", b"b0"], [b"c0", b"d0"]]]])
    gnd("gather_batched_3d_depth2", "batched indexing into a 3-tensor, depth 2", t3, [[[0, 1], [1, 0]], [[0, 0], [1, 1]]],
        [[[b"c0", b"d0"], [b"a1", b"b1"]], [[b"a0", b"b0"], [b"c1", b"d1"]]])
    gnd("gather_batched_3d_depth3", "batched indexing into a 3-tensor, full depth", t3,
        [[[0, 0, 1], [1, 0, 1]], [[0, 1, 1], [1, 1, 0]]], [[b"b0", b"b1"], [b"d0", b"c1"]])
    gnd("gather_batch_dims1", "batch_dims=1 gathers within each batch entry", t3, [[1], [0]],
        [[b"c0", b"d0"], [b"a1", b"b1"]], batch_dims=1)
    gnd("gather_batch_dims1_nested", "batch_dims=1 with an extra index dimension", t3, [[[1]], [[0]]],
        [[[b"c0", b"d0"]], [[b"a1", b"b1"]]], batch_dims=1)
    gnd("gather_batch_dims1_depth2", "batch_dims=1 with depth 2", t3, [[[1, 0]], [[0, 1]]],
        [[b"c0"], [b"b1"]], batch_dims=1)
    zeros = np.zeros((5, 7, 3), dtype=np.float32)
    gnd("gather_batch_positions", "leading index components select the batch entry", zeros,
        [[0, 1], [1, 0], [2, 4], [3, 2], [4, 1]], np.zeros((5, 3), np.float32),
        note="The document gives the shape [5, 3]; params are tf.zeros([5, 7, 3]) (float32), so every value is 0.")
    gnd("gather_batch_dims1_shape", "batch_dims=1 omits the leading positions", zeros,
        [[1], [0], [4], [2], [1]], np.zeros((5, 3), np.float32), batch_dims=1,
        note="The document gives the shape [5, 3]; params are tf.zeros([5, 7, 3]) (float32), so every value is 0.")
    # The document's warning: CPU rejects an out-of-range index, GPU stores 0.
    params = np.array(m, dtype="S")
    bad = np.array([[2, 0]], dtype=np.int32)
    case("gather_out_of_range_cpu", "gather", "an out-of-range index is an error (TF on CPU)",
         {"op": "gather_nd", "bad_indices": "error"}, {"params": params, "indices": bad}, None, error="out_of_range",
         note="The document: 'On CPU, if an out of bound index is found, an error is returned.'")
    case("gather_out_of_range_gpu", "gather", "an out-of-range index row gives zeros (TF on GPU)",
         {"op": "gather_nd", "bad_indices": "zero"}, {"params": params, "indices": bad},
         np.zeros((1,), dtype="S1"), copied=[b""],
         note="The document: 'On GPU, if an out of bound index is found, a 0 is stored in the corresponding output value.'")

    advanced_indexing()
    gather_ops()

    print("wrote %d cases to %s" % (len(written), OUT))


def numpy_raises(name, fn, exc, text):
    """Checks that NumPy rejects a case the way the document says it does."""
    try:
        fn()
    except exc as e:
        if text not in str(e):
            sys.exit("%s: NumPy raised %r, expected a message with %r" % (name, e, text))
        return
    sys.exit("%s: NumPy did not raise %s" % (name, exc.__name__))


def advanced_indexing():
    """NumPy's advanced (integer and boolean array) indexing."""
    doc = "numpy-indexing"

    def adv(name, rule, index, inputs, result, **kw):
        case(name, doc, rule, getitem(index), inputs, np.asarray(result), **kw)

    # --- NumPy's own tests: what is not a valid index --------------------------
    a = np.array([[[5]]])
    for name, index, fn, rule in [
            ("numpy_test_float_item", "x[0, 0.0]", lambda: a[0, 0.0],
             "a float among the indices is an IndexError"),
            ("numpy_test_float_slice_and_item", "x[0.0:, 0.0]", lambda: a[0.0:, 0.0],
             "a float index is an IndexError, also after a slice with a float bound")]:
        numpy_raises(name, fn, IndexError, "only integers, slices")
        case(name, "numpy-test-indexing", rule, getitem(index), {"x": a}, None, error="invalid_spec",
             note="The test: assert_raises(IndexError, lambda: a%s) (TestIndexing.test_index_no_floats), with "
                  "a = np.array([[[5]]]). conform maps this IndexError to invalid_spec." % index[1:])
    a = np.array([1, 2, 3])
    b = np.array([])
    numpy_raises("numpy_test_empty_float_index_array", lambda: a[b], IndexError, "arrays used as indices")
    case("numpy_test_empty_float_index_array", "numpy-test-indexing",
         "an index array of floats is an IndexError, also an empty one", getitem("x[b]"), {"x": a, "b": b}, None,
         error="invalid_spec",
         note="The test: b = np.array([]); assert_raises(IndexError, a.__getitem__, b) "
              "(TestIndexing.test_empty_fancy_index), with a = np.array([1, 2, 3]).")

    # --- Integer array indexing ----------------------------------------------
    x = np.arange(10, 1, -1)
    i = np.array([3, 3, 1, 8])
    adv("numpy_adv_int_array", "an integer index array selects the listed positions, repeats allowed",
        "x[i]", {"x": x, "i": i}, x[i], copied=[7, 7, 9, 2])
    i = np.array([3, 3, -3, 8])
    adv("numpy_adv_int_array_negative", "negative values in an index array count from the end",
        "x[i]", {"x": x, "i": i}, x[i], copied=[7, 7, 4, 2])
    x = np.array([[1, 2], [3, 4], [5, 6]])
    i = np.array([1, -1])
    adv("numpy_adv_rows_negative", "an index array on the first axis selects rows; -1 is the last row",
        "x[i]", {"x": x, "i": i}, x[i], copied=[[3, 4], [5, 6]])
    i = np.array([3, 4])
    numpy_raises("numpy_adv_out_of_bounds", lambda: x[i], IndexError, "index 3 is out of bounds for axis 0 with size 3")
    case("numpy_adv_out_of_bounds", doc, "an out-of-bounds value in an index array is an IndexError",
         getitem("x[i]"), {"x": x, "i": i}, None, error="out_of_range",
         note="The document: 'If the index values are out of bounds then an IndexError is thrown' "
              "(IndexError: index 3 is out of bounds for axis 0 with size 3).")

    y = np.arange(35).reshape(5, 7)
    i, j = np.array([0, 2, 4]), np.array([0, 1, 2])
    adv("numpy_adv_pairs", "one index array per dimension: result[k] = y[i[k], j[k]]",
        "x[i, j]", {"x": y, "i": i, "j": j}, y[i, j], copied=[0, 15, 30])
    j = np.array([0, 1])
    numpy_raises("numpy_adv_shape_mismatch", lambda: y[i, j], IndexError,
                 "shape mismatch: indexing arrays could not be broadcast together with shapes (3,) (2,)")
    case("numpy_adv_shape_mismatch", doc, "index arrays that cannot be broadcast together are an IndexError",
         getitem("x[i, j]"), {"x": y, "i": i, "j": j}, None, error="invalid_spec",
         note="The document: 'IndexError: shape mismatch: indexing arrays could not be broadcast together "
              "with shapes (3,) (2,)'. conform maps this IndexError (a malformed index, not a position "
              "outside the array) to invalid_spec.")
    adv("numpy_adv_broadcast_scalar", "an integer among index arrays is broadcast against them",
        "x[i, 1]", {"x": y, "i": i}, y[i, 1], copied=[1, 15, 29])
    adv("numpy_adv_partial", "fewer index arrays than dimensions: the unindexed dimensions follow the index shape",
        "x[i]", {"x": y, "i": i}, y[i],
        copied=[[0, 1, 2, 3, 4, 5, 6], [14, 15, 16, 17, 18, 19, 20], [28, 29, 30, 31, 32, 33, 34]])

    x = np.array([[1, 2], [3, 4], [5, 6]])
    adv("numpy_adv_inline_lists", "list indices act as index arrays: one element per row",
        "x[[0, 1, 2], [0, 1, 0]]", {"x": x}, x[[0, 1, 2], [0, 1, 0]], copied=[1, 4, 5])

    x = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]])
    rows = np.array([[0, 0], [3, 3]], dtype=np.intp)
    columns = np.array([[0, 2], [0, 2]], dtype=np.intp)
    adv("numpy_adv_corners_explicit", "2-D index arrays select every element explicitly; the result has their shape",
        "x[rows, columns]", {"x": x, "rows": rows, "columns": columns}, x[rows, columns], copied=[[0, 2], [9, 11]])
    rows = np.array([0, 3], dtype=np.intp)
    columns = np.array([0, 2], dtype=np.intp)
    col_rows = rows[:, np.newaxis]
    adv("numpy_adv_corners_broadcast", "a (2,1) and a (2,) index array broadcast to (2,2): an outer selection",
        "x[rows, columns]", {"x": x, "rows": col_rows, "columns": columns}, x[rows[:, np.newaxis], columns],
        copied=[[0, 2], [9, 11]],
        note="The document writes x[rows[:, np.newaxis], columns]; the input 'rows' here is rows[:, np.newaxis].")
    ix_rows, ix_columns = np.ix_(rows, columns)
    adv("numpy_adv_corners_ix", "the arrays np.ix_ returns select the outer product of rows and columns",
        "x[rows, columns]", {"x": x, "rows": ix_rows, "columns": ix_columns}, x[np.ix_(rows, columns)],
        copied=[[0, 2], [9, 11]],
        note="The document writes x[np.ix_(rows, columns)]; the inputs are the two arrays np.ix_(rows, columns) "
             "returns (shapes (2, 1) and (1, 2)).")
    adv("numpy_adv_corners_diagonal", "without np.ix_ two 1-D index arrays select pairs (the diagonal)",
        "x[rows, columns]", {"x": x, "rows": rows, "columns": columns}, x[rows, columns], copied=[0, 11])

    lut = np.array([[0, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 255]], dtype=np.uint8)
    image = np.array([[0, 1, 2], [3, 2, 1]], dtype=np.uint8)
    adv("numpy_adv_lookup_table", "a (ny, nx) uint8 image indexing a (nlookup, 3) table gives (ny, nx, 3)",
        "x[image]", {"x": lut, "image": image}, lut[image],
        note="The document describes a color lookup table of shape (nlookup, 3) indexed by an image of shape "
             "(ny, nx) with dtype=np.uint8, giving shape (ny, nx, 3); it gives no values, the table and image are ours.")

    # --- Boolean array indexing ------------------------------------------------
    x = np.array([[1., 2.], [np.nan, 3.], [np.nan, np.nan]])
    m = ~np.isnan(x)
    adv("numpy_adv_bool_not_nan", "a boolean array of x's shape selects its True elements in row-major order",
        "x[m]", {"x": x, "m": m}, x[m], copied=[1., 2., 3.],
        note="The document writes x[~np.isnan(x)]; the input 'm' is ~np.isnan(x).")
    x = np.array([1., -1., -2., 3])
    m = x < 0
    adv("numpy_adv_bool_negative", "a mask from a comparison selects the matching elements",
        "x[m]", {"x": x, "m": m}, x[m],
        note="The document's example is the assignment x[x < 0] += 20, giving array([ 1., 19., 18., 3.]); this "
             "case is its read part x[x < 0] (the input 'm' is x < 0).")
    x = np.arange(35).reshape(5, 7)
    b = x > 20
    m = b[:, 5]
    adv("numpy_adv_bool_rows", "a 1-D mask on a 2-D array selects rows: x[b] is x[b, ...]",
        "x[m]", {"x": x, "m": m}, x[m],
        copied=[[21, 22, 23, 24, 25, 26, 27], [28, 29, 30, 31, 32, 33, 34]],
        note="The document writes x[b[:, 5]] with b = x > 20; the input 'm' is b[:, 5] = "
             "[False, False, False, True, True].")
    x = np.array([[0, 1], [1, 1], [2, 2]])
    m = x.sum(-1) <= 2
    adv("numpy_adv_bool_rowsum", "a mask followed by a slice selects whole rows",
        "x[m, :]", {"x": x, "m": m}, x[m, :], copied=[[0, 1], [1, 1]],
        note="The document writes x[rowsum <= 2, :] with rowsum = x.sum(-1); the input 'm' is rowsum <= 2.")

    x = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]])
    rows = (x.sum(-1) % 2) == 0
    columns = [0, 2]
    ix_rows, ix_columns = np.ix_(rows, columns)
    adv("numpy_adv_bool_ix", "np.ix_ of a mask and a list selects the outer product of rows and columns",
        "x[rows, columns]", {"x": x, "rows": ix_rows, "columns": ix_columns}, x[np.ix_(rows, columns)],
        copied=[[3, 5], [9, 11]],
        note="The document writes x[np.ix_(rows, columns)] with rows = (x.sum(-1) % 2) == 0 and columns = [0, 2]; "
             "the inputs are the two integer arrays np.ix_ returns (shapes (2, 1) and (1, 2)).")
    adv("numpy_adv_bool_int_diagonal", "a mask combined with an integer index array acts as its nonzero(): pairs",
        "x[rows, [0, 2]]", {"x": x, "rows": rows}, x[rows, columns],
        note="The document: 'Without the np.ix_ call, only the diagonal elements would be selected.' It gives "
             "no values; rows = [False, True, False, True] and columns = [0, 2] as in the document.")
    nz_rows = rows.nonzero()[0]
    adv("numpy_adv_bool_nonzero_newaxis", "a mask's nonzero() as a column index array broadcast against a list",
        "x[rows, [0, 2]]", {"x": x, "rows": nz_rows[:, np.newaxis]}, x[nz_rows[:, np.newaxis], columns],
        copied=[[3, 5], [9, 11]],
        note="The document writes x[rows[:, np.newaxis], columns] with rows = rows.nonzero()[0] and columns = [0, 2]; "
             "the input 'rows' is rows.nonzero()[0][:, np.newaxis].")
    x = np.arange(30).reshape(2, 3, 5)
    b = np.array([[True, True, False], [False, True, True]])
    adv("numpy_adv_bool_2d_mask", "a (2,3) mask with four True elements on a (2,3,5) array gives (4,5)",
        "x[b]", {"x": x, "b": b}, x[b],
        copied=[[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [20, 21, 22, 23, 24], [25, 26, 27, 28, 29]])

    # --- Combining advanced and basic indexing -----------------------------------
    y = np.arange(35).reshape(5, 7)
    i = np.array([0, 2, 4])
    adv("numpy_adv_with_slice", "an index array and a slice are independent: rows from the array, columns from the slice",
        "x[i, 1:3]", {"x": y, "i": i}, y[i, 1:3], copied=[[1, 2], [15, 16], [29, 30]])
    adv("numpy_adv_after_slice", "slicing first, then an index array with a full slice, gives the same result",
        "x[i, :]", {"x": y[:, 1:3], "i": i}, y[:, 1:3][i, :], copied=[[1, 2], [15, 16], [29, 30]],
        note="The document writes y[:, 1:3][np.array([0, 2, 4]), :]; the input 'x' is y[:, 1:3].")
    x = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]])
    adv("numpy_adv_basic_slices", "x[1:2, 1:3], the basic-slicing half of the comparison",
        "x[1:2, 1:3]", {"x": x}, x[1:2, 1:3], copied=[[4, 5]])
    adv("numpy_adv_list_replaces_slice", "a single advanced index can replace a slice with the same result",
        "x[1:2, [1, 2]]", {"x": x}, x[1:2, [1, 2]], copied=[[4, 5]])

    x = np.arange(10 * 20 * 30, dtype=np.int32).reshape(10, 20, 30)
    ind = (np.arange(24, dtype=np.intp).reshape(2, 3, 4) * 7) % 20
    adv("numpy_adv_ellipsis_ind", "x[..., ind, :] replaces the (20,) dimension by ind's (2, 3, 4) in place",
        "x[..., ind, :]", {"x": x, "ind": ind}, x[..., ind, :],
        note="The document: x.shape is (10, 20, 30) and ind a (2, 3, 4)-shaped intp array, so x[..., ind, :] has "
             "shape (10, 2, 3, 4, 30). It gives no values; the values of x and ind are ours.")
    case("numpy_adv_ellipsis_ind_take", doc, "x[..., ind, :] equals x.take(ind, axis=-2)",
         {"op": "take", "axis": -2}, {"a": x, "indices": ind}, np.take(x, ind, axis=-2),
         note="The document: 'This example produces the same result as x.take(ind, axis=-2).' Same inputs as "
              "numpy_adv_ellipsis_ind.")
    if not np.array_equal(np.take(x, ind, axis=-2), x[..., ind, :]):
        sys.exit("numpy_adv_ellipsis_ind_take: take differs from indexing")

    x = np.arange(2 * 5 * 6 * 3 * 4, dtype=np.int32).reshape(2, 5, 6, 3, 4)
    ind_1 = np.array([[[0], [4], [2]], [[1], [3], [0]]])
    ind_2 = np.array([[0, 1, 2, 1], [2, 2, 0, 0], [1, 0, 1, 2]])
    scaled = ("The document's x has shape (10, 20, 30, 40, 50) and ind_1, ind_2 broadcast to (2, 3, 4); here x has "
              "shape (2, 5, 6, 3, 4) (the document's is too large for a seed), ind_1 shape (2, 3, 1) and ind_2 "
              "shape (3, 4). ")
    adv("numpy_adv_adjacent", "adjacent advanced indices put their broadcast shape where they stood",
        "x[:, ind_1, ind_2]", {"x": x, "ind_1": ind_1, "ind_2": ind_2}, x[:, ind_1, ind_2],
        note=scaled + "The document: x[:, ind_1, ind_2] has shape (10, 2, 3, 4, 40, 50); here (2, 2, 3, 4, 3, 4).")
    adv("numpy_adv_separated", "advanced indices separated by a slice put their broadcast shape first",
        "x[:, ind_1, :, ind_2]", {"x": x, "ind_1": ind_1, "ind_2": ind_2}, x[:, ind_1, :, ind_2],
        note=scaled + "The document: x[:, ind_1, :, ind_2] has shape (2, 3, 4, 10, 30, 50) 'because there is no "
                      "unambiguous place to drop in the indexing subspace'; here (2, 3, 4, 2, 6, 4).")

    x = np.arange(3 * 4 * 5, dtype=np.int32).reshape(3, 4, 5)
    arr1 = np.array([2, 0])
    arr2 = np.array([4, 1])
    adv("numpy_adv_split_by_slice", "x[arr1, :, arr2]: advanced indices separated by a slice",
        "x[arr1, :, arr2]", {"x": x, "arr1": arr1, "arr2": arr2}, x[arr1, :, arr2],
        note="The document names x[arr1, :, arr2] as the separated case, without values; the arrays are ours.")
    x4 = np.arange(2 * 3 * 4 * 5, dtype=np.int32).reshape(2, 3, 4, 5)
    arr1 = np.array([[2], [0]])
    arr2 = np.array([3, 1, 0])
    adv("numpy_adv_next_to_each_other", "x[..., arr1, arr2, :]: adjacent advanced indices stay in place",
        "x[..., arr1, arr2, :]", {"x": x4, "arr1": arr1, "arr2": arr2}, x4[..., arr1, arr2, :],
        note="The document names x[..., arr1, arr2, :] as the adjacent case, without values; the arrays are ours.")
    arr1 = np.array([[2, 0, 1]])
    adv("numpy_adv_integer_is_advanced", "x[arr1, :, 1]: an integer counts as an advanced index, so this is separated",
        "x[arr1, :, 1]", {"x": x, "arr1": arr1}, x[arr1, :, 1],
        note="The document: 'not x[arr1, :, 1] since 1 is an advanced index in this regard'. No values; the "
             "arrays are ours.")
    adv("numpy_adv_integer_separates", "x[1, :, arr1]: the integer and the array are separated, so the array shape comes first",
        "x[1, :, arr1]", {"x": x, "arr1": arr1}, x[1, :, arr1],
        note="Follows from the document's rule that an integer is an advanced index here: the broadcast shape "
             "(1, 3) goes first, giving (1, 3, 4), not (4, 1, 3). No values in the document.")

    x = np.arange(35).reshape(5, 7)
    b = x > 20
    m = b[:, 5]
    adv("numpy_adv_bool_with_slice", "a 1-D mask on the rows combined with a slice on the columns",
        "x[m, 1:3]", {"x": x, "m": m}, x[m, 1:3], copied=[[22, 23], [29, 30]],
        note="The document writes x[b[:, 5], 1:3] with b = x > 20; the input 'm' is b[:, 5].")

    # --- The rest of the page: the tuple warning, assignments, variable indices, detailed notes
    x = np.arange(4 * 4 * 4, dtype=np.int32).reshape(4, 4, 4)
    adv("numpy_adv_sequence_in_tuple", "x[(1, 2, 3),] is advanced indexing: a (3,) index array on axis 0",
        "x[[1, 2, 3],]", {"x": x}, x[(1, 2, 3), ],
        note="The document warns that x[(1, 2, 3),] (advanced) differs from x[(1, 2, 3)] (== x[1, 2, 3], basic); "
             "the subscript writes the sequence as the list [1, 2, 3], the same index array. No values given.")
    x = np.arange(0, 50, 10)
    i = np.array([1, 1, 3, 1])
    adv("numpy_adv_repeated_read", "repeated values in an index array read the same element repeatedly",
        "x[i]", {"x": x, "i": i}, x[i],
        note="The document's example is x[np.array([1, 1, 3, 1])] += 1 with x = np.arange(0, 50, 10), giving "
             "array([ 0, 11, 20, 31, 40]); this case is its read part.")
    z = np.arange(81).reshape(3, 3, 3, 3)
    adv("numpy_adv_list_not_tuple", "z[[1, 1, 1, 1]] is one index array on axis 0, not four integers",
        "x[[1, 1, 1, 1]]", {"x": z}, z[[1, 1, 1, 1]],
        note="The document: 'z[[1, 1, 1, 1]]  # produces a large array' (array([[[[27, 28, 29], [30, 31, 32], ...) "
             "while z[(1, 1, 1, 1)] returns 40.")
    x = np.arange(3 * 4, dtype=np.int32).reshape(3, 4)
    i, j = np.array(1), np.array(2)
    adv("numpy_adv_0d_full_integer", "0-d integer arrays forming a full integer index give a scalar",
        "x[i, j]", {"x": x, "i": i, "j": j}, x[i, j],
        note="The document: 'If a zero-dimensional array is present in the index and it is a full integer index "
             "the result will be a scalar and not a zero-dimensional array. (Advanced indexing is not triggered.)'")
    x = np.arange(2 * 3, dtype=np.int32).reshape(2, 3)
    adv("numpy_adv_0d_bool_true", "a 0-d True index adds a dimension of size 1",
        "x[True]", {"x": x}, x[True],
        note="The document: 'The nonzero equivalence for Boolean arrays does not hold for zero dimensional boolean "
             "arrays.' No values given.")
    adv("numpy_adv_0d_bool_false", "a 0-d False index adds a dimension of size 0",
        "x[False]", {"x": x}, x[False],
        note="The document: 'The nonzero equivalence for Boolean arrays does not hold for zero dimensional boolean "
             "arrays.' No values given.")

    # --- The pre-1.23 user guide: a full-shape mask ----------------------------
    y = np.arange(35).reshape(5, 7)
    b = y > 20
    case("numpy_adv_bool_full_mask", "numpy-indexing-old", "a mask of the array's shape gives a 1-D result in row-major order",
         getitem("x[b]"), {"x": y, "b": b}, y[b], copied=[21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34])


def gather_ops():
    """np.take, np.take_along_axis, ONNX Gather/GatherElements and tf.gather."""
    # --- numpy.take -------------------------------------------------------------
    doc = "numpy-take"
    a = np.array([4, 3, 5, 7, 6, 8])
    indices = np.array([0, 1, 4])
    case("numpy_take_flat", doc, "without an axis, take indexes the flattened array",
         {"op": "take"}, {"a": a, "indices": indices}, np.take(a, indices), copied=[4, 3, 6])
    case("numpy_take_fancy", doc, "a[indices] gives the same result as np.take(a, indices) on a 1-D array",
         getitem("x[indices]"), {"x": a, "indices": indices}, a[indices], copied=[4, 3, 6])
    indices = np.array([[0, 1], [2, 3]])
    case("numpy_take_2d_indices", doc, "the output has the shape of the indices",
         {"op": "take"}, {"a": a, "indices": indices}, np.take(a, indices), copied=[[4, 3], [5, 7]])
    arr = np.arange(2 * 3 * 2 * 4 * 2, dtype=np.int32).reshape(2, 3, 2, 4, 2)
    indices = np.array([3, 0, 3])
    if not np.array_equal(np.take(arr, indices, axis=3), arr[:, :, :, indices, ...]):
        sys.exit("numpy_take_axis3: take differs from indexing")
    case("numpy_take_axis3", doc, "np.take(arr, indices, axis=3) is arr[:,:,:,indices,...]",
         {"op": "take", "axis": 3}, {"a": arr, "indices": indices}, np.take(arr, indices, axis=3),
         note="The document states the equivalence without values; the arrays are ours.")
    indices = np.array([-1, 10, 2])
    case("numpy_take_clip", doc, "mode clip replaces too-large indices by the last and negative ones by 0",
         {"op": "take", "mode": "clip"}, {"a": a, "indices": indices}, np.take(a, indices, mode="clip"),
         note="The document: \"'clip' mode means that all indices that are too large are replaced by the index "
              "that addresses the last element along that axis. Note that this disables indexing with negative "
              "numbers.\" No values given.")
    indices = np.array([-1, 6, 13])
    case("numpy_take_wrap", doc, "mode wrap wraps indices around the axis",
         {"op": "take", "mode": "wrap"}, {"a": a, "indices": indices}, np.take(a, indices, mode="wrap"),
         note="The document: \"'wrap' -- wrap around\". No values given.")
    indices = np.array([0, 6])
    numpy_raises("numpy_take_raise", lambda: np.take(a, indices), IndexError, "index 6 is out of bounds")
    case("numpy_take_raise", doc, "mode raise (the default) rejects an out-of-bounds index",
         {"op": "take"}, {"a": a, "indices": indices}, None, error="out_of_range",
         note="The document: \"'raise' -- raise an error (default)\".")

    # --- numpy.take_along_axis -------------------------------------------------
    doc = "numpy-take-along-axis"
    a = np.array([[10, 30, 20], [60, 40, 50]])
    ai = np.argsort(a, axis=1)
    case("numpy_take_along_axis_sort", doc, "argsort indices taken along axis 1 sort each row",
         {"op": "take_along_axis", "axis": 1}, {"arr": a, "indices": ai}, np.take_along_axis(a, ai, axis=1),
         copied=[[10, 20, 30], [40, 50, 60]])
    ai = np.expand_dims(np.argmax(a, axis=1), axis=1)
    case("numpy_take_along_axis_max", doc, "a length-1 index axis takes one element per row (the maximum)",
         {"op": "take_along_axis", "axis": 1}, {"arr": a, "indices": ai}, np.take_along_axis(a, ai, axis=1),
         copied=[[30], [60]])
    ai_min = np.expand_dims(np.argmin(a, axis=1), axis=1)
    ai_max = np.expand_dims(np.argmax(a, axis=1), axis=1)
    ai = np.concatenate([ai_min, ai_max], axis=1)
    case("numpy_take_along_axis_min_max", doc, "stacked argmin/argmax indices take the minimum and maximum of each row",
         {"op": "take_along_axis", "axis": 1}, {"arr": a, "indices": ai}, np.take_along_axis(a, ai, axis=1),
         copied=[[10, 30], [40, 60]])
    ai = np.argsort(a, axis=None)
    case("numpy_take_along_axis_none", doc, "axis None treats the array as flattened to 1-D",
         {"op": "take_along_axis", "axis": None}, {"arr": a, "indices": ai}, np.take_along_axis(a, ai, axis=None),
         note="The document: 'If axis is None, the input array is treated as if it had first been flattened to 1d, "
              "for consistency with sort and argsort.' No values given; the indices are np.argsort(a, axis=None).")

    # --- ONNX Gather-13 ------------------------------------------------------------
    doc = "onnx-gather"
    data = np.array([[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]], dtype=np.float32)
    indices = np.array([[0, 1], [1, 2]], dtype=np.int64)
    case("onnx_gather_axis0", doc, "axis 0: each index selects a row; output shape indices.shape + (2,)",
         {"op": "onnx_gather", "axis": 0}, {"data": data, "indices": indices}, np.take(data, indices, axis=0),
         copied=[[[1.0, 1.2], [2.3, 3.4]], [[2.3, 3.4], [4.5, 5.7]]])
    data = np.array([[1.0, 1.2, 1.9], [2.3, 3.4, 3.9], [4.5, 5.7, 5.9]], dtype=np.float32)
    indices = np.array([[0, 2]], dtype=np.int64)
    case("onnx_gather_axis1", doc, "axis 1: the indices' shape replaces the column axis",
         {"op": "onnx_gather", "axis": 1}, {"data": data, "indices": indices}, np.take(data, indices, axis=1),
         copied=[[[1.0, 1.9]], [[2.3, 3.9]], [[4.5, 5.9]]])
    P, Q, R, S = 3, 4, 2, 3
    table = "The document's table gives the shapes only; P, Q, R, S = 3, 4, 2, 3 and the values are ours."
    pq = np.arange(P * Q, dtype=np.float32).reshape(P, Q)
    pqr = np.arange(P * Q * R, dtype=np.float32).reshape(P, Q, R)
    for name, rule, d, idx, axis in [
            ("onnx_gather_table_scalar_axis0", "(P, Q) data, scalar index, axis 0: output (Q)", pq, np.array(2, np.int64), 0),
            ("onnx_gather_table_scalar_axis1", "(P, Q, R) data, scalar index, axis 1: output (P, R)", pqr, np.array(3, np.int64), 1),
            ("onnx_gather_table_rs_axis0", "(P, Q) data, (R, S) indices, axis 0: output (R, S, Q)", pq,
             np.array([[2, 0, 1], [1, 1, 0]], np.int64), 0),
            ("onnx_gather_table_rs_axis1", "(P, Q) data, (R, S) indices, axis 1: output (P, R, S)", pq,
             np.array([[3, 0, 2], [1, 1, 0]], np.int64), 1)]:
        case(name, doc, rule, {"op": "onnx_gather", "axis": axis}, {"data": d, "indices": idx},
             np.take(d, idx, axis=axis), note=table)
    data = np.array([[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]], dtype=np.float32)
    indices = np.array([[-1, 0], [-3, 2]], dtype=np.int64)
    case("onnx_gather_negative", doc, "index values in [-s, -1] count from the end of the axis",
         {"op": "onnx_gather", "axis": 0}, {"data": data, "indices": indices}, np.take(data, indices, axis=0),
         note="The document: 'All index values are expected to be within bounds [-s, s-1] along axis of size s.' "
              "No values given.")
    indices = np.array([[0, 3]], dtype=np.int64)
    case("onnx_gather_out_of_bounds", doc, "an index outside [-s, s-1] is an error",
         {"op": "onnx_gather", "axis": 0}, {"data": data, "indices": indices}, None, error="out_of_range",
         note="The document: 'It is an error if any of the index values are out of bounds.'")

    # --- ONNX GatherElements-13 -------------------------------------------------------
    doc = "onnx-gather-elements"
    data = np.array([[1, 2], [3, 4]], dtype=np.int32)
    indices = np.array([[0, 0], [1, 0]], dtype=np.int64)
    case("onnx_gather_elements_axis1", doc, "axis 1: out[i][j] = data[i][indices[i][j]]",
         {"op": "onnx_gather_elements", "axis": 1}, {"data": data, "indices": indices},
         gather_elements(data, indices, 1), copied=[[1, 1], [4, 3]])
    data = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype=np.int32)
    indices = np.array([[1, 2, 0], [2, 0, 0]], dtype=np.int64)
    case("onnx_gather_elements_axis0", doc, "axis 0 with fewer index rows than data rows: output has the indices' shape",
         {"op": "onnx_gather_elements", "axis": 0}, {"data": data, "indices": indices},
         gather_elements(data, indices, 0),
         copied=[[4, 8, 3], [7, 2, 3]])
    indices = np.array([[-1, -3, 0]], dtype=np.int64)
    case("onnx_gather_elements_negative", doc, "index values in [-s, -1] count from the end of the axis",
         {"op": "onnx_gather_elements", "axis": 0}, {"data": data, "indices": indices},
         gather_elements(data, indices, 0),
         note="The document: 'All index values are expected to be within bounds [-s, s-1] along axis of size s.' "
              "No values given.")
    indices = np.array([[3, 0, 0]], dtype=np.int64)
    case("onnx_gather_elements_out_of_bounds", doc, "an index outside [-s, s-1] is an error",
         {"op": "onnx_gather_elements", "axis": 0}, {"data": data, "indices": indices}, None, error="out_of_range",
         note="The document: 'It is an error if any of the index values are out of bounds.'")

    # --- tf.gather --------------------------------------------------------------------
    doc = "tf-gather"
    params = np.array(['p0', 'p1', 'p2', 'p3', 'p4', 'p5'], dtype="S")
    case("tf_gather_scalar", doc, "a scalar index is identical to scalar indexing",
         {"op": "gather"}, {"params": params, "indices": np.array(3, dtype=np.int32)},
         np.take(params, np.int32(3), axis=0), copied=b'p3')
    indices = np.array([2, 0, 2, 5], dtype=np.int32)
    case("tf_gather_vector", doc, "a 1-D index tensor gathers non-sequential elements",
         {"op": "gather"}, {"params": params, "indices": indices}, np.take(params, indices, axis=0),
         copied=[b'p2', b'p0', b'p2', b'p5'])
    indices = np.array([[2, 0], [2, 5]], dtype=np.int32)
    case("tf_gather_2d_indices", doc, "with 1-axis params the output shape is the indices' shape",
         {"op": "gather"}, {"params": params, "indices": indices}, np.take(params, indices, axis=0),
         copied=[[b'p2', b'p0'], [b'p2', b'p5']])
    params = np.array([[0, 1.0, 2.0], [10.0, 11.0, 12.0], [20.0, 21.0, 22.0], [30.0, 31.0, 32.0]], dtype=np.float32)
    indices = np.array([3, 1], dtype=np.int32)
    case("tf_gather_rows", doc, "axis 0 (the default) gathers rows of a matrix",
         {"op": "gather"}, {"params": params, "indices": indices}, np.take(params, indices, axis=0),
         copied=[[30., 31., 32.], [10., 11., 12.]])
    indices = np.array([2, 1], dtype=np.int32)
    case("tf_gather_columns", doc, "axis 1 gathers columns of a matrix",
         {"op": "gather", "axis": 1}, {"params": params, "indices": indices}, np.take(params, indices, axis=1),
         copied=[[2., 1.], [12., 11.], [22., 21.], [32., 31.]])
    indices = np.array([[0, 2]], dtype=np.int32)
    case("tf_gather_shape_axis0", doc, "params [4, 3], indices [[0, 2]], axis 0: shape [1, 2, 3]",
         {"op": "gather", "axis": 0}, {"params": params, "indices": indices}, np.take(params, indices, axis=0),
         note="The document gives the shape [1, 2, 3] only; params is the document's 4x3 matrix.")
    case("tf_gather_shape_axis1", doc, "params [4, 3], indices [[0, 2]], axis 1: shape [4, 1, 2]",
         {"op": "gather", "axis": 1}, {"params": params, "indices": indices}, np.take(params, indices, axis=1),
         note="The document gives the shape [4, 1, 2] only; params is the document's 4x3 matrix.")
    p123 = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    for name, idx, shape in [("tf_gather_result_shape_scalar", np.array(1, np.int32), "[1, 3]"),
                             ("tf_gather_result_shape_7", np.array([1, 0, 1, 1, 0, 0, 1], np.int32), "[1, 7, 3]"),
                             ("tf_gather_result_shape_7x5", (np.arange(35, dtype=np.int32) % 3 % 2).reshape(7, 5), "[1, 7, 5, 3]")]:
        case(name, doc, "p_shape[:axis] + i_shape + p_shape[axis+1:]: params [1, 2, 3], axis 1 gives %s" % shape,
             {"op": "gather", "axis": 1}, {"params": p123, "indices": idx}, np.take(p123, idx, axis=1),
             note="The document's result_shape([1, 2, 3], ..., axis=1) gives the shape %s only; the values are ours." % shape)
    params = np.arange(5 * 6 * 7 * 8, dtype=np.float32).reshape(5, 6, 7, 8)
    indices = ((np.arange(110, dtype=np.int32) * 5) % 7).reshape(10, 11)
    case("tf_gather_axis2", doc, "params (5, 6, 7, 8), indices (10, 11), axis 2: shape [5, 6, 10, 11, 8]",
         {"op": "gather", "axis": 2}, {"params": params, "indices": indices}, np.take(params, indices, axis=2),
         note="The document uses tf.random.normal params and tf.random.uniform indices (maxval=7) and gives the "
              "shape [5, 6, 10, 11, 8] only; the values here are ours.")
    params = np.array([[0, 0, 1, 0, 2], [3, 0, 0, 0, 4], [0, 5, 0, 6, 0]], dtype=np.int32)
    indices = np.array([[2, 4], [0, 4], [1, 3]], dtype=np.int32)
    case("tf_gather_batch_dims1", doc, "batch_dims=1 gathers within each row: an outer loop over the first axis",
         {"op": "gather", "axis": 1, "batch_dims": 1}, {"params": params, "indices": indices},
         np.take_along_axis(params, indices, axis=1), copied=[[1, 2], [3, 4], [5, 6]])
    values = np.array([[3.0, 1.0, 2.0], [0.5, 2.5, 1.5]], dtype=np.float32)
    indices = np.argsort(values, axis=-1).astype(np.int32)
    case("tf_gather_batch_dims_minus1", doc, "batch_dims=-1 with the default axis: the last index axis indexes the last params axis",
         {"op": "gather", "batch_dims": -1}, {"params": values, "indices": indices},
         np.take_along_axis(values, indices, axis=-1),
         note="The document: 'you can use tf.gather(values, indices, batch_dims=-1)' with argsort indices; no "
              "values given. No axis is written, as in the document: tf.gather's axis defaults to batch_dims "
              "('Defaults to the first non-batch dimension').")
    params = np.array([[0, 1.0, 2.0], [10.0, 11.0, 12.0], [20.0, 21.0, 22.0], [30.0, 31.0, 32.0]], dtype=np.float32)
    bad = np.array([1, 4], dtype=np.int32)
    case("tf_gather_out_of_range_cpu", doc, "an out-of-range index is an error (TF on CPU)",
         {"op": "gather", "bad_indices": "error"}, {"params": params, "indices": bad}, None, error="out_of_range",
         note="The document: 'On CPU, if an out of bound index is found, an error is raised.'")
    zeroed = np.take(params, np.where(bad < len(params), bad, 0), axis=0)
    zeroed[bad >= len(params)] = 0
    case("tf_gather_out_of_range_gpu", doc, "an out-of-range index gives a zero slice (TF on GPU)",
         {"op": "gather", "bad_indices": "zero"}, {"params": params, "indices": bad}, zeroed,
         copied=[[10., 11., 12.], [0., 0., 0.]],
         note="The document: 'On GPU, if an out of bound index is found, a 0 is stored in the corresponding "
              "output value.'")
    bad = np.array([-1], dtype=np.int32)
    case("tf_gather_negative", doc, "indices must be in [0, params.shape[axis]): a negative index is out of range",
         {"op": "gather"}, {"params": params, "indices": bad}, None, error="out_of_range",
         note="The document: 'The values must be in range [0, params.shape[axis]).' On CPU an out-of-range index "
              "is an error.")
    for dtype in (np.int8, np.uint8):
        name = "tf_gather_%s_indices" % np.dtype(dtype).name
        case(name, doc, "indices must be int32 or int64: %s indices are refused" % np.dtype(dtype).name,
             {"op": "gather"}, {"params": params, "indices": np.array([3, 1], dtype=dtype)}, None, error="bad_input",
             note="The document: 'indices: The index Tensor. Must be one of the following types: int32, int64.' "
                  "TF refuses another dtype before the kernel runs.")
    empty = np.zeros((0, 3), dtype=np.float32)
    bad = np.array([0, 1], dtype=np.int32)
    case("tf_gather_empty_axis_cpu", doc, "every index into an empty gathered axis is out of range (TF on CPU)",
         {"op": "gather", "bad_indices": "error"}, {"params": empty, "indices": bad}, None, error="out_of_range",
         note="The document: 'The values must be in range [0, params.shape[axis]).' and 'On CPU, if an out of "
              "bound index is found, an error is raised.' An axis of size 0 has no index in range.")
    case("tf_gather_empty_axis_gpu", doc, "every index into an empty gathered axis gives a zero slice (TF on GPU)",
         {"op": "gather", "bad_indices": "zero"}, {"params": empty, "indices": bad}, np.zeros((2, 3), np.float32),
         copied=[[0., 0., 0.], [0., 0., 0.]],
         note="The document: 'On GPU, if an out of bound index is found, a 0 is stored in the corresponding "
              "output value.' An axis of size 0 has no index in range, so every output value is 0.")


def gather_elements(data, indices, axis):
    """ONNX GatherElements written with NumPy (indices may be smaller than data), for checking."""
    coords = list(np.indices(indices.shape))
    coords[axis] = np.where(indices < 0, indices + data.shape[axis], indices)
    return data[tuple(coords)]


def gather_nd(params, indices, batch_dims):
    """tf.gather_nd written with NumPy, for checking the copied values."""
    if batch_dims:
        return np.stack([gather_nd(p, i, batch_dims - 1) for p, i in zip(params, indices)])
    depth = indices.shape[-1]
    rows = indices.reshape(-1, depth)
    out = [params[tuple(r)] for r in rows]
    return np.array(out, dtype=params.dtype).reshape(indices.shape[:-1] + params.shape[depth:])


if __name__ == "__main__":
    main()
