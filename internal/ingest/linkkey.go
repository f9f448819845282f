package ingest

import (
	"regexp"
	"strings"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
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

// tcgKey is the linking key of a TCGplayer product of game g.
func tcgKey(g game.Game, p *tcgplayer.Product) string {
	if g.CardmarketNames != game.NameNumbered {
		return fold.Key(p.Name)
	}
	number := extValue(g.Number, p)
	if number == "" {
		return fold.Key(p.Name)
	}
	name := p.Name
	// TCGplayer repeats the number's last part in the name of cards that
	// share a name ("Jinbe (014)", "Trafalgar Law (002) (Parallel)").
	if i := strings.LastIndexByte(number, '-'); i >= 0 {
		name = strings.Replace(name, " ("+number[i+1:]+")", "", 1)
	}
	return number + "|" + fold.Key(name)
}

// cmKey is the linking key of a Cardmarket product of game g.
func cmKey(g game.Game, p *cardmarket.Product) string {
	switch g.CardmarketNames {
	case game.NameAttacks:
		return fold.Key(cmAttacks.ReplaceAllString(p.Name, ""))
	case game.NameNumbered:
		if m := cmNumber.FindStringSubmatchIndex(p.Name); m != nil {
			return p.Name[m[2]:m[3]] + "|" + fold.Key(p.Name[:m[0]])
		}
	}
	return fold.Key(p.Name)
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
