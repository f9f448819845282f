package names

import (
	"strings"

	"github.com/cardcat/cardcat/internal/synth/rng"
)

// Word lists for synthetic Pokémon cards, in TCGplayer's spelling (shared/data
// tcgplayer/3/604/products.json): "Pokemon" without its accent in names,
// "Farfetch'd", "Mr. Mime", "Nidoran M".

// PkmSpecies are Pokémon with their type, which gives the card's Card Type,
// its attack costs and its weakness.
var PkmSpecies = []struct{ Name, Type string }{
	{"Bulbasaur", "Grass"}, {"Ivysaur", "Grass"}, {"Venusaur", "Grass"}, {"Oddish", "Grass"}, {"Gloom", "Grass"},
	{"Vileplume", "Grass"}, {"Bellsprout", "Grass"}, {"Victreebel", "Grass"}, {"Exeggutor", "Grass"}, {"Tangela", "Grass"},
	{"Scyther", "Grass"}, {"Pinsir", "Grass"}, {"Chikorita", "Grass"}, {"Meganium", "Grass"}, {"Treecko", "Grass"},
	{"Sceptile", "Grass"}, {"Turtwig", "Grass"}, {"Torterra", "Grass"}, {"Snivy", "Grass"}, {"Serperior", "Grass"},
	{"Rowlet", "Grass"}, {"Decidueye", "Grass"}, {"Grookey", "Grass"}, {"Rillaboom", "Grass"}, {"Sprigatito", "Grass"},
	{"Meowscarada", "Grass"}, {"Caterpie", "Grass"}, {"Metapod", "Grass"}, {"Weedle", "Grass"}, {"Kakuna", "Grass"},
	{"Beedrill", "Grass"}, {"Leafeon", "Grass"}, {"Celebi", "Grass"}, {"Shaymin", "Grass"}, {"Nidoran M", "Grass"},
	{"Nidoran F", "Grass"}, {"Nidorino", "Grass"}, {"Nidoking", "Grass"}, {"Koffing", "Grass"}, {"Paras", "Grass"},
	{"Charmander", "Fire"}, {"Charmeleon", "Fire"}, {"Charizard", "Fire"}, {"Vulpix", "Fire"}, {"Ninetales", "Fire"},
	{"Growlithe", "Fire"}, {"Arcanine", "Fire"}, {"Ponyta", "Fire"}, {"Rapidash", "Fire"}, {"Magmar", "Fire"},
	{"Flareon", "Fire"}, {"Moltres", "Fire"}, {"Cyndaquil", "Fire"}, {"Typhlosion", "Fire"}, {"Torchic", "Fire"},
	{"Blaziken", "Fire"}, {"Chimchar", "Fire"}, {"Infernape", "Fire"}, {"Litten", "Fire"}, {"Incineroar", "Fire"},
	{"Scorbunny", "Fire"}, {"Cinderace", "Fire"}, {"Fuecoco", "Fire"}, {"Skeledirge", "Fire"}, {"Entei", "Fire"},
	{"Ho-Oh", "Fire"}, {"Squirtle", "Water"}, {"Wartortle", "Water"}, {"Blastoise", "Water"}, {"Psyduck", "Water"},
	{"Golduck", "Water"}, {"Poliwag", "Water"}, {"Poliwhirl", "Water"}, {"Poliwrath", "Water"}, {"Seel", "Water"},
	{"Dewgong", "Water"}, {"Staryu", "Water"}, {"Starmie", "Water"}, {"Magikarp", "Water"}, {"Gyarados", "Water"},
	{"Lapras", "Water"}, {"Vaporeon", "Water"}, {"Articuno", "Water"}, {"Totodile", "Water"}, {"Feraligatr", "Water"},
	{"Mudkip", "Water"}, {"Swampert", "Water"}, {"Piplup", "Water"}, {"Empoleon", "Water"}, {"Oshawott", "Water"},
	{"Froakie", "Water"}, {"Greninja", "Water"}, {"Popplio", "Water"}, {"Sobble", "Water"}, {"Quaxly", "Water"},
	{"Suicune", "Water"}, {"Kyogre", "Water"}, {"Pikachu", "Lightning"}, {"Raichu", "Lightning"}, {"Magnemite", "Lightning"},
	{"Magneton", "Lightning"}, {"Voltorb", "Lightning"}, {"Electrode", "Lightning"}, {"Electabuzz", "Lightning"}, {"Jolteon", "Lightning"},
	{"Zapdos", "Lightning"}, {"Mareep", "Lightning"}, {"Ampharos", "Lightning"}, {"Raikou", "Lightning"}, {"Shinx", "Lightning"},
	{"Luxray", "Lightning"}, {"Pachirisu", "Lightning"}, {"Zekrom", "Lightning"}, {"Pawmot", "Lightning"}, {"Miraidon", "Lightning"},
	{"Abra", "Psychic"}, {"Kadabra", "Psychic"}, {"Alakazam", "Psychic"}, {"Gastly", "Psychic"}, {"Haunter", "Psychic"},
	{"Gengar", "Psychic"}, {"Drowzee", "Psychic"}, {"Hypno", "Psychic"}, {"Jynx", "Psychic"}, {"Mewtwo", "Psychic"},
	{"Mew", "Psychic"}, {"Espeon", "Psychic"}, {"Ralts", "Psychic"}, {"Gardevoir", "Psychic"}, {"Drifloon", "Psychic"},
	{"Mimikyu", "Psychic"}, {"Mr. Mime", "Psychic"}, {"Slowpoke", "Psychic"}, {"Latios", "Psychic"}, {"Deoxys", "Psychic"},
	{"Machop", "Fighting"}, {"Machoke", "Fighting"}, {"Machamp", "Fighting"}, {"Geodude", "Fighting"}, {"Graveler", "Fighting"},
	{"Golem", "Fighting"}, {"Onix", "Fighting"}, {"Cubone", "Fighting"}, {"Marowak", "Fighting"}, {"Hitmonlee", "Fighting"},
	{"Hitmonchan", "Fighting"}, {"Sandshrew", "Fighting"}, {"Diglett", "Fighting"}, {"Dugtrio", "Fighting"}, {"Riolu", "Fighting"},
	{"Lucario", "Fighting"}, {"Hawlucha", "Fighting"}, {"Larvitar", "Fighting"}, {"Koraidon", "Fighting"}, {"Groudon", "Fighting"},
	{"Sirfetch'd", "Fighting"}, {"Umbreon", "Darkness"}, {"Houndour", "Darkness"}, {"Houndoom", "Darkness"}, {"Sneasel", "Darkness"},
	{"Weavile", "Darkness"}, {"Tyranitar", "Darkness"}, {"Absol", "Darkness"}, {"Darkrai", "Darkness"}, {"Zoroark", "Darkness"},
	{"Yveltal", "Darkness"}, {"Grimmsnarl", "Darkness"}, {"Murkrow", "Darkness"}, {"Honchkrow", "Darkness"}, {"Scizor", "Metal"},
	{"Steelix", "Metal"}, {"Skarmory", "Metal"}, {"Aggron", "Metal"}, {"Metagross", "Metal"}, {"Bronzong", "Metal"},
	{"Dialga", "Metal"}, {"Excadrill", "Metal"}, {"Aegislash", "Metal"}, {"Zacian", "Metal"}, {"Corviknight", "Metal"},
	{"Tinkaton", "Metal"}, {"Genesect", "Metal"}, {"Registeel", "Metal"}, {"Dratini", "Dragon"}, {"Dragonair", "Dragon"},
	{"Dragonite", "Dragon"}, {"Rayquaza", "Dragon"}, {"Garchomp", "Dragon"}, {"Gible", "Dragon"}, {"Salamence", "Dragon"},
	{"Haxorus", "Dragon"}, {"Giratina", "Dragon"}, {"Noivern", "Dragon"}, {"Dragapult", "Dragon"}, {"Latias", "Dragon"},
	{"Pidgey", "Colorless"}, {"Pidgeotto", "Colorless"}, {"Pidgeot", "Colorless"}, {"Rattata", "Colorless"}, {"Raticate", "Colorless"},
	{"Spearow", "Colorless"}, {"Fearow", "Colorless"}, {"Farfetch'd", "Colorless"}, {"Doduo", "Colorless"}, {"Dodrio", "Colorless"},
	{"Porygon", "Colorless"}, {"Snorlax", "Colorless"}, {"Eevee", "Colorless"}, {"Ditto", "Colorless"}, {"Chansey", "Colorless"},
	{"Blissey", "Colorless"}, {"Kangaskhan", "Colorless"}, {"Tauros", "Colorless"}, {"Meowth", "Colorless"}, {"Persian", "Colorless"},
	{"Jigglypuff", "Colorless"}, {"Wigglytuff", "Colorless"}, {"Clefairy", "Colorless"}, {"Lugia", "Colorless"}, {"Togepi", "Colorless"},
	{"Oranguru", "Colorless"}, {"Wooloo", "Colorless"}, {"Sylveon", "Fairy"}, {"Xerneas", "Fairy"}, {"Togekiss", "Fairy"},
	{"Clefable", "Fairy"}, {"Florges", "Fairy"}, {"Mawile", "Fairy"}, {"Granbull", "Fairy"},
}

