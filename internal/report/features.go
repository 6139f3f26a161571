// Package report builds spec compliance reports: every case is tagged
// with the rules of the semantics it exercises (derived from its spec and
// inputs), every implementation runs every case, and the report is a
// matrix of rules by implementations, each cell passed/total with the
// smallest failing case as a copy-pasteable NumPy/TF snippet.
package report

import (
	"fmt"
	"sort"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// Feature is one rule of the semantics a case can exercise.
type Feature = casefile.Feature

// shapeFeatures and errorFeatures are the rules of every op: the shapes
// of its data input and the kind of error it expects.
var (
	shapeFeatures = []Feature{
		{ID: "rank-0", Group: "shapes", Description: "a rank-0 (scalar) input"},
		{ID: "zero-size", Group: "shapes", Description: "an input with a zero-size dimension"},
		{ID: "rank-over-8", Group: "shapes", Description: "an input of more than 8 dimensions (beyond TF's kernels)"},
	}
	errorFeatures = []Feature{
		{ID: "error:invalid_spec", Group: "errors", Description: "a case rejected as invalid_spec"},
		{ID: "error:out_of_range", Group: "errors", Description: "a case rejected as out_of_range"},
		{ID: "error:bad_input", Group: "errors", Description: "a case rejected as bad_input"},
	}
)

// catalogue lists every rule in report order: shapes, the rules of the
// ops (casefile.FeatureCatalogue), errors.
func catalogue() []Feature {
	out := append([]Feature{}, shapeFeatures...)
	out = append(out, casefile.FeatureCatalogue()...)
	return append(out, errorFeatures...)
}

// dtypeFeature names the rule of a data dtype, e.g. "dtype:f2".
func dtypeFeature(dt engine.DType) Feature {
	name := fmt.Sprintf("%c%d", dt.Kind, dt.Size)
	switch dt.Kind {
	case engine.Bytes:
		name = "S"
	case engine.Unicode:
		name = "U"
	case engine.Bool:
		name = "bool"
	}
	return Feature{ID: "dtype:" + name, Group: "dtypes", Description: "data of dtype " + name}
}

// Features lists the rules a case exercises. expectKind is the expected
// error kind ("" for an output).
func Features(c *casefile.Case, expectKind engine.ErrorKind) []Feature {
	tags := map[string]bool{}
	add := func(id string) { tags[id] = true }
	var data *engine.Tensor
	if c.Err == nil {
		data = c.Inputs[c.Def.Inputs[0]]
	}
	var extra []Feature
	if data != nil {
		extra = append(extra, dtypeFeature(data.DType))
		if data.DType.BigEndian {
			extra = append(extra, Feature{ID: "dtype:big-endian", Group: "dtypes", Description: "big-endian data"})
		}
		if data.Rank() == 0 {
			add("rank-0")
		}
		if data.Len() == 0 {
			add("zero-size")
		}
		if data.Rank() > 8 {
			add("rank-over-8")
		}
	}
	if expectKind != "" {
		add("error:" + string(expectKind))
	}
	if c.Err == nil {
		c.Tag(add)
	} else {
		for _, raw := range c.Fields {
			if len(raw) > 2 && raw[0] == '[' {
				add("openvino-list-masks")
			}
		}
	}
	var out []Feature
	for _, f := range catalogue() {
		if tags[f.ID] {
			out = append(out, f)
		}
	}
	return append(out, extra...)
}

// FeatureIDs returns the IDs of features, sorted.
func FeatureIDs(fs []Feature) []string {
	ids := make([]string, len(fs))
	for i, f := range fs {
		ids[i] = f.ID
	}
	sort.Strings(ids)
	return ids
}
