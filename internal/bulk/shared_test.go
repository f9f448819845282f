package bulk

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/blob"
	"github.com/cardcat/cardcat/internal/blob/blobtest"
	"github.com/cardcat/cardcat/internal/blob/s3blob"
)

// eachBucket runs test on a shared bucket of each driver (blobtest.Drivers):
// a directory, and the real S3 server of .ci/s3-server when one is named.
func eachBucket(t *testing.T, test func(t *testing.T, sh blob.Bucket)) {
	t.Parallel()
	for _, d := range blobtest.Drivers() {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			test(t, d.Open(t))
		})
	}
}

// testTiming waits milliseconds where a deployment waits seconds.
var testTiming = sharedTiming{poll: 20 * time.Millisecond, beat: 50 * time.Millisecond, stale: 600 * time.Millisecond, maxWait: 20 * time.Second}

// replica is a Builder of its own data directory on shared storage.
func replica(t *testing.T, sh blob.Bucket) *Builder {
	t.Helper()
	b := New(t.TempDir(), nil, WithShared(sh))
	b.timing = testTiming
	t.Cleanup(b.Close)
	return b
}

func (b *Builder) countsNow() counts {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.counts
}

// fileBytes returns the bytes of every ready file of version, by game and name.
func fileBytes(t *testing.T, b *Builder, version int64) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	for _, g := range mustSnapshot(t, version).Games() {
		code := g.Game().Code
		for _, f := range b.Ready(code, version) {
			fh, _, err := b.Open(code, version, f.Name)
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(fh)
			fh.Close()
			if err != nil {
				t.Fatal(err)
			}
			got[code+"/"+f.Name] = data
		}
	}
	return got
}

func filesPerVersion(t *testing.T) int {
	return len(mustSnapshot(t, 1).Games()) * len(Names)
}

// TestSharedFetch: replica A builds a version's files and publishes them;
// replica B, on another data directory, fetches them instead of building,
// and serves the same bytes.
func TestSharedFetch(t *testing.T) { eachBucket(t, testSharedFetch) }

func testSharedFetch(t *testing.T, sh blob.Bucket) {
	n := filesPerVersion(t)
	a := replica(t, sh)
	a.Publish(mustSnapshot(t, 4))
	a.Wait()
	if c := a.countsNow(); c != (counts{built: n, uploaded: n}) {
		t.Errorf("A: %+v, want %d built and uploaded", c, n)
	}

	b := replica(t, sh)
	b.Publish(mustSnapshot(t, 4))
	b.Wait()
	if c := b.countsNow(); c != (counts{fetched: n}) {
		t.Errorf("B: %+v, want %d fetched, none built nor uploaded", c, n)
	}
	want := fileBytes(t, a, 4)
	if len(want) != n {
		t.Fatalf("A has %d files ready, want %d", len(want), n)
	}
	if diff := cmp.Diff(want, fileBytes(t, b, 4)); diff != "" {
		t.Errorf("B's files differ from A's (-A +B):\n%s", diff)
	}
	for _, g := range mustSnapshot(t, 4).Games() {
		if diff := cmp.Diff(a.Ready(g.Game().Code, 4), b.Ready(g.Game().Code, 4)); diff != "" {
			t.Errorf("%s listing (-A +B):\n%s", g.Game().Code, diff)
		}
	}

	// B restarted reuses its own copies: nothing fetched again.
	b2 := New(b.dir, nil, WithShared(sh))
	t.Cleanup(b2.Close)
	b2.Publish(mustSnapshot(t, 4))
	b2.Wait()
	if c := b2.countsNow(); c != (counts{}) {
		t.Errorf("B restarted: %+v, want its files reused", c)
	}
}

// TestSharedDamaged: a shared file whose bytes are not the manifest's is
// built by the replica that finds it, which uploads it again; a third
// replica then fetches every file.
func TestSharedDamaged(t *testing.T) { eachBucket(t, testSharedDamaged) }

