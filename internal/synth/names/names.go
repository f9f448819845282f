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

var MTGAdjectives = []string{
	"Ember", "Verdant", "Hollow", "Gilded", "Ashen", "Thorn", "Storm", "Moon", "Silver", "Grim",
	"Brave", "Sunlit", "Mossy", "Frost", "Wild", "Quiet", "Feral", "Radiant", "Twilight", "Iron",
	"Copper", "Bramble", "Misty", "Stone", "Golden", "Shadow", "Crimson", "Azure", "Dusk", "Dawn",
	"Clever", "Hungry", "Ancient", "Restless", "Gentle", "Burning", "Drowned", "Veiled", "Sacred", "Wary",
}

var MTGCreatures = []string{
	"Fox", "Wolf", "Drake", "Heron", "Otter", "Mouse", "Toad", "Bat", "Raccoon", "Squirrel",
	"Lizard", "Rabbit", "Hydra", "Sphinx", "Golem", "Badger", "Owl", "Weasel", "Stag", "Boar",
	"Elk", "Lynx", "Salamander", "Wurm", "Griffin", "Kraken", "Phoenix", "Basilisk", "Beetle", "Crane",
}

var mtgRoles = []string{
	"Warrior", "Sentry", "Seer", "Mage", "Scout", "Captain", "Druid", "Rogue", "Knight", "Bard",
	"Alchemist", "Warden", "Forager", "Duelist", "Harbinger", "Artificer", "Shaman", "Archer", "Pilgrim", "Tinkerer",
}

var mtgSpells = []string{
	"Bolt", "Ward", "Reprisal", "Harvest", "Rebuke", "Growth", "Insight", "Feast", "Vow", "Strike",
	"Blessing", "Gambit", "Rally", "Requiem", "Downpour", "Uprising", "Talent", "Mettle", "Truce", "Reckoning",
}

var MTGPlaces = []string{
	"Vale", "Hollow", "Spire", "Thicket", "Marsh", "Keep", "Bastion", "Grove", "Burrow", "Crossing",
	"Ridge", "Harbor", "Sanctum", "Glade", "Fen", "Citadel", "Orchard", "Warren", "Cavern", "Meadow",
}

// people carry the accented letters and the apostrophes of the catalogue.
var MTGPeople = []string{
	"Éowyn", "Lórien", "Ærin", "Ödmund", "Séverine", "Zoë", "Björn", "Anaïs", "Ñalia", "Dûnan",
	"Théoden", "Mabel", "Finneas", "Camellia", "Vren", "Alania", "Kastral", "Muerra", "Clement", "Lumra",
	"Ral", "Glarb", "Helga", "Jötun", "D'Avenant", "O'Malley", "Niamh", "Søren", "Aurélie", "Ilyana",
}

var MTGTitles = []string{
	"Heir to the Storm", "the Relentless", "Ace Archer", "Bellow of the Woods", "the Seedmiser",
	"Trash Tactician", "Divergent Storm", "the Windcrested", "Crackling Wit", "the Worrywort",
	"Keeper of the Vale", "Warden of Thorns", "Voice of the Burrow", "the Unbowed", "Last of the Guard",
}

var MTGSubtypes = []string{
	"Creature — Fox Warrior", "Creature — Rabbit Soldier", "Creature — Bat Warlock", "Creature — Otter Wizard",
	"Creature — Mouse Soldier", "Creature — Lizard Rogue", "Creature — Frog Druid", "Creature — Squirrel Warlock",
	"Legendary Creature — Rabbit Archer", "Legendary Creature — Mouse Soldier",
}

var MTGSpellTypes = []string{"Instant", "Sorcery", "Enchantment", "Artifact", "Enchantment — Class", "Artifact — Equipment"}

var BasicLands = []string{"Plains", "Island", "Swamp", "Mountain", "Forest"}

var MTGSetFirst = []string{
	"Ember", "Verdant", "Hollow", "Gilded", "Ashen", "Storm", "Moon", "Silver", "Frost", "Twilight",
	"Crimson", "Azure", "Shadow", "Golden", "Bramble", "Iron", "Sunken", "Shattered", "Lórien", "Eldritch",
}

var MTGSetSecond = []string{
	"Reaches", "Vale", "Crossing", "Uprising", "Dominion", "Rising", "Horizons", "Legacy", "Tides", "Burrows",
	"Thrones", "Echoes", "Frontier", "Awakening", "Depths", "Harvest", "Covenant", "Requiem", "Reckoning", "Spires",
}

var DBSCharacters = []string{
	"Son Goku", "Vegeta", "Piccolo", "Son Gohan", "Trunks", "Frieza", "Cell", "Majin Buu", "Beerus", "Whis",
	"Krillin", "Android 17", "Android 18", "Bulma", "Broly", "Son Goten", "Videl", "Pan", "Jiren", "Hit",
	"Zamasu", "Goku Black", "Master Roshi", "Tien Shinhan", "Yamcha", "Cooler", "Gogeta", "Vegito", "Kale", "Caulifla",
	"Cabba", "Toppo", "Dyspo", "Dr. Gero", "Bardock", "Raditz", "Nappa", "Ginyu", "Zarbon", "Chi-Chi",
	"Mr. Satan", "Android 21", "Gotenks", "Uub", "Kibito", "Supreme Kai", "Hercule", "Dende", "Nail", "King Kai",
}

