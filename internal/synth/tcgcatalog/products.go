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
