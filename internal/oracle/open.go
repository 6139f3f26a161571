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
	return OpenLimit(spec, timeout, 0)
}

// OpenLimit is Open for results of up to outputLimit bytes (0 or less:
// engine.DefaultOutputLimit): the engine refuses larger ones
// (invalid_spec), and a child's response lines may be as long as the
// largest result needs.
func OpenLimit(spec string, timeout time.Duration, outputLimit int64) (impl.Impl, error) {
	return OpenJobs(spec, timeout, outputLimit, 1)
}

// OpenJobs is OpenLimit for a child that may run as up to jobs children
// of its command at once (see package pool); the engine runs in process
// whatever jobs is.
func OpenJobs(spec string, timeout time.Duration, outputLimit int64, jobs int) (impl.Impl, error) {
	if spec == "engine" {
		return impl.Engine{OutputLimit: outputLimit}, nil
	}
	argv, err := Command(spec)
	if err != nil {
		return nil, err
	}
	im, err := impl.Start(argv, timeout, outputLimit, jobs)
	if err != nil {
		return nil, fmt.Errorf("starting %q: %w", spec, err)
	}
	return im, nil
}
