// Command gorgonia-child serves gorgonia.org/tensor's Dense.Slice as a
// conform/1 protocol child, for conform check, fuzz and report:
//
//	conform check --impl 'go run ./cmd/gorgonia-child'
//
// Its hello names it "gorgonia", with the version of gorgonia.org/tensor
// it was built with.
package main

import (
	"log"
	"runtime/debug"

	"github.com/conformsuite/conform/conformtest"
	gorgonia "github.com/conformsuite/conform/examples/gorgonia"
)

func main() {
	if err := conformtest.Serve(gorgonia.Adapter{}, conformtest.Named("gorgonia", tensorVersion())); err != nil {
		log.Fatal(err)
	}
}

// tensorVersion returns the version of gorgonia.org/tensor in the
// binary's build information, "unknown" if it has none.
func tensorVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "gorgonia.org/tensor" {
				return dep.Version
			}
		}
	}
	return "unknown"
}
