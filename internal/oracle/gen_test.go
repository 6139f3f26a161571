package oracle

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// A small random case generator for the oracle integration tests: every
// op, shapes of rank 0-4 with dims 0-4, every dtype in both byte orders,
// and specs that are valid, out of range or malformed.

var genDTypes = []string{
	"|b1", "|i1", "<i2", ">i2", "<i4", ">i4", "<i8", ">i8",
	"|u1", "<u2", ">u2", "<u4", ">u4", "<u8", ">u8",
	"<f2", ">f2", "<f4", ">f4", "<f8", ">f8", "<c8", ">c8", "<c16", ">c16",
	"|S1", "|S3", "<U1", "<U2", ">U3",
}

var genIndexDTypes = []string{"|i1", "<i2", ">i4", "<i4", "<i8", ">i8", "|u1", "<u2", "<u4", "<u8", ">u8"}

func mustDType(s string) engine.DType {
	dt, err := engine.ParseDType(s)
	if err != nil {
		panic(err)
	}
	return dt
}

type gen struct {
	r *rand.Rand
	// tfjs draws a third of the inputs from the dtypes TF.js runs
	// natively (the oracle runs every other dtype as int32 positions).
	tfjs bool
}

// tfjsDTypes are the dtypes the TF.js oracle runs natively.
var tfjsDTypes = []string{"<i4", ">i4", "|b1", "|S1", "|S3"}

func (g gen) pick(n int) int { return g.r.Intn(n) }

func (g gen) chance(p float64) bool { return g.r.Float64() < p }

// shape returns a random shape of rank 0-4 with dims 0-4 (mostly 1-4).
func (g gen) shape(maxRank int) []int {
	rank := g.pick(maxRank + 1)
	shape := make([]int, rank)
	for i := range shape {
		if g.chance(0.1) {
			shape[i] = 0
		} else {
			shape[i] = 1 + g.pick(4)
		}
	}
	return shape
}

// tensor returns a tensor of random bytes; bools are 0 or 1.
func (g gen) tensor(dt engine.DType, shape []int) *engine.Tensor {
	n := engine.NumElements(shape)
	data := make([]byte, n*dt.Size)
	switch dt.Kind {
	case engine.Bool:
		for i := range data {
			data[i] = byte(g.pick(2))
		}
	case engine.Unicode:
		order := binary.ByteOrder(binary.LittleEndian)
		if dt.BigEndian {
			order = binary.BigEndian
		}
		for i := 0; i < len(data); i += 4 {
			cp := uint32(g.pick(0x300))
			if g.chance(0.2) {
				cp = uint32(g.pick(0x110000))
			}
			order.PutUint32(data[i:], cp)
		}
	default:
		g.r.Read(data)
		if dt.Kind == engine.Float && g.chance(0.3) {
			// Some NaNs with payloads, infinities and negative zeros.
			for i := 0; i+dt.Size <= len(data); i += dt.Size {
				if g.chance(0.3) {
					for j := 0; j < dt.Size; j++ {
						data[i+j] = 0xff
					}
				}
			}
		}
	}
	t, err := engine.FromBytes(dt, shape, data)
	if err != nil {
		panic(err)
	}
	return t
}

// intIn returns an integer around [lo, hi], sometimes far outside it.
func (g gen) intIn(lo, hi int64) int64 {
	switch {
	case g.chance(0.03):
		return []int64{math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, math.MaxInt32, math.MinInt32, 1 << 40}[g.pick(7)]
	case g.chance(0.1):
		return lo - 1 - int64(g.pick(5))
	case g.chance(0.1):
		return hi + 1 + int64(g.pick(5))
	}
	return lo + g.r.Int63n(hi-lo+1)
}

func (g gen) memory() *casefile.Case {
	switch g.pick(4) {
	case 0:
		return g.getitem()
	case 1:
		return g.stridedSlice()
	case 2:
		return g.slice()
	}
	return g.gatherND()
}

