package synth

import (
	"math"
	"strings"

	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
	"github.com/cardcat/cardcat/internal/synth/names"
	"github.com/cardcat/cardcat/internal/synth/rng"
)

// Prices are kept in integer cents while they are generated and turned into
// decimals only when written, so that rounding never makes low > market.

// dailyChange is the share of prices that change from one day to the next.
const dailyChange = 0.10

// usdToEUR is the rough exchange rate behind Cardmarket prices derived from
// TCGplayer's.
const usdToEUR = 0.92

// Set trends on Cardmarket: the 7-day average against the 30-day average.
type trend int

const (
	trendStable trend = iota
	trendUp
	trendDown
)

func (t trend) String() string {
	return [...]string{"stable", "up", "down"}[t]
}

// factor7 is a card's avg7/avg30 ratio in a set with trend t.
func (t trend) factor7(r *rng.Stream) float64 {
	switch t {
	case trendUp:
		return r.Uniform(1.12, 1.40)
	case trendDown:
		return r.Uniform(0.68, 0.88)
	}
	return r.Uniform(0.985, 1.015)
}

func cents(usd float64) int64 {
	c := int64(math.Round(usd * 100))
	if c < 1 {
		c = 1
	}
	return c
}

func money(c int64) *float64 {
	f := float64(c) / 100
	return &f
}

// walk applies the day-by-day changes of one price to its day-0 value: on each
// day a price changes with probability dailyChange, by 3% to 25% up or down and
// by at least one cent. The days a price changes are drawn from its own stream
// in order, so day d+1 continues day d, and a price that does not change on a
// day keeps exactly its value. It returns the value on day and the factor of
// the last change (1 when none).
func walk(r *rng.Stream, c int64, day int) (int64, float64) {
	last := 1.0
	for d := r.Geometric(dailyChange); d <= day; d += r.Geometric(dailyChange) {
		f := r.Uniform(1.03, 1.25)
		if r.Chance(0.5) {
			f = 1 / f
		}
		n := int64(math.Round(float64(c) * f))
		if n == c {
			n = c + 1
			if f < 1 && c > 1 {
				n = c - 1
			}
		}
		if n < 1 {
			n = c + 1
		}
		last = float64(n) / float64(c)
		c = n
	}
	return c, last
}

// tcgRow is TCGplayer's price row of one finish on day. market is the day-0
// market price in cents; 0 writes the row with every value null (a finish
// TCGplayer lists without any sale or listing).
func tcgRow(seed uint64, day, productID int, finish string, market int64) tcgplayer.Price {
	row := tcgplayer.Price{ProductID: productID, SubTypeName: finish}
	if market == 0 {
		return row
	}
	basev := rng.New(seed, "tcg-shape:"+finish, productID)
	base := &basev
	lowR := base.Uniform(0.55, 0.97)
	midR := base.Uniform(0.92, 1.35)
	highR := base.Uniform(1.6, 6)
	direct := base.Chance(0.35)
	directR := base.Uniform(0.97, 1.2)

	wr := rng.New(seed, "tcg-walk:"+finish, productID)
	m, _ := walk(&wr, market, day)
	low := min(m, max(1, int64(math.Round(float64(m)*lowR))))
	high := max(m, int64(math.Round(float64(m)*highR)))
	mid := min(high, max(low, int64(math.Round(float64(m)*midR))))
	row.LowPrice, row.MidPrice, row.HighPrice, row.MarketPrice = money(low), money(mid), money(high), money(m)
	if direct {
		row.DirectLowPrice = money(max(low, int64(math.Round(float64(m)*directR))))
	}
	return row
}

// cmFinish is the day-0 level of one Cardmarket finish in euro cents; 0 means
// the finish is unpriced (its fields are null).
type cmFinish int64

// cmGuide is Cardmarket's price guide entry of a product on day.
func cmGuide(seed uint64, day, cmGame, idProduct, idCategory int, normal, foil cmFinish, t trend) cardmarket.PriceGuide {
	g := cardmarket.PriceGuide{IDProduct: idProduct, IDCategory: idCategory}
	if normal > 0 {
		v := cmValues(seed, day, cmGame, idProduct, "normal", int64(normal), t)
		g.Avg, g.Low, g.Trend, g.Avg1, g.Avg7, g.Avg30 = v[0], v[1], v[2], v[3], v[4], v[5]
	}
	if foil > 0 {
		v := cmValues(seed, day, cmGame, idProduct, "foil", int64(foil), t)
		g.AvgFoil, g.LowFoil, g.TrendFoil, g.Avg1Foil, g.Avg7Foil, g.Avg30Foil = v[0], v[1], v[2], v[3], v[4], v[5]
	}
	return g
}

// shapeGuide gives a generated price guide entry of game the shape of the
// game's real rows (shared/data POKEMON.md, ONEPIECE.md): Pokémon's
// avg-holo and low-holo are null; One Piece prices no second finish, yet
// writes "trend-foil": 0.
func shapeGuide(game string, g *cardmarket.PriceGuide) {
	switch game {
	case "pkm":
		g.AvgFoil, g.LowFoil = nil, nil
	case "op":
		zero := 0.0
		g.AvgFoil, g.LowFoil, g.TrendFoil, g.Avg1Foil, g.Avg7Foil, g.Avg30Foil = nil, nil, &zero, nil, nil, nil
	}
}

