// Command gorgonia-child serves gorgonia.org/tensor's Dense.Slice as a
// conform/1 protocol child, for conform check, fuzz and report:
//
//	conform check --impl 'go run ./cmd/gorgonia-child'
package main

import (
	"log"

	"github.com/conformsuite/conform/conformtest"
	gorgonia "github.com/conformsuite/conform/examples/gorgonia"
)

func main() {
	if err := conformtest.Serve(gorgonia.Adapter{}); err != nil {
		log.Fatal(err)
	}
}
