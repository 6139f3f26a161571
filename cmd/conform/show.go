package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/confine"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/output"
	"github.com/conformsuite/conform/internal/printable"
	"github.com/conformsuite/conform/internal/pysrc"
)

// showCommand writes one case's inputs and expected result as .npy files
// and prints Python that reproduces it.
var showCommand = &command{
	name:  "show",
	usage: []string{"show CASE-ID [--cases DIR] [--out DIR]", "show FINDING.json [--out DIR]"},
	short: "write a case's inputs and expected result as .npy files and print Python that reproduces it",
	long: `Finds the case CASE-ID in the corpus (the embedded one, or the one under
--cases DIR), or reads the case file FINDING.json (a finding conform fuzz
saved, or any case file with its inputs beside it), writes each of its
inputs as NAME.npy (inputN.npy for a name Python cannot spell) and its
expected output as expected.npy into the directory --out (default: a new
directory named after the case, e.g. getitem-00018, in the current
directory), and prints Python that loads those files and runs the case in
the reference's own terms: NumPy for getitem, take and take_along_axis
(checking the answer against the expected output or error), tf.strided_slice,
tf.slice, tf.gather and tf.gather_nd for the TF ops, and for the ONNX ops
the operator's node (onnx.helper.make_node) in a one-node model, evaluated
by onnx.reference or onnxruntime and checked likewise; with neither
installed, the snippet says so and runs the op's NumPy equivalent.

No file is replaced: if the default directory exists, or a file to write
already exists in --out, nothing is written (exit status 2). An unknown
CASE-ID is a usage error (exit status 2).
`,
	define: func(fset *flag.FlagSet) func([]string, stdio) int {
		var dir, out string
		fset.StringVar(&dir, "cases", "", "find CASE-ID under `DIR` instead of the embedded corpus")
		fset.StringVar(&out, "out", "", "write the .npy files into `DIR` (default: a new directory named after the case)")
		maxInput := maxInputFlag(fset)
		return func(args []string, std stdio) int {
			if len(args) != 1 {
				fmt.Fprintln(std.errout, "conform show: give one CASE-ID or case file")
				return exitUsage
			}
			return runShow(args[0], dir, out, *maxInput, std)
		}
	},
}

// runShow runs conform show.
func runShow(id, dir, out string, maxInput int64, std stdio) int {
	fsys, e, err := findCase(id, dir, maxInput)
	if err != nil {
		printable.Fprintf(std.errout, "conform show: %v\n", err)
		return exitUsage
	}
	c, err := check.LoadCase(fsys, e)
	if err != nil {
		printable.Fprintf(std.errout, "conform show: case %s: %v\n", e.ID, err)
		return exitRejected
	}
	var want check.Expectation
	var wantOut *engine.Tensor
	if raw, ok := fieldOf(e.JSON, "expect"); ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &want); err != nil {
			printable.Fprintf(std.errout, "conform show: case %s: malformed expect: %v\n", e.ID, err)
			return exitRejected
		}
		if want.Output != "" {
			if err = confine.CheckPath(want.Output); err == nil {
				wantOut, err = confine.ReadNPY(fsys, path.Join(e.Dir, want.Output))
			}
			if err != nil {
				printable.Fprintf(std.errout, "conform show: case %s: cannot read the expected output: %v\n", e.ID, err)
				return exitRejected
			}
		}
	}
	if out == "" {
		out = strings.NewReplacer("/", "-", "\\", "-").Replace(e.ID)
		if _, err := os.Lstat(out); err == nil {
			printable.Fprintf(std.errout, "conform show: %s already exists; name a directory with --out\n", out)
			return exitUsage
		}
	}
	files := inputFiles(c)
	writes := map[string][]byte{}
	for name, file := range files {
		writes[file] = npy.Encode(c.Inputs[name])
	}
	if wantOut != nil {
		writes[expectedFile] = npy.Encode(wantOut)
	}
	if err := writeShowFiles(out, writes); err != nil {
		printable.Fprintf(std.errout, "conform show: %v\n", err)
		return exitUsage
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		abs = out
	}
	fmt.Fprint(std.out, showSnippet(e.ID, c, want, wantOut, abs, files))
	return exitOK
}

