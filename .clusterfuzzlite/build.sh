#!/bin/bash -eu
# Builds conform's native Go fuzz targets (go test -fuzz) for libFuzzer, the
# same targets .ci/run and the nightly workflow run with the Go fuzzer.
go get github.com/AdamKorcz/go-118-fuzz-build/testing
compile_native_go_fuzzer github.com/conformsuite/conform/internal/npy FuzzDecode fuzz_npy_decode
compile_native_go_fuzzer github.com/conformsuite/conform/internal/expr FuzzParse fuzz_expr_parse
compile_native_go_fuzzer github.com/conformsuite/conform/casefile FuzzParse fuzz_casefile_parse
compile_native_go_fuzzer github.com/conformsuite/conform/engine FuzzOps fuzz_engine_ops
compile_native_go_fuzzer github.com/conformsuite/conform/internal/serve FuzzAnswer fuzz_serve_answer
compile_native_go_fuzzer github.com/conformsuite/conform/oracle FuzzProtocolLines fuzz_protocol_lines
