package oracle

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/internal/protocol"
)

// TestNumPyRawArrays checks that the NumPy oracle takes raw arrays (its
// hello says "arrays": "raw") and answers a case whose inputs are raw
// arrays exactly as the same case with .npy inputs: the same error, skip
// or output, byte for byte once written as .npy (the .npy answers are
// np.save's bytes, those of the golden corpus).
func TestNumPyRawArrays(t *testing.T) {
	requireOracle(t, "CONFORM_REQUIRE_NUMPY", haveNumPy(), "/usr/bin/python3 has no NumPy (apt-get install python3-numpy)")
	c := startOracle(t, "numpy")
	if h := c.Hello(); h.Arrays != protocol.ArraysRaw {
		t.Fatalf("hello = %+v, want arrays %q", h, protocol.ArraysRaw)
	}
	cases := append(fixedCases(), randomCases(min(oracleCases(), 2000), oracleSeed()+1, false)...)
	plain := doCases(c, cases)
	raw := make([]response, len(cases))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				m := cases[i]
				raw[i] = respOf(c.DoAppend(context.Background(), m.RequestSize(), m.AppendRawRequest).Decoded())
			}
		}()
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	outputs := 0
	for i, m := range cases {
		if plain[i].Output != nil {
			outputs++
		}
		if diff := cmp.Diff(plain[i], raw[i]); diff != "" {
			t.Errorf("%s: the answer with raw inputs differs (-npy +raw):\n%s", m, diff)
		}
	}
	if outputs < len(cases)/4 {
		t.Errorf("only %d of %d cases have an output", outputs, len(cases))
	}
}
