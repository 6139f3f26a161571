package oracle

import (
	"bytes"
	"io/fs"
	"os"
	"testing"

	"github.com/conformsuite/conform/internal/casefile"
)

// TestOpsJSON checks that ops.json, the op table the oracle programs read
// (embedded with them), is the one the op registry generates:
// `UPDATE=1 go test ./internal/oracle -run TestOpsJSON` rewrites it after an op
// changes.
func TestOpsJSON(t *testing.T) {
	want := casefile.OpsJSON()
	if os.Getenv("UPDATE") == "1" {
		if err := os.WriteFile("ops.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile("ops.json")
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := fs.ReadFile(Programs(), "ops.json")
	if err != nil {
		t.Fatalf("ops.json is not embedded with the oracle programs: %v", err)
	}
	if !bytes.Equal(got, want) || !bytes.Equal(embedded, want) {
		t.Errorf("internal/oracle/ops.json is not the registry's (UPDATE=1 go test ./internal/oracle -run TestOpsJSON rewrites it); want:\n%s", want)
	}
}
