// Package sqlrow holds what the SQL stores (store/sqlite, store/postgres) share
// beyond their dialects: checking a catalogue before it is written, the
// catalogue tables and each game's rows as column values (GameRows), and,
// through a Reader each store implements on its driver, the reading of those
// rows back into a catalogue (LoadCatalog), of the price history and of
// accounts and keys. A store keeps its SQL where dialects differ, its
// placeholders, its transactions and how its driver writes rows.
package sqlrow

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
)

// Validate checks what the stores' schemas do not: every row of a game
// catalogue carries its game, game codes are unique, ids and finishes are
// present, and no card prices a finish twice (a day's price point is keyed by
// finish). Duplicate set or card ids are left to the primary keys.
func Validate(games []catalog.GameCatalog) error {
	seen := make(map[string]bool, len(games))
	for gi := range games {
		g := &games[gi]
		if g.Game == "" {
			return errors.New("game catalogue without a game code")
		}
		if seen[g.Game] {
			return fmt.Errorf("game %q given twice", g.Game)
		}
		seen[g.Game] = true
		for i := range g.Sets {
			s := &g.Sets[i]
			if s.Game != g.Game {
				return fmt.Errorf("game %q: set %q has game %q", g.Game, s.ID, s.Game)
			}
			if s.ID == "" {
				return fmt.Errorf("game %q: set %d has no id", g.Game, i)
			}
		}
		for i := range g.Cards {
			if err := validateCard(g.Game, i, &g.Cards[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func validateCard(game string, i int, c *catalog.Card) error {
	if c.Game != game {
		return fmt.Errorf("game %q: card %q has game %q", game, c.ID, c.Game)
	}
	if c.ID == "" {
		return fmt.Errorf("game %q: card %d has no id", game, i)
	}
	for j, p := range c.TCGPrices {
		if p.SubType == "" {
			return fmt.Errorf("card %s: TCGplayer price %d has no finish", c.ID, j)
		}
		for _, q := range c.TCGPrices[:j] {
			if q.SubType == p.SubType {
				return fmt.Errorf("card %s: two TCGplayer prices for finish %q", c.ID, p.SubType)
			}
		}
	}
	for j, p := range c.CMPrices {
		if p.Variant == "" {
			return fmt.Errorf("card %s: Cardmarket price %d has no finish", c.ID, j)
		}
		for _, q := range c.CMPrices[:j] {
			if q.Variant == p.Variant {
				return fmt.Errorf("card %s: two Cardmarket prices for finish %q", c.ID, p.Variant)
			}
		}
	}
	return nil
}

// Day is the UTC day of t, as price points are keyed.
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// DayStart is the start of the UTC day of t.
func DayStart(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// Time is t as the stores keep it: UTC, truncated to the microsecond (the
// precision of PostgreSQL's timestamptz).
func Time(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// String is s as a column value: nil (NULL) for "".
func String(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Int is a marketplace id as a column value: nil (NULL) for 0, which the model
// uses for "none".
func Int(i int) any {
	if i == 0 {
		return nil
	}
	return int64(i)
}

// Money is m as a column value: nil (NULL) when absent, else its cents.
func Money(m catalog.Money) any {
	if !m.OK {
		return nil
	}
	return m.Cents
}

// Games gathers loaded rows into game catalogues.
type Games struct {
	list []catalog.GameCatalog
	last int
}

// Game returns the catalogue of code, adding it when new. The pointer is valid
// until the next call.
func (g *Games) Game(code string) *catalog.GameCatalog {
	if g.last < len(g.list) && g.list[g.last].Game == code {
		return &g.list[g.last]
	}
	for i := range g.list {
		if g.list[i].Game == code {
			g.last = i
			return &g.list[i]
		}
	}
	g.list = append(g.list, catalog.GameCatalog{Game: code})
	g.last = len(g.list) - 1
	return &g.list[g.last]
}

// List returns the catalogues ordered by game code, as the stores' ORDER BY
// game (byte order) does.
func (g *Games) List() []catalog.GameCatalog {
	sort.SliceStable(g.list, func(i, j int) bool { return g.list[i].Game < g.list[j].Game })
	return g.list
}

// Cursor finds the cards of price rows that come in the cards' own order
// (ordered by game, then write order), walking the cards once instead of
// indexing a million ids.
type Cursor struct {
	games []catalog.GameCatalog
	g, c  int
}

// NewCursor walks the cards of games, which must be ordered by game code.
func NewCursor(games []catalog.GameCatalog) *Cursor { return &Cursor{games: games} }

// Card returns the card of a price row. Consecutive rows of one card return
// the same card; a row whose card is not at or after the previous row's card
// is an error.
func (cur *Cursor) Card(game, id string) (*catalog.Card, error) {
	for cur.g < len(cur.games) && cur.games[cur.g].Game < game {
		cur.g++
		cur.c = 0
	}
	if cur.g < len(cur.games) && cur.games[cur.g].Game == game {
		cards := cur.games[cur.g].Cards
		for ; cur.c < len(cards); cur.c++ {
			if cards[cur.c].ID == id {
				return &cards[cur.c], nil
			}
		}
	}
	return nil, fmt.Errorf("price row of card %s/%s: no such card, or rows out of order", game, id)
}

// maxInterned bounds an Interner, in case a column thought to repeat does not.
const maxInterned = 1 << 16

// Interner shares the strings of columns whose values repeat across a million
// rows (game, set id, rarity, finish, ...), so that a loaded catalogue holds
// each value once. The zero value is ready to use.
type Interner struct{ m map[string]string }

// String returns the shared copy of s.
func (in *Interner) String(s string) string {
	if t, ok := in.m[s]; ok {
		return t
	}
	if in.m == nil {
		in.m = make(map[string]string)
	}
	if len(in.m) < maxInterned {
		in.m[s] = s
	}
	return s
}