// PkmTypeLetter is the energy symbol of a type in attack costs and
// weaknesses ("[1LLL] Thunder (60)", Weakness "F"); Colorless costs are
// digits.
var PkmTypeLetter = map[string]string{
	"Grass": "G", "Fire": "R", "Water": "W", "Lightning": "L", "Psychic": "P", "Fighting": "F",
	"Darkness": "D", "Metal": "M", "Dragon": "N", "Fairy": "Y", "Colorless": "C",
}

// PkmWeakness is the type a type is weak to.
var PkmWeakness = map[string]string{
	"Grass": "R", "Fire": "W", "Water": "L", "Lightning": "F", "Psychic": "P", "Fighting": "P",
	"Darkness": "F", "Metal": "R", "Fairy": "M", "Colorless": "F",
}

// PkmEra is a span of Pokémon sets: their name forms, the name of their
// abilities and TCGdex's series.
type PkmEra struct {
	from     string // first publication date
	Forms    []string
	Power    string // "Pokémon Power", "Poké-Power", "Ability"
	Serie    string // TCGdex's series id
	SerieDir string // TCGdex's series folder
}

// pkmEras, newest first. A form is a prefix ending in a space ("Dark ",
// "Alolan ") or a suffix starting with one (" ex", " VMAX"); "'s " forms
// take a trainer's name ("Brock's Onix").
var pkmEras = []PkmEra{
	{"2023-03-31", []string{" ex", " ex", "Paldean ", "Iron "}, "Ability", "sv", "Scarlet & Violet"},
	{"2020-02-07", []string{" V", " VMAX", " VSTAR", "Galarian ", "Radiant ", "Hisuian "}, "Ability", "swsh", "Sword & Shield"},
	{"2017-02-03", []string{" GX", " GX", "Alolan ", " Prism Star"}, "Ability", "sm", "Sun & Moon"},
	{"2011-04-25", []string{" EX", " EX", "M ", " BREAK"}, "Ability", "bw", "Black & White"},
	{"2007-05-23", []string{" LV.X", " G", " GL", " Prime"}, "Poké-Power", "dp", "Diamond & Pearl"},
	{"2003-06-18", []string{" ex", " ex", "Team Aqua's ", "Team Magma's "}, "Poké-Power", "ex", "EX"},
	{"0000", []string{"Dark ", "'s ", "'s ", "Shining "}, "Pokémon Power", "base", "Base"},
}

