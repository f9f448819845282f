package synth

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
)

// One TCGplayer group and its matched Cardmarket expansion are generated
// together, from streams keyed by the group, so that groups can be generated
// in any order and in parallel. This file holds that step; the cases it plants
// are listed in cases.go.

type kind int

const (
	kindCard   kind = iota // has a Rarity or a Number
	kindSealed             // neither: booster, display, deck, ...
	kindCode               // a code card (Rarity "Code Card"): never priced, never on Cardmarket
)

// item is one TCGplayer product as the generator sees it.
type item struct {
	p        *tcgplayer.Product
	kind     kind
	rarity   string
	number   string
	subType  string
	finishes []tcgFinish // the finishes of its price rows
	noRow    bool        // no price row at all (an unpriced card)
}

// tcgFinish is one finish with its day-0 market price in cents; 0 writes a
// row of nulls.
type tcgFinish struct {
	name   string
	market int64
}

func (it *item) hasFoil() bool {
	return slices.ContainsFunc(it.finishes, func(f tcgFinish) bool { return isFoilFinish(f.name) })
}

func (it *item) hasNonFoil() bool {
	return slices.ContainsFunc(it.finishes, func(f tcgFinish) bool { return !isFoilFinish(f.name) })
}

// market returns the market price of the first finish that is (or is not)
// a foil one and has a price, else 0.
func (it *item) market(foil bool) int64 {
	for _, f := range it.finishes {
		if isFoilFinish(f.name) == foil && f.market > 0 {
			return f.market
		}
	}
	return 0
}

func newItem(p *tcgplayer.Product) *item {
	it := &item{p: p}
	for _, e := range p.ExtendedData {
		switch e.Name {
		case "Rarity":
			it.rarity = e.Value
		case "Number":
			it.number = e.Value
		case "SubType":
			it.subType = e.Value
		}
	}
	switch {
	case it.rarity == "Code Card":
		it.kind = kindCode
	case it.rarity != "" || it.number != "":
		it.kind = kindCard
	default:
		it.kind = kindSealed
	}
	return it
}

// histPrice is a real Fusion World market price from the derived history:
// u is Normal (or Holofoil when there is no Normal), uf is Holofoil.
type histPrice struct {
	u, uf float64
}

// sealedLink is one mtg-sealed-content product: its TCGplayer and Cardmarket
// ids and MTGJSON's name for it.
type sealedLink struct {
	name  string
	tcgID int
	mcmID int
	// MTGJSON's category, subtype and release date, for the synthetic files.
	category, subtype, release string
}

// groupJob is everything needed to generate one group's prices and its
// Cardmarket expansion.
type groupJob struct {
	seed     uint64
	day      int
	spec     *gameSpec
	group    tcgplayer.Group
	products []tcgplayer.Product

	history   map[int]histPrice  // real Fusion World prices (sample mode), by productId
	sealed    map[int]sealedLink // mtg-sealed-content links (sample mode), by TCGplayer productId
	orphans   []sealedLink       // mtg-sealed-content links whose TCGplayer product is absent
	mtgjson   bool               // give some sealed products an MTGJSON-style link (synthetic Magic)
	reserved  map[int]bool       // Cardmarket ids taken by real mcmIds
	cmFirstID int                // first Cardmarket idProduct of the group's block
	expansion cardmarket.Expansion
	ambiguous bool // plant the ambiguous-name case in this group
	trend     trend
	baseDate  time.Time
}

// cmEntry is one Cardmarket product of the group with its price guide entry.
type cmEntry struct {
	product cardmarket.Product
	single  bool
	guide   *cardmarket.PriceGuide // nil: the product has no entry in the guide
}

// groupResult is what one group contributes to the mirror.
type groupResult struct {
	tcgProducts int
	prices      []tcgplayer.Price // dropped once written
	priceRows   int
	cm          *cmBatch
	links       []linkRow
	mtgjson     []sealedLink
	cases       *caseLog
}

// linkRow is one row of links/links.csv.
type linkRow struct {
	game  string
	tcgID int
	cmID  int
}

// Roles of a card in the name cases.
type role int

const (
	roleExact           role = iota // Cardmarket name = TCGplayer name
	roleCosmetic                    // same name once normalised
	roleTCGOnly                     // no Cardmarket product
	roleRenamedLinked               // name beyond recognition, linked by links.csv
	roleRenamedUnlinked             // name beyond recognition, no link
	roleAmbiguous                   // two Cardmarket products carry its name
)

// Price cases of a card (at most one each).
type priceCase int

