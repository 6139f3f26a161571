// Package report builds spec compliance reports: every case is tagged
// with the rules of the reference semantics it exercises — the rules the
// engine's evaluation of it records (engine.Trace) and the rule of the
// error it raises (engine.RuleOf), so that each rule is decided in one
// engine function and nowhere here — and with its op, its data's shape
// and dtype and its expected error kind; every implementation runs every
// case, and the report is a matrix of rules by implementations, each
// cell passed/total with the smallest failing case as a copy-pasteable
// NumPy/TF snippet, followed by each implementation's failures by cause.
package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/neighbour"
)

// Feature is one row of the report: a rule of the reference semantics
// (its ID, its op as group, its statement), or an op, a shape, a form
// of the case, an expected error kind or a dtype.
type Feature struct {
	ID          string `json:"id"`
	Group       string `json:"group"` // the rule's op, or: ops, shapes, forms, errors, dtypes
	Description string `json:"description"`
}

// shapeFeatures, formFeatures and errorFeatures are the rows of every
// op that are no rule of the semantics: the shapes of its data input,
// how the case writes its spec, the kind of error it expects.
var (
	shapeFeatures = []Feature{
		{ID: "rank-0", Group: "shapes", Description: "a rank-0 (scalar) input"},
		{ID: "zero-size", Group: "shapes", Description: "an input with a zero-size dimension"},
		{ID: "rank-over-8", Group: "shapes", Description: "an input of more than 8 dimensions (beyond TF's kernels)"},
	}
	formFeatures = []Feature{
		{ID: "subscript-forms", Group: "forms", Description: "subscript forms: x[()], x[1,], x[...,], parenthesised tuples, np/tf.newaxis"},
		{ID: "openvino-list-masks", Group: "forms", Description: "masks as OpenVINO 0/1 lists"},
	}
	errorFeatures = []Feature{
		{ID: "error:invalid_spec", Group: "errors", Description: "a case rejected as invalid_spec"},
		{ID: "error:out_of_range", Group: "errors", Description: "a case rejected as out_of_range"},
		{ID: "error:bad_input", Group: "errors", Description: "a case rejected as bad_input"},
	}
)

// ruleFeature returns the row of a rule of engine.RuleTable: its ID, its
// op and its statement.
func ruleFeature(r engine.Rule) Feature {
	group := "common"
	if len(r.Ops) > 0 {
		group = r.Ops[0]
	}
	return Feature{ID: string(r.ID), Group: group, Description: r.Statement}
}

// catalogue lists every row in report order after the ops: shapes, the
// rules in the order of engine.RuleTable (by op), forms, errors.
func catalogue() []Feature {
	out := append([]Feature{}, shapeFeatures...)
	for _, r := range engine.RuleTable {
		out = append(out, ruleFeature(r))
	}
	out = append(out, formFeatures...)
	return append(out, errorFeatures...)
}

// dtypeFeature names the row of a data dtype, e.g. "dtype:f2".
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

// Features lists the rows of a case: the rules of the reference
// semantics its evaluation on the engine exercises (neighbour.Rules: the
// trace and the rule of the error), its data's shape and dtype, how it
// writes its spec, and expectKind, the expected error kind ("" for an
// output). trace is reset and reused; nil makes one.
func Features(c *casefile.Case, expectKind engine.ErrorKind, trace *engine.Trace) []Feature {
	tags := map[string]bool{}
	add := func(id string) { tags[id] = true }
	for _, id := range neighbour.Rules(c, trace) {
		add(string(id))
	}
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
	tagForms(c, add)
	var out []Feature
	for _, f := range catalogue() {
		if tags[f.ID] {
			out = append(out, f)
		}
	}
	return append(out, extra...)
}

// tagForms tags how a case writes its spec: a getitem subscript in one
// of Python's other forms (x[()], x[1,], a parenthesised tuple,
// np.newaxis), masks of strided_slice as OpenVINO 0/1 lists.
func tagForms(c *casefile.Case, add func(string)) {
	var index string
	if c.Op == casefile.OpGetItem && json.Unmarshal(c.Fields["index"], &index) == nil {
		index = strings.ReplaceAll(index, " ", "")
		if strings.Contains(index, "[()]") || strings.HasSuffix(index, ",]") || strings.Contains(index, "[(") || strings.Contains(index, "newaxis") {
			add("subscript-forms")
		}
	}
	for _, name := range []string{"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"} {
		if raw, ok := c.Fields[name]; ok && len(raw) > 0 && raw[0] == '[' {
			add("openvino-list-masks")
		}
	}
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
