package serving

import (
	"context"
	"errors"
	"io/fs"
	"time"
)

// loadArtifact reads version's View from the holder's artifacts, nil when
// there are none or none can be served (then the version is built from
// the store: Refresh). Either way the log says which.
func (h *Holder) loadArtifact(ctx context.Context, version int64) *View {
	if h.Artifacts == nil {
		return nil
	}
	// Bounded like a load from the store: S3 can be black-holed too.
	ctx, cancel := context.WithTimeout(ctx, h.LoadTimeout)
	defer cancel()
	start := time.Now()
	view, where, err := h.Artifacts.Load(ctx, h.reg, version)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			h.log.Info("no snapshot artifact of this version; building it from the store", "version", version)
		} else {
			h.log.Warn("snapshot artifact refused; building the version from the store", "version", version, "took", time.Since(start).Round(time.Millisecond), "err", err)
		}
		return nil
	}
	h.log.Info("catalogue snapshot ready", "version", version, "source", "artifact", "where", where,
		"read", time.Since(start).Round(time.Millisecond))
	return view
}

// saveArtifact writes the artifact of a version built from the store, so
// that the next process to serve it reads it instead. A failure is logged:
// the version is served all the same.
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
}
