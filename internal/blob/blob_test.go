package blob_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/blob"
)

func TestCheckName(t *testing.T) {
	for _, name := range []string{"a", "tcgplayer/42", "bulk/12/dbs/cards.jsonl.gz", "snapshots/3.snap", "health/probe", "A_b-c.d", "a.", strings.Repeat("x", blob.MaxName)} {
		if err := blob.CheckName(name); err != nil {
			t.Errorf("CheckName(%q): %v", name, err)
		}
	}
	for _, name := range []string{"", "/", "/a", "a/", "a//b", ".", "..", "a/../b", ".tmp-1", "a/.x", "a b", "a%2f", "ü", strings.Repeat("x", blob.MaxName+1)} {
		if err := blob.CheckName(name); !errors.Is(err, blob.ErrInvalidName) {
			t.Errorf("CheckName(%q): %v, want ErrInvalidName", name, err)
		}
	}
}

func TestCheckPrefix(t *testing.T) {
	for _, p := range []string{"", "a", "bulk/", "bulk/1", "snapshots/", "a.b/c-"} {
		if err := blob.CheckPrefix(p); err != nil {
			t.Errorf("CheckPrefix(%q): %v", p, err)
		}
	}
	for _, p := range []string{"/", "a//", ".", "a/.", "../", "a b"} {
		if err := blob.CheckPrefix(p); !errors.Is(err, blob.ErrInvalidName) {
			t.Errorf("CheckPrefix(%q): %v, want ErrInvalidName", p, err)
		}
	}
}
