package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// serialize returns the corpus as the conform/1 requests it would be sent
// as, one JSON line per case: spec and base64 .npy inputs. A getitem
// request's structured key is left out: it is made from the "index"
// field, which is in, so the lines pin what the generators make.
func serialize(t *testing.T, cases []*casefile.Case) []string {
	t.Helper()
	lines := make([]string, len(cases))
	for i, m := range cases {
		req := m.Request(int64(i))
		delete(req, casefile.KeyField)
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		lines[i] = string(b)
	}
	return lines
}

func perOp(n int) map[string]int {
	m := map[string]int{}
	for _, op := range casefile.OpNames() {
		m[op] = n
	}
	return m
}

// TestCorpusDeterministic checks that two builds with the same seed are
// byte-identical when serialized, and that another seed differs.
func TestCorpusDeterministic(t *testing.T) {
	a := serialize(t, Corpus(7, perOp(300)))
	b := serialize(t, Corpus(7, perOp(300)))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("two builds with seed 7 differ (-first +second):\n%s", diff)
	}
	c := serialize(t, Corpus(8, perOp(300)))
	same := 0
	for i := range a {
		if a[i] == c[i] {
			same++
		}
	}
	if same > len(a)/20 {
		t.Errorf("seeds 7 and 8 share %d of %d cases", same, len(a))
	}
}

// wantDigest pins the bytes of Corpus(1, 200 per op) across runs,
// machines and Go releases. It changes when a generator changes on
// purpose (or rapid's bit stream does): update it then, and say so in the
// commit, because every corpus built from a seed changes with it.
const wantDigest = "51485bf5aef733692f8a747feb1621de4ec408604a19a5d5e9e5efeac400c2b5"

// TestCorpusDigest checks that the corpus of a fixed seed is the one this
// package has always built.
func TestCorpusDigest(t *testing.T) {
	h := sha256.New()
	for _, line := range serialize(t, Corpus(1, perOp(200))) {
		h.Write([]byte(line))
		h.Write([]byte{'\n'})
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != wantDigest {
		t.Errorf("Corpus(1, 200 per op) digest = %s, want %s", got, wantDigest)
	}
}

// TestCorpusShape checks the corpus layout: the requested count per op,
// ops in casefile.OpNames() order, no two identical cases, and the ops perOp
// leaves out absent.
func TestCorpusShape(t *testing.T) {
	want := map[string]int{casefile.OpGetItem: 50, casefile.OpSlice: 70, casefile.OpGatherND: 0}
	cases := Corpus(3, want)
	var ops []string
	count := map[string]int{}
	seen := map[[32]byte]bool{}
	for _, m := range cases {
		if len(ops) == 0 || ops[len(ops)-1] != m.Op {
			ops = append(ops, m.Op)
		}
		count[m.Op]++
		fp := Fingerprint(m)
		if seen[fp] {
			t.Errorf("duplicate case %v", m)
		}
		seen[fp] = true
	}
	if diff := cmp.Diff([]string{casefile.OpGetItem, casefile.OpSlice}, ops); diff != "" {
		t.Errorf("op order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{casefile.OpGetItem: 50, casefile.OpSlice: 70}, count); diff != "" {
		t.Errorf("cases per op (-want +got):\n%s", diff)
	}
	for _, bad := range []map[string]int{{"no_such_op": 1}, {casefile.OpSlice: -1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Corpus(%v) did not panic", bad)
				}
			}()
			Corpus(1, bad)
		}()
	}
}

// TestCorpusDedupes checks that Corpus drops a case identical to an
// earlier one: small generators repeat themselves, and the corpus of
// getitem cases (many x[()] on small inputs) must still be all distinct.
func TestCorpusDedupes(t *testing.T) {
	cases := Corpus(5, map[string]int{casefile.OpGetItem: 2000})
	seen := map[string]bool{}
	for _, line := range serialize(t, cases) {
		// Strip the id, which differs on every line.
		key := line[strings.Index(line, `"index"`):]
		if seen[key] {
			t.Fatalf("duplicate case in the corpus: %s", key)
		}
		seen[key] = true
	}
}

