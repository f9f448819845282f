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

// Rules texts keep TCGplayer's HTML fragments and line breaks.
var mtgOracle = []string{
	"Flying\r\n<br>When %s enters, draw a card.",
	"Whenever %s attacks, put a +1/+1 counter on each other creature you control that's a token.",
	"Offspring {2} <em>(You may pay an additional {2} as you cast this spell. If you do, when this creature enters, create a 1/1 token copy of it.)</em>\r\n<br>Vigilance",
	"<strong>Gift a card</strong> <em>(You may promise an opponent a gift as you cast this spell. If you do, they draw a card before its other effects.)</em><br>\r\nDestroy target creature.",
	"Target creature gets +3/+3 until end of turn. It can't be blocked this turn by creatures with power 2 or less.",
	"Reach, trample\r\n<br>%s's power is equal to the number of lands you control.",
}

var mtgFlavor = []string{
	"“The burrow remembers every paw that guarded it.”",
	"Not every hero carries a sword; some carry the harvest home.",
	"“Don't look back. The storm is faster than you think.”",
	"In the vale, even the quiet ones have teeth.",
}

// mtgCards generates a Magic group's cards: numbered cards of every rarity,
// showcase, borderless and extended-art printings of its rares, basic lands
// and tokens; a companion (Commander) group's are legendary rares and mythics.
func (b *productBuilder) mtgCards() {
	p, r := b.plan, b.r
	n := p.Cards
	if p.style == styleCompanion {
		for i := 1; i <= n; i++ {
			name := b.unique(func() string { return rng.Pick(r, names.MTGPeople) + ", " + rng.Pick(r, names.MTGTitles) })
			b.mtgCard(name, rng.Pick(r, []string{"R", "M"}), strconv.Itoa(i), true)
		}
		return
	}
	basics := min(10, n/15)
	tokens := n * 8 / 100
	variants := n / 10
	mains := n - basics - tokens - variants
	type printed struct {
		name string
		rar  string
		leg  bool
	}
	var rares []printed
	for i := 1; i <= mains; i++ {
		rar := "C"
		switch x := r.Float(); {
		case x < 0.09:
			rar = "M"
		case x < 0.34:
			rar = "R"
		case x < 0.62:
			rar = "U"
		}
		var leg bool
		name := b.unique(func() string {
			var n string
			n, leg = names.MTGCardName(r)
			return n
		})
		b.mtgCard(name, rar, strconv.Itoa(i), leg)
		if rar == "R" || rar == "M" {
			rares = append(rares, printed{name, rar, leg})
		}
	}
	num := mains
	for i := 0; i < variants && len(rares) > 0; i++ {
		v := rares[r.Intn(len(rares))]
		suffix := rng.Pick(r, []string{" (Showcase)", " (Borderless)", " (Extended Art)", " (Borderless) (Raised Foil)"})
		if b.keys[fold.Key(v.name+suffix)] {
			continue
		}
		num++
		b.mtgCard(v.name+suffix, v.rar, strconv.Itoa(num), v.leg)
	}
	for i := 0; i < basics; i++ {
		num++
		land := names.BasicLands[i%len(names.BasicLands)]
		b.add(fmt.Sprintf("%s (%04d)", land, num), 1,
			ext("Rarity", "Rarity", "L"), ext("#", "Number", strconv.Itoa(num)),
			ext("Creature Type or Sub Type", "SubType", "Basic Land — "+land),
			ext("Rules Text Contains", "OracleText", "<em>({T}: Add one mana.)</em>"))
	}
	for i := 1; i <= tokens; i++ {
		creature := rng.Pick(r, names.MTGCreatures)
		name := b.unique(func() string { return rng.Pick(r, names.MTGAdjectives) + " " + creature + " Token" })
		b.add(name, 1,
			ext("Rarity", "Rarity", "T"), ext("#", "Number", strconv.Itoa(i)),
			ext("Creature Type or Sub Type", "SubType", "Token Creature — "+creature),
			ext("P", "P", strconv.Itoa(r.Between(1, 4))), ext("T", "T", strconv.Itoa(r.Between(1, 4))),
			ext("Rules Text Contains", "OracleText", "Flying<br>\r\n<em>(This token's mana cost is 1W.)</em>"))
	}
}

func (b *productBuilder) mtgCard(name, rarity, number string, legendary bool) {
	r := b.r
	ed := []tcgplayer.ExtendedData{ext("Rarity", "Rarity", rarity), ext("#", "Number", number)}
	if r.Chance(0.6) || legendary {
		st := rng.Pick(r, names.MTGSubtypes)
		if legendary && !strings.HasPrefix(st, "Legendary") {
			st = "Legendary " + st
		}
		ed = append(ed, ext("Creature Type or Sub Type", "SubType", st),
			ext("P", "P", rng.Pick(r, []string{"0", "1", "2", "3", "4", "5", "6", "*"})), ext("T", "T", strconv.Itoa(r.Between(1, 7))))
	} else {
		ed = append(ed, ext("Creature Type or Sub Type", "SubType", rng.Pick(r, names.MTGSpellTypes)))
	}
	if r.Chance(0.97) {
		text := rng.Pick(r, mtgOracle)
		if strings.Contains(text, "%s") {
			text = fmt.Sprintf(text, strings.SplitN(name, " (", 2)[0])
		}
		ed = append(ed, ext("Rules Text Contains", "OracleText", text))
	}
	if r.Chance(0.4) {
		ed = append(ed, ext("Flavor", "FlavorText", "<em>"+rng.Pick(r, mtgFlavor)+"</em>"))
	}
	b.add(name, 1, ed...)
}
