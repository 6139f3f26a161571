package gen

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/conformsuite/conform/internal/casefile"
)

// maxAttemptsFactor bounds the draws Corpus makes per requested case, so
// that a generator that keeps repeating itself cannot loop forever.
const maxAttemptsFactor = 20

// Corpus builds a deterministic corpus: for each op of casefile.OpNames
// that perOp names, perOp[op] distinct cases from CaseOf(op), ops in
// casefile.OpNames order. The same seed gives the same cases (the same spec
// JSON and the same input bytes, in the same order) on every run and
// machine: case i of an op is CaseOf(op).Example(CaseSeed(seed, op, i)),
// and a case identical to an earlier one (same Fingerprint) is dropped and
// the next i is tried. An op gets fewer cases only if its generator keeps
// repeating itself (after 20 draws per requested case, which the
// generators of this package never come near). Corpus panics if perOp
// names an unknown op or a negative count.
//
// Building 10,000 cases takes a fraction of a second.
func Corpus(seed uint64, perOp map[string]int) []*casefile.Case {
	for op, n := range perOp {
		if _, ok := casefile.Lookup(op); !ok {
			panic(fmt.Sprintf("gen.Corpus: unknown op %q", op))
		}
		if n < 0 {
			panic(fmt.Sprintf("gen.Corpus: negative count %d for op %q", n, op))
		}
	}
	total := 0
	for _, n := range perOp {
		total += n
	}
	out := make([]*casefile.Case, 0, total)
	seen := make(map[[32]byte]bool, total)
	for _, op := range casefile.OpNames() {
		n := perOp[op]
		g := CaseOf(op)
		for i, got := 0, 0; got < n && i < maxAttemptsFactor*n; i++ {
			m := g.Example(CaseSeed(seed, op, i))
			fp := Fingerprint(m)
			if seen[fp] {
				continue
			}
			seen[fp] = true
			out = append(out, m)
			got++
		}
	}
	return out
}

// CaseSeed returns the rapid seed of case i of op in the corpus of seed:
// a hash of the three, so that neighbouring seeds and ops give unrelated
// cases. It fits in 31 bits: rapid takes the seed as an int, and a seed
// that fits a 32-bit int gives the same corpus on 32- and 64-bit
// platforms (two cases that share a seed are the same case, which Corpus
// drops as a duplicate).
func CaseSeed(seed uint64, op string, i int) int {
	var buf [64]byte // the hash's input, on the stack for ops of up to 48 bytes
	b := binary.LittleEndian.AppendUint64(buf[:0], seed)
	b = binary.LittleEndian.AppendUint64(b, uint64(i))
	sum := sha256.Sum256(append(b, op...))
	return int(binary.LittleEndian.Uint32(sum[:]) >> 1)
}

// Fingerprint returns a SHA-256 digest of everything that makes up a case:
// its fields as written, as one JSON object (keys sorted), and, by input name in sorted order, each
// input's dtype, shape and element bytes. Two cases with the same
// fingerprint are the same case.
func Fingerprint(m *casefile.Case) [32]byte {
	h := sha256.New()
	spec, err := json.Marshal(m.Fields)
	if err != nil {
		spec = []byte(fmt.Sprint(m.Fields))
	}
	h.Write(spec)
	names := make([]string, 0, len(m.Inputs))
	for name := range m.Inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		x := m.Inputs[name]
		fmt.Fprintf(h, "\x00%s\x00%s\x00%v\x00", name, x.DType, x.Shape)
		h.Write(x.Bytes())
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}