const (
	priceNormal priceCase = iota
	priceTCGNoRow
	priceTCGNullRow
	priceCMNoGuide
	priceCMNullGuide
	priceTCGFoilCMNoFoil
	priceCMFoilTCGNoFoil
)

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func quota(n int, frac float64, minimum, bigFrom int) int {
	k := int(math.Round(frac * float64(n)))
	if n >= bigFrom && k < minimum {
		k = minimum
	}
	return k
}

func (j *groupJob) run() *groupResult {
	res := &groupResult{cases: newCaseLog()}
	rv := newRNG(j.seed, "group-cases", j.group.GroupID)
	r := &rv
	items := make([]*item, len(j.products))
	var cards []int
	for i := range j.products {
		it := newItem(&j.products[i])
		j.setFinishes(it)
		items[i] = it
		if it.kind == kindCard {
			cards = append(cards, i)
		}
	}
	res.tcgProducts = len(items)
	roles := j.nameCases(r, cards)
	cases := priceCases(r, items, cards, roles)
	j.tcgPrices(items, cases, res)

	g := &cmGroup{job: j, r: r, res: res, next: j.cmFirstID, keys: map[string]bool{}, cosmetics: map[string]int{}}
	for _, it := range items {
		g.keys[fold.Key(it.p.Name)] = true
	}
	for i, it := range items {
		switch it.kind {
		case kindCode:
			res.cases.add(caseTCGOnly, Example{TCGProductID: it.p.ProductID, TCGGroupID: j.group.GroupID, Name: it.p.Name, Detail: "code card"})
		case kindSealed:
			g.sealed(it)
		case kindCard:
			g.card(it, roles[i], cases[i])
		}
	}
	for _, o := range j.orphans {
		g.orphan(o)
	}
	for k := quota(len(items), 0.04, 1, 8); k > 0; k-- {
		g.cmOnly(caseCMOnly)
	}
	res.cm = encodeCM(g.entries)
	return res
}

// nameCases gives cards (indices of items) their role in the name cases;
// the others are linked by their exact name.
func (j *groupJob) nameCases(r *rng, cards []int) map[int]role {
	roles := make(map[int]role, len(cards))
	n := len(cards)
	want := []struct {
		role role
		k    int
	}{
		{roleTCGOnly, quota(n, 0.04, 1, 20)},
		{roleRenamedLinked, quota(n, 0.006, 1, 50)},
		{roleRenamedUnlinked, quota(n, 0.006, 1, 50)},
		{roleAmbiguous, boolInt(j.ambiguous && n >= 2)},
		{roleCosmetic, quota(n, 0.12, 1, 5)},
	}
	perm := r.perm(n)
	pos := 0
	for _, w := range want {
		for k := 0; k < w.k && pos < n; k++ {
			roles[cards[perm[pos]]] = w.role
			pos++
		}
	}
	return roles
}

// priceCases gives some of the cards linked by name a price case, at most
// one each.
func priceCases(r *rng, items []*item, cards []int, roles map[int]role) map[int]priceCase {
	n := len(cards)
	cases := make(map[int]priceCase)
	left := map[priceCase]int{
		priceCMFoilTCGNoFoil: quota(n, 0.03, 1, 20),
		priceTCGFoilCMNoFoil: quota(n, 0.05, 1, 20),
		priceTCGNoRow:        quota(n, 0.02, 1, 20),
		priceTCGNullRow:      quota(n, 0.005, 1, 50),
		priceCMNoGuide:       quota(n, 0.02, 1, 20),
		priceCMNullGuide:     quota(n, 0.01, 1, 20),
	}
	// The cases that fit fewest cards first.
	order := []priceCase{priceCMFoilTCGNoFoil, priceTCGFoilCMNoFoil, priceTCGNoRow, priceTCGNullRow, priceCMNoGuide, priceCMNullGuide}
	for _, ci := range r.perm(n) {
		i := cards[ci]
		if ro := roles[i]; ro != roleExact && ro != roleCosmetic {
			continue
		}
		it := items[i]
		for _, pc := range order {
			if left[pc] == 0 ||
				pc == priceCMFoilTCGNoFoil && (it.hasFoil() || !it.hasNonFoil()) ||
				pc == priceTCGFoilCMNoFoil && !it.hasFoil() {
				continue
			}
			cases[i] = pc
			left[pc]--
			break
		}
	}
	return cases
}

