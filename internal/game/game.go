// Package game is the registry of the card games cardcat serves. A game is
// configuration: its path prefix, its marketplace identifiers and how the
// TCGplayer extendedData names map onto the API's card_info fields.
package game

import (
	"strings"
	"unicode"
)

// Game describes one game: what it is called, where its routes are, where
// its data comes from and how it maps onto the API's fields. Everything
// served per game (routes, OpenAPI paths, MCP tools, docs, plans) follows
// from the registry's entries.
type Game struct {
	Code string // card-id prefix and the game's name in the API ("dbs": ids dbs_...)
	Name string
	// Base: the base game, served at unprefixed routes (/sets, /cards/{id});
	// the others are served under /{Code}/. One registry has at most one.
	Base bool
	// Listed: GET /games lists the game (the spec's list has dbs and mtg
	// only; the others are listed by GET / and the docs).
	Listed bool
	// ProPaid: the Pro plan's paid access covers the game's paid endpoints
	// (Ultra, Business and a trial cover every game's).
	ProPaid bool
	// CardImageSizes are the sizes GET .../images/{id} takes as size=
	// (the first is the default) with each one's TCGplayer file suffix; none:
	// the game's images have one size and ignore size.
	CardImageSizes []ImageSize
	// SetImages: GET /sets/{set}/image serves the set's logo (the base game).
	SetImages bool

	// TCGCategories are the TCGplayer categoryIds whose groups are this game's sets.
	TCGCategories []int
	// TCGLanguages is the language of each category's sets (a short code);
	// a category not in it is "en".
	TCGLanguages map[int]string
	// CardmarketGame is Cardmarket's idGame.
	CardmarketGame int
	// CardmarketSlug is the game's segment in Cardmarket product URLs.
	CardmarketSlug string
	// CardmarketFoil is the suffix of the price guide's second finish
	// ("avg-foil"); "" means "foil". Pokémon's files say "holo".
	CardmarketFoil string
	// CardmarketNames is how Cardmarket writes a single's name in this game,
	// which the name rule of linking reads.
	CardmarketNames NameForm
	// SetLinks is the mirror path of a CSV pairing TCGplayer groups with
	// Cardmarket expansions (columns tcgplayer_group_id and
	// cardmarket_id_expansion, as TCGdex's sets.csv); "" for none.
	SetLinks string
	// SealedLinks is the mirror directory of MTGJSON's sealed-content files
	// ({SET}.json: tcgplayerProductId ↔ mcmId per sealed product), read
	// for the game's set codes; "" for none.
	SealedLinks string

	// CardText, CardType, Rarity and Number list the extendedData names that
	// fill the common card_info fields, first match wins.
	CardText []string
	CardType []string
	Rarity   []string
	Number   []string
	// Extra are the game-specific card_info fields, in output order.
	Extra []Field
}

// NameForm is how Cardmarket writes the names of a game's singles.
type NameForm int

const (
	// NamePlain: the card's name, as TCGplayer writes it give or take
	// punctuation and case.
	NamePlain NameForm = iota
	// NameAttacks: the name, then the card's attacks and powers in
	// brackets ("Alakazam [Damage Swap | Confuse Ray]"), which tell
	// printings apart; the brackets are not part of the name.
	NameAttacks
	// NameNumbered: the name, then the card number in parentheses
	// ("Roronoa Zoro (OP01-001)"), where TCGplayer puts the number in
	// extendedData and sometimes its last digits in the name ("(001)").
	NameNumbered
)

// FoilSuffix is the suffix of the price guide's second finish.
func (g Game) FoilSuffix() string {
	if g.CardmarketFoil == "" {
		return "foil"
	}
	return g.CardmarketFoil
}

// Field maps extendedData names onto one snake_case card_info key.
type Field struct {
	Key   string   // card_info key, snake_case
	Names []string // extendedData names; compared with NormName
	// List: the field is an array of every name's value, in Names order
	// (Pokémon's "Attack 1", "Attack 2", ...), not the first one's value.
	List bool
}

// ImageSize is one size of a game's card images.
type ImageSize struct {
	Name   string // the size= value ("low")
	Suffix string // TCGplayer's file name suffix ("400w": {productId}_400w.jpg)
}

// Language is the language of the sets of a TCGplayer category.
func (g Game) Language(category int) string {
	if l, ok := g.TCGLanguages[category]; ok {
		return l
	}
	return "en"
}

// PathPrefix is what the game's routes start with: "" for the base game,
// "/dbs" for the others.
func (g Game) PathPrefix() string {
	if g.Base {
		return ""
	}
	return "/" + g.Code
}

// IDPrefix is the prefix of the game's card ids ("dbs_").
func (g Game) IDPrefix() string { return g.Code + "_" }

// HasCategory reports whether a TCGplayer category belongs to the game.
func (g Game) HasCategory(id int) bool {
	for _, c := range g.TCGCategories {
		if c == id {
			return true
		}
	}
	return false
}

// NormName folds an extendedData name for matching: lower case, letters and
// digits only, so "Combo Power", "ComboPower" and "combo_power" are equal.
func NormName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// Registry holds the configured games in a fixed order.
type Registry struct {
	games []Game
}

