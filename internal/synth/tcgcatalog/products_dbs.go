package tcgcatalog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
	"github.com/cardcat/cardcat/internal/synth/names"
	"github.com/cardcat/cardcat/internal/synth/rng"
)

var dbsTexts = []string{
	"[On Play] Draw 1 card.",
	"[When Attacking] Draw 1 card.<br>\r\n[Auto] When your life is at 4 or less, draw 1 card.",
	"[Activate Main] [Once per turn] Choose 1 of your opponent's Battle Cards with a cost of 3 or less and K.O. it.",
	"<strong>[Auto]</strong> When you play this card, choose up to 1 card with \"%s\" in its card name from your Drop Area and add it to your hand.",
	"[Permanent] <em>[Your Turn]</em> All your Battle Cards with \"%s\" in their special traits get +5000 power.",
	"[Blocker]<br>\r\n[On Play] Your opponent can't play Extra Cards with a cost of 2 or less during this turn.",
}

func dbsText(r *rng.Stream, character string) string {
	t := rng.Pick(r, dbsTexts)
	if strings.Contains(t, "%s") {
		t = fmt.Sprintf(t, character)
	}
	return t
}

func dbsCost(r *rng.Stream, colour string) string {
	n := r.Between(0, 7)
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d(%s)", n, strings.Repeat(names.DBSColourLetter[colour], r.Between(1, min(n, 4))))
}

// fwCard is a Fusion World card before its name is made unique.
type fwCard struct {
	name, rarity, number, cardType, colour, character string
	alt                                               string
}

// fusionWorldCards generates a Fusion World group's cards: a code card,
// leaders, battle and extra cards, and alternate arts of some of them; a name
// the set prints more than once carries its number ("Son Goku - FB01-001").
func (b *productBuilder) fusionWorldCards() {
	p, r := b.plan, b.r
	n := p.Cards
	code := p.Group.Abbreviation
	if code == "" || p.style == styleCompanion {
		code = fmt.Sprintf("FP%02d", p.Group.GroupID%100)
	}
	var cards []fwCard
	if p.style != styleCompanion && n > 1 {
		b.add(fmt.Sprintf("Code Card - %s (%s)", strings.TrimSuffix(p.Group.Name, " Display"), code), 0, ext("Rarity", "Rarity", "Code Card"))
		n--
	}
	alts := n * 12 / 100
	digits := "%s-%03d"
	if p.style == styleStarter {
		digits = "%s-%02d"
	}
	for i := 1; i <= n-alts; i++ {
		c := fwCard{number: fmt.Sprintf(digits, code, i), colour: rng.Pick(r, names.DBSColours)}
		switch {
		case p.style == styleCompanion:
			c.rarity, c.cardType = "Promo", "Battle"
		case i <= max(1, n/12):
			c.rarity, c.cardType = "Leader", "Leader"
		default:
			c.rarity = rng.Pick(r, []string{"Common", "Common", "Common", "Uncommon", "Uncommon", "Rare", "Rare", "Super Rare", "Secret Rare"})
			c.cardType = rng.Pick(r, []string{"Battle", "Battle", "Battle", "Extra"})
		}
		c.character = names.DBSCharacterName(r)
		c.name = c.character
		if c.cardType == "Extra" {
			c.name = rng.Pick(r, names.DBSTechniques)
			if r.Chance(0.2) {
				c.name = strings.SplitN(c.character, " : ", 2)[0] + "'s " + c.name + "!"
			}
		}
		cards = append(cards, c)
	}
	for i := 0; i < alts && len(cards) > 0; i++ {
		c := cards[r.Intn(len(cards))]
		if c.alt != "" {
			continue
		}
		c.alt = " (Alternate Art)"
		if i == 0 {
			c.alt = " (Super Alternate Art)"
		}
		cards = append(cards, c)
	}
	// TCGplayer adds the number to a name the set prints more than once.
	count := map[string]int{}
	for _, c := range cards {
		if c.alt == "" {
			count[fold.Key(c.name)]++
		}
	}
	for _, c := range cards {
		name := c.name
		if count[fold.Key(c.name)] > 1 {
			name += " - " + c.number
		}
		name += c.alt
		if b.keys[fold.Key(name)] {
			continue
		}
		ed := []tcgplayer.ExtendedData{ext("Rarity", "Rarity", c.rarity), ext("Number", "Number", c.number)}
		if r.Chance(0.85) {
			ed = append(ed, ext("Description", "Description", dbsText(r, c.character)))
		}
		ed = append(ed, ext("Card Type", "CardType", c.cardType), ext("Color", "Color", c.colour))
		if c.cardType != "Leader" {
			ed = append(ed, ext("Cost", "Cost", dbsCost(r, c.colour)))
		}
		switch c.cardType {
		case "Leader":
			ed = append(ed, ext("Power", "Power", fmt.Sprintf("%d/%d", r.Between(10, 15)*1000, r.Between(20, 25)*1000)))
		case "Battle":
			ed = append(ed, ext("Power", "Power", strconv.Itoa(r.Between(1, 7)*5000)))
			if r.Chance(0.8) {
				ed = append(ed, ext("Combo Power", "Combo Power", rng.Pick(r, []string{"5000", "10000"})))
			}
		}
		if c.cardType != "Extra" || r.Chance(0.5) {
			ed = append(ed, ext("Character Trait(s)", "Character Traits", rng.Pick(r, names.DBSTraits)+";"+rng.Pick(r, names.DBSTraits)))
		}
		img := 1
		if c.cardType == "Leader" {
			img = 2
		}
		b.add(name, img, ed...)
	}
}

