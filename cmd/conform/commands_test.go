package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// packageDoc is doc.go, the package documentation, built from the table
// of commands.
func packageDoc() string {
	var b strings.Builder
	b.WriteString("// Code generated from the table of commands by TestPackageDoc; DO NOT EDIT.\n")
	b.WriteString("// UPDATE_DOC_TABLES=1 go test ./cmd/conform -run TestPackageDoc rewrites it.\n\n")
	for _, line := range strings.Split(wrap("Command "+intro, 72), "\n") {
		if line != "" {
			b.WriteString("// " + line + "\n")
		}
	}
	b.WriteString("//\n// Usage:\n//\n")
	for _, line := range strings.Split(strings.TrimSuffix(synopsis(), "\n"), "\n") {
		b.WriteString("//\t" + line + "\n")
	}
	b.WriteString("//\n")
	for _, line := range strings.Split(wrap(`Run "conform help COMMAND" or "conform COMMAND -h" for the options and details of a command; docs/commands.md has more. `+exitStatuses, 72), "\n") {
		if line != "" {
			b.WriteString("// " + line + "\n")
		}
	}
	b.WriteString("package main\n")
	return b.String()
}

// TestPackageDoc checks that the package documentation (doc.go) is the
// one the table of commands gives. UPDATE_DOC_TABLES=1 rewrites it.
func TestPackageDoc(t *testing.T) {
	want := packageDoc()
	data, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(data) == want {
		return
	}
	if os.Getenv("UPDATE_DOC_TABLES") == "1" {
		if err := os.WriteFile("doc.go", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("doc.go is not the one the table of commands gives (UPDATE_DOC_TABLES=1 go test ./cmd/conform -run %s rewrites it); want:\n%s", t.Name(), want)
}

// TestCommandsSynopsis checks that docs/commands.md's synopsis is the one
// the table of commands gives. UPDATE_DOC_TABLES=1 rewrites it.
func TestCommandsSynopsis(t *testing.T) {
	checkDocTable(t, "../../docs/commands.md", "synopsis", "```\n"+synopsis()+"```\n")
}

// TestCommandTable checks the rules every row of the table of commands
// follows, and that help and -h are rendered from it.
func TestCommandTable(t *testing.T) {
	seen := map[string]bool{}
	for _, cmd := range commands {
		switch {
		case seen[cmd.name]:
			t.Errorf("%s: two commands of one name", cmd.name)
		case len(cmd.usage) == 0:
			t.Errorf("%s: no usage line", cmd.name)
		case cmd.short == "" || strings.Contains(cmd.short, "\n"):
			t.Errorf("%s: the summary is not one line: %q", cmd.name, cmd.short)
		case !strings.HasSuffix(cmd.long, "\n") || strings.HasSuffix(cmd.long, "\n\n"):
			t.Errorf("%s: the long text does not end in exactly one newline", cmd.name)
		case cmd.define == nil:
			t.Errorf("%s: no define function", cmd.name)
		}
		seen[cmd.name] = true
		for _, u := range cmd.usage {
			if !strings.HasPrefix(u, cmd.name) {
				t.Errorf("%s: usage line %q does not start with the command's name", cmd.name, u)
			}
		}
		// "conform help NAME" prints to stdout what "conform NAME -h"
		// prints to stderr, both exit 0.
		code, helpOut, _ := runCLI("help", cmd.name)
		if code != exitOK || !strings.HasPrefix(helpOut, cmd.help()) {
			t.Errorf("conform help %s: exit %d, output not the command's usage:\n%s", cmd.name, code, helpOut)
		}
		code, _, hOut := runCLI(cmd.name, "-h")
		if code != exitOK || hOut != helpOut {
			t.Errorf("conform %s -h: exit %d, output differs from conform help %s:\n%s", cmd.name, code, cmd.name, hOut)
		}
		// The list of commands names each command with its summary.
		_, list, _ := runCLI("help")
		if !strings.Contains(list, fmt.Sprintf("conform %s\n      %s\n", cmd.usage[len(cmd.usage)-1], cmd.short)) {
			t.Errorf("conform help does not list %s with its summary", cmd.name)
		}
	}
	if code, _, _ := runCLI("help", "frobnicate"); code != exitUsage {
		t.Errorf("conform help of an unknown command: exit %d, want %d", code, exitUsage)
	}
}
