package golden

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"path"
	"slices"
	"sort"
	"sync"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/confine"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/progress"
	"github.com/conformsuite/conform/internal/protocol"
)

// metadataFields are the case-list fields that are not part of the case
// sent to an implementation.
var metadataFields = []string{"id", "expect", "oracles", "provenance", "disagreement", "rule", "source", "note"}

// Request turns a stored case into a protocol request: the spec fields
// as written (raw JSON values: an int64 bound stays exact) with each
// input's stored .npy bytes in base64.
func Request(fsys fs.FS, e corpus.Entry) (map[string]any, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(e.JSON, &fields); err != nil {
		return nil, err
	}
	var inputs map[string]json.RawMessage
	json.Unmarshal(fields["inputs"], &inputs)
	req := make(map[string]any, len(fields))
	for k, v := range fields {
		if !slices.Contains(metadataFields, k) {
			req[k] = v
		}
	}
	encoded := map[string]any{}
	for name, v := range inputs {
		var p string
		json.Unmarshal(v, &p)
		if err := confine.CheckPath(p); err != nil {
			return nil, err
		}
		data, err := confine.ReadFile(fsys, path.Join(e.Dir, p))
		if err != nil {
			return nil, err
		}
		encoded[name] = base64.StdEncoding.EncodeToString(data)
	}
	req["inputs"] = encoded
	return req, nil
}

