// Package names holds the word lists and name makers of synth's generated
// catalogues, per game, and the rules of names both marketplaces share: the
// words a product name says (Words) and the cosmetic variations that keep a
// name's linking key (CosmeticVariant). The lists are mixed so that search
// load tests see names like the real ones: several words, commas ("Mabel,
// Heir to Cragflame"), apostrophes in both spellings, accented letters, the
// odd quoted word, and the same words again in many names.
package names

import (
	"strings"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/synth/rng"
)

// Promo names, for the Cardmarket-only expansions, use words no TCGplayer
// name uses, so that those expansions share no name with any group.
var promoFirst = []string{"Celebrated", "Victorious", "Laureled", "Champion's", "Gilt-Edged", "Heraldic", "Triumphant", "Storied"}
var promoSecond = []string{"Banner", "Trophy", "Laurel", "Standard", "Pennant", "Medallion", "Crest", "Regalia"}
var promoTitles = []string{"Tournament Champion", "Judge's Choice", "Victory Pose", "Championship Winner", "Store Battle Hero", "Finalist"}

func PromoName(r *rng.Stream, game string) string {
	switch game {
	case "dbs":
		return rng.Pick(r, DBSCharacters) + ", " + rng.Pick(r, promoTitles)
	case "pkm":
		return rng.Pick(r, pkmPromoFirst) + " " + rng.Pick(r, PkmSpecies).Name
	case "op":
		return rng.Pick(r, OPCharacters) // with a promo number of its own
	}
	return rng.Pick(r, promoFirst) + " " + rng.Pick(r, promoSecond) + " of " + rng.Pick(r, []string{"Valor", "Glory", "Triumph", "the Season", "the Finals"})
}

// SetName returns a set name from the game's lists.
func SetName(r *rng.Stream, first, second []string) string {
	return rng.Pick(r, first) + " " + rng.Pick(r, second)
}

// Words is a name in fold.Key form padded with spaces, to look for whole
// words ("tin" but not the "tin" of "Destiny").
type Words string

func WordsOf(name string) Words { return Words(" " + fold.Key(name) + " ") }

// Has reports whether any of ws (words or phrases) occurs in w.
func (w Words) Has(ws ...string) bool {
	for _, x := range ws {
		if strings.Contains(string(w), " "+x+" ") {
			return true
		}
	}
	return false
}

// Cosmetic variations: how a Cardmarket name can differ from TCGplayer's and
// still be the same name once normalised for linking (fold.Key, cardcat's
// own rule). Each returns "" when it does not apply to the name.
var Cosmetics = []struct {
	Kind  string
	Apply func(string) string
}{
	{"case", func(s string) string {
		if l := strings.ToLower(s); l != s {
			return l
		}
		if u := strings.ToUpper(s); u != s {
			return u
		}
		return ""
	}},
	{"dash", func(s string) string {
		if strings.Contains(s, " - ") {
			return strings.Replace(s, " - ", " ", 1)
		}
		return ""
	}},
	{"apostrophe", func(s string) string {
		switch {
		case strings.Contains(s, "'"):
			return strings.Replace(s, "'", "’", 1)
		case strings.Contains(s, "’"):
			return strings.Replace(s, "’", "'", 1)
		}
		return ""
	}},
	{"whitespace", func(s string) string {
		if strings.Contains(s, " ") {
			return strings.Replace(s, " ", "  ", 1) + " "
		}
		return ""
	}},
	{"punctuation", func(s string) string {
		for _, p := range []string{", ", ": ", "!", ". "} {
			if strings.Contains(s, p) {
				return strings.Replace(s, p, strings.TrimLeft(p, ",:!."), 1)
			}
		}
		return ""
	}},
	{"colon", func(s string) string {
		if strings.Contains(s, ": ") {
			return strings.Replace(s, ": ", " - ", 1)
		}
		return ""
	}},
	{"accent", func(s string) string {
		if v := Unaccent.Replace(s); v != s {
			return v
		}
		return ""
	}},
}

// Unaccent drops the accents of the accented letters the word lists use.
var Unaccent = strings.NewReplacer("é", "e", "É", "E", "ó", "o", "ö", "o", "Ö", "O", "û", "u", "ü", "u", "ë", "e", "ï", "i", "ñ", "n", "Ñ", "N", "á", "a", "à", "a")

// CosmeticVariant returns a variation of name that keeps its fold.Key, and its
// kind: of the kinds that apply, the one used least so far according to used
// (which it updates), so that every kind occurs; with used nil, the first.
func CosmeticVariant(name string, used map[string]int) (string, string) {
	best, kind := "", ""
	for _, c := range Cosmetics {
		v := c.Apply(name)
		if v == "" || v == name || fold.Key(v) != fold.Key(name) {
			continue
		}
		if kind == "" || used[c.Kind] < used[kind] {
			best, kind = v, c.Kind
		}
	}
	if kind == "" {
		return name, ""
	}
	if used != nil {
		used[kind]++
	}
	return best, kind
}