func (g gen) input() *engine.Tensor {
	if g.tfjs && g.chance(0.3) {
		return g.tensor(mustDType(tfjsDTypes[g.pick(len(tfjsDTypes))]), g.shape(4))
	}
	return g.tensor(mustDType(genDTypes[g.pick(len(genDTypes))]), g.shape(4))
}

func (g gen) getitem() *casefile.Case {
	x := g.input()
	n := g.pick(6)
	var items []string
	for i := 0; i < n; i++ {
		items = append(items, g.item(x))
	}
	var index string
	switch {
	case n == 0:
		index = "x[()]"
	case n == 1 && g.chance(0.3):
		index = "x[" + items[0] + ",]"
	case g.chance(0.2):
		index = "x[(" + strings.Join(items, ", ") + ")]"
		if strings.Contains(index, ":") {
			index = "x[" + strings.Join(items, ", ") + "]"
		}
	default:
		index = "x[" + strings.Join(items, ", ") + "]"
	}
	if g.chance(0.02) {
		index = []string{"x[", "x[1", "x(1)", "y.x[1]", "x[1][2]", "x[1:2:3:4]", " x[1]", "x[1] # c", "x[\n1]", "x[1_0]", "x[0x1]", "x[0o7]", "x[01]", "x[2**3]"}[g.pick(14)]
	}
	return casefile.New(map[string]any{"op": "getitem", "index": index}, map[string]*engine.Tensor{"x": x})
}

func (g gen) bound() string {
	switch {
	case g.chance(0.3):
		return ""
	case g.chance(0.05):
		return "None"
	case g.chance(0.03):
		return []string{"99999999999999999999", "-99999999999999999999", "True", "~2", "-(3)", "+1"}[g.pick(6)]
	}
	return fmt.Sprint(g.pick(13) - 6)
}

func (g gen) item(x *engine.Tensor) string {
	switch k := g.pick(20); {
	case k < 7:
		s := g.bound() + ":" + g.bound()
		if g.chance(0.5) {
			step := g.bound()
			if step == "0" && g.chance(0.7) {
				step = "1"
			}
			s += ":" + step
		}
		return s
	case k < 12:
		return fmt.Sprint(g.intIn(-4, 3))
	case k < 14:
		return []string{"None", "np.newaxis", "tf.newaxis", "numpy.newaxis"}[g.pick(4)]
	case k < 17:
		if g.chance(0.2) {
			return "Ellipsis"
		}
		return "..."
	case k < 18:
		return []string{"-1", "~0", "+2", "-(-1)", "not 0", "99999999999999999999"}[g.pick(6)]
	}
	return []string{"True", "[1]", "1.5", "'a'", "y", "(1, 2)", "-None", "np.foo", "1j", "{1}"}[g.pick(10)]
}

func (g gen) mask(n int) any {
	if g.chance(0.3) {
		list := make([]int64, n+g.pick(2))
		for i := range list {
			if g.chance(0.3) {
				list[i] = 1
			}
		}
		if g.chance(0.02) && len(list) > 0 {
			list[g.pick(len(list))] = 2
		}
		return list
	}
	if g.chance(0.5) {
		return 0
	}
	if g.chance(0.02) {
		return -1
	}
	return g.r.Int63n(int64(1) << uint(n+1))
}

func (g gen) stridedSlice() *casefile.Case {
	x := g.input()
	n := g.pick(6)
	if g.chance(0.02) {
		n = 31 + g.pick(3)
	}
	begin := make([]int64, n)
	end := make([]int64, n)
	strides := make([]int64, n)
	for i := 0; i < n; i++ {
		begin[i] = g.intIn(-5, 5)
		end[i] = g.intIn(-5, 5)
		strides[i] = g.intIn(-3, 3)
		if strides[i] == 0 && g.chance(0.8) {
			strides[i] = 1
		}
	}
	spec := map[string]any{"op": "strided_slice", "begin": begin, "end": end}
	if g.chance(0.8) {
		spec["strides"] = strides
	}
	if g.chance(0.03) && n > 0 {
		spec["end"] = end[1:]
	}
	for _, m := range []string{"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"} {
		if g.chance(0.6) {
			v := g.mask(n)
			if m == "ellipsis_mask" {
				if i, ok := v.(int64); ok && g.chance(0.8) && i != 0 {
					v = int64(1) << uint(g.pick(n+1))
				}
			}
			spec[m] = v
		}
	}
	return casefile.New(spec, map[string]*engine.Tensor{"x": x})
}

