package golden

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/protocol"
)

// TestSliceVariantsReproduceClasses evaluates every case of the golden
// corpus that a divergence class of a slicing variant holds under that
// variant and counts the cases whose stored oracle outcome the engine
// reproduces exactly (same output bytes, dtype and shape, or same error
// kind). A crash (TFLite failing without an error) is never reproduced.
// The counts are pinned: a change to a variant that loses a case fails,
// and one that gains a case must raise the count here.
func TestSliceVariantsReproduceClasses(t *testing.T) {
	ellipsisAndExtra := engine.Rules{}.With(engine.EllipsisCoversOneDim).With(engine.ExtraEntriesIgnored)
	tests := []struct {
		oracle, class string
		rules         engine.Rules
		// cases is the number of cases in the class, reproduced how many
		// of them the engine reproduces under rules.
		cases, reproduced int
	}{
		// Four cases are crashes: a size beyond int32 truncates to a
		// negative dimension, a tensor no .npy holds.
		{"tflite", "tflite-slice-int64-truncated", engine.Rules{}.With(engine.Int32Arithmetic), 9, 5},
		{"tfjs", "tfjs-slice-short-spec", engine.Rules{}.With(engine.ShortSliceSpecPadded), 12, 12},
		// Crashes: the oracle does not run them, since TFLite reads past
		// begin/size.
		{"tflite", "tflite-slice-short-spec", engine.Rules{}.With(engine.ShortSliceSpecPadded), 3, 0},
		{"tflite", "tflite-extra-indices-ignored", engine.Rules{}.With(engine.ExtraEntriesIgnored), 11, 8},
		// Most specs with extra indices have an ellipsis, which TFLite
		// always expands over at least one dimension.
		{"tflite", "tflite-extra-indices-ignored", ellipsisAndExtra, 11, 11},
		{"tflite", "tflite-slice-extra-entries-ignored", engine.Rules{}.With(engine.ExtraEntriesIgnored), 0, 0},
		{"tflite", "tflite-mask-bits-past-spec", engine.Rules{}.With(engine.MaskBitsPastSpecApplied), 1, 1},
		{"tflite", "tflite-ellipsis-covers-one-dim", engine.Rules{}.With(engine.EllipsisCoversOneDim), 36, 34},
		{"tflite", "tflite-ellipsis-covers-one-dim", engine.Rules{}.With(engine.EllipsisCoversOneDim).With(engine.ShrinkIndexClamped), 36, 35},
		{"tflite", "tflite-shrink-index-clamped", engine.Rules{}.With(engine.ShrinkIndexClamped), 18, 15},
		{"tflite", "tflite-shrink-index-clamped", engine.Rules{}.With(engine.ShrinkIndexClamped).With(engine.EllipsisCoversOneDim), 18, 17},
	}
	fsys, err := fs.Sub(corpus.Open(cases.FS), "golden")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := corpus.Entries(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		cases, reproduced := 0, 0
		var missed []string
		for _, e := range entries {
			var head struct {
				Disagreement string                     `json:"disagreement"`
				Oracles      map[string]json.RawMessage `json:"oracles"`
			}
			if err := json.Unmarshal(e.JSON, &head); err != nil {
				t.Fatalf("%s: %v", e.ID, err)
			}
			if !inClass(head.Disagreement, tt.oracle, tt.class) {
				continue
			}
			cases++
			want, err := stored(fsys, e, head.Oracles[tt.oracle])
			if err != nil {
				t.Fatalf("%s: %v", e.ID, err)
			}
			got, err := evalUnder(fsys, e, tt.rules)
			if err != nil {
				t.Fatalf("%s: %v", e.ID, err)
			}
			if d := differ(want, got); d != "" {
				missed = append(missed, e.ID+" ("+d+")")
				continue
			}
			reproduced++
		}
		t.Logf("%s under %s: %d of %d cases reproduced", tt.class, tt.rules, reproduced, cases)
		for _, m := range missed {
			t.Logf("  not reproduced: %s", m)
		}
		if cases != tt.cases || reproduced != tt.reproduced {
			t.Errorf("%s under %s: %d of %d cases reproduced, want %d of %d", tt.class, tt.rules, reproduced, cases, tt.reproduced, tt.cases)
		}
	}
}

// inClass reports whether a case's "disagreement" field ("tfjs: a; tflite:
// b") puts oracle's disagreement in class.
func inClass(disagreement, oracle, class string) bool {
	for _, part := range strings.Split(disagreement, "; ") {
		if part == oracle+": "+class {
			return true
		}
	}
	return false
}

// evalUnder evaluates a stored case on the engine under rules, as an
// Answer. The error is for a case that cannot be loaded.
func evalUnder(fsys fs.FS, e corpus.Entry, rules engine.Rules) (protocol.Answer, error) {
	m, err := check.LoadCase(fsys, e)
	if err != nil {
		return protocol.Answer{}, err
	}
	c := m
	if err := c.Err; err != nil {
		return protocol.Answer{}, err
	}
	out, err := c.EvalUnder(rules)
	if err != nil {
		var ee *engine.Error
		if errors.As(err, &ee) {
			return protocol.Error(ee.Kind, ee.Message), nil
		}
		return protocol.Answer{}, err
	}
	return protocol.EncodedOutput(npy.Encode(out)), nil
}

// differ returns "" if the answers agree exactly (protocol.Compare) and
// otherwise says how they differ.
func differ(want, got protocol.Answer) string {
	a := protocol.Compare(want, got)
	switch {
	case a.Agree():
		return ""
	case a.Text != "":
		return a.Text
	}
	return fmt.Sprintf("%v vs %v", want, got)
}
