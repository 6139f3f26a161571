// Package golden builds the golden corpus: it generates cases with gen,
// runs them through the oracles (NumPy is the reference; TF.js where it
// can run the op), and stores inputs, every oracle's output or error, and
// provenance; and it verifies a stored corpus against fresh oracle runs.
package golden

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/oracle"
	"github.com/conformsuite/conform/internal/pool"
	"github.com/conformsuite/conform/internal/progress"
	"github.com/conformsuite/conform/internal/protocol"
)

// Reference is the oracle whose results are a case's expectation.
const Reference = "numpy"

// DefaultPerOp is the number of cases generated per op by default.
const DefaultPerOp = 1600

// Options configures Build.
type Options struct {
	Dest    string         // the corpus directory to (re)create
	Seed    uint64         // generator seed
	PerOp   map[string]int // cases per op
	Oracles []string       // oracle names; must include Reference
	Workers int            // cases in flight
	Log     io.Writer      // progress and summary
}

// Oracle is a running oracle and what it said in its hello.
type Oracle struct {
	Name   string
	Client *pool.Pool
	Hello  protocol.Hello
}

// goldenOps restricts the ops an oracle runs for the golden corpus. ONNX
// Runtime runs the TF/NumPy ops only through an exporter-style translation
// (Slice, Squeeze, Unsqueeze); those runs are compared in reports
// (`conform report --impl ort`), while the corpus stores its results on
// the ONNX ops themselves.
var goldenOps = map[string][]string{"ort": casefile.FamilyOps("onnx")}

// CodeUnsupportedOp is the skip code of a case whose op the oracle does
// not run.
const CodeUnsupportedOp = "unsupported-op"

// Supports reports whether the oracle listed op in its hello (and runs it
// for the golden corpus).
func (o *Oracle) Supports(op string) bool {
	if only, ok := goldenOps[o.Name]; ok && !slices.Contains(only, op) {
		return false
	}
	for _, s := range o.Hello.Ops {
		if s == op {
			return true
		}
	}
	return false
}

// StartOracles starts the named oracles, each as up to jobs children
// (see package pool). On error the ones started are closed.
func StartOracles(names []string, jobs int) ([]*Oracle, error) {
	var started []*Oracle
	for _, name := range names {
		argv, err := oracle.Command(name)
		if err != nil {
			CloseOracles(started)
			return nil, err
		}
		c, err := pool.Start(argv, protocol.Options{}, jobs)
		if err != nil {
			CloseOracles(started)
			return nil, fmt.Errorf("starting oracle %s: %w", name, err)
		}
		started = append(started, &Oracle{Name: name, Client: c, Hello: c.Hello()})
	}
	return started, nil
}

// CloseOracles stops the oracles.
func CloseOracles(oracles []*Oracle) {
	for _, o := range oracles {
		o.Client.Close()
	}
}

// runAll runs every case through every oracle that supports its op, with
// workers cases in flight, and returns outcomes[case][oracle].
func runAll(ctx context.Context, cases []*casefile.Case, oracles []*Oracle, workers int, bar *progress.Bar) []map[string]protocol.Answer {
	out := make([]map[string]protocol.Answer, len(cases))
	jobs := make(chan int)
	var wg sync.WaitGroup
	if workers < 1 {
		workers = 1
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				res := map[string]protocol.Answer{}
				for _, o := range oracles {
					if !o.Supports(cases[i].Op) {
						res[o.Name] = protocol.Skip(fmt.Sprintf("%s does not implement %s", o.Name, cases[i].Op), CodeUnsupportedOp)
						continue
					}
					res[o.Name] = o.Client.Do(ctx, cases[i].Request(0))
				}
				out[i] = res
				bar.Add(1)
			}
		}()
	}
	for i := range cases {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out
}

// Summary counts what a build produced.
type Summary struct {
	Cases, Outputs, Errors, NoReference int
	PerOp                               map[string]int
	// Agreement counts, per non-reference oracle: "agree", "disagree",
	// "skip", "crash".
	Agreement map[string]map[string]int
	// Disagreements lists, per non-reference oracle, the disagreeing case
	// IDs by divergence class.
	Disagreements map[string]map[string][]string
	// Pairs counts, for every pair of oracles "a/b" (in the order they
	// were given), the cases both ran: "agree" and "disagree".
	Pairs map[string]map[string]int
}

// countPairs adds one case's outcomes to s.Pairs.
func countPairs(s *Summary, res map[string]protocol.Answer, oracles []*Oracle) {
	for i, a := range oracles {
		for _, b := range oracles[i+1:] {
			x, y := res[a.Name], res[b.Name]
			if !x.Ran() || !y.Ran() {
				continue
			}
			key := a.Name + "/" + b.Name
			if s.Pairs[key] == nil {
				s.Pairs[key] = map[string]int{}
			}
			if protocol.Compare(x, y).Agree() {
				s.Pairs[key]["agree"]++
			} else {
				s.Pairs[key]["disagree"]++
			}
		}
	}
}

