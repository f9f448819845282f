package serving

import (
	"context"
	"errors"
	"io/fs"
	"runtime/debug"
	"time"

	"github.com/cardcat/cardcat/internal/pace"
)

// DefaultArtifactWait is Holder.ArtifactWait's default: longer than ingest
// takes to build and write a million-card version's artifact after
// committing it (bench/README.md, "Snapshot artifacts").
const DefaultArtifactWait = 3 * time.Minute

// fromArtifact reads version's View from the holder's artifacts. It returns
// nil when there is none to serve; wait then says to keep serving the
// current version for now rather than build this one: a running holder
// waits up to ArtifactWait for the artifact of a version it has just seen
// (the process that committed it writes it right after), or up to
// ArtifactWriterWait while that process marks it as being written, so
// that replicas do not all build what one is building. Only when artifacts
// are Shared: otherwise another process's artifact is in its own data
// directory, not here. A holder serving nothing yet never waits. Either way the log says
// which path was taken and how long it took.
func (h *Holder) fromArtifact(ctx context.Context, version int64) (view *View, wait bool) {
	if h.Artifacts == nil {
		return nil, false
	}
	// Bounded like a load from the store: S3 can be black-holed too.
	ctx, cancel := context.WithTimeout(ctx, h.LoadTimeout)
	defer cancel()
	start := time.Now()
	var p *pace.Pacer // a holder serving nothing yet reads at full speed
	if h.Current() != nil {
		p = new(pace.Pacer)
	}
	view, where, err := h.Artifacts.Load(ctx, h.reg, version, p)
	if err == nil {
		h.log.Info("catalogue snapshot ready", "version", version, "source", "artifact", "where", where,
			"read", time.Since(start).Round(time.Millisecond))
		return view, false
	}
	missing := errors.Is(err, fs.ErrNotExist)
	if missing && h.Current() != nil && h.ArtifactWait > 0 && h.Artifacts.Shared() {
		limit, writer := h.ArtifactWait, h.Artifacts.beingWritten(version)
		if writer {
			limit = max(limit, h.ArtifactWriterWait)
		}
		if h.waitingFor != version {
			h.waitingFor, h.waitingSince = version, time.Now()
			h.log.Info("waiting for the snapshot artifact of the new version", "version", version, "at_most", limit,
				"being_written", writer)
		}
		if time.Since(h.waitingSince) < limit {
			return nil, true
		}
	}
	switch {
	case !missing:
		h.log.Warn("snapshot artifact refused; building the version from the store", "version", version,
			"took", time.Since(start).Round(time.Millisecond), "err", err)
	case h.waitingFor == version:
		h.log.Warn("no snapshot artifact of the version in time; building it from the store", "version", version,
			"waited", time.Since(h.waitingSince).Round(time.Second))
	default:
		h.log.Info("no snapshot artifact of this version; building it from the store", "version", version)
	}
	return nil, false
}

// ArtifactPoll is how often a holder waiting for a new version's artifact
// looks for it, whatever its refresh interval: a version is swapped in
// within about this long after its artifact is published.
const ArtifactPoll = time.Second

// awaitingArtifact reports whether the holder waits for the artifact of a
// version newer than the one it serves.
func (h *Holder) awaitingArtifact() bool {
	cur := h.Current()
	return h.waitingFor != 0 && cur != nil && cur.Version < h.waitingFor
}

// saveArtifact writes the artifact of a version built from the store, so
// that the next process to serve it reads it instead, and then serves the
// version from it (serveMapped). A failure is logged: the version is served
// all the same.
func (h *Holder) saveArtifact(ctx context.Context, view *View) {
	if h.Artifacts == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, h.LoadTimeout)
	defer cancel()
	start := time.Now()
	if err := h.Artifacts.Save(ctx, view); err != nil {
		h.log.Error("snapshot artifact not written; replicas will build this version from the store", "version", view.Version, "err", err)
		return
	}
	h.log.Info("snapshot artifact written", "version", view.Version, "path", h.Artifacts.Path(view.Version),
		"s3", h.Artifacts.Remote != nil, "took", time.Since(start).Round(time.Millisecond))
	h.serveMapped(view)
}

// serveMapped swaps the version built from the store for the same version
// mapped from the artifact just written, where the system maps files: the
// same answers, from the page cache rather than the process's own memory
// (bench/README.md, "Full runs after them"). Not a new version: OnPublish
// is not called, OnRemap is. A failure is logged, and the built view served on.
func (h *Holder) serveMapped(built *View) {
	start := time.Now()
	mapped, err := h.Artifacts.Mapped(h.reg, built.Version)
	if err != nil {
		h.log.Warn("snapshot artifact not read back; serving the version built", "version", built.Version, "err", err)
		return
	}
	if mapped == nil || !h.view.CompareAndSwap(built, mapped) {
		return
	}
	h.log.Info("catalogue snapshot now served from its artifact", "version", built.Version,
		"read", time.Since(start).Round(time.Millisecond))
	if h.OnRemap != nil {
		h.OnRemap(built, mapped)
	}
	// As publish does; the built view itself is freed once what still
	// holds it ends (its requests, the bulk files' build).
	debug.FreeOSMemory()
}
