package main

import (
	"context"
	"log/slog"

	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/store"
)

// catalogHolder is serving.Holder under the name and fields that
// chain_bench_test.go still builds it with; its tests are in
// internal/serving. Remove it once that benchmark calls serving.NewHolder.
type catalogHolder struct {
	st  store.Store
	reg *game.Registry
	log *slog.Logger
	h   *serving.Holder
}

func (c *catalogHolder) refresh(ctx context.Context) error {
	if c.h == nil {
		c.h = serving.NewHolder(c.st, c.reg, c.log)
	}
	return c.h.Refresh(ctx)
}

func (c *catalogHolder) Current() *serving.View {
	if c.h == nil {
		return nil
	}
	return c.h.Current()
}
