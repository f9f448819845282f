package synth

import (
	"regexp"
	"strings"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
)

// The name keys ingest links products by (internal/ingest/linkkey.go), which
// the generator plants its name cases against: a Cardmarket name meant to
// link carries its TCGplayer product's key, one meant not to carries a key
// no product of the pair has. ingest's tests of synthetic mirrors check that
// the two agree.

var (
	// cmAttacksBracket is the trailing bracket of a Pokémon single's name on
	// Cardmarket ("Alakazam [Damage Swap | Confuse Ray]").
	cmAttacksBracket = regexp.MustCompile(`\s*\[[^\[\]]*\]\s*$`)
	// cmCardNumber is the trailing card number of a One Piece single's name
	// on Cardmarket ("Roronoa Zoro (OP01-001)").
	cmCardNumber = regexp.MustCompile(`\s*\(([A-Z]+[0-9]*-[0-9]+)\)\s*$`)
)

// tcgLinkKey is the linking key of a TCGplayer product of game g.
func tcgLinkKey(g game.Game, p *tcgplayer.Product) string {
	if g.CardmarketNames != game.NameNumbered {
		return fold.Key(p.Name)
	}
	number := extNamed(p, g.Number)
	if number == "" {
		return fold.Key(p.Name)
	}
	return number + "|" + fold.Key(withoutNumberTail(p.Name, number))
}

// withoutNumberTail drops the last part of the card number TCGplayer adds
// to the names of cards a set prints under several numbers ("Jinbe (014)").
func withoutNumberTail(name, number string) string {
	if i := strings.LastIndexByte(number, '-'); i >= 0 {
		return strings.Replace(name, " ("+number[i+1:]+")", "", 1)
	}
	return name
}

// cmLinkKey is the linking key of a Cardmarket product of game g.
func cmLinkKey(g game.Game, name string) string {
	switch g.CardmarketNames {
	case game.NameAttacks:
		return fold.Key(cmAttacksBracket.ReplaceAllString(name, ""))
	case game.NameNumbered:
		if m := cmCardNumber.FindStringSubmatchIndex(name); m != nil {
			return name[m[2]:m[3]] + "|" + fold.Key(name[:m[0]])
		}
	}
	return fold.Key(name)
}

// cmNamePart is a Cardmarket name without what Cardmarket adds to the card's
// name in game g (the attacks bracket, the card number).
func cmNamePart(g game.Game, name string) string {
	switch g.CardmarketNames {
	case game.NameAttacks:
		return cmAttacksBracket.ReplaceAllString(name, "")
	case game.NameNumbered:
		if m := cmCardNumber.FindStringIndex(name); m != nil {
			return name[:m[0]]
		}
	}
	return name
}

// extNamed is the value of the first of names in p's extendedData.
func extNamed(p *tcgplayer.Product, names []string) string {
	for _, n := range names {
		k := game.NormName(n)
		for _, e := range p.ExtendedData {
			if game.NormName(e.Name) == k {
				return strings.TrimSpace(e.Value)
			}
		}
	}
	return ""
}
