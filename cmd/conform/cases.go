package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"

	"github.com/conformsuite/conform/internal/confine"
)

// maxInputFlag registers --max-input, the limit on every file a command
// reads from a case or corpus (see confine.WithLimit).
func maxInputFlag(fset *flag.FlagSet) *int64 {
	return fset.Int64("max-input", confine.DefaultLimit,
		"refuse case files, case lists, .npy files and pack members larger than `BYTES` before reading them (0: the default)")
}

// openCases opens the corpus directory dir (a --cases argument) so that
// nothing read through it can leave it and no file of more than
// inputLimit bytes is read (see package confine).
func openCases(dir string, inputLimit int64) (fs.FS, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("--cases %s: %v", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("--cases %s is not a directory", dir)
	}
	fsys, err := confine.Dir(dir, inputLimit)
	if err != nil {
		return nil, fmt.Errorf("--cases %s: %v", dir, err)
	}
	return fsys, nil
}
