package fuzz

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/conformsuite/conform/internal/rawarray"
)

// instantEnv, when set, makes the test binary a conform/1 child that
// answers every case at once with the engine's answer (a few
// microseconds of Go): "npy" with .npy inputs and outputs, "raw" with
// raw arrays (its hello says "arrays": "raw").
const instantEnv = "CONFORM_INSTANT_CHILD"

// serveInstant runs the instant child of mode.
func serveInstant(mode string) {
	hello := protocol.Hello{Name: "instant", Version: "0", Ops: casefile.OpNames()}
	if mode != "raw" {
		protocol.Serve(os.Stdin, os.Stdout, hello)
		return
	}
	hello.Arrays = protocol.ArraysRaw
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	line, _ := json.Marshal(map[string]any{"hello": hello})
	out.Write(append(line, '\n'))
	out.Flush()
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		out.Write(rawAnswer(line))
		if in.Buffered() == 0 {
			out.Flush()
		}
	}
}

// rawAnswer returns the answer line of the instant raw child to a
// request line: the engine's output as a raw array, written as
// rawarray.Append writes it, or its error.
func rawAnswer(line []byte) []byte {
	var fields map[string]json.RawMessage
	json.Unmarshal(line, &fields)
	resp := append([]byte(`{"id":`), fields["id"]...)
	var raws map[string]json.RawMessage
	json.Unmarshal(fields["inputs"], &raws)
	inputs := map[string]*engine.Tensor{}
	var err error
	for name, raw := range raws {
		if inputs[name], err = rawarray.Decode(raw); err != nil {
			break
		}
	}
	delete(fields, "id")
	delete(fields, "inputs")
	var out *engine.Tensor
	if err == nil {
		out, err = casefile.FromFields(fields, inputs).Eval()
	}
	if err != nil {
		a := protocol.ErrorAnswer(err)
		msg, _ := json.Marshal(a.Message())
		return fmt.Appendf(resp, `,"error":{"kind":%q,"message":%s}}`+"\n", a.Kind(), msg)
	}
	resp = rawarray.Append(append(resp, `,"output":`...), out)
	return append(resp, "}\n"...)
}

// startInstant starts the instant child of mode (see instantEnv).
func startInstant(tb testing.TB, mode string) impl.Impl {
	tb.Helper()
	return startTestChild(tb, instantEnv, mode, "-test.run=^$ -test.bench=^$")
}

// TestRawArraysChild checks that fuzzing sends a child whose hello says
// "arrays": "raw" its inputs as raw arrays and reads its raw outputs: the
// instant raw child, which reads nothing else, agrees with the engine on
// every case.
func TestRawArraysChild(t *testing.T) {
	s, err := Run(context.Background(), Options{Impl: impl.Engine{}, Oracles: []impl.Impl{startInstant(t, "raw")}, MaxCases: 550, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if s.Agreed != 550 {
		t.Errorf("the engine and the raw child: %s, want 550 passed", s.Line())
	}
}

// BenchmarkFuzzInstantChild measures what conform itself spends on a
// case of `conform fuzz --impl engine --oracle CHILD` when the child
// answers at once: generating the case, running it on the engine,
// sending it, reading the answer, comparing and tracing (one agreeing
// case in passSample). conform-µs/case is the CPU time of this process
// alone (the child's is not counted) per case, for a child that takes
// .npy files (npy) and one that takes raw arrays (raw).
func BenchmarkFuzzInstantChild(b *testing.B) {
	for _, mode := range []string{"npy", "raw"} {
		b.Run(mode, func(b *testing.B) {
			child := startInstant(b, mode)
			before := cpuTime()
			b.ResetTimer()
			s, err := Run(context.Background(), Options{Impl: impl.Engine{}, Oracles: []impl.Impl{child}, MaxCases: b.N, Seed: 1})
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if s.Disagreed > 0 || s.Skipped > 0 {
				b.Fatalf("the instant child does not answer as the engine: %s", s.Line())
			}
			b.ReportMetric(s.Rate(), "cases/s")
			b.ReportMetric(float64(cpuTime()-before)/float64(time.Microsecond)/float64(b.N), "conform-µs/case")
		})
	}
}
