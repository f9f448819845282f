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

// opCard is a One Piece card and the printings TCGplayer lists apart.
type opCard struct {
	name, rarity, number, cardType string
	ed                             []tcgplayer.ExtendedData
	variants                       []string // names.OPParallel, names.OPBoxTopper, names.OPMangaAlt
}

// onePieceCards generates a One Piece group's cards in the form of the real
// Romance Dawn (shared/data tcgplayer/68/3188/products.json): Rarity (L, C,
// UC, R, SR, SEC, DON!!), Number "OP01-001", Description, Color, CardType,
// Life (leaders), Cost, Power, Subtypes (";"-separated), Counterplus,
// Attribute. A name the set prints under several numbers carries the
// number's tail ("Jinbe (014)"); parallels and box toppers are products of
// their own under the base card's number ("Nami (Parallel)"); a DON!! card
// has no number.
func (b *productBuilder) onePieceCards() {
	p, r := b.plan, b.r
	prefix := p.numPrefix
	if prefix == "" {
		prefix = "P"
	}
	don := boolInt(p.style != styleCompanion && p.Cards >= 10)
	target := p.Cards - don
	variants := 0
	if p.style == styleMain {
		variants = target * 15 / 100
	}
	bases := target - variants
	leaders, secrets := max(1, bases/12), max(1, bases/60)
	cards := make([]*opCard, 0, bases)
	used := map[string]bool{}
	for i := 1; i <= bases; i++ {
		num := i
		if prefix == "P" {
			num = (p.numBase + i) % 1000
		}
		c := &opCard{number: fmt.Sprintf("%s-%03d", prefix, num), cardType: "Character"}
		switch {
		case p.style == styleCompanion:
			c.rarity = "P"
		case i <= leaders && (p.style == styleMain || i == 1):
			c.rarity, c.cardType = "L", "Leader"
		case p.style == styleStarter:
			c.rarity = "C"
			if i > bases-2 {
				c.rarity = "SR"
			}
		case i > bases-secrets:
			c.rarity = "SEC"
		default:
			c.rarity = rng.Pick(r, []string{"C", "C", "C", "C", "UC", "UC", "UC", "R", "R", "SR"})
		}
		if c.cardType == "Character" && c.rarity != "SR" && c.rarity != "SEC" {
			switch x := r.Float(); {
			case x < 0.18:
				c.cardType = "Event"
			case x < 0.23:
				c.cardType = "Stage"
			}
		}
		switch c.cardType {
		case "Event":
			c.name, _ = b.tryUnique(10, func() string { return rng.Pick(r, names.OPEvents) })
		case "Stage":
			c.name, _ = b.tryUnique(10, func() string { return rng.Pick(r, names.OPStages) })
		}
		if c.name == "" {
			// Sets print a few characters under several numbers, most once.
			c.cardType = map[bool]string{true: "Leader", false: "Character"}[c.cardType == "Leader"]
			for try := 0; c.name == "" || try < 4 && used[c.name]; try++ {
				c.name = rng.Pick(r, names.OPCharacters)
			}
			used[c.name] = true
		}
		c.ed = opExtendedData(r, c)
		cards = append(cards, c)
	}
	// Parallels first for the rarest cards, then box toppers of commons.
	var tiers [3][]*opCard
	for _, c := range cards {
		switch c.rarity {
		case "SEC", "SR", "L":
			tiers[0] = append(tiers[0], c)
		case "R":
			tiers[1] = append(tiers[1], c)
		default:
			tiers[2] = append(tiers[2], c)
		}
	}
	for _, tier := range tiers {
		for _, i := range r.Perm(len(tier)) {
			if variants == 0 {
				break
			}
			c := tier[i]
			switch {
			case c.rarity == "C" || c.rarity == "UC":
				c.variants = append(c.variants, names.OPBoxTopper)
			case c.rarity == "SEC" && variants >= 2:
				c.variants = append(c.variants, names.OPParallel, names.OPMangaAlt)
				variants--
			default:
				c.variants = append(c.variants, names.OPParallel)
			}
			variants--
		}
	}
	count := map[string]int{}
	for _, c := range cards {
		count[fold.Key(c.name)]++
	}
	name := func(c *opCard) string {
		if count[fold.Key(c.name)] > 1 {
			return c.name + " (" + c.number[strings.LastIndexByte(c.number, '-')+1:] + ")"
		}
		return c.name
	}
	for _, c := range cards {
		b.add(name(c), 1, c.ed...)
	}
	for _, c := range cards {
		for _, v := range c.variants {
			b.add(name(c)+v, 1, c.ed...)
		}
	}
	if don == 1 {
		n := b.unique(func() string { return "DON!! Card // " + rng.Pick(r, names.OPCharacters) })
		b.add(n, 2, ext("Rarity", "Rarity", "DON!!"), ext("Description", "Description", "Your Turn +1000"), ext("Card Type", "CardType", "DON!!"))
	}
}

// opExtendedData are a One Piece card's fields in TCGplayer's order.
func opExtendedData(r *rng.Stream, c *opCard) []tcgplayer.ExtendedData {
	ed := []tcgplayer.ExtendedData{ext("Rarity", "Rarity", c.rarity), ext("Number", "Number", c.number)}
	if c.cardType != "Character" || r.Chance(0.8) {
		ed = append(ed, ext("Description", "Description", rng.Pick(r, names.OPTexts)))
	}
	colour := rng.Pick(r, names.OPColours)
	if c.cardType == "Leader" && r.Chance(0.3) {
		cs := []string{colour, rng.Pick(r, names.OPColours)}
		slices.Sort(cs)
		colour = strings.Join(slices.Compact(cs), ";")
	}
	ed = append(ed, ext("Color", "Color", colour), ext("Card Type", "CardType", c.cardType))
	switch c.cardType {
	case "Leader":
		ed = append(ed, ext("Life", "Life", strconv.Itoa(r.Between(3, 5))), ext("Power", "Power", strconv.Itoa(r.Between(4, 6)*1000)))
	case "Character":
		cost := r.Between(1, 10)
		ed = append(ed, ext("Cost", "Cost", strconv.Itoa(cost)), ext("Power", "Power", strconv.Itoa(max(0, cost-1+r.Between(0, 2))*1000)))
	case "Event":
		ed = append(ed, ext("Cost", "Cost", strconv.Itoa(r.Between(0, 4))))
	default:
		ed = append(ed, ext("Cost", "Cost", strconv.Itoa(r.Between(1, 3))))
	}
	if r.Chance(0.95) {
		var types []string
		for range r.Between(1, 3) {
			if t := rng.Pick(r, names.OPSubtypes); !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
		ed = append(ed, ext("Subtype(s)", "Subtypes", strings.Join(types, ";")))
	}
	if c.cardType == "Character" && c.rarity != "SEC" && r.Chance(0.75) {
		ed = append(ed, ext("Counter+", "Counterplus", rng.Pick(r, []string{"1000", "1000", "1000", "1000", "2000"})))
	}
	if c.cardType == "Leader" || c.cardType == "Character" {
		ed = append(ed, ext("Attribute", "Attribute", rng.Pick(r, names.OPAttributes)))
	}
	return ed
}
