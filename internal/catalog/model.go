// Package catalog holds cardcat's domain model: the normalised, linked
// catalogue of one game (sets, cards, prices) as ingest produces it and the
// store keeps it, and the immutable in-memory snapshot the API serves.
package catalog

import (
	"math"
	"strconv"
	"time"
)

// Product types of card_info.product_type; "" means null (undetermined).
const (
	ProductCard   = "card"
	ProductSealed = "sealed"
)

// Cardmarket finishes (market_c variant_type).
const (
	CMNormal = "normal"
	CMFoil   = "foil"
)

// How a card's TCGplayer and Cardmarket products were linked (market_c.match),
// so that a caller can tell a vouched-for link from a name guess.
const (
	MatchMTGJSON  = "mtgjson"  // MTGJSON's identifiers (sealed content)
	MatchOperator = "operator" // the operator's links/links.csv
	MatchName     = "name"     // the name rule inside a matched expansion
	// MatchNameSetPair: the name rule inside an expansion that an explicit set
	// pair (TCGdex's, for Pokémon) matched to the TCGplayer group.
	MatchNameSetPair = "name_set_pair"
)

// Money is an amount in cents of the price's currency. Prices are kept and
// summed in integer cents so that sums never drift; OK is false for a null.
type Money struct {
	Cents int64
	OK    bool
}

// Cents returns a present amount.
func Cents(c int64) Money { return Money{Cents: c, OK: true} }

// MoneyFromFloat rounds an upstream decimal to cents. NaN and infinities are null.
func MoneyFromFloat(f float64) Money {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Money{}
	}
	return Money{Cents: int64(math.Round(f * 100)), OK: true}
}

// MoneyFromPtr converts an optional upstream decimal.
func MoneyFromPtr(f *float64) Money {
	if f == nil {
		return Money{}
	}
	return MoneyFromFloat(*f)
}

// Float returns the amount as a decimal number.
func (m Money) Float() float64 { return float64(m.Cents) / 100 }

// AppendJSON appends the amount as a JSON number ("12.5", "0.03") or null.
func (m Money) AppendJSON(b []byte) []byte {
	if !m.OK {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, m.Float(), 'f', -1, 64)
}

// Set is one set of a game: a TCGplayer group, or a Cardmarket expansion that
// no TCGplayer group matches (then ID is "-" + idExpansion).
type Set struct {
	Game          string
	ID            string
	Code          string // "" = null
	Name          string
	Language      string // "" = null
	ReleaseDate   string // "YYYY-MM-DDTHH:MM:SS", "" = null
	TCGCategoryID int    // 0 for a Cardmarket-only set
	TCGGroupID    int    // 0 for a Cardmarket-only set
	CMExpansionID int    // 0 when no Cardmarket expansion is matched
}

// CardmarketOnly reports whether the set exists only on Cardmarket.
func (s *Set) CardmarketOnly() bool { return s.TCGGroupID == 0 }

// ExtraField is one game-specific card_info field.
type ExtraField struct {
	Key   string
	Value string
}

// Card is one product: a card or a sealed product. Its finishes are one card.
type Card struct {
	Game string
	// ID is the canonical id: "{game}_" + hex for a card with a TCGplayer
	// product, else the 64-hex Cardmarket id.
	ID string
	// CMID is the 64-hex Cardmarket id when the card has a Cardmarket product.
	CMID  string
	SetID string

	TCGProductID int // 0 when not on TCGplayer
	CMProductID  int // 0 when not on Cardmarket

	Name        string
	CleanName   string
	CardNumber  string // "" = null
	Rarity      string // "" = null
	CardType    string // "" = null
	ProductType string // ProductCard, ProductSealed or "" (null)
	CardText    string // "" = null; upstream HTML kept
	Extra       []ExtraField
	// Variants are the finishes TCGplayer prices, in upstream order.
	Variants   []string
	ImageCount int

	TCGURL        string // TCGplayer product page
	CMProductName string // Cardmarket product name ("" when not on Cardmarket)
	CMProductURL  string // "" when unknown
	// CMMatch is how the card's two products were linked (MatchMTGJSON,
	// MatchOperator, MatchName); "" when the card is on one marketplace only.
	CMMatch string

	TCGPrices []TCGPrice
	CMPrices  []CMPrice
}

// OnTCG reports whether the card has a TCGplayer product.
func (c *Card) OnTCG() bool { return c.TCGProductID != 0 }

// OnCM reports whether the card has a Cardmarket product.
func (c *Card) OnCM() bool { return c.CMProductID != 0 }

// TCGPrice is TCGplayer's USD price of one finish.
type TCGPrice struct {
	SubType   string // finish: Normal, Foil, Holofoil, ...
	Low       Money
	Mid       Money
	High      Money
	Market    Money
	DirectLow Money
	UpdatedAt time.Time // when the values last changed
}

// SameValues reports whether two prices carry the same values.
func (p TCGPrice) SameValues(q TCGPrice) bool {
	return p.SubType == q.SubType && p.Low == q.Low && p.Mid == q.Mid && p.High == q.High &&
		p.Market == q.Market && p.DirectLow == q.DirectLow
}

// CMPrice is Cardmarket's EUR price guide of one finish.
type CMPrice struct {
	Variant   string // CMNormal or CMFoil
	Avg       Money
	Low       Money
	Trend     Money
	Avg1      Money
	Avg7      Money
	Avg30     Money
	UpdatedAt time.Time // when the values last changed
}

// SameValues reports whether two prices carry the same values.
func (p CMPrice) SameValues(q CMPrice) bool {
	return p.Variant == q.Variant && p.Avg == q.Avg && p.Low == q.Low && p.Trend == q.Trend &&
		p.Avg1 == q.Avg1 && p.Avg7 == q.Avg7 && p.Avg30 == q.Avg30
}

// Empty reports whether the price carries no value at all (an unpriced finish).
func (p CMPrice) Empty() bool {
	return !p.Avg.OK && !p.Low.OK && !p.Trend.OK && !p.Avg1.OK && !p.Avg7.OK && !p.Avg30.OK
}

// GameCatalog is the whole catalogue of one game at one version.
type GameCatalog struct {
	Game  string
	Sets  []Set
	Cards []Card
}

// Catalog is every game's catalogue at one version, as the store loads it.
type Catalog struct {
	Version   int64
	CreatedAt time.Time
	Games     []GameCatalog
}

// Game returns the catalogue of one game, or nil.
func (c *Catalog) Game(code string) *GameCatalog {
	for i := range c.Games {
		if c.Games[i].Game == code {
			return &c.Games[i]
		}
	}
	return nil
}
