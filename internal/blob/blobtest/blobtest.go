// Package blobtest is the test suite every blob.Bucket passes (Run), and
// the buckets that the tests of the packages storing objects run on
// (Drivers): the disk driver always, the S3 driver against a real
// S3-compatible server, the one .ci/s3-server starts, when
// CARDCAT_TEST_S3_ENDPOINT names it.
package blobtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cardcat/cardcat/internal/blob"
	"github.com/cardcat/cardcat/internal/blob/fileblob"
	"github.com/cardcat/cardcat/internal/blob/s3blob"
)

// The test S3 server: CARDCAT_TEST_S3_ENDPOINT (host:port or URL) names it;
// the other variables default to what .ci/s3-server sets up.
const (
	envEndpoint  = "CARDCAT_TEST_S3_ENDPOINT"
	envBucket    = "CARDCAT_TEST_S3_BUCKET"     // default cardcat-test
	envAccessKey = "CARDCAT_TEST_S3_ACCESS_KEY" // default cardcat-test
	envSecretKey = "CARDCAT_TEST_S3_SECRET_KEY" // default cardcat-test-secret
	envRegion    = "CARDCAT_TEST_S3_REGION"     // default us-east-1
)

// S3Config is the test S3 server's config under a prefix of its own (apart
// from every other test's and every earlier run's objects), or a skip when
// no server is named.
func S3Config(tb testing.TB) s3blob.Config {
	tb.Helper()
	endpoint := os.Getenv(envEndpoint)
	if endpoint == "" {
		tb.Skipf("%s is not set: start a real S3 server with .ci/s3-server and export its endpoint as %s", envEndpoint, envEndpoint)
	}
	cfg, err := s3blob.Config{
		Endpoint:  endpoint,
		Bucket:    envOr(envBucket, "cardcat-test"),
		AccessKey: envOr(envAccessKey, "cardcat-test"),
		SecretKey: envOr(envSecretKey, "cardcat-test-secret"),
		Region:    envOr(envRegion, "us-east-1"),
		Prefix:    "run-" + strings.ToLower(rand.Text()[:12]) + "/" + tb.Name(),
	}.Normalized()
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

// S3Enabled reports whether a test S3 server is named.
func S3Enabled() bool { return os.Getenv(envEndpoint) != "" }

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Driver is a driver to test on.
type Driver struct {
	Name string
	// Open returns a new, empty bucket: one test's own.
	Open func(tb testing.TB) blob.Bucket
}

// Disk is a bucket in a temporary directory.
func Disk(tb testing.TB) *fileblob.Bucket {
	tb.Helper()
	b, err := fileblob.New(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// S3 is a bucket of the test S3 server under a prefix of its own, or a
// skip.
func S3(tb testing.TB) *s3blob.Bucket {
	tb.Helper()
	b, err := s3blob.New(S3Config(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Drivers returns the disk driver, and the S3 driver when a test server is
// named (S3Enabled).
func Drivers() []Driver {
	d := []Driver{{"disk", func(tb testing.TB) blob.Bucket { return Disk(tb) }}}
	if S3Enabled() {
		d = append(d, Driver{"s3", func(tb testing.TB) blob.Bucket { return S3(tb) }})
	}
	return d
}

// Run runs the suite. open returns a new, empty bucket for each subtest;
// subtests run in parallel.
func Run(t *testing.T, open func(t *testing.T) blob.Bucket) {
	tests := []struct {
		name string
		test func(t *testing.T, b blob.Bucket)
	}{
		{"GetMissing", testGetMissing},
		{"RoundTrip", testRoundTrip},
		{"Empty", testEmpty},
		{"Large", testLarge},
		{"Overwrite", testOverwrite},
		{"ShortReader", testShortReader},
		{"List", testList},
		{"Delete", testDelete},
		{"InvalidNames", testInvalidNames},
		{"InvalidAttrs", testInvalidAttrs},
		{"CanceledContext", testCanceledContext},
		{"FailingWriter", testFailingWriter},
		{"ConcurrentPutGet", testConcurrentPutGet},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.test(t, open(t))
		})
	}
}

// object is what a test puts and expects back.
type object struct {
	body  []byte
	attrs blob.Attrs
}

// sample is an object of n+1000 bytes holding every byte value.
func sample(n int) object {
	body := make([]byte, 1000+n)
	for i := range body {
		body[i] = byte(i * (n + 7))
	}
	return object{body, blob.Attrs{ContentType: "image/jpeg", Metadata: map[string]string{
		"etag": fmt.Sprintf(`"%d"`, n), "fetched-at": "2025-06-07T08:09:10.123456789+02:00",
	}}}
}

// MustPut puts body with attrs under name.
func MustPut(tb testing.TB, b blob.Bucket, name string, body []byte, attrs blob.Attrs) {
	tb.Helper()
	if err := b.Put(context.Background(), name, bytes.NewReader(body), int64(len(body)), attrs); err != nil {
		tb.Fatalf("Put(%s): %v", name, err)
	}
}

// MustGet returns the bytes and attributes of name.
func MustGet(tb testing.TB, b blob.Bucket, name string) ([]byte, blob.Attrs) {
	tb.Helper()
	var buf bytes.Buffer
	attrs, err := b.Get(context.Background(), name, &buf)
	if err != nil {
		tb.Fatalf("Get(%s): %v", name, err)
	}
	return buf.Bytes(), attrs
}

// MustList returns the names under prefix.
func MustList(tb testing.TB, b blob.Bucket, prefix string) []string {
	tb.Helper()
	names, err := b.List(context.Background(), prefix)
	if err != nil {
		tb.Fatalf("List(%q): %v", prefix, err)
	}
	return names
}

func put(t *testing.T, b blob.Bucket, name string, o object) {
	t.Helper()
	MustPut(t, b, name, o.body, o.attrs)
}

func checkObject(t *testing.T, b blob.Bucket, name string, want object) {
	t.Helper()
	body, attrs := MustGet(t, b, name)
	if !bytes.Equal(body, want.body) {
		t.Errorf("Get(%s): %d bytes, want the %d bytes put", name, len(body), len(want.body))
	}
	if want.attrs.ContentType == "" {
		want.attrs.ContentType = blob.DefaultContentType
	}
	if diff := cmp.Diff(want.attrs, attrs, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Get(%s) attributes (-put +got):\n%s", name, diff)
	}
}

func checkMissing(t *testing.T, b blob.Bucket, name string) {
	t.Helper()
	var buf bytes.Buffer
	if _, err := b.Get(context.Background(), name, &buf); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Get(%s) of no object: %v, want fs.ErrNotExist", name, err)
	}
	if buf.Len() != 0 {
		t.Errorf("Get(%s) of no object wrote %d bytes", name, buf.Len())
	}
}

func testGetMissing(t *testing.T, b blob.Bucket) {
	checkMissing(t, b, "nothing")
	checkMissing(t, b, "no/such/object.json")
	put(t, b, "dir/object", sample(1))
	checkMissing(t, b, "dir") // a prefix, not an object
	checkMissing(t, b, "dir/object/below")
}

func testRoundTrip(t *testing.T, b blob.Bucket) {
	o := sample(1)
	put(t, b, "tcgplayer/1", o)
	checkObject(t, b, "tcgplayer/1", o)

	plain := object{body: []byte("no attributes")}
	put(t, b, "bulk/1/dbs/manifest.json", plain)
	checkObject(t, b, "bulk/1/dbs/manifest.json", plain)
}

func testEmpty(t *testing.T, b blob.Bucket) {
	o := object{body: []byte{}, attrs: blob.Attrs{ContentType: "text/plain"}}
	put(t, b, "empty", o)
	checkObject(t, b, "empty", o)
}

// testLarge puts more than one S3 part (16 MiB) from a file, as the bulk
// files are.
func testLarge(t *testing.T, b blob.Bucket) {
	if testing.Short() {
		t.Skip("a 17 MiB object: not in -short")
	}
	o := sample(17 << 20)
	o.attrs = blob.Attrs{ContentType: "application/gzip"}
	f, err := os.CreateTemp(t.TempDir(), "large")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(o.body); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if err := b.Put(context.Background(), "large.gz", f, int64(len(o.body)), o.attrs); err != nil {
		t.Fatal(err)
	}
	checkObject(t, b, "large.gz", o)
}

func testOverwrite(t *testing.T, b blob.Bucket) {
	put(t, b, "x", sample(1))
	second := sample(2000)
	second.attrs.ContentType = "image/webp"
	put(t, b, "x", second)
	checkObject(t, b, "x", second)

	// Attributes not given again are gone, not kept.
	third := object{body: []byte("third")}
	put(t, b, "x", third)
	checkObject(t, b, "x", third)
}

// testShortReader: a reader that ends before the size said stores
// nothing: an older object stays as it was. (Once only: minio-go retries
// the failed upload for seconds.)
func testShortReader(t *testing.T, b blob.Bucket) {
	o := sample(3)
	put(t, b, "short", o)
	if err := b.Put(context.Background(), "short", strings.NewReader("abc"), 10, blob.Attrs{}); err == nil {
		t.Error("Put of 3 bytes said to be 10 succeeded")
	}
	checkObject(t, b, "short", o)
}

func testList(t *testing.T, b blob.Bucket) {
	if got := MustList(t, b, ""); len(got) != 0 {
		t.Errorf("List of an empty bucket: %q", got)
	}
	all := []string{"a-c", "a/b", "a/c/d", "ab", "b/1.snap", "b/10.snap", "b/2.snap", "bulk/1/dbs/cards.jsonl.gz"}
	for _, name := range []string{"bulk/1/dbs/cards.jsonl.gz", "b/10.snap", "a/c/d", "ab", "b/2.snap", "a-c", "b/1.snap", "a/b"} {
		put(t, b, name, object{body: []byte(name)})
	}
	for _, tt := range []struct {
		prefix string
		want   []string
	}{
		{"", all},
		{"a", []string{"a-c", "a/b", "a/c/d", "ab"}},
		{"a/", []string{"a/b", "a/c/d"}},
		{"a/c/", []string{"a/c/d"}},
		{"a/c", []string{"a/c/d"}},
		{"b/1", []string{"b/1.snap", "b/10.snap"}},
		{"bulk/", []string{"bulk/1/dbs/cards.jsonl.gz"}},
		{"bulk/1/dbs/cards.jsonl.gz", []string{"bulk/1/dbs/cards.jsonl.gz"}},
		{"c", nil},
		{"no/such/dir/", nil},
	} {
		if diff := cmp.Diff(tt.want, MustList(t, b, tt.prefix), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("List(%q) (-want +got):\n%s", tt.prefix, diff)
		}
	}
}

func testDelete(t *testing.T, b blob.Bucket) {
	ctx := context.Background()
	put(t, b, "v/1/claim.json", sample(1))
	put(t, b, "v/1/kept", sample(2))
	for range 2 { // the second time the object is gone: no error either
		if err := b.Delete(ctx, "v/1/claim.json"); err != nil {
			t.Errorf("Delete: %v", err)
		}
	}
	checkMissing(t, b, "v/1/claim.json")
	checkObject(t, b, "v/1/kept", sample(2))
	if diff := cmp.Diff([]string{"v/1/kept"}, MustList(t, b, "v/")); diff != "" {
		t.Errorf("List after Delete (-want +got):\n%s", diff)
	}
	if err := b.Delete(ctx, "never/put"); err != nil {
		t.Errorf("Delete of an object never put: %v", err)
	}
	if err := b.Delete(ctx, "v/1"); err != nil {
		t.Errorf("Delete of a prefix's name: %v", err)
	}
	checkObject(t, b, "v/1/kept", sample(2))
}

func testInvalidNames(t *testing.T, b blob.Bucket) {
	ctx := context.Background()
	for _, name := range []string{"", "/a", "a/", "a//b", ".", "..", "../x", "a/../b", ".hidden", "a/.tmp-1", "a b", "a?b", "a\\b", "é", strings.Repeat("x", blob.MaxName+1)} {
		if _, err := b.Get(ctx, name, io.Discard); !errors.Is(err, blob.ErrInvalidName) {
			t.Errorf("Get(%q): %v, want ErrInvalidName", name, err)
		}
		if err := b.Put(ctx, name, strings.NewReader("x"), 1, blob.Attrs{}); !errors.Is(err, blob.ErrInvalidName) {
			t.Errorf("Put(%q): %v, want ErrInvalidName", name, err)
		}
		if err := b.Delete(ctx, name); !errors.Is(err, blob.ErrInvalidName) {
			t.Errorf("Delete(%q): %v, want ErrInvalidName", name, err)
		}
	}
	for _, prefix := range []string{"/", "/a", "a//", "../", ".", "a b"} {
		if _, err := b.List(ctx, prefix); !errors.Is(err, blob.ErrInvalidName) {
			t.Errorf("List(%q): %v, want ErrInvalidName", prefix, err)
		}
	}
	if got := MustList(t, b, ""); len(got) != 0 {
		t.Errorf("objects after refused names: %q", got)
	}
}

func testInvalidAttrs(t *testing.T, b blob.Bucket) {
	for _, attrs := range []blob.Attrs{
		{Metadata: map[string]string{"Upper": "x"}},
		{Metadata: map[string]string{"under_score": "x"}},
		{Metadata: map[string]string{"": "x"}},
		{Metadata: map[string]string{"k": "line\nbreak"}},
		{Metadata: map[string]string{"k": " padded"}},
		{Metadata: map[string]string{"k": "é"}},
		{Metadata: map[string]string{"k": strings.Repeat("x", blob.MaxMetadata)}},
		{ContentType: "text/plain\r\nX-Injected: 1"},
	} {
		if err := b.Put(context.Background(), "x", strings.NewReader("x"), 1, attrs); !errors.Is(err, blob.ErrInvalidAttrs) {
			t.Errorf("Put with %+v: %v, want ErrInvalidAttrs", attrs, err)
		}
	}
	checkMissing(t, b, "x")
}

func testCanceledContext(t *testing.T, b blob.Bucket) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.Put(ctx, "c", bytes.NewReader(sample(1).body), int64(len(sample(1).body)), blob.Attrs{}); err == nil {
		t.Error("Put with a canceled context succeeded")
	}
	checkMissing(t, b, "c")
	put(t, b, "c", sample(1))
	if _, err := b.Get(ctx, "c", io.Discard); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Get with a canceled context: %v, want the context's error", err)
	}
	if _, err := b.List(ctx, ""); err == nil {
		t.Error("List with a canceled context succeeded")
	}
	if err := b.Delete(ctx, "c"); err == nil {
		t.Error("Delete with a canceled context succeeded")
	}
	checkObject(t, b, "c", sample(1))
}

type failingWriter struct{}

var errWrite = errors.New("writer failed")

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

// testFailingWriter: a Get whose writer fails says so.
func testFailingWriter(t *testing.T, b blob.Bucket) {
	put(t, b, "f", sample(1))
	if _, err := b.Get(context.Background(), "f", failingWriter{}); !errors.Is(err, errWrite) {
		t.Errorf("Get into a failing writer: %v, want its error", err)
	}
}

// testConcurrentPutGet checks that a reader sees one whole object or the
// other while writers replace it, never the bytes of one with the
// attributes of the other.
func testConcurrentPutGet(t *testing.T, b blob.Bucket) {
	versions := []object{sample(1), sample(50_000)}
	versions[1].attrs.ContentType = "image/png"
	put(t, b, "hot", versions[0])

	const writes, readers = 20, 4
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, writes+readers*writes)
	wg.Go(func() {
		for i := range writes {
			o := versions[i%2]
			if err := b.Put(ctx, "hot", bytes.NewReader(o.body), int64(len(o.body)), o.attrs); err != nil {
				errs <- err
			}
		}
	})
	for range readers {
		wg.Go(func() {
			for range writes {
				var buf bytes.Buffer
				attrs, err := b.Get(ctx, "hot", &buf)
				if err != nil {
					errs <- err
					continue
				}
				if err := oneOf(buf.Bytes(), attrs, versions); err != nil {
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

func oneOf(body []byte, attrs blob.Attrs, versions []object) error {
	for _, v := range versions {
		if bytes.Equal(body, v.body) {
			if !cmp.Equal(attrs, v.attrs) {
				return fmt.Errorf("read the bytes of one version with the attributes of another: %+v", attrs)
			}
			return nil
		}
	}
	return fmt.Errorf("read %d bytes that were never put", len(body))
}
