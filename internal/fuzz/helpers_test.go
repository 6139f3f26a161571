package fuzz

import (
	"encoding/base64"
	"encoding/json"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/engine/npy"
)

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

func encodeOutput(t *engine.Tensor) string {
	return base64.StdEncoding.EncodeToString(npy.Encode(t))
}
