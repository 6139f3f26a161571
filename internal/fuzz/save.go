package fuzz

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/conformsuite/conform/engine/npy"
)

// Save writes a finding to dir as a normal case file, <ID>.json, with its
// inputs and the reference's expected output beside it, and provenance:
// how it was found, and what each side returned. It returns the case
// file's path.
func Save(dir string, f Finding, opts Options) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	doc := map[string]any{}
	for k, v := range f.Case.Spec {
		doc[k] = v
	}
	inputs := map[string]string{}
	names := make([]string, 0, len(f.Case.Inputs))
	for name := range f.Case.Inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		file := f.ID + "." + name + ".npy"
		if err := writeAtomic(filepath.Join(dir, file), npy.Encode(f.Case.Inputs[name])); err != nil {
			return "", err
		}
		inputs[name] = file
	}
	doc["inputs"] = inputs
	oracleVersion := ""
	for _, o := range opts.Oracles {
		if o.Name() == f.Oracle {
			oracleVersion = o.Version()
		}
	}
	source := f.Oracle + " " + oracleVersion
	switch {
	case f.Want.Kind != "":
		doc["expect"] = map[string]any{"error": string(f.Want.Kind), "source": source}
	default:
		file := f.ID + ".out.npy"
		if err := writeAtomic(filepath.Join(dir, file), npy.Encode(f.Want.Output)); err != nil {
			return "", err
		}
		doc["expect"] = map[string]any{"output": file, "source": source}
	}
	doc["rule"] = fmt.Sprintf("found by conform fuzz: %s disagrees with %s (%s)", opts.Impl.Name(), f.Oracle, f.Signature)
	doc["provenance"] = map[string]any{
		"found_by":       "conform fuzz",
		"signature":      f.Signature.String(),
		"seed":           opts.Seed,
		"case_seed":      f.Seed,
		"shard":          fmt.Sprintf("%d/%d", opts.Shard, opts.Shards),
		"impl":           opts.Impl.Name() + " " + opts.Impl.Version(),
		"impl_result":    f.Got.String(),
		"oracle":         source,
		"oracle_result":  f.Want.String(),
		"difference":     f.Detail,
		"input_elements": fmt.Sprintf("%d (shrunk from %d)", elements(f.Case), f.Original),
	}
	if f.Partial {
		doc["provenance"].(map[string]any)["shrinking"] = "stopped at the run's deadline: the smallest failing case found by then, not necessarily minimal"
	}
	data, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, f.ID+".json")
	return path, writeAtomic(path, append(data, '\n'))
}

// writeAtomic writes a file through a temporary file and a rename.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".fuzz-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
