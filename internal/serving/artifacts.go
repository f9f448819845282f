package serving

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cardcat/cardcat/internal/blob"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/pace"
)

// Artifacts keeps the snapshot artifacts of catalogue versions: in Dir
// ({data-dir}/snapshots/{version}.snap), and in Remote when it is set.
type Artifacts struct {
	Dir string
	// Remote is shared storage of artifacts (S3), so that the artifact one
	// process writes serves every replica: the objects
	// snapshots/{version}.snap. nil: the directory only.
	Remote blob.Bucket
	// SharedDir says that every process writing this store's versions
	// writes their artifacts into Dir too (SQLite in the data directory:
	// `ingest` and `serve` share it), so that, like with Remote, a new
	// version's artifact is worth waiting for (Holder.ArtifactWait).
	SharedDir bool
	// Keep is how many versions' artifacts Save leaves (the newest ones);
	// DefaultKeepArtifacts when 0.
	Keep int
	Log  *slog.Logger

	settling sync.WaitGroup // the settleHuge runs started beside requests
}

// DefaultKeepArtifacts keeps the version served and the one before it, and
// one more for a replica still serving an older version.
const DefaultKeepArtifacts = 3

// Shared reports whether the artifact of a version another process writes
// reaches this one: through Remote, or a shared Dir.
func (a *Artifacts) Shared() bool { return a.Remote != nil || a.SharedDir }

// remotePrefix is where artifacts are in Remote.
const remotePrefix = "snapshots/"

func artifactName(version int64) string { return strconv.FormatInt(version, 10) + ".snap" }

// Path is the artifact file of a catalogue version.
func (a *Artifacts) Path(version int64) string {
	return filepath.Join(a.Dir, artifactName(version))
}

func (a *Artifacts) log() *slog.Logger {
	if a.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return a.Log
}

// Load reads the View of a version from its artifact: the directory's,
// else Remote's (copied into the directory first). It returns where it was
// read ("disk", "s3"), or an error when no artifact could be served; a
// refused or unreadable artifact is logged with why. p paces the read (nil:
// none) when a version is served beside it.
func (a *Artifacts) Load(ctx context.Context, reg *game.Registry, version int64, p *pace.Pacer) (*View, string, error) {
	path := a.Path(version)
	v, m, err := readArtifactFile(path, reg, version, p)
	if err == nil {
		a.settling.Go(func() { a.settleHuge(path, m, version) })
		return v, "disk", nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		a.log().Warn("snapshot artifact refused", "version", version, "where", "disk", "err", err)
	}
	if a.Remote == nil {
		return nil, "", err
	}
	if err := os.MkdirAll(a.Dir, 0o755); err != nil {
		return nil, "", fmt.Errorf("serving: snapshot artifacts: %w", err)
	}
	// Fetched into the directory, and read (checked) before it replaces
	// anything there: a refused artifact never lands on disk. Written a
	// whole aligned huge page at a time, as WriteArtifact writes, so that it
	// is mapped with huge pages too (alignedWriter).
	var fetchErr error
	err = blob.WriteFile(path, 0o600, func(f *os.File) error {
		aw := newAlignedWriter(f)
		_, err := a.Remote.Get(ctx, remotePrefix+artifactName(version), aw)
		if err == nil {
			err = aw.Flush()
		}
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				a.log().Warn("snapshot artifact not fetched", "version", version, "where", "s3", "err", err)
			}
			fetchErr = err
			return err
		}
		if v, m, err = readArtifactFile(f.Name(), reg, version, p); err != nil {
			a.log().Warn("snapshot artifact refused", "version", version, "where", "s3", "err", err)
			fetchErr = err
			return err
		}
		return nil
	})
	if fetchErr != nil {
		return nil, "", fetchErr
	}
	if err != nil {
		a.log().Warn("snapshot artifact not kept on disk", "version", version, "err", err)
	} else {
		a.settling.Go(func() { a.settleHuge(path, m, version) })
	}
	return v, "s3", nil
}