// dbsQualifiers are Fusion World's " : " forms ("Son Gohan : Childhood").
var dbsQualifiers = []string{"Childhood", "Future", "Youth", "GT", "Mini", "Teen", "Adult", "Xeno"}

var DBSEpithets = []string{
	"Awakened", "Prideful Warrior", "Unyielding Spirit", "the Strongest in the Universe", "Limit Breaker",
	"Hope of the Future", "Galactic Tyrant", "Destroyer of Worlds", "Saiyan's Pride", "Peerless Fighter",
	"Full Power", "Mastered Ultra Instinct", "Evil's Resurgence", "Fierce Guardian", "Rival's Resolve",
}

var DBSTechniques = []string{
	"Kamehameha", "Final Flash", "Spirit Bomb", "Destructo Disc", "Galick Gun", "Special Beam Cannon",
	"Big Bang Attack", "Masenko", "Death Ball", "Solar Flare", "Instant Transmission", "Burning Attack",
	"Tri-Beam", "Wolf Fang Fist", "Hakai", "Energy Absorption",
}

var DBSTraits = []string{
	"Saiyan", "Universe 7", "Earthling", "Namekian", "Android", "Frieza’s Army", "Majin", "God", "Angel",
	"Universe 6", "Universe 11", "Pride Troopers", "Ginyu Force", "Red Ribbon Army", "Z Fighters",
}

var DBSEras = []string{
	"Saiyan Saga", "Frieza Saga", "Android Saga", "Cell Saga", "Majin Buu Saga", "Universe Survival Saga",
	"Future Trunks Saga", "GT Saga", "Broly Saga", "Galactic Patrol Prisoner Saga",
}

var DBSSetFirst = []string{
	"Awakened", "Raging", "Blazing", "Ultimate", "Fearsome", "Saiyan's", "Dual", "Cross", "Mythic", "Infinite",
	"Vicious", "Supreme", "Wild", "Galactic", "Divine", "Unbound", "Realm of", "Clash of", "Beyond", "Legend of",
}

var DBSSetSecond = []string{
	"Pulse", "Roar", "Aura", "Advent", "Rivals", "Pride", "Evolution", "Force", "Booster", "Strike",
	"Resurgence", "Fighters", "Gods", "Warriors", "Destiny", "Ambition", "Power", "Battle", "Dimension", "Instinct",
}

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

var Colours = []string{"Red", "Blue", "Green", "Yellow", "Black"}
var ColourLetter = map[string]string{"Red": "R", "Blue": "U", "Green": "G", "Yellow": "Y", "Black": "B"}

// MTGCardName returns a new Magic card name and whether it is legendary.
func MTGCardName(r *rng.Stream) (name string, legendary bool) {
	switch k := r.Intn(20); {
	case k < 7:
		return rng.Pick(r, MTGAdjectives) + " " + rng.Pick(r, MTGCreatures) + " " + rng.Pick(r, mtgRoles), false
	case k < 10:
		return rng.Pick(r, MTGAdjectives) + " " + rng.Pick(r, mtgSpells), false
	case k < 12:
		return rng.Pick(r, mtgSpells) + " of the " + rng.Pick(r, MTGAdjectives) + " " + rng.Pick(r, MTGPlaces), false
	case k < 15:
		return rng.Pick(r, MTGPeople) + ", " + rng.Pick(r, MTGTitles), true
	case k < 17:
		// Half of the possessives use the typographic apostrophe.
		apos := "'"
		if r.Chance(0.5) {
			apos = "’"
		}
		return rng.Pick(r, MTGPeople) + apos + "s " + rng.Pick(r, mtgSpells), false
	case k < 19:
		return rng.Pick(r, MTGAdjectives) + " " + rng.Pick(r, MTGPlaces), false
	default:
		return "\"" + rng.Pick(r, MTGAdjectives) + "\" " + rng.Pick(r, MTGCreatures) + " " + rng.Pick(r, mtgRoles), false
	}
}

// DBSCharacterName returns a character, sometimes with a Fusion World qualifier.
func DBSCharacterName(r *rng.Stream) string {
	c := rng.Pick(r, DBSCharacters)
	if r.Chance(0.15) {
		c += " : " + rng.Pick(r, dbsQualifiers)
	}
	return c
}

// setName returns a set name from the game's lists.
func SetName(r *rng.Stream, first, second []string) string {
	return rng.Pick(r, first) + " " + rng.Pick(r, second)
}

// words is a name in fold.Key form padded with spaces, to look for whole
// words ("tin" but not the "tin" of "Destiny").
type Words string

func WordsOf(name string) Words { return Words(" " + fold.Key(name) + " ") }

// has reports whether any of ws (words or phrases) occurs in w.
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