// cmValues returns avg, low, trend, avg1, avg7, avg30 of one finish. The
// 30-day average is the level; the 7-day average follows the set's trend.
func cmValues(seed uint64, day, cmGame, idProduct int, finish string, level int64, t trend) [6]*float64 {
	basev := rng.New(seed, "cm-shape:"+finish, cmGame, idProduct)
	base := &basev
	avg30 := float64(level)
	avg7 := avg30 * t.factor7(base)
	avg1 := avg7 * base.Uniform(0.85, 1.15)
	trendV := avg7 * base.Uniform(0.95, 1.05)
	avg := avg7 * base.Uniform(0.9, 1.1)
	low := avg * base.Uniform(0.25, 0.8)

	// A change on a later day moves the trend price; the others follow it,
	// the short averages most and avg30 least.
	tc0 := max(2, int64(math.Round(trendV)))
	wr := rng.New(seed, "cm-walk:"+finish, cmGame, idProduct)
	tc, f := walk(&wr, tc0, day)
	total := float64(tc) / float64(tc0)
	avg *= total
	low *= total
	avg1 *= total * f
	avg7 *= 1 + (total-1)*0.4
	avg30 *= 1 + (total-1)*0.1
	c := func(v float64) *float64 { return money(max(2, int64(math.Round(v)))) }
	return [6]*float64{c(avg), c(min(low, avg)), money(tc), c(avg1), c(avg7), c(avg30)}
}

// Market price models: a median by rarity (or by the kind of sealed product),
// spread log-normally.

var mtgRarityMedian = map[string]float64{"C": 0.12, "U": 0.25, "R": 1.1, "M": 4.5, "L": 0.2, "T": 0.3, "S": 1, "P": 2.5}

var pkmRarityMedian = map[string]float64{"Common": 0.6, "Uncommon": 1.2, "Rare": 6, "Holo Rare": 45, "Promo": 3,
	"Double Rare": 2.5, "Ultra Rare": 8, "Illustration Rare": 9, "Special Illustration Rare": 60, "Hyper Rare": 25, "Secret Rare": 30,
	"Art Rare": 5, "Super Rare": 6, "Special Art Rare": 40}

var opRarityMedian = map[string]float64{"C": 0.15, "UC": 0.25, "R": 0.5, "SR": 3, "SEC": 25, "L": 2, "DON!!": 1.5, "P": 2}

var dbsRarityMedian = map[string]float64{
	"Common": 0.1, "Uncommon": 0.18, "Rare": 0.45, "Super Rare": 2.2, "Secret Rare": 35, "Leader": 1.4,
	"Special Rare": 9, "Promo": 1.2, "Starter Rare": 0.6, "Expansion Rare": 3, "Uncommon[UC]": 0.18,
}

// sealedMedian is the market price of a sealed product by what its name says.
func sealedMedian(name string) float64 {
	w := names.WordsOf(name)
	switch {
	case w.Has("master case"):
		return 2400
	case w.Has("case"):
		return 650
	case w.Has("display", "booster box"):
		return 120
	case w.Has("bundle"):
		return 45
	case w.Has("deck"):
		return 38
	case w.Has("tin", "tins"):
		return 24
	case w.Has("kit"):
		return 20
	case w.Has("set of"):
		return 28
	case w.Has("omega", "sample"):
		return 9
	case w.Has("pin"):
		return 15
	case w.Has("pack", "packs"):
		return 5
	}
	return 30
}

// marketUSD draws the day-0 TCGplayer market price of one finish; premium is
// the foil finish of a product that also has a non-foil one.
func marketUSD(seed uint64, game string, it *item, finish string, premium bool) int64 {
	rv := rng.New(seed, "tcg-market:"+finish, it.p.ProductID)
	r := &rv
	if it.kind == kindSealed {
		return cents(r.LogNormal(sealedMedian(it.p.Name), 0.25))
	}
	median := 0.3
	table := map[string]map[string]float64{"mtg": mtgRarityMedian, "pkm": pkmRarityMedian, "op": opRarityMedian}[game]
	if table == nil {
		table = dbsRarityMedian
	}
	if m, ok := table[it.rarity]; ok {
		median = m
	}
	for _, v := range []struct {
		word string
		x    float64
	}{{"Showcase", 1.6}, {"Borderless", 2.2}, {"Extended Art", 1.5}, {"Raised Foil", 3}, {"Super Alternate Art", 40}, {"Alternate Art", 7}} {
		if strings.Contains(it.p.Name, v.word) {
			median *= v.x
			break
		}
	}
	if premium {
		median *= r.Uniform(1.4, 3.5)
	}
	return cents(r.LogNormal(median, 0.6))
}

func isFoilFinish(f string) bool { return f == "Foil" || f == "Holofoil" || f == "Reverse Holofoil" }
