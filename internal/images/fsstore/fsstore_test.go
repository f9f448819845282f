package fsstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/images"
	"github.com/cardcat/cardcat/internal/images/fsstore"
	"github.com/cardcat/cardcat/internal/images/storetest"
)

func open(t *testing.T) *fsstore.Store {
	t.Helper()
	st, err := fsstore.New(filepath.Join(t.TempDir(), "images"))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestStorage(t *testing.T) {
	storetest.Run(t, func(t *testing.T) images.Storage { return open(t) })
}

func TestLayoutAndNoLeftovers(t *testing.T) {
	st := open(t)
	body := []byte("\xff\xd8\xff jpeg")
	img := &images.Image{Body: body, ContentType: "image/jpeg", ETag: images.ETagOf(body), FetchedAt: time.Unix(1700000000, 0)}
	for range 3 {
		if err := st.Put(context.Background(), storetest.MustKey(t, 42), img); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(st.Dir(), "tcgplayer"))
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
	data, err := os.ReadFile(filepath.Join(st.Dir(), "tcgplayer", "42"))
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(string(data), "\n")
	if !strings.Contains(head, `"content_type":"image/jpeg"`) || rest != string(body) {
		t.Fatalf("file = %q, want a JSON header line then the body", data)
	}
}

// A torn or foreign file reads as an error (the service then fetches again and
// replaces it), never as an image.
func TestCorruptFile(t *testing.T) {
	st := open(t)
	key := storetest.MustKey(t, 9)
	body := []byte("0123456789")
	img := &images.Image{Body: body, ContentType: "image/png", ETag: images.ETagOf(body), FetchedAt: time.Unix(1700000000, 0)}
	if err := st.Put(context.Background(), key, img); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(st.Dir(), "tcgplayer", "9")
	data, _ := os.ReadFile(path)
	for name, content := range map[string][]byte{
		"truncated":  data[:len(data)-3],
		"no header":  []byte("just bytes"),
		"bad header": []byte("{not json}\nbody"),
		"empty":      nil,
	} {
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := st.Get(context.Background(), key); err == nil || errors.Is(err, images.ErrNotStored) {
			t.Errorf("%s: Get = %v, %v; want a decoding error", name, got, err)
		}
	}
}

func TestNewNeedsDir(t *testing.T) {
	if _, err := fsstore.New(""); err == nil {
		t.Fatal("New(\"\") succeeded")
	}
}