func (g gen) slice() *casefile.Case {
	x := g.input()
	rank := len(x.Shape)
	if g.chance(0.05) {
		rank += g.pick(3) - 1
		if rank < 0 {
			rank = 0
		}
	}
	begin := make([]int64, rank)
	size := make([]int64, rank)
	for i := 0; i < rank; i++ {
		d := int64(4)
		if i < len(x.Shape) {
			d = int64(x.Shape[i])
		}
		begin[i] = g.intIn(0, d)
		size[i] = g.intIn(-1, d)
		if g.chance(0.2) {
			size[i] = -1
		}
		if begin[i]+size[i] > d && g.chance(0.5) {
			size[i] = d - begin[i]
		}
	}
	return casefile.New(map[string]any{"op": "slice", "begin": begin, "size": size}, map[string]*engine.Tensor{"x": x})
}

func (g gen) gatherND() *casefile.Case {
	params := g.input()
	pr := len(params.Shape)
	b := 0
	if g.chance(0.4) && pr > 1 {
		b = 1 + g.pick(min(2, pr-1))
	}
	if g.chance(0.03) {
		b = []int{-1, 3, 5}[g.pick(3)]
	}
	var ishape []int
	for i := 0; i < b && i < pr; i++ {
		ishape = append(ishape, params.Shape[i])
	}
	if g.chance(0.03) && len(ishape) > 0 {
		ishape[0]++
	}
	for extra := g.pick(3); extra > 0; extra-- {
		ishape = append(ishape, g.pick(4))
	}
	maxDepth := pr - max(b, 0)
	k := g.pick(max(maxDepth, 0) + 1)
	if g.chance(0.05) {
		k = maxDepth + 1
	}
	ishape = append(ishape, max(k, 0))
	k = max(k, 1)
	if g.chance(0.03) {
		ishape = nil // scalar indices
	}
	idt := mustDType(genIndexDTypes[g.pick(len(genIndexDTypes))])
	if g.chance(0.03) {
		idt = mustDType([]string{"<f4", "|b1", "|S2"}[g.pick(3)])
	}
	indices := g.tensor(idt, ishape)
	if idt.IsInteger() && len(ishape) > 0 {
		// Mostly valid indices: component j indexes dim b+j.
		order := binary.ByteOrder(binary.LittleEndian)
		if idt.BigEndian {
			order = binary.BigEndian
		}
		n := engine.NumElements(ishape)
		for e := 0; e < n; e++ {
			j := e % k
			d := int64(1)
			if b+j < pr && b >= 0 {
				d = int64(params.Shape[b+j])
			}
			v := g.r.Int63n(max(d, 1))
			if g.chance(0.03) {
				v = []int64{-1, d, d + 1, -d, math.MaxInt64}[g.pick(5)]
			}
			buf := indices.Data[e*idt.Size : (e+1)*idt.Size]
			switch idt.Size {
			case 1:
				buf[0] = byte(v)
			case 2:
				order.PutUint16(buf, uint16(v))
			case 4:
				order.PutUint32(buf, uint32(v))
			case 8:
				if idt.Kind == engine.Uint && g.chance(0.01) {
					order.PutUint64(buf, math.MaxUint64)
				} else {
					order.PutUint64(buf, uint64(v))
				}
			}
		}
	}
	spec := map[string]any{"op": "gather_nd"}
	if b != 0 || g.chance(0.3) {
		spec["batch_dims"] = b
	}
	if g.chance(0.5) {
		spec["bad_indices"] = []string{"error", "zero"}[g.pick(2)]
	}
	return casefile.New(spec, map[string]*engine.Tensor{"params": params, "indices": indices})
}
