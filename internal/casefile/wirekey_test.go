package casefile_test

import (
	"testing"

	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/expr"
)

// TestStructuredKey checks the structured key of subscripts, item by item.
func TestStructuredKey(t *testing.T) {
	tests := []struct {
		rule, index, want string // want "" for no structured key
	}{
		{"an integer is a JSON integer", "x[3]", `[3]`},
		{"a negative integer stays negative", "x[-2]", `[-2]`},
		{"an integer is exact over the whole int64 range", "x[-9223372036854775808, 9223372036854775807]", `[-9223372036854775808,9223372036854775807]`},
		{"an integer written in hex is its value", "x[0x10]", `[16]`},
		{"a slice has its three parts, null where omitted", "x[1:]", `[{"start":1,"stop":null,"step":null}]`},
		{"a part written None is null", "x[None:2:None]", `[{"start":null,"stop":2,"step":null}]`},
		{"all three parts", "x[5:-1:-2]", `[{"start":5,"stop":-1,"step":-2}]`},
		{"a slice start and stop beyond int64 clamp to its range", "x[99999999999999999999:-99999999999999999999]", `[{"start":9223372036854775807,"stop":-9223372036854775808,"step":null}]`},
		{"a step below -(2**63-1) clamps to -(2**63-1)", "x[::-99999999999999999999]", `[{"start":null,"stop":null,"step":-9223372036854775807}]`},
		{"a boolean slice part is its integer", "x[True:3]", `[{"start":1,"stop":3,"step":null}]`},
		{"the ellipsis is the string ...", "x[..., 0]", `["...",0]`},
		{"Ellipsis is the ellipsis", "x[Ellipsis]", `["..."]`},
		{"None is a new axis, null", "x[None]", `[null]`},
		{"np.newaxis is a new axis, null", "x[np.newaxis, 1]", `[null,1]`},
		{"True and False are JSON booleans", "x[True, False]", `[true,false]`},
		{"a name is the input of that name", "x[i, :, j]", `[{"name":"i"},{"start":null,"stop":null,"step":null},{"name":"j"}]`},
		{"an inline list of integers is an int64 array", "x[[0, 2]]", `[{"array":[0,2],"dtype":"int64"}]`},
		{"a nested list keeps its shape", "x[[[0], [1]]]", `[{"array":[[0],[1]],"dtype":"int64"}]`},
		{"a list of booleans is a bool array", "x[[True, False]]", `[{"array":[true,false],"dtype":"bool"}]`},
		{"booleans mixed with integers are 0 and 1", "x[[True, 2]]", `[{"array":[1,2],"dtype":"int64"}]`},
		{"an empty list is an empty int64 array", "x[[]]", `[{"array":[],"dtype":"int64"}]`},
		{"an empty nested list keeps its shape", "x[[[], []]]", `[{"array":[[],[]],"dtype":"int64"}]`},
		{"a tuple inside the subscript is an inline array", "x[(0, 1), 2]", `[{"array":[0,1],"dtype":"int64"},2]`},
		{"a list integer beyond int64 is the int64 of its bits", "x[[18446744073709551615]]", `[{"array":[-1],"dtype":"int64"}]`},
		{"an empty subscript is an empty key", "x[()]", `[]`},
		{"a float has no structured key", "x[1.5]", ""},
		{"a float slice bound has no structured key", "x[1.5:]", ""},
		{"an integer beyond int64 has no structured key", "x[99999999999999999999]", ""},
		{"two ellipses have no structured key", "x[..., ...]", ""},
		{"a ragged list has no structured key", "x[[0, [1]]]", ""},
	}
	for _, tt := range tests {
		items, err := expr.Parse(tt.index)
		if err != nil {
			t.Errorf("%s: %s does not parse: %v", tt.rule, tt.index, err)
			continue
		}
		got, ok := casefile.StructuredKey(items)
		if tt.want == "" {
			if ok {
				t.Errorf("%s: %s has the structured key %s, want none", tt.rule, tt.index, got)
			}
			continue
		}
		if !ok || string(got) != tt.want {
			t.Errorf("%s: %s -> %s (%v), want %s", tt.rule, tt.index, got, ok, tt.want)
		}
	}
}
