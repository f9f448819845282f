package tcgcatalog

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
	"github.com/cardcat/cardcat/internal/synth/names"
	"github.com/cardcat/cardcat/internal/synth/rng"
)

// productBuilder generates one synthetic group's TCGplayer products with the
// extendedData names of the group's category (see shared/data/README.md).
type productBuilder struct {
	plan    *Plan
	r       *rng.Stream
	list    []tcgplayer.Product
	keys    map[string]bool
	presale tcgplayer.PresaleInfo
}

func ext(display, name, value string) tcgplayer.ExtendedData {
	return tcgplayer.ExtendedData{DisplayName: display, Name: name, Value: value}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// slug is the last part of a TCGplayer product URL.
func slug(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		for _, w := range strings.Fields(fold.Clean(p)) {
			if b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteString(strings.ToLower(w))
		}
	}
	return b.String()
}

// Products returns the group's products in TCGplayer's order: sealed first,
// then the cards.
func (p *Plan) Products(seed uint64) []tcgplayer.Product {
	r := rng.New(seed, "products", p.Group.GroupID)
	b := &productBuilder{plan: p, r: &r, keys: map[string]bool{}}
	b.list = make([]tcgplayer.Product, 0, p.Cards+p.Sealed)
	pub := p.Group.PublishedOn
	switch {
	case p.presale:
		d, _ := time.Parse("2006-01-02T15:04:05", pub)
		note := "Releases " + d.Format("January 2, 2006")
		b.presale = tcgplayer.PresaleInfo{IsPresale: true, Note: &note, ReleasedOn: &pub}
	default:
		b.presale = tcgplayer.PresaleInfo{ReleasedOn: &pub}
	}
	b.sealedProducts()
	switch p.Group.CategoryID {
	case 1:
		b.mtgCards()
	case 80:
		b.fusionWorldCards()
	case 3, 85:
		b.pokemonCards()
	case 68:
		b.onePieceCards()
	default:
		b.mastersCards()
	}
	return b.list
}

// tryUnique returns the first of tries names gen makes whose key is new in
// the group, or false.
func (b *productBuilder) tryUnique(tries int, gen func() string) (string, bool) {
	for range tries {
		name := gen()
		if k := fold.Key(name); !b.keys[k] {
			b.keys[k] = true
			return name, true
		}
	}
	return "", false
}

// unique returns the first name gen makes whose key is new in the group.
func (b *productBuilder) unique(gen func() string) string {
	for i := 0; ; i++ {
		name := gen()
		if i > 20 {
			name += " (" + strconv.Itoa(i) + ")"
		}
		if k := fold.Key(name); !b.keys[k] {
			b.keys[k] = true
			return name
		}
	}
}

func (b *productBuilder) add(name string, imageCount int, ed ...tcgplayer.ExtendedData) {
	p := b.plan
	id := p.firstPID + len(b.list)
	info := b.presale
	if !info.IsPresale && b.r.Chance(0.1) {
		info.ReleasedOn = nil
	}
	if ed == nil {
		ed = []tcgplayer.ExtendedData{}
	}
	b.keys[fold.Key(name)] = true
	b.list = append(b.list, tcgplayer.Product{
		CategoryID:   p.Group.CategoryID,
		CleanName:    fold.Clean(name),
		ExtendedData: ed,
		GroupID:      p.Group.GroupID,
		ImageCount:   imageCount,
		ImageURL:     fmt.Sprintf("https://tcgplayer-cdn.tcgplayer.com/product/%d_200w.jpg", id),
		ModifiedOn:   p.Group.ModifiedOn,
		Name:         name,
		PresaleInfo:  info,
		ProductID:    id,
		URL:          fmt.Sprintf("https://www.tcgplayer.com/product/%d/%s", id, slug(categoryInfo[p.Group.CategoryID].slug, p.Group.Name, name)),
	})
}

