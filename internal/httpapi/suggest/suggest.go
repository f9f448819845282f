// Package suggest infers the path a caller meant from one no route serves:
// the did_you_mean of the REST API's 404 (httpapi's didyoumean.go).
package suggest

import (
	"net/url"
	"strings"

	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
)

// Paths corrects paths against what a server serves.
type Paths struct {
	Games *game.Registry
	// Routed reports whether a GET of the path reaches a route.
	Routed func(path string) bool
	// Endpoints are the routes GET / lists (the public ones at the top are
	// corrected by name).
	Endpoints []apiref.Endpoint
	// CardGame is the game of the card whose id is a 64-hex Cardmarket id,
	// when the catalogue has it; nil knows none.
	CardGame func(id string) (code string, ok bool)
}

// gameResources are the second segments of game routes and the words people
// type for them.
var gameResources = map[string]string{
	"sets": "sets", "set": "sets", "expansions": "sets", "expansion": "sets",
	"cards": "cards", "card": "cards",
	"search": "search", "searches": "search", "find": "search", "query": "search",
	"prices": "prices", "price": "prices",
	"analytics": "analytics",
}

// Path infers the path a caller meant, or returns "": repeated
// slashes collapsed, case lowered, a misspelled game prefix or public route
// corrected by edit distance, a singular/plural or misspelled resource
// fixed, and a game path asked without its game (/cards/x, /sets, /search)
// given one. Only a path that a route serves is suggested.
func (s Paths) Path(path string) string {
	var segs []string
	for _, seg := range strings.Split(path, "/") {
		if seg != "" && seg != "." && seg != ".." {
			segs = append(segs, seg)
		}
	}
	if len(segs) == 0 {
		return "/"
	}
	// ok is the suggestion of segs, escaped (the segments are decoded: a
	// '?', '#', '%' or space in one is part of it, not the URL's syntax),
	// when a route serves it.
	ok := func(segs ...string) string {
		if g, isGame := s.Games.Get(segs[0]); isGame && g.Base {
			segs = segs[1:] // the base game's routes have no prefix
		}
		escaped := make([]string, len(segs))
		for i, seg := range segs {
			escaped[i] = url.PathEscape(seg)
		}
		p := "/" + strings.Join(escaped, "/")
		if s.Routed(p) {
			return p
		}
		return ""
	}
	first := strings.ToLower(segs[0])

	if _, isGame := s.Games.Get(first); len(segs) == 1 && !isGame {
		// The public routes at the top (/games, /health, /docs, ...).
		for _, d := range s.Endpoints {
			public := strings.TrimPrefix(d.Path, "/")
			if !d.AuthRequired && public != "" && !strings.Contains(public, "/") && near(first, public) {
				return ok(public)
			}
		}
	}
	game := s.closestGame(first)
	if game == "" {
		if _, isResource := gameResources[first]; !isResource {
			return ""
		}
		// A game path without a game: the id's game when it has one, else
		// the base game (else the first game).
		game = s.gameOfPath(segs)
		segs = append([]string{game}, segs...)
	}
	segs[0] = game
	if len(segs) == 1 {
		return ok(game, "sets")
	}
	res := s.closestResource(strings.ToLower(segs[1]))
	if res == "" {
		return ""
	}
	segs[1] = res
	// Extra trailing segments (/dbs/cards/x/prices): the longest served prefix.
	for n := len(segs); n >= 2; n-- {
		if p := ok(segs[:n]...); p != "" {
			return p
		}
	}
	return ""
}

// near reports whether a is within the edit distance allowed for b's length.
func near(a, b string) bool {
	d := editDistance(a, b)
	if len(b) <= 3 {
		return d <= 1
	}
	return d <= 2
}

func (s Paths) closestGame(seg string) string {
	best, bestD := "", 3
	for _, g := range s.Games.All() {
		if d := editDistance(seg, g.Code); near(seg, g.Code) && d < bestD {
			best, bestD = g.Code, d
		}
	}
	return best
}

func (s Paths) closestResource(seg string) string {
	if r, ok := gameResources[seg]; ok {
		return r
	}
	best, bestD := "", 3
	for word, r := range gameResources {
		if d := editDistance(seg, word); near(seg, word) && (d < bestD || d == bestD && r < best) {
			best, bestD = r, d
		}
	}
	return best
}

// gameOfPath guesses the game of a path without one from a card id in it.
func (s Paths) gameOfPath(segs []string) string {
	games := s.Games.All()
	if len(segs) >= 2 {
		id := segs[len(segs)-1]
		for _, g := range games {
			if catalog.ClassifyCardID(g.Code, id) == catalog.IDCanonical {
				return g.Code
			}
		}
		if len(id) == catalog.CMLen && catalog.IsHex(id) && s.CardGame != nil {
			if code, found := s.CardGame(id); found {
				return code
			}
		}
	}
	if base, ok := s.Games.Base(); ok {
		return base.Code
	}
	if len(games) == 0 {
		return ""
	}
	return games[0].Code
}

// editDistance is the optimal string alignment distance of a and b
// (insertions, deletions, substitutions and transpositions), bytewise.
func editDistance(a, b string) int {
	if a == b {
		return 0
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
