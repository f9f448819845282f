package config

import (
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite docs/operations.md's configuration reference from the table")

const operations = "../../docs/operations.md"

// TestReference: docs/operations.md's configuration reference is the
// table's (Reference); -update writes it.
func TestReference(t *testing.T) {
	b, err := os.ReadFile(operations)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	before, rest, ok1 := strings.Cut(doc, ReferenceBegin+"\n")
	_, after, ok2 := strings.Cut(rest, ReferenceEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no generated configuration reference (the lines %q and %q)", operations, ReferenceBegin, ReferenceEnd)
	}
	want := before + ReferenceBegin + "\n\n" + Reference() + "\n" + ReferenceEnd + after
	if want == doc {
		return
	}
	if *update {
		if err := os.WriteFile(operations, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's configuration reference is not the table's: run go test ./internal/config -update (-doc +table):\n%s",
		operations, cmp.Diff(doc, want))
}

// TestSecretsSection: the Secrets section of docs/operations.md names every
// secret, and its file variable.
func TestSecretsSection(t *testing.T) {
	b, err := os.ReadFile(operations)
	if err != nil {
		t.Fatal(err)
	}
	_, sec, _ := strings.Cut(string(b), "\n## Secrets\n")
	sec, _, _ = strings.Cut(sec, "\n## ")
	var named []string
	for _, m := range regexp.MustCompile("`(CARDCAT_[A-Z0-9_]+)`").FindAllStringSubmatch(sec, -1) {
		named = append(named, m[1])
	}
	var want []string
	for _, s := range table {
		if s.Secret {
			want = append(want, s.Var, s.Var+"_FILE")
		}
	}
	slices.Sort(named)
	slices.Sort(want)
	if diff := cmp.Diff(want, slices.Compact(named)); diff != "" {
		t.Errorf("the variables of docs/operations.md's Secrets section are not the table's secrets (-table +doc):\n%s", diff)
	}
}
