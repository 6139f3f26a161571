package fuzz

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/output"
)

// PrepareOut makes dir ready to hold findings before a run starts: it
// creates it if it is missing (created reports that it did) and checks
// that a file can be created in it. The error says why dir cannot hold
// findings: it is not a directory, or cannot be written.
func PrepareOut(dir string) (created bool, err error) {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return false, fmt.Errorf("%s is not a directory", dir)
	} else if err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, fmt.Errorf("cannot create %s: %v", dir, reason(err))
		}
		created = true
	}
	probe, err := os.CreateTemp(dir, ".conform-probe-*")
	if err != nil {
		if created {
			os.Remove(dir)
		}
		return false, fmt.Errorf("cannot write in %s: %v", dir, reason(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return created, nil
}

// reason returns the cause of a file system error without the operation
// and the file name.
func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Save writes a finding to dir as a normal case file, <ID>.json, with its
// inputs and the reference's expected output beside it, and provenance:
// how it was found, what each side returned, and its cause (the rule,
// the symptom, the passing neighbour that confirmed it and the
// known-failures entry that would make it known) or that no rule
// explains it. It returns the case
// file's path. Each file is written through a temporary file renamed
// into place (output.Write), and none replaces a file of opts.Inputs; if
// one cannot be written, the files of the finding written before it are
// removed.
func Save(dir string, f Finding, opts Options) (path string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var written []string
	defer func() {
		if err != nil {
			for _, p := range written {
				os.Remove(p)
			}
		}
	}()
	writeAtomic := func(path string, data []byte) error {
		if opts.Inputs != nil {
			if err := opts.Inputs.Refuse("--out", path); err != nil {
				return err
			}
		}
		err := output.Write(path, func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		})
		if err == nil {
			written = append(written, path)
		}
		return err
	}
	doc := map[string]any{}
	for k, v := range f.Case.Fields {
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
	case f.Want.IsError():
		doc["expect"] = map[string]any{"error": string(f.Want.Kind()), "source": source}
	default:
		file := f.ID + ".out.npy"
		want, _ := f.Want.Tensor()
		if err := writeAtomic(filepath.Join(dir, file), npy.Encode(want)); err != nil {
			return "", err
		}
		doc["expect"] = map[string]any{"output": file, "source": source}
	}
	doc["rule"] = fmt.Sprintf("found by conform fuzz: %s disagrees with %s (%s)", opts.Impl.Name(), f.Oracle, f.Signature)
	if f.Cause != "" {
		doc["rule"] = fmt.Sprintf("found by conform fuzz: %s disagrees with %s (%s), cause %s", opts.Impl.Name(), f.Oracle, f.Signature, f.Cause)
	}
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
	if f.Cause != "" {
		prov := doc["provenance"].(map[string]any)
		prov["cause"] = string(f.Cause)
		prov["symptom"] = f.Case.Op + "/" + f.Symptom
		prov["confirmed_by"] = map[string]any{"neighbour": f.Neighbour, "edit": f.Edit, "result": "passes"}
		prov["known_failures_entry"] = check.KnownCause{Rule: f.Cause, Symptom: f.Symptom}.String()
	} else {
		doc["provenance"].(map[string]any)["cause"] = "no rule confirmed by neighbours"
	}
	if f.Partial {
		doc["provenance"].(map[string]any)["shrinking"] = "stopped at the run's deadline: the smallest failing case found by then, not necessarily minimal"
	}
	data, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return "", err
	}
	path = filepath.Join(dir, f.ID+".json")
	if err := writeAtomic(path, append(data, '\n')); err != nil {
		return "", err
	}
	return path, nil
}
