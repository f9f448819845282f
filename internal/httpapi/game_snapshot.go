package httpapi

import (
	"fmt"

	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/serving"
)

// gameSnapshot returns the version being served and its snapshot of a game:
// read once per request, so one answer never mixes two catalogue versions.
func (s *Server) gameSnapshot(code string) (*serving.View, *catalog.GameSnapshot, error) {
	snap := s.deps.View()
	if snap == nil {
		return nil, nil, unavailable()
	}
	g := snap.Game(code)
	if g == nil {
		return nil, nil, fmt.Errorf("httpapi: snapshot version %d has no game %q", snap.Version, code)
	}
	return snap, g, nil
}

// paidGame returns the snapshot of a game and its paid answers, both of the
// version being served (read once).
func (s *Server) paidGame(code string) (*catalog.GameSnapshot, *analytics.Game, error) {
	v, g, err := s.gameSnapshot(code)
	if err != nil {
		return nil, nil, err
	}
	paid := v.Paid[code]
	if paid == nil {
		return nil, nil, fmt.Errorf("httpapi: catalogue version %d has no paid answers for game %q", v.Version, code)
	}
	return g, paid, nil
}
