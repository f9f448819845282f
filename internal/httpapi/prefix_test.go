package httpapi

import "github.com/cardcat/cardcat/internal/game"

// prefix is the path prefix of a game of the default registry: "/dbs", or
// "" for the base game (routes at /sets, /cards/{id}, ...).
func prefix(code string) string {
	if g, ok := game.Default().Get(code); ok {
		return g.PathPrefix()
	}
	return "/" + code
}
