package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/protocol"
)

// fakeChildEnv makes the test binary a conform/1 child (see
// runFakeChild); fakeLogEnv names the file it logs each answer in.
const (
	fakeChildEnv = "CONFORM_JOBS_CHILD"
	fakeLogEnv   = "CONFORM_JOBS_CHILD_LOG"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeChildEnv) != "" {
		runFakeChild()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runFakeChild serves the engine with three deliberate faults: it lists
// every op but onnx_slice (its cases are skipped), refuses getitem
// subscripts with a negative step written "::-" (a cause the neighbours
// confirm), and dies, writing nothing, on a take case of three indices
// (a crash that restarts the child). It sleeps a millisecond per case, so
// that children overlap, and logs "pid start end" (nanoseconds) per case.
func runFakeChild() {
	log, _ := os.OpenFile(os.Getenv(fakeLogEnv), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	ops := slices.DeleteFunc(casefile.OpNames(), func(op string) bool { return op == casefile.OpONNXSlice })
	answer := func(line []byte) protocol.Answer {
		start := time.Now()
		time.Sleep(time.Millisecond)
		defer func() { fmt.Fprintf(log, "%d %d %d\n", os.Getpid(), start.UnixNano(), time.Now().UnixNano()) }()
		c, err := casefile.Parse(line, casefile.Base64Inputs)
		if err != nil {
			return protocol.EngineAnswer(line)
		}
		if idx := c.Inputs["indices"]; c.Op == casefile.OpTake && idx != nil && idx.Len() == 3 {
			os.Exit(3)
		}
		if index := c.Fields["index"]; c.Op == casefile.OpGetItem && strings.Contains(string(index), "::-") {
			return protocol.Error(engine.InvalidSpec, "negative steps unsupported")
		}
		return protocol.EngineAnswer(line)
	}
	protocol.ServeAnswers(os.Stdin, os.Stdout, protocol.Hello{Name: "fake", Version: "1", Ops: ops}, answer)
}
