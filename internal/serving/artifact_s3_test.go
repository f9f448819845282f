package serving

import (
	"bytes"
	"crypto/rand"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/bulk/s3share"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/images/s3store"
)

// mustS3 is the real S3 server's objects of CARDCAT_TEST_S3_ENDPOINT (the one
// .ci/s3-server starts), under a prefix of this run's own, or a skip.
func mustS3(t *testing.T) *s3share.Objects {
	t.Helper()
	endpoint := os.Getenv("CARDCAT_TEST_S3_ENDPOINT")
	if endpoint == "" {
		t.Skip("CARDCAT_TEST_S3_ENDPOINT is not set: start a real S3 server with .ci/s3-server and export the variables it prints")
	}
	env := func(name, def string) string {
		if v := os.Getenv(name); v != "" {
			return v
		}
		return def
	}
	cfg := s3store.Config{
		Endpoint:  endpoint,
		Bucket:    env("CARDCAT_TEST_S3_BUCKET", "cardcat-test"),
		AccessKey: env("CARDCAT_TEST_S3_ACCESS_KEY", "cardcat-test"),
		SecretKey: env("CARDCAT_TEST_S3_SECRET_KEY", "cardcat-test-secret"),
		Region:    env("CARDCAT_TEST_S3_REGION", "us-east-1"),
		Prefix:    "run-" + rand.Text()[:12] + "/" + t.Name(),
	}
	if st, err := s3store.New(cfg); err != nil {
		t.Fatal(err)
	} else if err := st.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	objs, err := s3share.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// TestArtifactS3: the artifact one replica writes is read by another with
// an empty data directory from S3, without the store's heavy reads, and
// kept on its disk; a damaged object in S3 is refused and the version built
// from the store, which writes a good one again; old versions are pruned.
func TestArtifactS3(t *testing.T) {
	t.Parallel()
	s3 := mustS3(t)
	reg := game.Default()

	first := mustSampleStore(t)
	a := NewHolder(first, reg, slog.New(slog.DiscardHandler))
	a.Artifacts = &Artifacts{Dir: t.TempDir(), Remote: s3}
	if err := a.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	built := a.Current()
	names, err := s3.List(t.Context(), "snapshots/")
	if err != nil || len(names) != 1 || names[0] != "snapshots/"+artifactName(built.Version) {
		t.Fatalf("objects after the first replica built: %v, %v", names, err)
	}

	second := mustSampleStore(t)
	var logs bytes.Buffer
	b := NewHolder(second, reg, slog.New(slog.NewTextHandler(&logs, nil)))
	b.Artifacts = &Artifacts{Dir: filepath.Join(t.TempDir(), "snapshots"), Remote: s3}
	if err := b.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n, m := second.loads.Load(), second.averages.Load(); n != 0 || m != 0 {
		t.Errorf("the second replica made %d catalogue loads and %d history reads", n, m)
	}
	if !strings.Contains(logs.String(), "source=artifact where=s3") {
		t.Errorf("the log does not say the version came from S3:\n%s", logs.String())
	}
	compareViews(t, built, b.Current())
	local, err := os.ReadFile(b.Artifacts.Path(built.Version))
	if err != nil {
		t.Fatalf("the artifact read from S3 is not kept on disk: %v", err)
	}

	// A damaged object: a third replica refuses it and builds.
	bad := bytes.Clone(local)
	bad[len(bad)/2] ^= 1
	if err := s3.Put(t.Context(), "snapshots/"+artifactName(built.Version), bytes.NewReader(bad), int64(len(bad))); err != nil {
		t.Fatal(err)
	}
	third := mustSampleStore(t)
	logs.Reset()
	c := NewHolder(third, reg, slog.New(slog.NewTextHandler(&logs, nil)))
	c.Artifacts = &Artifacts{Dir: t.TempDir(), Remote: s3}
	if err := c.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if third.loads.Load() != 1 || !strings.Contains(logs.String(), "checksum") {
		t.Errorf("a damaged S3 artifact: %d loads, log:\n%s", third.loads.Load(), logs.String())
	}
	var repaired bytes.Buffer
	if err := s3.Get(t.Context(), "snapshots/"+artifactName(built.Version), &repaired); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(repaired.Bytes(), local) {
		t.Error("the artifact in S3 was not written again after the fallback")
	}

	// Pruning: with Keep 1, saving another version removes the older object.
	v := *built
	snap := *built.Snapshot
	snap.Version = built.Version + 1
	v.Snapshot = &snap
	arts := &Artifacts{Dir: t.TempDir(), Remote: s3, Keep: 1}
	if err := arts.Save(t.Context(), &v); err != nil {
		t.Fatal(err)
	}
	names, err = s3.List(t.Context(), "snapshots/")
	if err != nil || len(names) != 1 || names[0] != "snapshots/"+artifactName(v.Version) {
		t.Errorf("objects after pruning: %v, %v", names, err)
	}
}
