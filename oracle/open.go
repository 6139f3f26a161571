package oracle

import (
	"fmt"
	"time"

	"github.com/conformsuite/conform/internal/impl"
)

// Open starts an implementation by the name a user gives it: "engine"
// (the in-process reference engine), an oracle's name ("numpy", "tfjs",
// "ort", "tflite"), or a command line that starts a conform/1 child
// (e.g. "python3 my_adapter.py"). Each case gets up to timeout.
func Open(spec string, timeout time.Duration) (impl.Impl, error) {
	if spec == "engine" {
		return impl.Engine{}, nil
	}
	argv, err := Command(spec)
	if err != nil {
		return nil, err
	}
	im, err := impl.Start(argv, timeout)
	if err != nil {
		return nil, fmt.Errorf("starting %q: %w", spec, err)
	}
	return im, nil
}