// settleHuge re-reads the pages of a version's artifact that are not
// mapped with 2 MB entries, when too many are not (settleHuge in
// artifact_huge_linux.go), and logs how much of it is mapped so (whole=0:
// nothing of it can be), once per artifact mapped, beside the requests.
func (a *Artifacts) settleHuge(path string, m *mapping, version int64) {
	if m == nil {
		return
	}
	start := time.Now()
	s, err := settleHuge(path, m)
	if errors.Is(err, errArtifactChanged) {
		// What was checked is no longer what is served: the next start
		// refuses the file if it is damaged, and builds the version.
		a.log().Error("snapshot artifact changed on disk while served; restart this process", "version", version, "err", err)
		return
	}
	if err != nil {
		a.log().Warn("snapshot artifact pages not re-read", "version", version, "err", err)
		return
	}
	a.log().Info("snapshot artifact pages", "version", version, "huge_before", s.Before>>20, "huge_after", s.After>>20,
		"whole", s.Whole>>20, "reread", s.Reread, "took", time.Since(start).Round(time.Millisecond))
}

// waitSettled waits for the settleHuge runs started so far to end.
func (a *Artifacts) waitSettled() { a.settling.Wait() }

// Mapped reads version's artifact from the directory when the system maps
// it in place, and nil otherwise (a file read into memory would hold the
// same bytes as the view built from the store, and cost a read more). The
// read is paced: the version built is served beside it.
func (a *Artifacts) Mapped(reg *game.Registry, version int64) (*View, error) {
	path := a.Path(version)
	v, m, err := readArtifactFile(path, reg, version, new(pace.Pacer))
	if err != nil || m == nil {
		return nil, err
	}
	a.settling.Go(func() { a.settleHuge(path, m, version) })
	return v, nil
}

// Save writes v's artifact into the directory and, when set, Remote, then
// removes the artifacts of versions older than the Keep newest.
func (a *Artifacts) Save(ctx context.Context, v *View) error {
	path := a.Path(v.Version)
	if err := WriteArtifact(path, v); err != nil {
		return err
	}
	if a.Remote != nil {
		if err := a.upload(ctx, v.Version, path); err != nil {
			return fmt.Errorf("serving: snapshot artifact of version %d to s3: %w", v.Version, err)
		}
	}
	a.prune(ctx)
	return nil
}

func (a *Artifacts) upload(ctx context.Context, version int64, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return a.Remote.Put(ctx, remotePrefix+artifactName(version), f, fi.Size(), blob.Attrs{ContentType: blob.DefaultContentType})
}

// prune removes the artifacts beyond the Keep newest versions, and the
// temporary files of writes that did not finish (a killed process).
func (a *Artifacts) prune(ctx context.Context) {
	keep := a.Keep
	if keep <= 0 {
		keep = DefaultKeepArtifacts
	}
	entries, err := os.ReadDir(a.Dir)
	if err != nil {
		a.log().Warn("snapshot artifacts not pruned", "err", err)
		return
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// A temporary file an hour old is a write that was killed, not one in
	// progress (an artifact of a million cards takes seconds).
	blob.RemoveTemporary(a.Dir, time.Hour)
	a.removeDeadMarkers(names)
	for _, name := range stale(names, keep) {
		if err := os.Remove(filepath.Join(a.Dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			a.log().Warn("snapshot artifact not pruned", "file", name, "err", err)
		}
	}
	if a.Remote == nil {
		return
	}
	remote, err := a.Remote.List(ctx, remotePrefix)
	if err != nil {
		a.log().Warn("snapshot artifacts not pruned", "where", "s3", "err", err)
		return
	}
	for i, n := range remote {
		remote[i] = strings.TrimPrefix(n, remotePrefix)
	}
	for _, name := range stale(remote, keep) {
		if err := a.Remote.Delete(ctx, remotePrefix+name); err != nil {
			a.log().Warn("snapshot artifact not pruned", "where", "s3", "file", name, "err", err)
		}
	}
}

// stale returns, of the file names of a directory of artifacts, the
// artifacts beyond the keep newest versions; names of other forms are left
// alone.
func stale(names []string, keep int) []string {
	var versions []int64
	var out []string
	for _, n := range names {
		s, ok := strings.CutSuffix(n, ".snap")
		if v, err := strconv.ParseInt(s, 10, 64); ok && err == nil && strconv.FormatInt(v, 10) == s {
			versions = append(versions, v)
		}
	}
	slices.Sort(versions)
	if len(versions) > keep {
		for _, v := range versions[:len(versions)-keep] {
			out = append(out, artifactName(v))
		}
	}
	return out
}