func testSharedDamaged(t *testing.T, sh blob.Bucket) {
	n := filesPerVersion(t)
	a := replica(t, sh)
	a.Publish(mustSnapshot(t, 2))
	a.Wait()
	ctx := context.Background()
	damaged := sharedName(2, "dbs", CardsFile)
	var orig bytes.Buffer
	if _, err := sh.Get(ctx, damaged, &orig); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(orig.Bytes())
	bad[len(bad)/2] ^= 0xff // same size, other sha256
	if err := sh.Put(ctx, damaged, bytes.NewReader(bad), int64(len(bad)), blob.Attrs{}); err != nil {
		t.Fatal(err)
	}

	b := replica(t, sh)
	b.Publish(mustSnapshot(t, 2))
	b.Wait()
	if c := b.countsNow(); c != (counts{built: 1, fetched: n - 1, uploaded: 1}) {
		t.Errorf("B: %+v, want the damaged file built and uploaded again, the other %d fetched", c, n-1)
	}
	if diff := cmp.Diff(fileBytes(t, a, 2), fileBytes(t, b, 2)); diff != "" {
		t.Errorf("B's files differ from A's (-A +B):\n%s", diff)
	}

	c := replica(t, sh)
	c.Publish(mustSnapshot(t, 2))
	c.Wait()
	if got := c.countsNow(); got != (counts{fetched: n}) {
		t.Errorf("C after the repair: %+v, want all %d fetched", got, n)
	}
}

