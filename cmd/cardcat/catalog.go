package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/cardcat/cardcat"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/store"
)

// ensureSample ingests the embedded sample when the store holds no catalogue,
// so a first start serves real cards at once.
func ensureSample(ctx context.Context, st store.Store, reg *game.Registry, log *slog.Logger) error {
	v, err := st.CatalogVersion(ctx)
	if err != nil {
		return err
	}
	if v > 0 {
		return nil
	}
	log.Info("empty store: loading the bundled sample")
	rep, err := ingest.Run(ctx, st, ingest.FSSource{FS: cardcat.Sample(), Name: "embedded sample"}, reg, time.Now(), ingest.Options{Log: log})
	if err != nil {
		return fmt.Errorf("loading the sample: %w", err)
	}
	log.Info("sample loaded", "version", rep.Version, "duration", rep.Duration.Round(time.Millisecond))
	return nil
}
