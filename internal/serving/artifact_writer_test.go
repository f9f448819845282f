package serving

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/testkit"
)

// TestHolderWaitsForAWriter: a holder that sees a new version without its
// artifact waits beyond ArtifactWait while another process's marker says
// the artifact is being written (touched within three beats), and builds
// the version once the marker goes stale (a dead writer).
func TestHolderWaitsForAWriter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &holderStore{cat: mustFixture(t)}
		var logs testkit.SyncBuffer
		h := NewHolder(st, game.Default(), slog.New(slog.NewTextHandler(&logs, nil)))
		h.Artifacts = &Artifacts{Dir: t.TempDir(), SharedDir: true}
		h.ArtifactWait = time.Minute
		if err := h.Refresh(t.Context()); err != nil || st.loads != 1 {
			t.Fatalf("first refresh: %v, %d loads", err, st.loads)
		}
		first := h.Current()

		st.cat.Version++
		marker := h.Artifacts.writingPath(st.cat.Version)
		touch := func() {
			if err := os.WriteFile(marker, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			now := time.Now() // the bubble's clock, which the holder reads too
			if err := os.Chtimes(marker, now, now); err != nil {
				t.Fatal(err)
			}
		}
		touch()
		for range 4 { // two minutes: twice ArtifactWait
			if err := h.Refresh(t.Context()); err != nil || h.Current() != first || st.loads != 1 {
				t.Fatalf("a live writer: %v, view swapped %v, %d loads", err, h.Current() != first, st.loads)
			}
			time.Sleep(30 * time.Second)
			touch()
		}
		if !strings.Contains(logs.String(), "being_written=true") {
			t.Errorf("the waiting line does not say the artifact is being written:\n%s", logs.String())
		}
		time.Sleep(3 * WriterBeat) // the writer died
		if err := h.Refresh(t.Context()); err != nil || h.Current().Version != st.cat.Version || st.loads != 2 {
			t.Fatalf("a dead writer: %v, version %d, %d loads, want it built", err, h.Current().Version, st.loads)
		}
	})
}

// TestWriting: the marker is there while a version is built and gone
// after; only in a shared directory; a dead one is pruned.
func TestWriting(t *testing.T) {
	a := &Artifacts{Dir: filepath.Join(t.TempDir(), "snapshots"), SharedDir: true}
	done := a.Writing(7)
	if !a.beingWritten(7) || a.beingWritten(8) {
		t.Fatal("version 7 not marked as being written, or version 8 is")
	}
	done()
	if _, err := os.Stat(a.writingPath(7)); !os.IsNotExist(err) || a.beingWritten(7) {
		t.Fatalf("the marker is left after the write: %v", err)
	}

	a.SharedDir = false
	a.Writing(9)() // not shared: no marker
	if _, err := os.Stat(a.writingPath(9)); !os.IsNotExist(err) {
		t.Fatalf("a marker in a directory no other process writes: %v", err)
	}

	// A dead writer's marker is removed with the stale artifacts; a live
	// one is kept.
	a.SharedDir = true
	live, dead := a.writingPath(10), a.writingPath(11)
	for _, p := range []string{live, dead} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(dead, old, old); err != nil {
		t.Fatal(err)
	}
	a.prune(t.Context())
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live marker was pruned: %v", err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a dead marker was kept: %v", err)
	}
}
