package fileblob_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/blob"
	"github.com/cardcat/cardcat/internal/blob/blobtest"
	"github.com/cardcat/cardcat/internal/blob/fileblob"
)

func TestBucket(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blob.Bucket { return blobtest.Disk(t) })
}

// An object is one file at its name, a header line then the bytes; no
// temporary file is left, and List does not show one a killed writer left.
func TestLayoutAndNoLeftovers(t *testing.T) {
	b := blobtest.Disk(t)
	body := []byte("\xff\xd8\xff jpeg")
	for range 3 {
		blobtest.MustPut(t, b, "tcgplayer/42", body, blob.Attrs{ContentType: "image/jpeg", Metadata: map[string]string{"etag": `"x"`}})
	}
	entries, err := os.ReadDir(filepath.Join(b.Dir(), "tcgplayer"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "42" {
		t.Fatalf("files under tcgplayer/: %v, want just 42 (no temporary files left)", names)
	}
	data, err := os.ReadFile(filepath.Join(b.Dir(), "tcgplayer", "42"))
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(string(data), "\n")
	if head != `{"v":1,"content_type":"image/jpeg","metadata":{"etag":"\"x\""},"size":8}` || rest != string(body) {
		t.Fatalf("file = %q, want a JSON header line then the bytes", data)
	}

	if err := os.WriteFile(filepath.Join(b.Dir(), "tcgplayer", ".42.tmp-123"), []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := blobtest.MustList(t, b, ""); strings.Join(got, ",") != "tcgplayer/42" {
		t.Errorf("List = %q, want the one object", got)
	}
}

// A file of the image cache's earlier store (images/fsstore) reads as its
// bytes and content type; its own fields are no metadata.
func TestEarlierImageFile(t *testing.T) {
	b := blobtest.Disk(t)
	path := filepath.Join(b.Dir(), "tcgplayer", "7")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	old := `{"v":1,"content_type":"image/png","etag":"\"abc\"","fetched_at":"2025-06-07T08:09:10Z","size":5}` + "\nhello"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	body, attrs := blobtest.MustGet(t, b, "tcgplayer/7")
	if string(body) != "hello" || attrs.ContentType != "image/png" || len(attrs.Metadata) != 0 {
		t.Errorf("Get = %q, %+v; want the bytes and content type only", body, attrs)
	}
}

// A torn or foreign file reads as an error, never as an object nor as
// missing.
func TestCorruptFile(t *testing.T) {
	b := blobtest.Disk(t)
	blobtest.MustPut(t, b, "o", []byte("0123456789"), blob.Attrs{ContentType: "image/png"})
	path := filepath.Join(b.Dir(), "o")
	data, _ := os.ReadFile(path)
	for name, content := range map[string][]byte{
		"truncated":   data[:len(data)-3],
		"longer":      append(bytes.Clone(data), "more"...),
		"no header":   []byte("just bytes"),
		"bad header":  []byte("{not json}\nbody"),
		"new version": []byte(`{"v":2,"size":0}` + "\n"),
		"empty":       nil,
	} {
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Get(context.Background(), "o", io.Discard); err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: Get = %v; want a decoding error", name, err)
		}
	}
}

func TestNewNeedsDir(t *testing.T) {
	if _, err := fileblob.New(""); err == nil {
		t.Fatal(`New("") succeeded`)
	}
}
