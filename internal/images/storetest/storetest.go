// Package storetest is the test suite every images.Storage passes: the disk
// backend (images/fsstore) and the S3 backend (images/s3store, against a
// real S3-compatible server) run the same tests.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/images"
)

// Run runs the suite. open returns a new, empty storage for each subtest;
// subtests run in parallel.
func Run(t *testing.T, open func(t *testing.T) images.Storage) {
	tests := []struct {
		name string
		test func(t *testing.T, st images.Storage)
	}{
		{"GetMissing", testGetMissing},
		{"RoundTrip", testRoundTrip},
		{"Overwrite", testOverwrite},
		{"KeysAreIndependent", testKeysAreIndependent},
		{"InvalidKey", testInvalidKey},
		{"CanceledContext", testCanceledContext},
		{"ConcurrentPutGet", testConcurrentPutGet},
		{"Probe", testProbe},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.test(t, open(t))
		})
	}
}

// MustKey returns the key of a product.
func MustKey(tb testing.TB, productID int) images.Key {
	tb.Helper()
	k, err := images.ProductKey(productID)
	if err != nil {
		tb.Fatal(err)
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

func mustPut(t *testing.T, st images.Storage, key images.Key, img *images.Image) {
	t.Helper()
	if err := st.Put(context.Background(), key, img); err != nil {
		t.Fatalf("Put(%s): %v", key, err)
	}
}

func mustGet(t *testing.T, st images.Storage, key images.Key) *images.Image {
	t.Helper()
	img, err := st.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("Get(%s): %v", key, err)
	}
	return img
}

func checkSame(t *testing.T, got, want *images.Image) {
	t.Helper()
	if !bytes.Equal(got.Body, want.Body) {
		t.Errorf("body: got %d bytes, want the %d bytes put", len(got.Body), len(want.Body))
	}
	if got.ContentType != want.ContentType {
		t.Errorf("content type: got %q, want %q", got.ContentType, want.ContentType)
	}
	if got.ETag != want.ETag {
		t.Errorf("ETag: got %q, want %q", got.ETag, want.ETag)
	}
	if !got.FetchedAt.Equal(want.FetchedAt) {
		t.Errorf("fetched at: got %v, want %v", got.FetchedAt, want.FetchedAt)
	}
}

func testGetMissing(t *testing.T, st images.Storage) {
	_, err := st.Get(context.Background(), MustKey(t, 404))
	if !errors.Is(err, images.ErrNotStored) {
		t.Fatalf("Get of a key never put: got %v, want ErrNotStored", err)
	}
}

func testRoundTrip(t *testing.T, st images.Storage) {
	key := MustKey(t, 1)
	want := sample(1)
	mustPut(t, st, key, want)
	checkSame(t, mustGet(t, st, key), want)

	big := sample(2)
	big.Body = bytes.Repeat(big.Body, 5<<20/len(big.Body)) // about the service's 5 MiB limit
	big.ETag = images.ETagOf(big.Body)
	big.ContentType = "image/png"
	mustPut(t, st, MustKey(t, 2), big)
	checkSame(t, mustGet(t, st, MustKey(t, 2)), big)
}

func testOverwrite(t *testing.T, st images.Storage) {
	key := MustKey(t, 7)
	mustPut(t, st, key, sample(1))
	second := sample(2)
	second.ContentType = "image/webp"
	mustPut(t, st, key, second)
	checkSame(t, mustGet(t, st, key), second)
}

func testKeysAreIndependent(t *testing.T, st images.Storage) {
	ids := []int{1, 10, 100, 1<<31 - 1}
	for i, id := range ids {
		mustPut(t, st, MustKey(t, id), sample(i))
	}
	for i, id := range ids {
		checkSame(t, mustGet(t, st, MustKey(t, id)), sample(i))
	}
	if _, err := st.Get(context.Background(), MustKey(t, 11)); !errors.Is(err, images.ErrNotStored) {
		t.Fatalf("Get of a key never put: got %v, want ErrNotStored", err)
	}
}

func testInvalidKey(t *testing.T, st images.Storage) {
	var zero images.Key
	if _, err := st.Get(context.Background(), zero); !errors.Is(err, images.ErrInvalidKey) {
		t.Errorf("Get(zero Key): got %v, want ErrInvalidKey", err)
	}
	if err := st.Put(context.Background(), zero, sample(1)); !errors.Is(err, images.ErrInvalidKey) {
		t.Errorf("Put(zero Key): got %v, want ErrInvalidKey", err)
	}
}

func testCanceledContext(t *testing.T, st images.Storage) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	key := MustKey(t, 3)
	if err := st.Put(ctx, key, sample(1)); err == nil {
		t.Error("Put with a canceled context succeeded")
	}
	if _, err := st.Get(ctx, key); err == nil || errors.Is(err, images.ErrNotStored) {
		t.Errorf("Get with a canceled context: got %v, want the context's error", err)
	}
	if _, err := st.Get(context.Background(), key); !errors.Is(err, images.ErrNotStored) {
		t.Errorf("Get after a canceled Put: got %v, want ErrNotStored", err)
	}
}

// testConcurrentPutGet checks that a reader sees one whole object or the
// other while writers replace it, never a mix of bodies and metadata.
func testConcurrentPutGet(t *testing.T, st images.Storage) {
	key := MustKey(t, 5)
	versions := []*images.Image{sample(1), sample(2)}
	versions[1].Body = bytes.Repeat(versions[1].Body, 50)
	versions[1].ETag = images.ETagOf(versions[1].Body)
	versions[1].ContentType = "image/png"
	mustPut(t, st, key, versions[0])

	const writes, readers = 20, 4
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, writes+readers*writes)
	wg.Go(func() {
		for i := range writes {
			if err := st.Put(ctx, key, versions[i%2]); err != nil {
				errs <- err
			}
		}
	})
	for range readers {
		wg.Go(func() {
			for range writes {
				img, err := st.Get(ctx, key)
				if err != nil {
					errs <- err
					continue
				}
				if err := oneOf(img, versions); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func oneOf(img *images.Image, versions []*images.Image) error {
	for _, v := range versions {
		if bytes.Equal(img.Body, v.Body) {
			if img.ETag != v.ETag || img.ContentType != v.ContentType || !img.FetchedAt.Equal(v.FetchedAt) {
				return fmt.Errorf("read the body of one version with the metadata of another: %q %q %v", img.ETag, img.ContentType, img.FetchedAt)
			}
			return nil
		}
	}
	return fmt.Errorf("read a body of %d bytes that was never put", len(img.Body))
}

func testProbe(t *testing.T, st images.Storage) {
	for range 2 {
		d, err := images.ProbeStorage(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		if d <= 0 {
			t.Errorf("probe response time %v, want > 0", d)
		}
	}
}