// expectedFile is the file conform show writes the expected output to.
const expectedFile = "expected.npy"

// findCase finds the case id: the case file at the path id if it names a
// regular *.json file, else the case of that ID in the corpus under dir
// (the embedded corpus if dir is ""). It returns the file system the
// case's input paths are read from.
func findCase(id, dir string, maxInput int64) (fs.FS, corpus.Entry, error) {
	if st, err := os.Stat(id); err == nil && st.Mode().IsRegular() && strings.HasSuffix(id, ".json") {
		data, err := confine.ReadPath(id, maxInput)
		if err != nil {
			return nil, corpus.Entry{}, fmt.Errorf("cannot read %s: %v", id, err)
		}
		fsys, err := confine.Dir(filepath.Dir(id), maxInput)
		if err != nil {
			return nil, corpus.Entry{}, fmt.Errorf("cannot open the directory of %s: %v", id, err)
		}
		return fsys, corpus.Entry{ID: strings.TrimSuffix(filepath.Base(id), ".json"), Dir: ".", JSON: data}, nil
	}
	fsys := confine.WithLimit(cases.FS, maxInput)
	where := "the embedded corpus"
	if dir != "" {
		var err error
		if fsys, err = openCases(dir, maxInput); err != nil {
			return nil, corpus.Entry{}, err
		}
		where = dir
	}
	entries, err := corpus.Entries(fsys)
	if err != nil {
		return nil, corpus.Entry{}, fmt.Errorf("cannot read %s: %v", where, err)
	}
	for _, e := range entries {
		if e.ID == id {
			if e.Err != nil {
				return nil, corpus.Entry{}, fmt.Errorf("case %s cannot be read: %v", id, e.Err)
			}
			return corpus.Open(fsys), e, nil
		}
	}
	return nil, corpus.Entry{}, fmt.Errorf("no case %q in %s", id, where)
}

// fieldOf returns the top-level field key of a JSON object.
func fieldOf(data []byte, key string) (json.RawMessage, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return nil, false
	}
	raw, ok := fields[key]
	return raw, ok
}

// inputFiles names the file each input of c is written to: NAME.npy, or
// inputN.npy (N counting the inputs in name order) for a name Python
// cannot spell or that is the expected output's.
func inputFiles(c *casefile.Case) map[string]string {
	files := map[string]string{}
	for i, name := range sortedInputNames(c) {
		if pysrc.IsName(name) && name+".npy" != expectedFile {
			files[name] = name + ".npy"
		} else {
			files[name] = fmt.Sprintf("input%d.npy", i)
		}
	}
	return files
}

// sortedInputNames returns the names of c's inputs in the order of the
// op's inputs, then the rest sorted.
func sortedInputNames(c *casefile.Case) []string {
	var names []string
	seen := map[string]bool{}
	if c.Def != nil {
		for _, name := range c.Def.Inputs {
			if _, ok := c.Inputs[name]; ok {
				names = append(names, name)
				seen[name] = true
			}
		}
	}
	var rest []string
	for name := range c.Inputs {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}

// writeShowFiles writes each file of writes (by name) into dir, which is
// created if missing. It writes nothing if a file of that name exists
// already: no file of the user's is replaced. Each file is written
// through a temporary file renamed into place (output.Write); if one
// cannot be written, those written before it are removed.
func writeShowFiles(dir string, writes map[string][]byte) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("--out %s is not a directory", dir)
	}
	for name := range writes {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return fmt.Errorf("%s already exists; conform show replaces no file (name another directory with --out)", filepath.Join(dir, name))
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %v", dir, unwrapPath(err))
	}
	var written []string
	for name, data := range writes {
		p := filepath.Join(dir, name)
		err := output.Write(p, func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		})
		if err != nil {
			for _, q := range written {
				os.Remove(q)
			}
			return err
		}
		written = append(written, p)
	}
	return nil
}