func PkmEraOf(published string) PkmEra {
	for _, e := range pkmEras {
		if published >= e.from {
			return e
		}
	}
	return pkmEras[len(pkmEras)-1]
}

var pkmGymLeaders = []string{"Brock", "Misty", "Lt. Surge", "Erika", "Koga", "Sabrina", "Blaine", "Giovanni", "Rocket"}

// PkmPokemonName is a Pokémon's name in the era's forms, and whether the form
// makes it an ultra rare (ex, V, GX...).
func PkmPokemonName(r *rng.Stream, era PkmEra, species string) (string, bool) {
	if !r.Chance(0.25) {
		return species, false
	}
	f := rng.Pick(r, era.Forms)
	switch {
	case f == "'s ":
		return rng.Pick(r, pkmGymLeaders) + "'s " + species, false
	case strings.HasSuffix(f, " "):
		return f + species, false
	}
	return species + f, true
}

var PkmAttacks = []string{
	"Tackle", "Scratch", "Bite", "Quick Attack", "Thunder", "Thunderbolt", "Thunder Jolt", "Flamethrower", "Fire Spin",
	"Ember", "Water Gun", "Hydro Pump", "Bubble", "Surf", "Vine Whip", "Razor Leaf", "Solarbeam", "Poison Sting",
	"Psychic", "Confuse Ray", "Hypnosis", "Dream Eater", "Psybeam", "Karate Chop", "Low Kick", "Seismic Toss",
	"Rock Throw", "Dig", "Earthquake", "Slash", "Fury Attack", "Hyper Beam", "Body Slam", "Double-edge", "Headbutt",
	"Gnaw", "Sing", "Metronome", "Lure", "Agility", "Dragon Rage", "Dragon Claw", "Shadow Ball", "Night Slash",
	"Dark Pulse", "Iron Tail", "Metal Claw", "Flash Cannon", "Moonblast", "Play Rough", "Air Slash", "Gust",
	"Whirlwind", "Stun Spore", "Leech Seed", "Sleep Powder", "Energy Ball", "Burning Darkness", "Blizzard",
	"Aurora Beam", "Spark", "Volt Tackle", "Aura Sphere", "Close Combat", "Crunch", "Max Lightning", "G-Max Wildfire",
	"Star Blast", "Tera Burst", "Collect", "Call for Family", "Rollout", "Smash Kick", "Flare", "Withdraw",
}

