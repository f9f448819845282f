package ingest

import (
	"regexp"
	"strings"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
)

// The name rule of linking compares a key of each product's name, made the
// same way on both marketplaces. For most games it is the folded name
// (fold.Key); where Cardmarket writes more than the name into it
// (game.NameForm), the key is made of what both marketplaces say.

var (
	// cmAttacks is the trailing bracket of a Pokémon single's name on
	// Cardmarket: its attacks and powers ("Alakazam [Damage Swap | Confuse
	// Ray]"); an earlier bracket is part of the name ("Nidoran [M] [...]").
	cmAttacks = regexp.MustCompile(`\s*\[[^\[\]]*\]\s*$`)
	// cmNumber is the trailing card number of a One Piece single's name on
	// Cardmarket ("Roronoa Zoro (OP01-001)").
	cmNumber = regexp.MustCompile(`\s*\(([A-Z]+[0-9]*-[0-9]+)\)\s*$`)
)

// TCGKey is the linking key of a TCGplayer product of game g (synth plants
// its name cases against it).
func TCGKey(g game.Game, p *tcgplayer.Product) string {
	if g.CardmarketNames != game.NameNumbered {
		return fold.Key(p.Name)
	}
	number := extValue(g.Number, p)
	if number == "" {
		return fold.Key(p.Name)
	}
	return number + "|" + fold.Key(WithoutNumberTail(p.Name, number))
}

// WithoutNumberTail drops the number's last part that TCGplayer repeats in
// the names of cards that share a name ("Jinbe (014)", "Trafalgar Law (002)
// (Parallel)").
func WithoutNumberTail(name, number string) string {
	if i := strings.LastIndexByte(number, '-'); i >= 0 {
		return strings.Replace(name, " ("+number[i+1:]+")", "", 1)
	}
	return name
}

// CMKey is the linking key of a Cardmarket product named name of game g.
func CMKey(g game.Game, name string) string {
	switch g.CardmarketNames {
	case game.NameAttacks:
		return fold.Key(CMNamePart(g, name))
	case game.NameNumbered:
		if m := cmNumber.FindStringSubmatchIndex(name); m != nil {
			return name[m[2]:m[3]] + "|" + fold.Key(name[:m[0]])
		}
	}
	return fold.Key(name)
}

// CMNamePart is a Cardmarket name without what Cardmarket adds to the
// card's name in game g (the attacks bracket, the card number).
func CMNamePart(g game.Game, name string) string {
	switch g.CardmarketNames {
	case game.NameAttacks:
		return cmAttacks.ReplaceAllString(name, "")
	case game.NameNumbered:
		if m := cmNumber.FindStringIndex(name); m != nil {
			return name[:m[0]]
		}
	}
	return name
}

// extValue is the value of the first of names in p's extendedData.
func extValue(names []string, p *tcgplayer.Product) string {
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