// unwrapPath returns the cause of a file system error without the
// operation and the path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// showSnippet returns the Python conform show prints: it loads the
// inputs (files, by input name) and the expected output from dir and runs
// the case in its reference's terms (see casefile.Case.WriteSnippet). For
// an op of NumPy's, the NumPy line is run and its answer checked against
// the expected output or error.
func showSnippet(id string, c *casefile.Case, want check.Expectation, wantOut *engine.Tensor, dir string, files map[string]string) string {
	var b strings.Builder
	b.WriteString(pysrc.Comment("conform show "+id+": "+c.Describe()) + "\n")
	if want.Source != "" {
		b.WriteString(pysrc.Comment("expected: "+casefile.ExpectedFrom(c.Op, want.Source)) + "\n")
	}
	family := ""
	if c.Def != nil {
		family = c.Def.Family
	}
	b.WriteString("import os\nimport numpy as np\n")
	if family == "tf" {
		b.WriteString("import tensorflow as tf\n")
	}
	fmt.Fprintf(&b, "d = %s\n", pysrc.String(dir))
	names := sortedInputNames(c)
	for _, name := range names {
		if !pysrc.IsName(name) {
			fmt.Fprintf(&b, "%s = {}\n", pysrc.Inputs)
			break
		}
	}
	for _, name := range names {
		fmt.Fprintf(&b, "%s = np.load(os.path.join(d, %s))\n", pysrc.Input(name), pysrc.String(files[name]))
	}
	if wantOut != nil {
		fmt.Fprintf(&b, "expected = np.load(os.path.join(d, %s))\n", pysrc.String(expectedFile))
	} else if want.Error != "" {
		b.WriteString(pysrc.Comment("expected: error "+want.Error) + "\n")
	}
	if c.Err != nil {
		b.WriteString(pysrc.Comment(fmt.Sprintf("the case spec is malformed (%v)", c.Err)) + "\n")
		return b.String()
	}
	var code strings.Builder
	c.WriteSnippet(&code)
	if family == "onnx" {
		writeONNX(&b, c, code.String(), want, wantOut)
		return b.String()
	}
	numpyLine := ""
	if family == "numpy" {
		for _, line := range strings.Split(code.String(), "\n") {
			if expr, ok := strings.CutSuffix(line, "  # NumPy"); ok {
				numpyLine = expr
				break
			}
		}
	}
	if numpyLine == "" {
		b.WriteString(code.String())
		return b.String()
	}
	writeRun(&b, numpyLine, "  # NumPy", func(s string) string { return pysrc.String("NumPy" + s) }, want, wantOut)
	return b.String()
}

// writeRun writes the Python that runs expr and checks its answer
// against the expected output or error; comment ends expr's line, and
// label(s) is a Python expression of the string naming what ran, followed
// by s ("NumPy gives").
func writeRun(b *strings.Builder, expr, comment string, label func(string) string, want check.Expectation, wantOut *engine.Tensor) {
	switch {
	case wantOut != nil:
		fmt.Fprintf(b, "result = np.asarray(%s)%s\n", expr, comment)
		b.WriteString("same = result.dtype == expected.dtype and result.shape == expected.shape and result.tobytes() == expected.tobytes()\n")
		fmt.Fprintf(b, "print(%s, result.dtype.str, result.shape, \"- the expected output\" if same else \"- NOT the expected output\")\n", label(" gives"))
		fmt.Fprintf(b, "assert same, %s\n", label("'s answer differs from expected.npy"))
	case want.Error != "":
		fmt.Fprintf(b, "try:\n    %s%s\nexcept Exception as e:\n", expr, comment)
		fmt.Fprintf(b, "    print(%s, type(e).__name__ + \":\", e, %s)\n", label(" raises"), pysrc.String("(expected: error "+want.Error+")"))
		fmt.Fprintf(b, "else:\n    raise SystemExit(%s)\n", label(" gives an output; expected: error "+want.Error))
	default:
		fmt.Fprintf(b, "%s%s\n", expr, comment)
	}
}

