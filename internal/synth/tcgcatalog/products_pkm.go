package tcgcatalog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
	"github.com/cardcat/cardcat/internal/synth/names"
	"github.com/cardcat/cardcat/internal/synth/rng"
)

// pkmCard is a Pokémon card before it is numbered: its extendedData come
// after its Number.
type pkmCard struct {
	name    string
	section int // 0 Pokémon, 1 Trainer, 2 Energy: the set numbers them in this order
	rank    int // the set numbers its rarer cards first (older sets) or its types in order
	secret  bool
	pokemon bool
	ed      []tcgplayer.ExtendedData
}

// pokemonCards generates a Pokémon group's cards in the form of the real
// Base Set (shared/data tcgplayer/3/604/products.json): Number "004/102",
// Rarity, Card Type, HP, Stage, CardText (powers, trainers), "Attack 1" like
// "[1LLL] Thunder (60)\r\n<br>...", Weakness, Resistance "F-30",
// RetreatCost; fields omitted when the card has none. Names are unique in a
// group, but for a misprint TCGplayer lists apart under the card's number
// ("Charizard (Black Dot Error)").
func (b *productBuilder) pokemonCards() {
	p, r := b.plan, b.r
	pub := p.Group.PublishedOn
	era := names.PkmEraOf(pub)
	n := p.Cards
	misprint := p.style == styleMain && pub < "2005" && n >= 40 && r.Chance(0.5)
	if misprint {
		n--
	}
	var cards []pkmCard
	switch p.style {
	case styleCompanion:
		// English Trainer Galleries of holo and ultra rares; Japanese promos.
		for range n {
			rarity := "Promo"
			if p.Group.CategoryID == 3 {
				rarity = rng.Pick(r, []string{"Holo Rare", "Ultra Rare"})
			}
			cards = append(cards, b.pkmPokemon(era, rarity, 0.5))
		}
	default:
		secrets := 0
		if pub >= "2003" {
			secrets = n / 12
		}
		energies := min(2, n/50)
		if pub < "2011" {
			energies = min(7, n/14)
		}
		trainers := n * 22 / 100
		pokemon := n - secrets - energies - trainers
		for range trainers {
			if c, ok := b.pkmTrainer(); ok {
				cards = append(cards, c)
			} else {
				pokemon++
			}
		}
		for i := range energies {
			cards = append(cards, b.pkmEnergy(pub < "2011" && i < energies-1))
		}
		for range pokemon {
			cards = append(cards, b.pkmPokemon(era, "", 0))
		}
		for range secrets {
			rarity := rng.Pick(r, []string{"Secret Rare", "Secret Rare", "Ultra Rare"})
			if pub >= "2023-03-31" {
				rarity = rng.Pick(r, []string{"Illustration Rare", "Illustration Rare", "Special Illustration Rare", "Hyper Rare"})
			}
			if p.Group.CategoryID == 85 {
				rarity = map[string]string{"Illustration Rare": "Art Rare", "Special Illustration Rare": "Special Art Rare",
					"Hyper Rare": "Ultra Rare", "Secret Rare": "Ultra Rare", "Ultra Rare": "Super Rare"}[rarity]
			}
			c := b.pkmPokemon(era, rarity, 0.6)
			c.secret = true
			cards = append(cards, c)
		}
	}
	slices.SortStableFunc(cards, func(a, b pkmCard) int {
		switch {
		case a.secret != b.secret:
			return boolInt(a.secret) - boolInt(b.secret)
		case a.section != b.section:
			return a.section - b.section
		}
		return a.rank - b.rank
	})
	printed := 0
	for _, c := range cards {
		printed += boolInt(!c.secret)
	}
	for i := range cards {
		var number string
		switch {
		case p.style == styleCompanion && p.Group.CategoryID == 3 && p.Group.PublishedOn >= "2020":
			number = fmt.Sprintf("TG%02d/TG%02d", i+1, len(cards))
		case p.style == styleCompanion && p.Group.Abbreviation == "":
			number = fmt.Sprintf("%03d/P", i+1)
		case p.style == styleCompanion:
			number = fmt.Sprintf("%03d/%s-P", i+1, p.Group.Abbreviation)
		default:
			number = fmt.Sprintf("%03d/%03d", i+1, printed)
		}
		cards[i].ed = append([]tcgplayer.ExtendedData{ext("Card Number", "Number", number)}, cards[i].ed...)
	}
	if misprint {
		for _, i := range r.Perm(len(cards)) {
			c := cards[i]
			name := c.name + " " + rng.Pick(r, names.PkmErrorPrints)
			if c.pokemon && !b.keys[fold.Key(name)] {
				b.keys[fold.Key(name)] = true
				cards = append(cards, pkmCard{name: name, ed: c.ed})
				break
			}
		}
	}
	// TCGplayer's product ids do not follow the card numbers.
	for _, i := range r.Perm(len(cards)) {
		b.add(cards[i].name, 1, cards[i].ed...)
	}
}

