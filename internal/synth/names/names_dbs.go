package names

import "github.com/cardcat/cardcat/internal/synth/rng"

// Word lists for synthetic Dragon Ball Super cards (Fusion World and
// Masters) and sets.

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

// DBSColours are the cards' colours; DBSColourLetter writes them in energy
// costs ("3(RR)").
var DBSColours = []string{"Red", "Blue", "Green", "Yellow", "Black"}
var DBSColourLetter = map[string]string{"Red": "R", "Blue": "U", "Green": "G", "Yellow": "Y", "Black": "B"}

// DBSCharacterName returns a character, sometimes with a Fusion World qualifier.
func DBSCharacterName(r *rng.Stream) string {
	c := rng.Pick(r, DBSCharacters)
	if r.Chance(0.15) {
		c += " : " + rng.Pick(r, dbsQualifiers)
	}
	return c
}