// TestSharedUnreachable: with the shared storage down (an S3 endpoint that
// refuses connections), a replica builds its files itself and serves them.
func TestSharedUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now: connections are refused
	sh, err := s3blob.New(s3blob.Config{Endpoint: endpoint, Bucket: "cardcat-test", AccessKey: "a", SecretKey: "b",
		Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	n := filesPerVersion(t)
	b := replica(t, sh)
	b.Publish(mustSnapshot(t, 3))
	b.Wait()
	if c := b.countsNow(); c != (counts{built: n}) {
		t.Errorf("B: %+v, want all %d built", c, n)
	}
	if got := fileBytes(t, b, 3); len(got) != n {
		t.Errorf("B serves %d files, want %d", len(got), n)
	}
}

// recorder records the Puts that reach the shared storage.
type recorder struct {
	blob.Bucket
	mu   sync.Mutex
	puts []string
}

func (r *recorder) Put(ctx context.Context, name string, rd io.Reader, size int64, attrs blob.Attrs) error {
	err := r.Bucket.Put(ctx, name, rd, size, attrs)
	if err == nil && !strings.HasSuffix(name, "/"+claimName) {
		r.mu.Lock()
		r.puts = append(r.puts, name)
		r.mu.Unlock()
	}
	return err
}

// TestSharedManifestLast: a game's manifest is written after its files,
// and files without a manifest are not published: a replica builds them.
func TestSharedManifestLast(t *testing.T) { eachBucket(t, testSharedManifestLast) }

func testSharedManifestLast(t *testing.T, sh blob.Bucket) {
	rec := &recorder{Bucket: sh}
	a := replica(t, rec)
	snap := mustSnapshot(t, 6)
	a.Publish(snap)
	a.Wait()
	var want []string
	for _, g := range snap.Games() {
		for _, name := range append(slices.Clone(Names), sharedManifestName) {
			want = append(want, sharedName(6, g.Game().Code, name))
		}
	}
	if diff := cmp.Diff(want, rec.puts); diff != "" {
		t.Errorf("objects written (-want +got):\n%s", diff)
	}

	ctx := context.Background()
	if err := rec.Delete(ctx, sharedName(6, "mtg", sharedManifestName)); err != nil {
		t.Fatal(err)
	}
	b := replica(t, rec.Bucket)
	b.Publish(snap)
	b.Wait()
	n := filesPerVersion(t)
	if c := b.countsNow(); c != (counts{built: len(Names), fetched: n - len(Names), uploaded: len(Names)}) {
		t.Errorf("B: %+v, want mtg's %d files built (and published again), the other games' fetched", c, len(Names))
	}
	if _, err := b.readShared(ctx, 6, "mtg"); err != nil {
		t.Errorf("mtg's manifest after B: %v", err)
	}
}

// TestSharedWaitsForBuilder: a replica that finds another one building a
// version waits for its files rather than build them too; a claim whose
// beats stopped is a builder gone, and the replica builds.
func TestSharedWaitsForBuilder(t *testing.T) { eachBucket(t, testSharedWaitsForBuilder) }

func testSharedWaitsForBuilder(t *testing.T, sh blob.Bucket) {
	n := filesPerVersion(t)
	snap := mustSnapshot(t, 8)
	a := replica(t, sh)
	a.owner = "replica-a"
	// A's claim on the version, written before B looks.
	held := a.claim(context.Background(), 8)
	waitFor(t, func() bool { _, err := a.getSmall(context.Background(), claimObject(8)); return err == nil })

	b := replica(t, sh)
	b.Publish(snap)
	time.Sleep(5 * testTiming.poll) // B is waiting now, not building
	if c := b.countsNow(); c != (counts{}) {
		t.Fatalf("B did not wait for A's claim: %+v", c)
	}
	a.Publish(snap) // A builds (its own claim is no obstacle to it) and publishes
	a.Wait()
	held.release()
	b.Wait()
	if c := b.countsNow(); c != (counts{fetched: n}) {
		t.Errorf("B: %+v, want all %d fetched after waiting for A", c, n)
	}

	// A claim that is never written again: B builds once it is stale.
	snap9 := mustSnapshot(t, 9)
	ctx := context.Background()
	stale := []byte(`{"owner":"gone","beat":3}`)
	if err := sh.Put(ctx, claimObject(9), bytes.NewReader(stale), int64(len(stale)), blob.Attrs{}); err != nil {
		t.Fatal(err)
	}
	c := replica(t, sh)
	start := time.Now()
	c.Publish(snap9)
	c.Wait()
	if got := c.countsNow(); got.built != n {
		t.Errorf("C: %+v, want all %d built past the stale claims", got, n)
	}
	if took := time.Since(start); took < testTiming.stale {
		t.Errorf("C built after %v, before the claim was stale (%v)", took, testTiming.stale)
	}
	if _, err := c.getSmall(ctx, claimObject(9)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("C's claim after its build: %v, want removed", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSharedPrune: the shared storage keeps the KeepShared newest versions;
// the local data directory the version served only.
func TestSharedPrune(t *testing.T) { eachBucket(t, testSharedPrune) }

func testSharedPrune(t *testing.T, sh blob.Bucket) {
	a := replica(t, sh)
	for v := int64(1); v <= 5; v++ {
		a.Publish(mustSnapshot(t, v))
		a.Wait()
	}
	names, err := sh.List(context.Background(), sharedRoot)
	if err != nil {
		t.Fatal(err)
	}
	versions := map[string]int{}
	for _, name := range names {
		v, _, _ := strings.Cut(strings.TrimPrefix(name, sharedRoot), "/")
		versions[v]++
	}
	n := filesPerVersion(t) + len(mustSnapshot(t, 1).Games()) // files and manifests
	if diff := cmp.Diff(map[string]int{"3": n, "4": n, "5": n}, versions); diff != "" {
		t.Errorf("shared objects per version (-want +got):\n%s", diff)
	}
	entries, _ := os.ReadDir(a.dir)
	var local []string
	for _, e := range entries {
		local = append(local, e.Name())
	}
	if diff := cmp.Diff([]string{"5"}, local); diff != "" {
		t.Errorf("local versions (-want +got):\n%s", diff)
	}
}

// TestSharedOtherCatalogue: the same version number with another creation
// time is another store's catalogue: neither fetched nor replaced.
func TestSharedOtherCatalogue(t *testing.T) { eachBucket(t, testSharedOtherCatalogue) }

func testSharedOtherCatalogue(t *testing.T, sh blob.Bucket) {
	n := filesPerVersion(t)
	a := replica(t, sh)
	a.Publish(mustSnapshot(t, 5))
	a.Wait()
	ctx := context.Background()
	before, err := a.readShared(ctx, 5, "dbs")
	if err != nil {
		t.Fatal(err)
	}

	other := mustSnapshot(t, 5)
	other.CreatedAt = other.CreatedAt.Add(time.Hour)
	b := replica(t, sh)
	b.Publish(other)
	b.Wait()
	if c := b.countsNow(); c != (counts{built: n}) {
		t.Errorf("B: %+v, want all %d built, none fetched nor uploaded", c, n)
	}
	after, err := b.readShared(ctx, 5, "dbs")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("A's manifest replaced (-before +after):\n%s", diff)
	}
}