var pkmRarityRank = map[string]int{"Holo Rare": 0, "Ultra Rare": 0, "Double Rare": 0, "Rare": 1, "Uncommon": 2, "Common": 3}

var pkmTypeOrder = []string{"Grass", "Fire", "Water", "Lightning", "Psychic", "Fighting", "Darkness", "Metal", "Fairy", "Dragon", "Colorless"}

// pkmPokemon is a Pokémon card of the era, of rarity ("" draws one); ultra
// is the chance of a name in one of the era's ultra-rare forms.
func (b *productBuilder) pkmPokemon(era names.PkmEra, rarity string, ultra float64) pkmCard {
	r := b.r
	pub := b.plan.Group.PublishedOn
	var typ string
	var isUltra bool
	name, ok := b.tryUnique(30, func() string {
		sp := rng.Pick(r, names.PkmSpecies)
		typ = sp.Type
		var n string
		n, isUltra = names.PkmPokemonName(r, era, sp.Name)
		if !isUltra && r.Chance(ultra) {
			if f := rng.Pick(r, era.Forms); strings.HasPrefix(f, " ") {
				n, isUltra = sp.Name+f, true
			}
		}
		return n
	})
	if !ok {
		name = b.unique(func() string { sp := rng.Pick(r, names.PkmSpecies); typ = sp.Type; return sp.Name })
	}
	if rarity == "" {
		switch x := r.Float(); {
		case isUltra && pub >= "2023-03-31":
			rarity = "Double Rare"
		case isUltra:
			rarity = "Ultra Rare"
		case x < 0.14:
			rarity = "Holo Rare"
		case x < 0.28:
			rarity = "Rare"
		case x < 0.58:
			rarity = "Uncommon"
		default:
			rarity = "Common"
		}
	}
	stage := "Basic"
	switch x := r.Float(); {
	case x < 0.15:
		stage = "Stage 2"
	case x < 0.45:
		stage = "Stage 1"
	}
	hp := map[string][2]int{"Basic": {3, 7}, "Stage 1": {6, 9}, "Stage 2": {8, 12}}[stage]
	switch {
	case isUltra && pub >= "2011":
		hp = [2]int{17, 34}
	case isUltra:
		hp = [2]int{9, 15}
	case pub >= "2003":
		hp[0], hp[1] = hp[0]+2, hp[1]+5
	}
	ed := []tcgplayer.ExtendedData{ext("Rarity", "Rarity", rarity), ext("Card Type", "Card Type", typ),
		ext("HP", "HP", strconv.Itoa(10*r.Between(hp[0], hp[1]))), ext("Stage", "Stage", stage)}
	attacks := 1 + boolInt(r.Chance(0.6))
	if r.Chance(0.2) {
		ed = append(ed, ext("Card Text", "CardText", "<strong>"+era.Power+": "+rng.Pick(r, names.PkmAbilities)+"</strong> "+rng.Pick(r, names.PkmPowerTexts)))
		attacks = 1
	}
	first := ""
	for k := 1; k <= attacks; k++ {
		name := rng.Pick(r, names.PkmAttacks)
		for name == first {
			name = rng.Pick(r, names.PkmAttacks)
		}
		first = name
		ed = append(ed, ext("Attack "+strconv.Itoa(k), "Attack "+strconv.Itoa(k), pkmAttack(r, typ, name, k+r.Intn(3))))
	}
	if w, ok := names.PkmWeakness[typ]; ok && r.Chance(0.85) {
		ed = append(ed, ext("Weakness", "Weakness", w))
	}
	if r.Chance(0.25) {
		ed = append(ed, ext("Resistance", "Resistance", rng.Pick(r, []string{"F", "P", "L", "G", "R", "W", "M", "D"})+"-30"))
	}
	if retreat := r.Between(0, 4); retreat > 0 {
		ed = append(ed, ext("Retreat Cost", "RetreatCost", strconv.Itoa(retreat)))
	}
	rank := pkmRarityRank[rarity]
	if pub >= "2003" {
		rank = slices.Index(pkmTypeOrder, typ)
	}
	return pkmCard{name: name, rank: rank, pokemon: true, ed: ed}
}

