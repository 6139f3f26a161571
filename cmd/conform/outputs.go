package main

import (
	"fmt"
	"os"

	"github.com/conformsuite/conform/internal/oracle"
	"github.com/conformsuite/conform/internal/output"
)

// runInputs returns the files a check, report or fuzz run reads, which
// none of its outputs may replace (see package output): every file under
// the corpus directory casesDir ("" for none), the known-failures file
// knownPath ("" for none), and the files the implementations' command
// lines name (an adapter's script, say).
func runInputs(casesDir, knownPath string, impls ...string) *output.Inputs {
	in := &output.Inputs{}
	if casesDir != "" {
		in.AddDir(casesDir, "a file of the corpus "+casesDir)
	}
	if knownPath != "" {
		in.AddFile(knownPath, "the known-failures file")
	}
	for _, spec := range impls {
		switch spec {
		case "engine", "numpy", "tfjs", "ort", "tflite":
			continue
		}
		argv, err := oracle.SplitCommand(spec)
		if err != nil {
			continue // opening the implementation will say why
		}
		for _, arg := range argv {
			if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
				in.AddFile(arg, fmt.Sprintf("a file of the implementation %q", spec))
			}
		}
	}
	return in
}
