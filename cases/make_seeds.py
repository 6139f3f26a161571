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
}

written = []


def save(name, arr):
    np.save(os.path.join(OUT, name), np.ascontiguousarray(arr), allow_pickle=False)
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

    print("wrote %d cases to %s" % (len(written), OUT))


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