// tcgPrices writes the group's TCGplayer price rows into res.
func (j *groupJob) tcgPrices(items []*item, cases map[int]priceCase, res *groupResult) {
	gid := j.group.GroupID
	for i, it := range items {
		switch cases[i] {
		case priceTCGNoRow:
			it.noRow = true
			res.cases.add(caseTCGNoPriceRow, Example{TCGProductID: it.p.ProductID, TCGGroupID: gid, Name: it.p.Name})
		case priceTCGNullRow:
			last := len(it.finishes) - 1
			it.finishes[last].market = 0
			res.cases.add(caseTCGNullPriceRow, Example{TCGProductID: it.p.ProductID, TCGGroupID: gid, Name: it.p.Name, Detail: it.finishes[last].name})
		}
		if it.kind == kindCode {
			res.cases.add(caseTCGNoPriceRow, Example{TCGProductID: it.p.ProductID, TCGGroupID: gid, Name: it.p.Name, Detail: "code card"})
		}
		if it.noRow {
			continue
		}
		for _, f := range it.finishes {
			res.prices = append(res.prices, tcgRow(j.seed, j.day, it.p.ProductID, f.name, f.market))
		}
		if len(it.finishes) == 1 && isFoilFinish(it.finishes[0].name) && it.kind == kindCard {
			res.cases.add(caseTCGFoilOnly, Example{TCGProductID: it.p.ProductID, TCGGroupID: gid, Name: it.p.Name, Detail: it.finishes[0].name})
		}
	}
}

// setFinishes decides which finishes TCGplayer prices and their day-0 market.
func (j *groupJob) setFinishes(it *item) {
	rv := newRNG(j.seed, "tcg-finishes", it.p.ProductID)
	r := &rv
	var names []string
	switch {
	case it.kind == kindCode:
		return
	case it.kind == kindSealed:
		names = []string{"Normal"}
	case j.spec.code == "mtg":
		switch {
		case strings.Contains(it.p.Name, "Foil"):
			names = []string{"Foil"}
		case strings.Contains(it.subType, "Plane") || strings.Contains(it.subType, "Phenomenon") || r.chance(0.05):
			names = []string{"Normal"}
		default:
			names = []string{"Normal", "Foil"}
		}
	case j.group.CategoryID == 80:
		if h, ok := j.history[it.p.ProductID]; ok {
			// Real values: uf alone (u == uf) is a Holofoil-only card.
			switch {
			case h.uf > 0 && h.u == h.uf:
				it.finishes = []tcgFinish{{"Holofoil", cents(h.uf)}}
			case h.uf > 0:
				it.finishes = []tcgFinish{{"Normal", cents(h.u)}, {"Holofoil", cents(h.uf)}}
			default:
				it.finishes = []tcgFinish{{"Normal", cents(h.u)}}
			}
			return
		}
		switch {
		case it.rarity == "Super Rare" || it.rarity == "Secret Rare" || it.rarity == "Leader" || strings.Contains(it.p.Name, "Alternate Art"):
			names = []string{"Holofoil"}
		case (it.rarity == "Rare" || it.rarity == "Uncommon") && r.chance(0.06):
			names = []string{"Normal", "Holofoil"}
		default:
			names = []string{"Normal"}
		}
	case j.spec.code == "pkm":
		// Holo rarities print holofoil only; from Legendary Collection (2002)
		// on, the other cards also have a reverse-holofoil printing.
		switch {
		case strings.Contains(it.rarity, "Holo") || pkmHoloOnly[it.rarity]:
			names = []string{"Holofoil"}
		case j.group.PublishedOn >= "2002" && it.rarity != "" && it.rarity != "Promo":
			names = []string{"Normal", "Reverse Holofoil"}
		default:
			names = []string{"Normal"}
		}
	case j.spec.code == "op":
		switch {
		case it.rarity == "SR" || it.rarity == "SEC" || it.rarity == "L" || strings.Contains(it.p.Name, "Parallel"):
			names = []string{"Foil"}
		default:
			names = []string{"Normal"}
		}
	default: // Dragon Ball Super Masters
		switch {
		case it.rarity == "Super Rare" || it.rarity == "Special Rare" || it.rarity == "Secret Rare":
			names = []string{"Foil"}
		case r.chance(0.8):
			names = []string{"Normal", "Foil"}
		default:
			names = []string{"Normal"}
		}
	}
	premium := len(names) > 1
	for _, f := range names {
		it.finishes = append(it.finishes, tcgFinish{f, marketUSD(j.seed, j.spec.code, it, f, premium && isFoilFinish(f))})
	}
}

// pkmHoloOnly are the Pokémon rarities printed only as holofoils.
var pkmHoloOnly = map[string]bool{"Ultra Rare": true, "Secret Rare": true, "Double Rare": true,
	"Illustration Rare": true, "Special Illustration Rare": true, "Hyper Rare": true, "Shiny Rare": true}
