package serving

import (
	"context"
	"log/slog"
	"testing"

	"github.com/cardcat/cardcat/internal/game"
)

// TestHolderLastSwap: zero before the first load, then the loaded version
// with the time its build took.
func TestHolderLastSwap(t *testing.T) {
	st := &holderStore{cat: mustFixture(t)}
	h := NewHolder(st, game.Default(), slog.New(slog.DiscardHandler))
	if s := h.LastSwap(); s != (Swap{}) {
		t.Fatalf("before the first refresh: %+v", s)
	}
	if err := h.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := h.LastSwap()
	if s.Version != st.cat.Version || s.Build <= 0 || s.Load < 0 {
		t.Errorf("after a refresh of version %d: %+v", st.cat.Version, s)
	}
}