// TestFingerprint checks that the fingerprint tells apart cases that
// differ in the spec, an input's bytes, dtype or shape, and nothing else.
func TestFingerprint(t *testing.T) {
	x := newTensor(engine.Int32Type, []int{2, 2}, make([]byte, 16))
	base := casefile.New(map[string]any{"op": "getitem", "index": "x[0]"}, map[string]*engine.Tensor{"x": x})
	variants := []struct {
		rule string
		m    *casefile.Case
		same bool
	}{
		{"the same case built again is the same", casefile.New(map[string]any{"index": "x[0]", "op": "getitem"}, map[string]*engine.Tensor{"x": newTensor(engine.Int32Type, []int{2, 2}, make([]byte, 16))}), true},
		{"another index differs", casefile.New(map[string]any{"op": "getitem", "index": "x[1]"}, base.Inputs), false},
		{"another byte differs", casefile.FromFields(base.Fields, map[string]*engine.Tensor{"x": newTensor(engine.Int32Type, []int{2, 2}, append(make([]byte, 15), 1))}), false},
		{"another dtype differs", casefile.FromFields(base.Fields, map[string]*engine.Tensor{"x": newTensor(engine.Uint32Type, []int{2, 2}, make([]byte, 16))}), false},
		{"another byte order differs", casefile.FromFields(base.Fields, map[string]*engine.Tensor{"x": newTensor(engine.DType{Kind: engine.Int, Size: 4, BigEndian: true}, []int{2, 2}, make([]byte, 16))}), false},
		{"another shape differs", casefile.FromFields(base.Fields, map[string]*engine.Tensor{"x": newTensor(engine.Int32Type, []int{4}, make([]byte, 16))}), false},
		{"another input name differs", casefile.FromFields(base.Fields, map[string]*engine.Tensor{"y": x}), false},
	}
	for _, v := range variants {
		if got := Fingerprint(v.m) == Fingerprint(base); got != v.same {
			t.Errorf("%s: same fingerprint = %v", v.rule, got)
		}
	}
	// The fields as written count, not only the spec they parse to: a
	// mask as a 0/1 list and as a bitmask are other cases on the wire.
	spec := func(mask any) map[string]any {
		return map[string]any{"op": "strided_slice", "begin": []int64{0}, "end": []int64{1}, "begin_mask": mask}
	}
	list, bits := casefile.New(spec([]int64{1}), base.Inputs), casefile.New(spec(int64(1)), base.Inputs)
	if Fingerprint(list) == Fingerprint(bits) {
		t.Errorf("a mask as a list and as a bitmask: same fingerprint")
	}
}

// errorFraction bounds the share of rejected cases in a corpus.
const minErrorFraction, maxErrorFraction = 0.08, 0.25

// TestErrorFraction builds a 10,000-case corpus, evaluates it on the
// engine, logs the distribution of outcomes per op and kind and the build
// time, and checks that the share of rejected cases is within bounds.
func TestErrorFraction(t *testing.T) {
	start := time.Now()
	cases := Corpus(42, perOp(2500))
	built := time.Since(start)
	counts := map[string]map[engine.ErrorKind]int{}
	errors := 0
	for _, m := range cases {
		e := evaluate(m)
		if counts[m.Op] == nil {
			counts[m.Op] = map[engine.ErrorKind]int{}
		}
		counts[m.Op][e.kind()]++
		if e.err != nil {
			errors++
		}
	}
	frac := float64(errors) / float64(len(cases))
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d cases built in %v; %.1f%% rejected\n", len(cases), built.Round(time.Millisecond), 100*frac)
	for _, op := range casefile.OpNames() {
		var kinds []string
		for k, n := range counts[op] {
			name := string(k)
			if k == "" {
				name = "ok"
			}
			kinds = append(kinds, fmt.Sprintf("%s %d", name, n))
		}
		sort.Strings(kinds)
		fmt.Fprintf(&b, "  %-14s %s\n", op, strings.Join(kinds, ", "))
	}
	t.Log(b.String())
	if frac < minErrorFraction || frac > maxErrorFraction {
		t.Errorf("%.1f%% of cases are rejected, want %.0f%% to %.0f%%", 100*frac, 100*minErrorFraction, 100*maxErrorFraction)
	}
}

// BenchmarkCorpus measures building a 10,000-case corpus.
func BenchmarkCorpus(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Corpus(uint64(i), perOp(2500))
	}
}

// TestCaseSeedAllocatesNothing checks that CaseSeed hashes on the stack:
// fuzzing takes a seed for every case.
func TestCaseSeedAllocatesNothing(t *testing.T) {
	if allocs := testing.AllocsPerRun(100, func() { CaseSeed(1, casefile.OpGatherND, 7) }); allocs != 0 {
		t.Errorf("CaseSeed: %v allocations, want 0", allocs)
	}
}