var PkmAbilities = []string{
	"Damage Swap", "Energy Trans", "Rain Dance", "Energy Burn", "Buzzap", "Strikes Back", "Prehistoric Power",
	"Infernal Reign", "Concealed Cards", "Flower Selecting", "Run Away Draw", "Mysterious Tail", "Stance Change",
	"Dynamotor", "Deluge", "Shady Dealings", "Psychic Embrace", "Fan Call", "Quick Search", "Teal Dance",
}

// PkmAttackTexts follow an attack's cost, name and damage after "\r\n<br>".
var PkmAttackTexts = []string{
	"Flip a coin. If heads, the Defending Pokémon is now Paralyzed.",
	"Flip a coin. If heads, the Defending Pokémon is now Confused.",
	"The Defending Pokémon is now Asleep.",
	"The Defending Pokémon is now Poisoned.",
	"Discard 1 Energy card attached to this Pokémon in order to use this attack.",
	"Flip 2 coins. This attack does 30 damage times the number of heads.",
	"Does 10 damage plus 10 more damage for each Energy attached to this Pokémon but not used to pay for this attack's Energy cost.",
	"Search your deck for up to 2 Basic Pokémon and put them onto your Bench. Then, shuffle your deck.",
	"During your opponent's next turn, prevent all damage done to this Pokémon by attacks.",
	"This Pokémon also does 30 damage to itself.",
}

var PkmTrainers = []string{
	"Bill", "Professor Oak", "Energy Removal", "Gust of Wind", "Potion", "Switch", "PlusPower", "Defender",
	"Pokemon Center", "Pokemon Breeder", "Pokedex", "Computer Search", "Item Finder", "Super Potion", "Full Heal",
	"Revive", "Lass", "Scoop Up", "Energy Retrieval", "Maintenance", "Pokemon Trader", "Pokemon Flute",
	"Devolution Spray", "Professor's Research", "Boss's Orders", "Ultra Ball", "Nest Ball", "Quick Ball", "Rare Candy",
	"Switch Cart", "Iono", "Arven", "Nemona", "Penny", "Judge", "Marnie", "Cynthia", "Level Ball", "Evolution Incense",
	"Energy Search", "Pal Pad", "Super Rod", "Counter Catcher", "Lost Vacuum", "Choice Belt", "Rescue Stretcher",
	"Escape Rope", "Town Map", "Pokemon Catcher", "Pokegear 3.0", "Team Rocket's Handiwork", "Mesagoza", "Artazon",
	"Path to the Peak", "Training Court", "Lucky Helmet", "Big Charm", "Air Balloon", "Vitality Band", "Hyper Potion",
	"Pokemon Communication", "Ordinary Rod", "Earthen Vessel", "Buddy-Buddy Poffin", "Night Stretcher", "Prime Catcher",
	"Mr. Fuji", "Erika's Hospitality", "Brock's Training", "Sabrina's Gaze", "Giovanni's Charisma", "Lillie", "Hau",
	"Guzma", "Hop", "Sonia", "Bede", "Klara", "Peonia", "Raihan", "Irida", "Adaman", "Cyllene", "Roxanne", "Melony",
}