// onnxOps are the ONNX operators of conform's ONNX ops, as
// onnx.helper.make_node names them.
var onnxOps = map[string]string{
	casefile.OpONNXGather: "Gather", casefile.OpONNXGatherElements: "GatherElements",
	casefile.OpONNXGatherND: "GatherND", casefile.OpONNXSlice: "Slice",
}

// writeONNX writes the snippet of an ONNX op's case in ONNX's own terms:
// the operator's node (onnx.helper.make_node) in a one-node opset-13
// model whose initializers are the case's inputs, evaluated by
// onnx.reference (onnx 1.13 and later) or onnxruntime, whichever is
// installed; with neither (Debian's python3-onnx is 1.12), or without
// onnx, it says so and runs the NumPy equivalent code gives, if it has
// one. code is the case's casefile.Case.WriteSnippet.
func writeONNX(b *strings.Builder, c *casefile.Case, code string, want check.Expectation, wantOut *engine.Tensor) {
	equivalent := ""
	for _, line := range strings.Split(strings.TrimSuffix(code, "\n"), "\n") {
		if expr, _, ok := strings.Cut(line, "  # NumPy equivalent"); ok && equivalent == "" {
			equivalent = expr
			line = "# NumPy equivalent:" + strings.TrimPrefix(line, expr+"  # NumPy equivalent")
		}
		b.WriteString(line + "\n")
	}
	arrays := []string{}
	for _, name := range []string{"data", "indices"} {
		if _, ok := c.Inputs[name]; ok {
			arrays = append(arrays, fmt.Sprintf("%s: %s", pysrc.String(name), pysrc.Input(name)))
		}
	}
	attrs := ""
	switch s := c.Spec.(type) {
	case engine.ONNXGatherSpec:
		attrs = fmt.Sprintf(", axis=%d", s.Axis)
	case engine.ONNXGatherNDSpec:
		attrs = fmt.Sprintf(", batch_dims=%d", s.BatchDims)
	case engine.ONNXSliceSpec:
		for _, in := range []struct {
			name string
			v    []int64
		}{{"starts", s.Starts}, {"ends", s.Ends}, {"axes", s.Axes}, {"steps", s.Steps}} {
			if in.v != nil {
				arrays = append(arrays, fmt.Sprintf("%s: np.array(%s, np.int64)", pysrc.String(in.name), pysrc.Ints(in.v)))
			}
		}
	}
	fmt.Fprintf(b, `try:
    from onnx import helper, numpy_helper
except ImportError:
    helper = None
evaluate, by = None, "ONNX"
if helper:  # the operator's node, in a one-node model whose initializers are the inputs
    arrays = {%s}
    node = helper.make_node(%s, list(arrays), ["output"]%s)
    print(node)
    init = [numpy_helper.from_array(v.astype(object if v.dtype.kind in "SU" else v.dtype.newbyteorder("=")), k) for k, v in arrays.items()]
    graph = helper.make_graph([node], "conform_case", [], [helper.make_tensor_value_info("output", init[0].data_type, None)], init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    try:
        from onnx.reference import ReferenceEvaluator  # onnx 1.13 and later
        evaluate, by = (lambda: ReferenceEvaluator(model).run(None, {})[0]), "onnx.reference"
    except ImportError:
        try:
            import onnxruntime
            evaluate, by = (lambda: onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {})[0]), "onnxruntime"
        except ImportError:
            pass
if evaluate is None:
`, strings.Join(arrays, ", "), pysrc.String(onnxOps[c.Op]), attrs)
	if equivalent == "" {
		b.WriteString("    raise SystemExit(\"neither onnx.reference (onnx 1.13 and later) nor onnxruntime is installed, and this case has no NumPy equivalent\")\n")
	} else {
		b.WriteString("    print(\"neither onnx.reference (onnx 1.13 and later) nor onnxruntime is installed: the NumPy equivalent runs instead\")\n")
		fmt.Fprintf(b, "    evaluate, by = (lambda: %s), \"the NumPy equivalent\"\n", equivalent)
	}
	writeRun(b, "evaluate()", "", func(s string) string { return "by + " + pysrc.String(s) }, want, wantOut)
}
