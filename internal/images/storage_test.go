package images_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/blob"
	"github.com/cardcat/cardcat/internal/blob/blobtest"
	"github.com/cardcat/cardcat/internal/blob/fileblob"
	"github.com/cardcat/cardcat/internal/images"
)

// eachBucket runs test on a bucket of each driver: disk, and the real S3
// server of .ci/s3-server when one is named (blobtest.Drivers).
func eachBucket(t *testing.T, test func(t *testing.T, b blob.Bucket)) {
	t.Parallel()
	for _, d := range blobtest.Drivers() {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			test(t, d.Open(t))
		})
	}
}

func mustKey(t *testing.T, productID int) images.Key {
	t.Helper()
	k, err := images.ProductKey(productID)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// fetchedAt has nanoseconds and a zone other than UTC: it must read back Equal.
var fetchedAt = time.Date(2025, 6, 7, 8, 9, 10, 123456789, time.FixedZone("CEST", 2*3600))

// sample is an image whose body holds every byte value.
func sample(n int) *images.Image {
	body := make([]byte, 1000+n)
	for i := range body {
		body[i] = byte(i * (n + 7))
	}
	return &images.Image{Body: body, ContentType: "image/jpeg", ETag: images.ETagOf(body), FetchedAt: fetchedAt.Add(time.Duration(n) * time.Second)}
}

func checkSame(t *testing.T, got, want *images.Image) {
	t.Helper()
	if !bytes.Equal(got.Body, want.Body) {
		t.Errorf("body: got %d bytes, want the %d bytes put", len(got.Body), len(want.Body))
	}
	if got.ContentType != want.ContentType || got.ETag != want.ETag || !got.FetchedAt.Equal(want.FetchedAt) {
		t.Errorf("got %q %s %v, want %q %s %v", got.ContentType, got.ETag, got.FetchedAt, want.ContentType, want.ETag, want.FetchedAt)
	}
}

// TestStorage: an image reads back with its content type, ETag and fetch
// time, under every kind of key, on every driver.
func TestStorage(t *testing.T) {
	eachBucket(t, func(t *testing.T, b blob.Bucket) {
		ctx := context.Background()
		if _, err := images.GetStored(ctx, b, mustKey(t, 404)); !errors.Is(err, images.ErrNotStored) {
			t.Errorf("GetStored of a key never put: %v, want ErrNotStored", err)
		}
		logo, err := images.SetLogoKey("ja", "ADV", "ADV1")
		if err != nil {
			t.Fatal(err)
		}
		keys := []images.Key{mustKey(t, 1), mustKey(t, 10), mustKey(t, 1<<31-1), logo}
		for i, k := range keys {
			if err := images.PutStored(ctx, b, k, sample(i)); err != nil {
				t.Fatalf("PutStored(%s): %v", k, err)
			}
		}
		big := sample(5 << 20) // the service's 5 MiB limit
		big.ContentType = "image/png"
		if err := images.PutStored(ctx, b, mustKey(t, 2), big); err != nil {
			t.Fatal(err)
		}
		for i, k := range append(keys, mustKey(t, 2)) {
			want := big
			if i < len(keys) {
				want = sample(i)
			}
			got, err := images.GetStored(ctx, b, k)
			if err != nil {
				t.Fatalf("GetStored(%s): %v", k, err)
			}
			checkSame(t, got, want)
		}

		var zero images.Key
		if _, err := images.GetStored(ctx, b, zero); !errors.Is(err, images.ErrInvalidKey) {
			t.Errorf("GetStored(zero Key): %v, want ErrInvalidKey", err)
		}
		if err := images.PutStored(ctx, b, zero, sample(1)); !errors.Is(err, images.ErrInvalidKey) {
			t.Errorf("PutStored(zero Key): %v, want ErrInvalidKey", err)
		}
		for range 2 {
			if d, err := images.ProbeStorage(ctx, b); err != nil || d <= 0 {
				t.Errorf("ProbeStorage = %v, %v; want a positive response time", d, err)
			}
		}
	})
}

// TestStoredObject: an image is one object, its key's, with the content
// type and the metadata names that images/s3store gave S3 objects, so a
// bucket's images are read as they were.
func TestStoredObject(t *testing.T) {
	eachBucket(t, func(t *testing.T, b blob.Bucket) {
		img := &images.Image{Body: []byte("picture"), ContentType: "image/webp", ETag: `"e1"`, FetchedAt: fetchedAt}
		if err := images.PutStored(context.Background(), b, mustKey(t, 42), img); err != nil {
			t.Fatal(err)
		}
		body, attrs := blobtest.MustGet(t, b, "tcgplayer/42")
		want := blob.Attrs{ContentType: "image/webp", Metadata: map[string]string{"etag": `"e1"`, "fetched-at": "2025-06-07T06:09:10.123456789Z"}}
		if string(body) != "picture" {
			t.Errorf("object bytes %q", body)
		}
		if diff := cmp.Diff(want, attrs); diff != "" {
			t.Errorf("object attributes (-want +got):\n%s", diff)
		}
	})
}

// Two services (two replicas) on one bucket share the cache: the second one
// serves what the first fetched without asking the source.
func TestReplicasShareImages(t *testing.T) {
	eachBucket(t, func(t *testing.T, b blob.Bucket) {
		var fetches atomic.Int64
		cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fetches.Add(1)
			w.Header().Set("Content-Type", "image/jpeg")
			w.Write([]byte("\xff\xd8\xff shared picture"))
		}))
		defer cdn.Close()
		cfg := images.Config{SourceURL: cdn.URL + "/{productId}.jpg", FetchTimeout: 2 * time.Second}
		var served []*images.Image
		for range 2 {
			svc, err := images.New(cfg, b)
			if err != nil {
				t.Fatal(err)
			}
			img, err := svc.Get(context.Background(), 31337)
			if err != nil {
				t.Fatal(err)
			}
			served = append(served, img)
		}
		if n := fetches.Load(); n != 1 {
			t.Errorf("source fetches = %d, want 1", n)
		}
		if served[0].ETag != served[1].ETag || string(served[1].Body) != "\xff\xd8\xff shared picture" || served[1].ContentType != "image/jpeg" {
			t.Errorf("second replica served %+v, want the first one's image", served[1])
		}
	})
}

// A file of the disk cache's earlier store (images/fsstore) is a stale
// copy: served while the source fails, fetched again when it answers.
func TestEarlierDiskFile(t *testing.T) {
	e := newEnv(t, nil)
	dir := e.store.Bucket.(*fileblob.Bucket).Dir()
	old := `{"v":1,"content_type":"image/png","etag":"\"abc\"","fetched_at":"2025-03-01T11:00:00Z","size":9}` + "\nold image"
	if err := os.MkdirAll(filepath.Join(dir, "tcgplayer"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tcgplayer", "7"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	e.cdn.set(serveStatus(http.StatusBadGateway))
	img := e.mustGet(t, 7)
	if string(img.Body) != "old image" || img.ContentType != "image/png" || img.ETag != images.ETagOf(img.Body) {
		t.Errorf("Get with the source failing = %q %s %s, want the earlier file's image", img.Body, img.ContentType, img.ETag)
	}
	e.checkFetches(t, 1)

	e.cdn.set(serveJPEG)
	e.clock.Add(time.Minute) // past the failure's retry interval
	if img := e.mustGet(t, 7); !bytes.Equal(img.Body, jpegOf(7)) {
		t.Errorf("Get with the source back = %q, want the source's image", img.Body)
	}
	e.checkFetches(t, 2)
}
