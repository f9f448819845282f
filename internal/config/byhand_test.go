package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestNoVariableReadByHand: no Go source of cardcat (cmd, internal) names
// a CARDCAT_* variable in a string but this package's table (tests, and the
// CARDCAT_TEST_* and CARDCAT_BENCH_* switches of test helpers, aside): a
// new setting is a row of the table, so that it is documented and printed.
// (The load harness and the clients' tests set variables for the cardcat
// they start; they read none.)
func TestNoVariableReadByHand(t *testing.T) {
	literal := regexp.MustCompile(`^CARDCAT_[A-Z0-9_]*$`)
	fset := token.NewFileSet()
	var found int
	walk := func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || path == filepath.Join("..", "config")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		found++
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !literal.MatchString(s) || strings.HasPrefix(s, "CARDCAT_TEST_") || strings.HasPrefix(s, "CARDCAT_BENCH_") {
				return true
			}
			t.Errorf("%s: %q: a variable named outside internal/config's table", fset.Position(lit.Pos()), s)
			return true
		})
		return nil
	}
	for _, root := range []string{filepath.Join("..", "..", "cmd"), ".."} {
		if err := filepath.WalkDir(root, walk); err != nil {
			t.Fatal(err)
		}
	}
	if found < 100 {
		t.Fatalf("read %d Go files: the walk is broken", found)
	}
}
