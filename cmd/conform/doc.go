// Code generated from the table of commands by TestPackageDoc; DO NOT EDIT.
// UPDATE_DOC_TABLES=1 go test ./cmd/conform -run TestPackageDoc rewrites it.

// Command conform is a differential conformance suite for tensor slicing
// and gathering: NumPy basic and advanced indexing, take and
// take_along_axis, TF strided_slice (TF bitmasks and OpenVINO list masks),
// tf.slice, tf.gather and tf.gather_nd, and ONNX Slice, Gather,
// GatherElements and GatherND.
//
// Usage:
//
//	conform eval CASE.json -o OUT.npy [--max-output BYTES] [--max-input BYTES]
//	    evaluate one case on the reference engine
//	conform check [--cases DIR] [--impl IMPL] [--known-failures FILE] [--junit FILE] [--json FILE] [flags]
//	    run a case corpus against the engine or another implementation (the CI gate)
//	conform show CASE-ID [--cases DIR] [--out DIR]
//	conform show FINDING.json [--out DIR]
//	    write a case's inputs and expected result as .npy files and print Python that reproduces it
//	conform golden [--out DIR] [--seed S] [--per-op N] [--oracles numpy,tfjs,ort,tflite]
//	conform golden --verify [--cases DIR] [--sample N] [--oracles numpy,tfjs,ort,tflite]
//	    build the golden corpus through the oracles, or verify it against fresh oracle runs
//	conform fuzz --impl IMPL [--oracle numpy[,tfjs,tflite]] [--duration D] [--seed S] [--out DIR] [flags]
//	    live differential fuzzing; shrinks and saves disagreements
//	conform report --impl A [--impl B ...] [--cases DIR | --fuzz D] [--format md,html,json] --out FILE [--ecosystem BASE [--ecosystem-impl C ...]]
//	    spec compliance matrix: rules x implementations
//	conform rules [--cases DIR] [--json]
//	    list the rules of the reference semantics, with the corpus cases that exercise each
//	conform serve
//	    run the engine as a conform/1 protocol child
//	conform adapter python [-o FILE]
//	    write the Python adapter helper (conform_adapter.py)
//	conform setup [--oracles numpy,tfjs,ort,tflite]
//	    install what the oracles need (NumPy, npm packages)
//	conform help [COMMAND]
//	    show this help, or the usage of COMMAND
//
// Run "conform help COMMAND" or "conform COMMAND -h" for the options and
// details of a command; docs/commands.md has more. Exit status: 0 success,
// 1 case rejected or check failed, 2 usage error, 3 internal error (a bug
// in conform: one line on stderr, the stack too with CONFORM_DEBUG=1).
package main
