package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	_ "modernc.org/sqlite" // the driver cardcat's store uses

	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// storeCard is what the workload needs of one card of the store.
type storeCard struct {
	game, id, name, number string
}

// storeSet is a set and how many products it lists.
type storeSet struct {
	game, id string
	products int
}

// readStore reads the ids, names and numbers of every card and the size of
// every set from the catalogue file of cardcat's SQLite store at dbPath,
// read-only.
func readStore(ctx context.Context, dbPath string) ([]storeCard, []storeSet, error) {
	dbPath = sqlite.CataloguePath(dbPath)
	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT game, id, coalesce(name, ''), coalesce(card_number, '') FROM cards ORDER BY game, ordinal`)
	if err != nil {
		return nil, nil, fmt.Errorf("reading cards of %s: %w", dbPath, err)
	}
	var cards []storeCard
	for rows.Next() {
		var c storeCard
		if err := rows.Scan(&c.game, &c.id, &c.name, &c.number); err != nil {
			rows.Close()
			return nil, nil, err
		}
		cards = append(cards, c)
	}
	if err := rows.Close(); err != nil {
		return nil, nil, err
	}
	rows, err = db.QueryContext(ctx, `SELECT game, set_id, count(*) FROM cards GROUP BY game, set_id ORDER BY game, set_id`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var sets []storeSet
	for rows.Next() {
		var s storeSet
		if err := rows.Scan(&s.game, &s.id, &s.products); err != nil {
			return nil, nil, err
		}
		sets = append(sets, s)
	}
	if len(cards) == 0 {
		return nil, nil, fmt.Errorf("%s holds no cards", dbPath)
	}
	return cards, sets, rows.Err()
}

// query is one search of the mix.
type query struct {
	Game, Text, Kind string
}

// The kinds of the query mix, in the order the mix cycles through them.
var queryKinds = []string{"one word", "two words", "two words reversed", "2-char prefix", "card number", "miss"}

// workload is every request list of the load runs, drawn from the store.
type workload struct {
	cardPaths  []string // random cards over the whole catalogue, both games
	setPages   []string // full pages of 50 of every set that has one
	widePages  []string // the first page of 200 of the sets that have one (the wire ratio)
	paidPaths  []string // set statistics of every set
	notFound   []string // well-formed card ids that no card has
	queries    []query
	queryPaths []string
}

// maxCardPaths bounds the card list given to wrk: a random sample of the
// whole catalogue, large enough that the answers never fit a CPU cache.
const maxCardPaths = 200_000

func newWorkload(cards []storeCard, sets []storeSet, nQueries int, seed uint64) *workload {
	rng := rand.New(rand.NewPCG(seed, 7))
	w := &workload{}

	ids := make(map[string]bool, len(cards))
	for _, c := range cards {
		ids[c.id] = true
	}
	perm := rng.Perm(len(cards))
	for _, i := range perm[:min(len(perm), maxCardPaths)] {
		w.cardPaths = append(w.cardPaths, gamePath(cards[i].game)+"/cards/"+cards[i].id)
	}
	for len(w.notFound) < 1000 {
		g := cards[rng.IntN(len(cards))].game
		id := fmt.Sprintf("%s_%016x", g, rng.Uint64())
		if !ids[id] {
			w.notFound = append(w.notFound, gamePath(g)+"/cards/"+id)
		}
	}
	for _, s := range sets {
		w.paidPaths = append(w.paidPaths, gamePath(s.game)+"/sets/"+url.PathEscape(s.id)+"/statistics")
		for p := 1; p*50 <= s.products; p++ {
			w.setPages = append(w.setPages, gamePath(s.game)+"/sets/"+url.PathEscape(s.id)+"?page="+strconv.Itoa(p)+"&limit=50")
		}
		if s.products >= widePageCards && len(w.widePages) < maxWidePages {
			w.widePages = append(w.widePages, gamePath(s.game)+"/sets/"+url.PathEscape(s.id)+"?limit="+strconv.Itoa(widePageCards))
		}
	}
	w.queries = queryMix(cards, nQueries, rng)
	for _, q := range w.queries {
		w.queryPaths = append(w.queryPaths, gamePath(q.Game)+"/search?q="+url.QueryEscape(q.Text))
	}
	return w
}

// queryMix draws n searches from the catalogue's own names and numbers, as
// people type them, cycling through queryKinds: one word of a name; two
// neighbouring words of a name, in their order or reversed; the first two
// letters of a word; a card's number; and a miss (a name's word behind
// letters no name has). Each search is of the game of the card it was drawn
// from, so both games are searched in proportion to their size.
func queryMix(cards []storeCard, n int, rng *rand.Rand) []query {
	var qs []query
	for tries := 0; len(qs) < n && tries < 100*n; tries++ {
		c := cards[rng.IntN(len(cards))]
		words := nameWords(c.name)
		kind := queryKinds[len(qs)%len(queryKinds)]
		text := ""
		switch kind {
		case "one word":
			if w := pick(rng, words, 3); w != "" {
				text = w
			}
		case "two words", "two words reversed":
			if len(words) >= 2 {
				i := rng.IntN(len(words) - 1)
				a, b := words[i], words[i+1]
				if kind == "two words reversed" {
					a, b = b, a
				}
				text = a + " " + b
			}
		case "2-char prefix":
			if w := pick(rng, words, 2); w != "" {
				r := []rune(w)
				text = string(r[:2])
			}
		case "card number":
			text = c.number
		case "miss":
			if w := pick(rng, words, 3); w != "" {
				text = "zqx" + strings.ToLower(w)
			}
		}
		if utf8.RuneCountInString(text) >= 2 {
			qs = append(qs, query{Game: c.game, Text: text, Kind: kind})
		}
	}
	return qs
}

// nameWords splits a name into words of letters and digits (punctuation
// around them dropped, as a person would not type it).
func nameWords(name string) []string {
	var words []string
	for _, f := range strings.Fields(name) {
		f = strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if f != "" {
			words = append(words, f)
		}
	}
	return words
}

// pick returns a random word of at least minRunes letters and digits, "" when none.
func pick(rng *rand.Rand, words []string, minRunes int) string {
	var ok []string
	for _, w := range words {
		if utf8.RuneCountInString(w) >= minRunes {
			ok = append(ok, w)
		}
	}
	if len(ok) == 0 {
		return ""
	}
	return ok[rng.IntN(len(ok))]
}

// writeLines writes one path per line.
func writeLines(path string, lines []string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// gamePath is the path prefix of a game's routes: "/dbs", or "" for the
// base game (its routes are unprefixed).
func gamePath(code string) string {
	if g, ok := game.Default().Get(code); ok {
		return g.PathPrefix()
	}
	return "/" + code
}