var mtgSealed = []string{
	"Play Booster Pack", "Play Booster Display", "Collector Booster Pack", "Collector Booster Display", "Bundle",
	"Play Booster Display Case", "Prerelease Pack", "Starter Kit", "%s Commander Deck", "Bundle Case", "Collector Booster Display Case",
}

func (b *productBuilder) sealedProducts() {
	p, r := b.plan, b.r
	set := p.Group.Name
	for i := 0; i < p.Sealed; i++ {
		var name string
		var ed []tcgplayer.ExtendedData
		img := 1
		switch p.Group.CategoryID {
		case 1:
			kind := mtgSealed[i%len(mtgSealed)]
			if strings.Contains(kind, "%s") {
				kind = fmt.Sprintf(kind, strings.SplitN(rng.Pick(r, names.MTGPeople), ",", 2)[0])
			}
			name = set + " - " + kind
			ed = append(ed, ext("Rules Text Contains", "OracleText", "In "+set+"™, "+strings.ToLower(rng.Pick(r, names.MTGAdjectives))+" heroes rise across the "+
				strings.ToLower(rng.Pick(r, names.MTGPlaces))+".<br>\r\n<strong>Contents:</strong> cards, a token and a reference card."))
			if r.Chance(0.85) {
				ed = append(ed, ext("UPC", "UPC", fmt.Sprintf("19516%07d", r.Intn(10_000_000))))
			}
		case 3:
			if p.Group.PublishedOn < "2011" {
				kind := []string{"Booster Pack", "Booster Box", "Theme Deck", "Theme Deck", "Theme Deck", "2-Player Starter Set"}[i%6]
				if kind == "Theme Deck" {
					// Real names quote the deck's: `Base Set Theme Deck - "Zap!"`.
					kind += ` - "` + rng.Pick(r, names.PkmThemeDecks) + `"`
				}
				name = set + " " + kind
			} else {
				name = set + " " + []string{"Booster Pack", "Booster Box", "Elite Trainer Box", "Booster Bundle", "Build & Battle Box",
					"Sleeved Booster Pack", "3-Pack Blister [" + rng.Pick(r, names.PkmSpecies).Name + "]", "Booster Box Case"}[i%8]
			}
			if r.Chance(0.6) {
				ed = append(ed, ext("Card Text", "CardText", "<strong>"+set+"</strong><br>\r\nEach booster pack contains 10 cards and 1 basic Energy. "+
					"Cards vary by pack; look for <em>holofoil</em> rares!"))
			}
		case 85:
			name = set + " " + []string{"Booster Pack", "Booster Box", "Booster Box Case", "Starter Set", "Deck Build Box"}[i%5]
		case 68:
			if p.style == styleStarter {
				name = []string{set, set + " Display"}[i%2]
			} else {
				name = set + " - " + []string{"Booster Pack", "Booster Box", "Booster Box Case", "Sleeved Booster Pack", "Booster Pack Display", "Double Pack Set"}[i%6]
			}
		default:
			if p.style == styleStarter {
				name = []string{set, set + " Display"}[i%2]
			} else {
				name = set + " " + []string{"Booster Pack", "Booster Box", "Booster Box Case", "Sleeved Booster Pack [" + rng.Pick(r, names.DBSCharacters) + "]", "Sleeved Booster Packs [Set of 4]", "Premium Pack Set"}[i%6]
			}
		}
		if r.Chance(0.03) {
			img = 0
		}
		if b.keys[fold.Key(name)] {
			continue
		}
		b.add(name, img, ed...)
	}
}

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
	return fmt.Sprintf("%d(%s)", n, strings.Repeat(names.ColourLetter[colour], r.Between(1, min(n, 4))))
}

// fwCard is a Fusion World card before its name is made unique.
type fwCard struct {
	name, rarity, number, cardType, colour, character string
	alt                                               string
}

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
		c := fwCard{number: fmt.Sprintf(digits, code, i), colour: rng.Pick(r, names.Colours)}
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
		colour := rng.Pick(r, names.Colours)
		if r.Chance(0.1) {
			colour += ";" + rng.Pick(r, names.Colours)
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
