package conformtest_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/internal/casefile"
)

// interfaceName is the name of the interface of an op whose method is
// called method: GetItem gives GetItemer, Slice gives Slicer.
func interfaceName(method string) string {
	if strings.HasSuffix(method, "e") {
		return method + "r"
	}
	return method + "er"
}

// TestOpInterfaces checks that ops.go declares the interface of every op,
// in the order of the registry, each an alias of casefile's interface of
// the same name, and that the package doc lists them in that order.
func TestOpInterfaces(t *testing.T) {
	var want []string
	for _, d := range casefile.Defs() {
		method, _, _ := strings.Cut(d.Method, "(")
		want = append(want, interfaceName(method))
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "ops.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			sel, ok := ts.Type.(*ast.SelectorExpr)
			if !ts.Assign.IsValid() || !ok || sel.Sel.Name != ts.Name.Name {
				t.Errorf("ops.go: %s is not an alias of casefile.%s", ts.Name.Name, ts.Name.Name)
			}
			got = append(got, ts.Name.Name)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ops.go declares the op interfaces (-registry order +ops.go):\n%s", diff)
	}

	pkg, err := parser.ParseFile(fset, "conformtest.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(pkg.Doc.Text()), " ")
	m := regexp.MustCompile(`\(casefile\.OpNames\): ([^(]*) \(each`).FindStringSubmatch(doc)
	if m == nil {
		t.Fatal("the package doc does not list the op interfaces after \"(casefile.OpNames):\"")
	}
	listed := regexp.MustCompile(`, | and `).Split(m[1], -1)
	if diff := cmp.Diff(want, listed); diff != "" {
		t.Errorf("the package doc lists the op interfaces (-registry order +doc):\n%s", diff)
	}
}