// mastersCards generates a Dragon Ball Super Masters group's cards, numbered
// by the group's code ("BT1-001"); a companion's are promos.
func (b *productBuilder) mastersCards() {
	p, r := b.plan, b.r
	code := p.Group.Abbreviation
	if code == "" {
		code = fmt.Sprintf("P%d", p.Group.GroupID%1000)
	}
	for i := 1; i <= p.Cards; i++ {
		number := fmt.Sprintf("%s-%03d", code, i)
		rarity := rng.Pick(r, []string{"Common", "Common", "Common", "Uncommon", "Uncommon", "Rare", "Rare", "Super Rare", "Special Rare", "Secret Rare"})
		cardType := rng.Pick(r, []string{"Battle", "Battle", "Battle", "Battle", "Extra", "Extra", "Leader", "Unison"})
		if p.style == styleCompanion {
			rarity = "Promo"
		}
		character := strings.SplitN(names.DBSCharacterName(r), " : ", 2)[0]
		var name string
		if cardType == "Extra" {
			name = b.unique(func() string { return rng.Pick(r, names.DBSTechniques) + " - " + number })
		} else {
			name = b.unique(func() string { return character + ", " + rng.Pick(r, names.DBSEpithets) })
		}
		colour := rng.Pick(r, names.DBSColours)
		if r.Chance(0.1) {
			colour += ";" + rng.Pick(r, names.DBSColours)
		}
		first := strings.SplitN(colour, ";", 2)[0]
		ed := []tcgplayer.ExtendedData{
			ext("Rarity", "Rarity", rarity), ext("Number", "Number", number),
			ext("Description", "Description", dbsText(r, character)),
			ext("Card Type", "CardType", cardType), ext("Color", "Color", colour),
		}
		if cardType != "Extra" {
			ed = append(ed, ext("Power", "Power", strconv.Itoa(r.Between(1, 6)*5000)))
		}
		if cardType != "Leader" {
			ed = append(ed, ext("Energy Color Cost", "EnergyColorCost", dbsCost(r, first)))
		}
		ed = append(ed,
			ext("Special Trait", "SpecialTrait", strings.ReplaceAll(rng.Pick(r, names.DBSTraits)+"/"+rng.Pick(r, names.DBSTraits), "’", "'")),
			ext("Era", "Era", rng.Pick(r, names.DBSEras)),
			ext("Character", "Character", character))
		if cardType == "Battle" {
			ed = append(ed, ext("Combo Energy", "ComboEnergy", strconv.Itoa(r.Between(0, 1))))
		}
		if r.Chance(0.05) {
			ed = append(ed, ext("Z Energy Cost", "ZEnergyCost", strconv.Itoa(r.Between(1, 5))))
		}
		img := 1
		if cardType == "Leader" {
			img = 2
		}
		b.add(name, img, ed...)
	}
}