var PkmTrainerTexts = []string{
	"Draw 2 cards.",
	"Discard your hand, then draw 7 cards.",
	"Search your deck for a Basic Pokémon, reveal it, and put it into your hand. Then, shuffle your deck.",
	"Heal 30 damage from 1 of your Pokémon.",
	"Switch your Active Pokémon with 1 of your Benched Pokémon.",
	"<em>You may play only 1 Supporter card during your turn.</em><br>\r\nShuffle your hand into your deck. Then, draw 6 cards.",
	"Choose 1 of your opponent's Benched Pokémon and switch it with their Active Pokémon.",
}

var PkmSpecialEnergy = []string{"Double Colorless Energy", "Twin Energy", "Jet Energy", "Luminous Energy", "Reversal Energy", "Mist Energy", "Rainbow Energy"}

var PkmBasicEnergy = []string{"Grass Energy", "Fire Energy", "Water Energy", "Lightning Energy", "Psychic Energy", "Fighting Energy", "Darkness Energy", "Metal Energy"}

// PkmErrorPrints are misprints TCGplayer lists as their own product under
// the card's number ("Charizard (Black Dot Error)"); Cardmarket does not.
var PkmErrorPrints = []string{"(Black Dot Error)", "(Misprint)", "(Ink Error)", "(No Damage Error)"}

var PkmSetFirst = []string{
	"Temporal", "Evolving", "Brilliant", "Astral", "Lost", "Silver", "Obsidian", "Paradox", "Surging", "Stellar",
	"Twilight", "Shrouded", "Prismatic", "Fusion", "Chilling", "Darkness", "Rebel", "Vivid", "Crimson", "Hidden",
	"Unified", "Cosmic", "Burning", "Celestial", "Forbidden", "Ancient", "Roaring", "Steam", "Phantom", "Primal",
	"Furious", "Plasma", "Noble", "Dragon", "Legendary", "Secret", "Majestic", "Radiant", "Glacial", "Storm",
}

var PkmSetSecond = []string{
	"Forces", "Skies", "Stars", "Radiance", "Origin", "Tempest", "Flames", "Rift", "Sparks", "Crown", "Masquerade",
	"Fates", "Storm", "Clash", "Voltage", "Zenith", "Minds", "Eclipse", "Shadows", "Guardians", "Light", "Legends",
	"Siege", "Wonders", "Dawn", "Treasures", "Frontiers", "Awakening", "Destinies", "Rising", "Horizons", "Victors",
}

var PkmThemeDecks = []string{"Zap!", "Blackout", "Brushfire", "Overgrowth", "Power Reserve", "Water Blast", "Bodyguard", "Lightning Bug", "Grass Chopper", "Psych Out"}

// Cardmarket's promos no TCGplayer name has: trophy cards and prize cards.
var pkmPromoFirst = []string{"Trophy", "Champion's", "Victory", "Laureled", "Prize", "Finalist's"}
var PkmPromoBracket = []string{"Gold", "Silver", "Bronze", "Staff", "Winner", "Top 8"}

// PkmPowerTexts follow a power's or ability's name in the card text.
var PkmPowerTexts = []string{
	"As often as you like during your turn <em>(before your attack)</em>, you may move 1 damage counter from 1 of your Pokémon to another as long as you don't Knock Out that Pokémon.",
	"Once during your turn <em>(before your attack)</em>, you may draw a card. This power can't be used if this Pokémon is Asleep, Confused, or Paralyzed.",
	"Once during your turn, you may search your deck for a basic Energy card and attach it to 1 of your Pokémon. Then, shuffle your deck.",
	"This Pokémon takes 20 less damage from attacks <em>(after applying Weakness and Resistance)</em>.",
}