// pkmAttack is an attack in TCGplayer's form: "[1LLL] Thunder (60)\r\n<br>Flip
// a coin...", its cost in energy letters with colorless as a digit.
func pkmAttack(r *rng.Stream, typ, name string, energies int) string {
	letter := names.PkmTypeLetter[typ]
	var cost string
	if letter == "C" {
		cost = strconv.Itoa(energies)
	} else {
		c := r.Intn(energies)
		if c > 0 {
			cost = strconv.Itoa(c)
		}
		cost += strings.Repeat(letter, energies-c)
	}
	s := "[" + cost + "] " + name
	if r.Chance(0.8) {
		s += fmt.Sprintf(" (%d%s)", 10*r.Between(1, 3*energies+1), rng.Pick(r, []string{"", "", "", "", "+", "x"}))
	}
	if r.Chance(0.5) {
		sep := "\r\n<br>"
		if r.Chance(0.05) {
			sep += "\r\n" // as upstream has on a few cards
		}
		s += sep + rng.Pick(r, names.PkmAttackTexts)
	}
	return s
}

// pkmTrainer is a trainer card, false when the group has used every name.
func (b *productBuilder) pkmTrainer() (pkmCard, bool) {
	r := b.r
	name, ok := b.tryUnique(20, func() string { return rng.Pick(r, names.PkmTrainers) })
	if !ok {
		return pkmCard{}, false
	}
	rarity := rng.Pick(r, []string{"Common", "Common", "Uncommon", "Uncommon", "Rare"})
	return pkmCard{name: name, section: 1, rank: pkmRarityRank[rarity], ed: []tcgplayer.ExtendedData{
		ext("Rarity", "Rarity", rarity), ext("Card Type", "Card Type", "Trainer"), ext("Card Text", "CardText", rng.Pick(r, names.PkmTrainerTexts))}}, true
}

// pkmEnergy is a basic or, when the set has none left, a special energy.
func (b *productBuilder) pkmEnergy(basic bool) pkmCard {
	r := b.r
	if basic {
		if name, ok := b.tryUnique(20, func() string { return rng.Pick(r, names.PkmBasicEnergy) }); ok {
			return pkmCard{name: name, section: 2, rank: 3, ed: []tcgplayer.ExtendedData{
				ext("Rarity", "Rarity", "Common"), ext("Card Type", "Card Type", "Basic Energy")}}
		}
	}
	name, ok := b.tryUnique(20, func() string { return rng.Pick(r, names.PkmSpecialEnergy) })
	if !ok {
		name = b.unique(func() string { return rng.Pick(r, names.PkmBasicEnergy) })
	}
	return pkmCard{name: name, section: 2, rank: 2, ed: []tcgplayer.ExtendedData{
		ext("Rarity", "Rarity", "Uncommon"), ext("Card Type", "Card Type", "Special Energy"),
		ext("Card Text", "CardText", "Provides 2 Colorless energy.\r\n<br>Doesn't count as a basic Energy card.")}}
}
