package casefile

import "encoding/json"

// opJSON is an op as OpsJSON writes it.
type opJSON struct {
	Name   string      `json:"name"`
	Family string      `json:"family"`
	Inputs []string    `json:"inputs"`
	Fields []fieldJSON `json:"fields"`
}

// fieldJSON is a spec field as OpsJSON writes it.
type fieldJSON struct {
	Name string `json:"name"`
	FieldType
}

// OpsJSON returns the registry as the oracle programs read it, the file
// internal/oracle/ops.json: every op in OpNames order with its family, its inputs
// (a getitem case has one more per name its subscript uses) and its spec
// fields with their types (FieldType), as indented JSON ending in a
// newline. A field of one op in a case of another is bad_input.
func OpsJSON() []byte {
	doc := struct {
		Generated string   `json:"generated"`
		Ops       []opJSON `json:"ops"`
	}{Generated: "from conform's op registry (package casefile) by `UPDATE=1 go test ./internal/oracle -run TestOpsJSON`; do not edit"}
	for _, d := range ordered {
		op := opJSON{Name: d.Name, Family: d.Family, Inputs: d.Inputs, Fields: []fieldJSON{}}
		for i, f := range d.Fields {
			op.Fields = append(op.Fields, fieldJSON{f, d.Types[i]})
		}
		doc.Ops = append(doc.Ops, op)
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err) // strings and slices of strings always marshal
	}
	return append(data, '\n')
}
