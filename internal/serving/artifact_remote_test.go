package serving

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/blob"
	"github.com/cardcat/cardcat/internal/blob/blobtest"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/testkit"
)

// TestArtifactRemote: the artifact one replica writes is read by another
// with an empty data directory from the shared bucket (S3; on disk too),
// without the store's heavy reads, and kept on its disk; a damaged object
// in the bucket is refused and the version built from the store, which
// writes a good one again; old versions are pruned.
func TestArtifactRemote(t *testing.T) {
	for _, d := range blobtest.Drivers() {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			testArtifactRemote(t, d.Open(t))
		})
	}
}

func testArtifactRemote(t *testing.T, remote blob.Bucket) {
	reg := game.Default()

	first := mustSampleStore(t)
	a := NewHolder(first, reg, slog.New(slog.DiscardHandler))
	a.Artifacts = &Artifacts{Dir: t.TempDir(), Remote: remote}
	if err := a.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	built := a.Current()
	names, err := remote.List(t.Context(), "snapshots/")
	if err != nil || len(names) != 1 || names[0] != "snapshots/"+artifactName(built.Version) {
		t.Fatalf("objects after the first replica built: %v, %v", names, err)
	}

	second := mustSampleStore(t)
	var logs testkit.SyncBuffer
	b := NewHolder(second, reg, slog.New(slog.NewTextHandler(&logs, nil)))
	b.Artifacts = &Artifacts{Dir: filepath.Join(t.TempDir(), "snapshots"), Remote: remote}
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
	if err := remote.Put(t.Context(), "snapshots/"+artifactName(built.Version), bytes.NewReader(bad), int64(len(bad)), blob.Attrs{}); err != nil {
		t.Fatal(err)
	}
	third := mustSampleStore(t)
	logs.Reset()
	c := NewHolder(third, reg, slog.New(slog.NewTextHandler(&logs, nil)))
	c.Artifacts = &Artifacts{Dir: t.TempDir(), Remote: remote}
	if err := c.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if third.loads.Load() != 1 || !strings.Contains(logs.String(), "checksum") {
		t.Errorf("a damaged S3 artifact: %d loads, log:\n%s", third.loads.Load(), logs.String())
	}
	var repaired bytes.Buffer
	if _, err := remote.Get(t.Context(), "snapshots/"+artifactName(built.Version), &repaired); err != nil {
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
	arts := &Artifacts{Dir: t.TempDir(), Remote: remote, Keep: 1}
	if err := arts.Save(t.Context(), &v); err != nil {
		t.Fatal(err)
	}
	names, err = remote.List(t.Context(), "snapshots/")
	if err != nil || len(names) != 1 || names[0] != "snapshots/"+artifactName(v.Version) {
		t.Errorf("objects after pruning: %v, %v", names, err)
	}
}
