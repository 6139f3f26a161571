package casefile

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/engine/npy"
)

// Memory is a case held in memory, as generators build it: the op and
// spec fields as JSON values (keys as in a case file, e.g. "op", "begin",
// "begin_mask") and the input tensors by name.
type Memory struct {
	Spec   map[string]any
	Inputs map[string]*engine.Tensor
}

// Op returns the case's op name.
func (m Memory) Op() string {
	op, _ := m.Spec["op"].(string)
	return op
}

// Request returns the case as a conform/1 protocol request: the spec
// fields plus "id", with each input as base64 .npy bytes.
func (m Memory) Request(id int64) map[string]any {
	req := make(map[string]any, len(m.Spec)+2)
	for k, v := range m.Spec {
		req[k] = v
	}
	inputs := make(map[string]string, len(m.Inputs))
	for name, t := range m.Inputs {
		inputs[name] = base64.StdEncoding.EncodeToString(npy.Encode(t))
	}
	req["inputs"] = inputs
	req["id"] = id
	return req
}

// Case parses the in-memory case as a case file would be parsed, so that
// it can be evaluated on the engine.
func (m Memory) Case() (*Case, error) {
	doc := make(map[string]any, len(m.Spec)+1)
	for k, v := range m.Spec {
		doc[k] = v
	}
	names := make(map[string]string, len(m.Inputs))
	for name := range m.Inputs {
		names[name] = name
	}
	doc["inputs"] = names
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, engine.Errorf(engine.BadInput, "case spec is not JSON: %v", err)
	}
	return Parse(data, func(name, value string) (*engine.Tensor, error) {
		t, ok := m.Inputs[value]
		if !ok {
			return nil, engine.Errorf(engine.BadInput, "no input %q", value)
		}
		return t, nil
	})
}

// String returns the spec as compact JSON, for messages.
func (m Memory) String() string {
	data, err := json.Marshal(m.Spec)
	if err != nil {
		return fmt.Sprint(m.Spec)
	}
	return string(data)
}