// stored reads the recorded outcome of one oracle from a case-list entry.
func stored(fsys fs.FS, e corpus.Entry, raw json.RawMessage) (protocol.Answer, error) {
	var r struct {
		Output  string `json:"output"`
		Error   string `json:"error"`
		Message string `json:"message"`
		Type    string `json:"type"`
		Skip    string `json:"skip"`
		Crash   string `json:"crash"`
		Code    string `json:"code"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return protocol.Answer{}, err
	}
	switch {
	case r.Crash != "":
		return protocol.Crash(r.Code, r.Crash), nil
	case r.Skip != "":
		return protocol.Skip(r.Skip, r.Code), nil
	case r.Error != "":
		return protocol.TypedError(engine.ErrorKind(r.Error), r.Message, r.Type), nil
	case r.Output == "":
		return protocol.EncodedOutput(nil), nil
	}
	if err := confine.CheckPath(r.Output); err != nil {
		return protocol.Answer{}, err
	}
	data, err := confine.ReadFile(fsys, path.Join(e.Dir, r.Output))
	if err != nil {
		return protocol.Answer{}, err
	}
	return protocol.EncodedOutput(data), nil
}

// Drift is one stored oracle result that a fresh run did not reproduce.
type Drift struct {
	ID, Oracle, Detail string
}

// VerifySummary is the result of Verify.
type VerifySummary struct {
	Checked, Passed, Drifted, Skipped int
	Drifts                            []Drift
	// Versions lists oracles whose version differs from the recorded one.
	Versions []string
}

// Verify re-runs the oracles on the cases of the corpus in fsys (all of
// them, or a deterministic sample of n chosen with seed) and reports every
// stored result that a fresh run does not reproduce exactly.
func Verify(ctx context.Context, fsys fs.FS, oracles []*Oracle, n int, seed int64, workers int, log io.Writer) (*VerifySummary, error) {
	entries, err := corpus.Entries(fsys)
	if err != nil {
		return nil, err
	}
	fsys = corpus.Open(fsys)
	var withOracles []corpus.Entry
	for _, e := range entries {
		var head struct {
			Oracles map[string]json.RawMessage `json:"oracles"`
		}
		if json.Unmarshal(e.JSON, &head) == nil && len(head.Oracles) > 0 {
			withOracles = append(withOracles, e)
		}
	}
	if len(withOracles) == 0 {
		return nil, fmt.Errorf("the corpus has no cases with recorded oracle results")
	}
	if n > 0 && n < len(withOracles) {
		r := rand.New(rand.NewSource(seed))
		r.Shuffle(len(withOracles), func(i, j int) { withOracles[i], withOracles[j] = withOracles[j], withOracles[i] })
		withOracles = withOracles[:n]
		sort.Slice(withOracles, func(i, j int) bool { return withOracles[i].ID < withOracles[j].ID })
	}

	s := &VerifySummary{}
	var mu sync.Mutex
	bar := progress.New(log, "verify", len(withOracles))
	jobs := make(chan corpus.Entry)
	var wg sync.WaitGroup
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e := range jobs {
				drifts, skipped, err := verifyOne(ctx, fsys, e, oracles)
				if err != nil {
					drifts = []Drift{{ID: e.ID, Detail: err.Error()}}
				}
				mu.Lock()
				s.Checked++
				switch {
				case len(drifts) > 0:
					s.Drifted++
					s.Drifts = append(s.Drifts, drifts...)
				case skipped:
					s.Skipped++
				default:
					s.Passed++
				}
				mu.Unlock()
				bar.Add(1)
			}
		}()
	}
	for _, e := range withOracles {
		jobs <- e
	}
	close(jobs)
	wg.Wait()
	bar.Done()
	sort.Slice(s.Drifts, func(i, j int) bool {
		if s.Drifts[i].ID != s.Drifts[j].ID {
			return s.Drifts[i].ID < s.Drifts[j].ID
		}
		return s.Drifts[i].Oracle < s.Drifts[j].Oracle
	})
	s.Versions = versionChanges(fsys, withOracles, oracles)
	return s, ctx.Err()
}

// verifyOne re-runs the oracles recorded for one case. skipped reports
// that none of them is running.
func verifyOne(ctx context.Context, fsys fs.FS, e corpus.Entry, oracles []*Oracle) (drifts []Drift, skipped bool, err error) {
	var head struct {
		Oracles map[string]json.RawMessage `json:"oracles"`
	}
	if err := json.Unmarshal(e.JSON, &head); err != nil {
		return nil, false, err
	}
	req, err := Request(fsys, e)
	if err != nil {
		return nil, false, err
	}
	ran := 0
	for _, o := range oracles {
		raw, ok := head.Oracles[o.Name]
		if !ok {
			continue
		}
		want, err := stored(fsys, e, raw)
		if err != nil {
			return nil, false, err
		}
		var op string
		if raw, ok := req["op"].(json.RawMessage); ok {
			json.Unmarshal(raw, &op)
		}
		var got protocol.Answer
		if !o.Supports(op) {
			got = protocol.Skip(fmt.Sprintf("%s does not implement %s", o.Name, op), "")
		} else {
			got = o.Client.Do(ctx, req)
		}
		ran++
		if d := drift(want, got); d != "" {
			drifts = append(drifts, Drift{ID: e.ID, Oracle: o.Name, Detail: d})
		}
	}
	return drifts, ran == 0, nil
}

// drift compares a stored outcome with a fresh one: outputs and error
// kinds must agree exactly, skips must still be skips.
func drift(want, got protocol.Answer) string {
	switch {
	case want.IsSkip() && got.IsSkip():
		return ""
	case want.IsCrash() && got.IsCrash():
		return ""
	case !want.Ran() || !got.Ran():
		return fmt.Sprintf("stored %v, now %v", want, got)
	}
	a := protocol.Compare(want, got)
	switch {
	case a.Agree():
		return ""
	case a.Text == "": // the stored output is unreadable
		return fmt.Sprintf("stored and fresh results differ: %v vs %v", want, got)
	}
	return "stored and fresh results differ: " + a.Text
}

// versionChanges lists oracles whose running version differs from the
// version recorded in the corpus.
func versionChanges(fsys fs.FS, entries []corpus.Entry, oracles []*Oracle) []string {
	recorded := map[string]string{}
	for _, e := range entries {
		var head struct {
			Provenance struct {
				Oracles map[string]string `json:"oracles"`
			} `json:"provenance"`
		}
		if json.Unmarshal(e.JSON, &head) == nil {
			for k, v := range head.Provenance.Oracles {
				recorded[k] = v
			}
		}
	}
	var changes []string
	for _, o := range oracles {
		if v, ok := recorded[o.Name]; ok && v != o.Hello.Version {
			changes = append(changes, fmt.Sprintf("%s: corpus made with %s, running %s", o.Name, v, o.Hello.Version))
		}
	}
	return changes
}
