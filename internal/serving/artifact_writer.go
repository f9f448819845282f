package serving

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// A process that builds a version from the store marks it in a shared
// directory of artifacts ({version}.snap.writing) until its artifact is
// written, touching the marker every WriterBeat; the others sharing the
// directory then wait for that artifact rather than build the version too.
// At a million cards, beside a saturating load on two cores, `ingest` took
// more than DefaultArtifactWait to write the artifact after committing, and
// serve built the same version meanwhile: minutes of a core and a peak of
// 8.4 GB resident (bench/README.md, "The soak at a million cards").

// WriterBeat is how often a builder touches its marker; a marker left
// untouched for three beats is a dead process's and is not waited for.
const WriterBeat = 5 * time.Second

// DefaultArtifactWriterWait is Holder.ArtifactWriterWait's default.
const DefaultArtifactWriterWait = 20 * time.Minute

const writingSuffix = ".writing"

func (a *Artifacts) writingPath(version int64) string { return a.Path(version) + writingSuffix }

// Writing marks version as being built here until done is called. Only
// where the directory is shared (SharedDir): through S3 alone other
// processes cannot see the marker.
func (a *Artifacts) Writing(version int64) (done func()) {
	if !a.SharedDir {
		return func() {}
	}
	path := a.writingPath(version)
	if err := os.MkdirAll(a.Dir, 0o755); err != nil {
		return func() {}
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		a.log().Warn("snapshot artifact's writing marker not made; other processes may build this version too", "err", err)
		return func() {}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(WriterBeat)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				now := time.Now()
				os.Chtimes(path, now, now)
			}
		}
	})
	return func() {
		close(stop)
		wg.Wait()
		os.Remove(path)
	}
}

// beingWritten reports whether a live process marks version's artifact as
// being written in the shared directory.
func (a *Artifacts) beingWritten(version int64) bool {
	if !a.SharedDir {
		return false
	}
	fi, err := os.Stat(a.writingPath(version))
	return err == nil && time.Since(fi.ModTime()) < 3*WriterBeat
}

// removeDeadMarkers removes the markers of processes killed while they
// built (untouched for an hour).
func (a *Artifacts) removeDeadMarkers(names []string) {
	for _, n := range names {
		if !strings.HasSuffix(n, ".snap"+writingSuffix) {
			continue
		}
		path := filepath.Join(a.Dir, n)
		if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) > time.Hour {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				a.log().Warn("snapshot artifact's writing marker not removed", "file", n, "err", err)
			}
		}
	}
}
