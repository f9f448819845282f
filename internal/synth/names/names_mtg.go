package names

import "github.com/cardcat/cardcat/internal/synth/rng"

// Word lists for synthetic Magic cards and sets.

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

// MTGPeople carry the accented letters and the apostrophes of the catalogue.
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