// Build generates the corpus, runs the oracles and writes the corpus
// directory atomically.
func Build(ctx context.Context, opts Options, cases []*casefile.Case, oracles []*Oracle) (*Summary, error) {
	if len(oracles) == 0 || oracles[0].Name != Reference {
		return nil, fmt.Errorf("the first oracle must be the reference, %s", Reference)
	}
	bar := progress.New(opts.Log, "golden", len(cases))
	outcomes := runAll(ctx, cases, oracles, opts.Workers, bar)
	bar.Done()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	w, err := corpus.NewWriter(opts.Dest)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			w.Abort()
		}
	}()
	versions := map[string]string{}
	for _, o := range oracles {
		versions[o.Name] = o.Hello.Version
	}
	s := &Summary{PerOp: map[string]int{}, Agreement: map[string]map[string]int{}, Disagreements: map[string]map[string][]string{}, Pairs: map[string]map[string]int{}}
	lines := map[string][]string{}
	seq := map[string]int{}
	for i, m := range cases {
		op := m.Op
		id := fmt.Sprintf("%s/%05d", op, seq[op])
		seq[op]++
		rec, err := record(w, id, m, outcomes[i], oracles, versions, opts.Seed, s)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", id, err)
		}
		line, err := json.Marshal(rec)
		if err != nil {
			return nil, err
		}
		lines[op] = append(lines[op], string(line))
		countPairs(s, outcomes[i], oracles)
		s.Cases++
		s.PerOp[op]++
	}
	for op, ls := range lines {
		if err := w.File(op+".jsonl", []byte(strings.Join(ls, "\n")+"\n")); err != nil {
			return nil, err
		}
	}
	prov := map[string]any{
		"format":    "conform golden corpus 1",
		"generator": map[string]any{"package": "github.com/conformsuite/conform/internal/gen", "seed": opts.Seed, "per_op": opts.PerOp},
		"oracles":   versions,
		"reference": Reference,
		"command":   fmt.Sprintf("conform golden --seed %d --per-op %d", opts.Seed, perOpValue(opts.PerOp)),
	}
	data, err := json.MarshalIndent(prov, "", " ")
	if err != nil {
		return nil, err
	}
	if err := w.File("PROVENANCE", append(data, '\n')); err != nil {
		return nil, err
	}
	if err := w.File("DISAGREEMENTS.md", disagreementsReport(s, versions)); err != nil {
		return nil, err
	}
	if err := w.Commit(); err != nil {
		return nil, err
	}
	ok = true
	return s, nil
}

func perOpValue(perOp map[string]int) int {
	for _, n := range perOp {
		return n
	}
	return 0
}

// record stores one case's files and returns its case-list object.
func record(w *corpus.Writer, id string, m *casefile.Case, res map[string]protocol.Answer, oracles []*Oracle, versions map[string]string, seed uint64, s *Summary) (map[string]any, error) {
	rec := map[string]any{}
	for k, v := range m.Fields {
		rec[k] = v
	}
	rec["id"] = id
	inputs := map[string]string{}
	for name, t := range m.Inputs {
		blob, err := w.Blob(npy.Encode(t))
		if err != nil {
			return nil, err
		}
		inputs[name] = blob
	}
	rec["inputs"] = inputs
	stored := map[string]any{}
	used := map[string]string{}
	for _, o := range oracles {
		out := res[o.Name]
		entry := map[string]any{}
		switch {
		case out.IsCrash():
			entry["crash"] = out.Reason()
		case out.IsSkip():
			entry["skip"] = out.Reason()
		case out.IsError():
			entry["error"], entry["message"] = string(out.Kind()), out.Message()
			if out.Type() != "" {
				entry["type"] = out.Type()
			}
		default:
			blob, err := w.Blob(out.NPY())
			if err != nil {
				return nil, err
			}
			entry["output"] = blob
		}
		if !out.Ran() && out.Code() != "" {
			entry["code"] = out.Code()
		}
		stored[o.Name] = entry
		used[o.Name] = versions[o.Name]
	}
	rec["oracles"] = stored
	rec["provenance"] = map[string]any{"seed": seed, "oracles": used}

	ref := res[Reference]
	switch {
	case !ref.Ran():
		s.NoReference++
	case ref.IsError():
		expect := map[string]any{"error": string(ref.Kind()), "source": Reference + " " + versions[Reference]}
		if ref.Type() != "" {
			// The exception class the reference raised, beside the kind.
			expect["type"] = ref.Type()
		}
		rec["expect"] = expect
		s.Errors++
	default:
		rec["expect"] = map[string]any{"output": stored[Reference].(map[string]any)["output"], "source": Reference + " " + versions[Reference]}
		s.Outputs++
	}
	var classes []string
	for _, o := range oracles[1:] {
		got := res[o.Name]
		counts := s.Agreement[o.Name]
		if counts == nil {
			counts = map[string]int{}
			s.Agreement[o.Name] = counts
		}
		switch {
		case got.IsCrash() && ref.Ran():
			// The oracle failed on a case the reference ran: a crash
			// is a divergence too, classified and listed.
			counts["crash"]++
			class := Classify(o.Name, m, ref, got)
			classes = append(classes, o.Name+": "+class.ID)
			if s.Disagreements[o.Name] == nil {
				s.Disagreements[o.Name] = map[string][]string{}
			}
			s.Disagreements[o.Name][class.ID] = append(s.Disagreements[o.Name][class.ID], id)
		case got.IsCrash():
			counts["crash"]++
		case got.IsSkip() && got.Code() != CodeInvalidTensor:
			counts["skip"]++
		case !ref.Ran():
			counts["skip"]++
		case protocol.Compare(ref, got).Agree():
			counts["agree"]++
		default:
			counts["disagree"]++
			class := Classify(o.Name, m, ref, got)
			classes = append(classes, o.Name+": "+class.ID)
			byClass := s.Disagreements[o.Name]
			if byClass == nil {
				byClass = map[string][]string{}
				s.Disagreements[o.Name] = byClass
			}
			byClass[class.ID] = append(byClass[class.ID], id)
		}
	}
	if len(classes) > 0 {
		sort.Strings(classes)
		rec["disagreement"] = strings.Join(classes, "; ")
	}
	return rec, nil
}
