package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cardcat/cardcat/internal/blob/s3blob"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/images/s3store"
	"github.com/cardcat/cardcat/internal/schedule"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/store"
)

// Snapshot artifacts (docs/operations.md, "Snapshot artifacts"): a
// version's serving snapshot written once, by the process that builds it
// first, under {data-dir}/snapshots and in the S3 bucket of CARDCAT_S3_*
// when set, so that a replica reads it instead of building it.
type artifactFlags struct {
	enabled bool
}

func addArtifactFlags(fs *flag.FlagSet, env *Env) (*artifactFlags, error) {
	f := &artifactFlags{enabled: true}
	if v := env.Getenv("CARDCAT_SNAPSHOT_ARTIFACTS"); v != "" {
		var err error
		if f.enabled, err = strconv.ParseBool(v); err != nil {
			return nil, usageError{fmt.Sprintf("CARDCAT_SNAPSHOT_ARTIFACTS: want true or false, got %q", v)}
		}
	}
	fs.BoolVar(&f.enabled, "snapshot-artifacts", f.enabled, "read each catalogue version's serving snapshot from its artifact ({data-dir}/snapshots, and S3 when CARDCAT_S3_ENDPOINT is set) and write it after building it from the store (env CARDCAT_SNAPSHOT_ARTIFACTS)")
	return f, nil
}

// addLoadTimeoutFlag adds --load-timeout (CARDCAT_LOAD_TIMEOUT): how long
// the reading of a catalogue version from the store may take (the
// catalogue, its TCGplayer history, or its artifact), for serve and for
// the artifact ingest writes. Its default suits a million cards; larger
// catalogues need more (docs/operations.md, "Capacity").
func addLoadTimeoutFlag(fs *flag.FlagSet, env *Env) (*time.Duration, error) {
	def, err := envDuration(env.Getenv, "CARDCAT_LOAD_TIMEOUT", serving.DefaultLoadTimeout)
	if err != nil {
		return nil, err
	}
	d := fs.Duration("load-timeout", def, "how long reading a catalogue version from the store (or its snapshot artifact) may take before the attempt fails (env CARDCAT_LOAD_TIMEOUT)")
	return d, nil
}

func checkLoadTimeout(d time.Duration) error {
	if d <= 0 {
		return usageError{"--load-timeout must be positive"}
	}
	return nil
}

// open returns the artifacts of the data directory, shared through S3 when
// s3cfg is enabled, and through the directory itself when the store is
// SQLite in it (whoever writes that store writes its artifacts there); nil
// when artifacts are off.
func (f *artifactFlags) open(sf *storeFlags, s3cfg s3store.Config, log *slog.Logger) (*serving.Artifacts, error) {
	if f == nil || !f.enabled {
		return nil, nil
	}
	a := &serving.Artifacts{Dir: filepath.Join(sf.dataDir, "snapshots"), SharedDir: sf.databaseURL == "", Log: log}
	if s3cfg.Enabled() {
		objs, err := s3blob.New(s3cfg)
		if err != nil {
			return nil, err
		}
		a.Remote = objs
	}
	return a, nil
}

// writeIngestedArtifact builds the version ingest has just written and
// writes its artifact, so that the first replica to serve it reads it. The
// version is committed already: a failure is logged, and replicas build it.
func writeIngestedArtifact(ctx context.Context, env *Env, f *artifactFlags, sf *storeFlags, st store.Store, loadTimeout time.Duration) {
	s3cfg, err := s3ConfigFromEnv(env.Getenv)
	if err != nil {
		env.Log.Error("snapshot artifact not written", "err", err)
		return
	}
	arts, err := f.open(sf, s3cfg, env.Log)
	if err != nil || arts == nil {
		if err != nil {
			env.Log.Error("snapshot artifact not written", "err", err)
		}
		return
	}
	buildArtifact(ctx, arts, st, loadTimeout, env.Log)
}

// buildArtifact builds the store's version as serve would and writes its
// artifact (a failure is logged: replicas then build the version).
func buildArtifact(ctx context.Context, arts *serving.Artifacts, st store.Store, loadTimeout time.Duration, log *slog.Logger) {
	h := serving.NewHolder(st, game.Default(), log)
	h.Artifacts, h.LoadTimeout = arts, loadTimeout
	if err := h.Refresh(ctx); err != nil {
		log.Error("snapshot artifact not written: the version could not be built", "err", err)
	}
}

// withArtifact makes the scheduled refresh write the artifact of each
// version it ingests, as `cardcat ingest` does, where artifacts are Shared
// (S3, or the data directory of a SQLite store): the replicas (this one
// included) wait for it rather than each building the version. Otherwise no
// replica waits (each builds, this one writing its artifact then), so there
// is nothing to add.
func withArtifact(sched *schedule.Scheduler, arts *serving.Artifacts, st store.Store, loadTimeout time.Duration, log *slog.Logger) {
	if sched == nil || arts == nil || !arts.Shared() {
		return
	}
	work := sched.Work
	sched.Work = func(ctx context.Context, now time.Time) (int64, error) {
		v, err := work(ctx, now)
		if err == nil {
			buildArtifact(ctx, arts, st, loadTimeout, log)
		}
		return v, err
	}
}