// NewRegistry returns a registry of the given games.
func NewRegistry(games ...Game) *Registry { return &Registry{games: games} }

// All returns the games in registry order.
func (r *Registry) All() []Game { return r.games }

// Base returns the base game (served at unprefixed routes), if any.
func (r *Registry) Base() (Game, bool) {
	for _, g := range r.games {
		if g.Base {
			return g, true
		}
	}
	return Game{}, false
}

// Get returns the game with the code.
func (r *Registry) Get(code string) (Game, bool) {
	for _, g := range r.games {
		if g.Code == code {
			return g, true
		}
	}
	return Game{}, false
}

// Default is cardcat's registry: Dragon Ball Super (Masters and Fusion
// World) and Magic: The Gathering, the two games GET /games lists; Pokémon,
// the base game at unprefixed routes; One Piece under /op.
func Default() *Registry {
	return NewRegistry(DragonBallSuper(), Magic(), Pokemon(), OnePiece())
}

// Mirrored is every game whose upstream files a mirror carries: Default's.
func Mirrored() *Registry { return Default() }

func fields(keys ...string) []Field {
	fs := make([]Field, len(keys))
	for i, k := range keys {
		fs[i] = Field{Key: k, Names: []string{k}}
	}
	return fs
}

// DragonBallSuper spans TCGplayer's Masters (27) and Fusion World (80)
// categories; Cardmarket sells both as game 13.
func DragonBallSuper() Game {
	g := Game{
		Code:           "dbs",
		Name:           "Dragon Ball Super Card Game",
		Listed:         true,
		TCGCategories:  []int{27, 80},
		CardmarketGame: 13,
		CardmarketSlug: "DragonBallSuper",
		CardText:       []string{"Description"},
		CardType:       []string{"CardType"},
		Rarity:         []string{"Rarity"},
		Number:         []string{"Number"},
		Extra: fields("color", "power", "combo_power", "energy_color_cost", "character", "era",
			"special_trait", "combo_energy", "character_traits", "cost", "publisher_disclaimer",
			"z_energy_cost", "gtin"),
	}
	return g
}

// Magic is Magic: The Gathering, TCGplayer category 1, Cardmarket game 1.
func Magic() Game {
	g := Game{
		Code:           "mtg",
		Name:           "Magic: The Gathering",
		Listed:         true,
		TCGCategories:  []int{1},
		CardmarketGame: 1,
		CardmarketSlug: "Magic",
		SealedLinks:    "links/mtg-sealed-content",
		CardText:       []string{"OracleText", "Description"},
		CardType:       []string{"CardType"},
		Rarity:         []string{"Rarity"},
		Number:         []string{"Number"},
		Extra:          fields("sub_type", "flavor_text", "p", "t", "upc"),
	}
	return g
}

// Pokemon is the base game: TCGplayer's English (3) and Japanese (85)
// categories, Cardmarket game 6.
func Pokemon() Game {
	return Game{
		Code:            "pkm",
		Name:            "Pokémon Trading Card Game",
		Base:            true,
		ProPaid:         true,
		SetImages:       true,
		CardImageSizes:  []ImageSize{{Name: "low", Suffix: "400w"}, {Name: "high", Suffix: "in_1000x1000"}},
		TCGCategories:   []int{3, 85},
		TCGLanguages:    map[int]string{3: "en", 85: "ja"},
		CardmarketGame:  6,
		CardmarketSlug:  "Pokemon",
		CardmarketFoil:  "holo",
		CardmarketNames: NameAttacks,
		SetLinks:        "links/pokemon-tcgdex/sets.csv",
		CardText:        []string{"CardText"},
		CardType:        []string{"CardType"},
		Rarity:          []string{"Rarity"},
		Number:          []string{"Number"},
		Extra: []Field{{Key: "hp", Names: []string{"HP"}}, {Key: "stage", Names: []string{"Stage"}},
			{Key: "attacks", Names: []string{"Attack 1", "Attack 2", "Attack 3", "Attack 4"}, List: true},
			{Key: "weakness", Names: []string{"Weakness"}}, {Key: "resistance", Names: []string{"Resistance"}},
			{Key: "retreat_cost", Names: []string{"RetreatCost"}}},
	}
}

// OnePiece is the One Piece Card Game: TCGplayer category 68, Cardmarket
// game 18.
func OnePiece() Game {
	return Game{
		Code:            "op",
		Name:            "One Piece Card Game",
		ProPaid:         true,
		TCGCategories:   []int{68},
		CardmarketGame:  18,
		CardmarketSlug:  "OnePiece",
		CardmarketNames: NameNumbered,
		CardText:        []string{"Description"},
		CardType:        []string{"CardType"},
		Rarity:          []string{"Rarity"},
		Number:          []string{"Number"},
		Extra: []Field{{Key: "color", Names: []string{"Color"}}, {Key: "cost", Names: []string{"Cost"}},
			{Key: "power", Names: []string{"Power"}}, {Key: "life", Names: []string{"Life"}},
			{Key: "counter", Names: []string{"Counterplus"}}, {Key: "sub_types", Names: []string{"Subtypes"}},
			{Key: "attribute", Names: []string{"Attribute"}}},
	}
}
