package golden

import (
	"encoding/json"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/compare"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/protocol"
)

// gatherCase is a case of the embedded golden corpus with the outcomes
// its oracles gave and the classes its disagreements fell into.
type gatherCase struct {
	id      string
	op      string
	c       *casefile.Case
	oracles map[string]protocol.Answer
	classes map[string]string // oracle -> class ID
}

// loadGatherCases reads every case of the embedded golden corpus (cases.FS,
// golden/*.jsonl) whose op is one of ops.
func loadGatherCases(t *testing.T, ops ...string) []gatherCase {
	t.Helper()
	fsys, err := fs.Sub(cases.FS, "golden")
	if err != nil {
		t.Fatal(err)
	}
	fsys = corpus.Open(fsys)
	entries, err := corpus.Entries(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var out []gatherCase
	for _, e := range entries {
		if e.Err != nil {
			t.Fatalf("%s: %v", e.ID, e.Err)
		}
		var head struct {
			Op           string `json:"op"`
			Disagreement string `json:"disagreement"`
			Oracles      map[string]struct {
				Output  string           `json:"output"`
				Error   engine.ErrorKind `json:"error"`
				Message string           `json:"message"`
				Skip    string           `json:"skip"`
				Crash   string           `json:"crash"`
			} `json:"oracles"`
		}
		if err := json.Unmarshal(e.JSON, &head); err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		if !slices.Contains(ops, head.Op) {
			continue
		}
		m, err := check.LoadCase(fsys, e)
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		c := m
		if err := c.Err; err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		sc := gatherCase{id: e.ID, op: head.Op, c: c, oracles: map[string]protocol.Answer{}, classes: map[string]string{}}
		for name, o := range head.Oracles {
			got := storedAnswer(o.Error, o.Message, o.Skip, o.Crash)
			if o.Output != "" {
				data, err := fs.ReadFile(fsys, path.Join(e.Dir, o.Output))
				if err != nil {
					t.Fatalf("%s: oracle %s: %v", e.ID, name, err)
				}
				got = protocol.EncodedOutput(data)
			}
			sc.oracles[name] = got
		}
		// "tfjs: tfjs-a; tflite: tflite-b"
		if head.Disagreement != "" {
			for _, part := range strings.Split(head.Disagreement, "; ") {
				oracle, class, ok := strings.Cut(part, ": ")
				if !ok {
					t.Fatalf("%s: disagreement %q", e.ID, head.Disagreement)
				}
				sc.classes[oracle] = class
			}
		}
		out = append(out, sc)
	}
	return out
}

// gatherOutcome evaluates c under r as an Answer.
func gatherOutcome(c *casefile.Case, r engine.Rules) protocol.Answer {
	t, err := c.EvalUnder(r)
	if err != nil {
		return protocol.Error(engine.KindOf(err), err.Error())
	}
	return protocol.EncodedOutput(npy.Encode(t))
}

// hasNegativeIndex reports whether the integer tensor t holds a negative
// value.
func hasNegativeIndex(t *engine.Tensor) bool {
	data, size := t.Bytes(), t.DType.Size
	for i := 0; i < t.Len(); i++ {
		if strings.HasPrefix(compare.Format(t.DType, data[i*size:(i+1)*size]), "-") {
			return true
		}
	}
	return false
}

// TestGatherVariantsReproduceCorpus is the corpus evidence for the gather
// variants. For every case of the embedded golden corpus classified in a
// class that a variant models, the engine under that variant reproduces
// the oracle's stored outcome exactly (output bytes with dtype and shape,
// or the error kind).
func TestGatherVariantsReproduceCorpus(t *testing.T) {
	all := loadGatherCases(t, casefile.OpGatherND, casefile.OpONNXGatherND)
	models := map[string]engine.Variant{
		"tfjs-gather-nd-flat-bounds":   engine.GatherFlatBounds,
		"tflite-gather-nd-flat-bounds": engine.GatherFlatBounds,
	}
	got := map[string][2]int{} // class -> {reproduced, cases}
	for _, sc := range all {
		for oracle, class := range sc.classes {
			v, ok := models[class]
			if !ok {
				continue
			}
			n := got[class]
			n[1]++
			if d := differ(sc.oracles[oracle], gatherOutcome(sc.c, engine.Rules{}.With(v))); d == "" {
				n[0]++
			} else {
				t.Errorf("%s (%s, class %s): under %s the engine does not reproduce the oracle: %s", sc.id, oracle, class, v, d)
			}
			got[class] = n
		}
	}
	want := map[string][2]int{
		"tfjs-gather-nd-flat-bounds":   {7, 7},
		"tflite-gather-nd-flat-bounds": {2, 2},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cases reproduced per class, {reproduced, cases} (-want +got):\n%s", diff)
	}
}

// TestGatherBoundsRulesOfOracles runs every stored outcome of an oracle on
// a gather op under the bounds rule the engine ascribes to it, to find
// each oracle's exact rule, not only on the cases it disagrees on. (Both
// TF.js and TFLite skip batch_dims != 0 and bad_indices "zero", so the
// corpus says nothing about those; the variants check the offset within
// the batch entry, and a row they reject is a zero block under "zero".)
// A case not reproduced must be explained by another class, or be one of
// the listed exceptions.
func TestGatherBoundsRulesOfOracles(t *testing.T) {
	all := loadGatherCases(t, casefile.OpGatherND, casefile.OpONNXGatherND)
	tests := []struct {
		rule       string
		oracle, op string
		r          engine.Rules
		ran, same  int
		exceptions map[string]string // case ID -> why the rule does not reproduce it
	}{
		{"TF.js checks only the flattened offset, negative components included; rows outside are out_of_range",
			"tfjs", casefile.OpGatherND, engine.Rules{}.With(engine.GatherFlatBounds), 794, 782, nil},
		{"TFLite checks the flattened offset too, but first refuses any negative component (out_of_range), which the variant does not model",
			"tflite", casefile.OpGatherND, engine.Rules{}.With(engine.GatherFlatBounds), 344, 343,
			map[string]string{"gather_nd/00854": "negative component with the flat offset inside: indices_has_only_positive_elements"}},
		{"TF.js does not wrap negative indices",
			"tfjs", casefile.OpGatherND, engine.Rules{}.With(engine.NegativeGatherIndicesWrap), 794, 769,
			map[string]string{"gather_nd/00191": "-1 refused", "gather_nd/00307": "-1 refused", "gather_nd/00487": "negative indices refused by the flat offset",
				"gather_nd/00759": "-1 refused", "gather_nd/01068": "-1 refused", "gather_nd/01453": "-4 refused"}},
		{"TFLite does not wrap negative indices",
			"tflite", casefile.OpGatherND, engine.Rules{}.With(engine.NegativeGatherIndicesWrap), 344, 340,
			map[string]string{"gather_nd/00487": "negative components refused", "gather_nd/00854": "negative component refused"}},
		{"ONNX Runtime wraps negative indices: the reference, which is gather_nd's wrap variant",
			"ort", casefile.OpONNXGatherND, engine.Rules{}, 1597, 1581, nil},
		{"ONNX Runtime checks every component, not the flattened offset",
			"ort", casefile.OpONNXGatherND, engine.Rules{}.With(engine.GatherFlatBounds), 1597, 1579,
			map[string]string{"onnx_gather_nd/00492": "component beyond its axis, flat offset inside", "onnx_gather_nd/00688": "component below -dim, flat offset inside",
				"onnx_gather_nd/01086": "component below -dim, flat offset inside", "onnx_gather_nd/01283": "component below -dim, flat offset inside"}},
	}
	for _, tt := range tests {
		ran, same, negatives := 0, 0, 0
		excused := map[string]bool{}
		for _, sc := range all {
			o := sc.oracles[tt.oracle]
			if sc.op != tt.op || !o.Ran() {
				continue
			}
			ran++
			indices := sc.c.Inputs["indices"]
			if indices.DType.IsInteger() && hasNegativeIndex(indices) {
				negatives++
			}
			d := differ(o, gatherOutcome(sc.c, tt.r))
			if d == "" {
				same++
				continue
			}
			// Explained: by a class of another rule, or (the oracle
			// agreeing with the reference) by the exception list.
			class, classified := sc.classes[tt.oracle]
			explained := !classified && tt.exceptions[sc.id] != ""
			if classified {
				explained = !gatherClassModeled(class, tt.r)
			}
			if !explained {
				t.Errorf("%s: %s: not reproduced under %q and not explained (class %q): %s", tt.rule, sc.id, tt.r, class, d)
			}
			excused[sc.id] = explained && !classified
		}
		for id := range tt.exceptions {
			if !excused[id] {
				t.Errorf("%s: exception %s is not needed (reproduced, or explained by a class)", tt.rule, id)
			}
		}
		t.Logf("%s: %d of %d reproduced (%d with a negative index)", tt.rule, same, ran, negatives)
		if ran != tt.ran || same != tt.same {
			t.Errorf("%s: %d of %d reproduced, want %d of %d", tt.rule, same, ran, tt.same, tt.ran)
		}
	}
}

// gatherClassModeled reports whether class is one that the variants of r
// model; such a class must be reproduced, never excused.
func gatherClassModeled(class string, r engine.Rules) bool {
	return strings.HasSuffix(class, "-gather-nd-flat-bounds") && r.Has(engine.GatherFlatBounds)
}

// storedAnswer is the answer a case list records as an error, a skip or
// a crash.
func storedAnswer(kind engine.ErrorKind, message, skip, crash string) protocol.Answer {
	switch {
	case crash != "":
		return protocol.Crash("", crash)
	case skip != "":
		return protocol.Skip(skip, "")
	}
	return protocol.Error(kind, message)
}
