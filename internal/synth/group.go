package synth

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
	"github.com/cardcat/cardcat/internal/synth/names"
	"github.com/cardcat/cardcat/internal/synth/rng"
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

	// base is the card's name as Cardmarket writes it before what it adds
	// (Pokémon's attacks, One Piece's number): the TCGplayer name without
	// TCGplayer's own additions (One Piece's "(014)" and "(Parallel)").
	base string
	// attacks are a Pokémon's powers and attacks, in card order, which
	// Cardmarket writes in brackets after the name.
	attacks []string
	// tcgOnly says why Cardmarket has no product of this card under a name
	// that links ("" when it has): a misprint TCGplayer lists apart, a One
	// Piece DON!! card without a number.
	tcgOnly string
	// printings are the other One Piece products of this card's number and
	// name (parallels, box toppers); variant marks those.
	printings []*item
	variant   bool
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

// marketBy is market for the finishes Cardmarket prices as its second
// finish (second) or as its first, by the game's cmFoil.
func (it *item) marketBy(cmFoil func(string) bool, second bool) int64 {
	for _, f := range it.finishes {
		if cmFoil(f.name) == second && f.market > 0 {
			return f.market
		}
	}
	return 0
}

// hasBy reports whether the item has a finish Cardmarket prices as its
// second finish (second) or as its first.
func (it *item) hasBy(cmFoil func(string) bool, second bool) bool {
	return slices.ContainsFunc(it.finishes, func(f tcgFinish) bool { return cmFoil(f.name) == second })
}

func newItem(p *tcgplayer.Product) *item {
	it := &item{p: p, base: p.Name}
	var power string
	for _, e := range p.ExtendedData {
		switch e.Name {
		case "Rarity":
			it.rarity = e.Value
		case "Number":
			it.number = e.Value
		case "SubType":
			it.subType = e.Value
		case "CardText":
			power = powerName(e.Value)
		case "Attack 1", "Attack 2", "Attack 3", "Attack 4":
			if a := attackName(e.Value); a != "" {
				it.attacks = append(it.attacks, a)
			}
		}
	}
	if power != "" {
		it.attacks = append([]string{power}, it.attacks...)
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

// powerName is the name of a Pokémon's power or ability in its card text
// ("<strong>Pokémon Power: Damage Swap</strong> ..."), else "".
func powerName(text string) string {
	rest, ok := strings.CutPrefix(text, "<strong>")
	if !ok {
		return ""
	}
	head, _, ok := strings.Cut(rest, "</strong>")
	if !ok {
		return ""
	}
	_, name, ok := strings.Cut(head, ": ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(name)
}

// attackName is the name of an attack in TCGplayer's form ("[1LLL] Thunder
// (60)\r\n<br>Flip a coin...").
func attackName(v string) string {
	if _, rest, ok := strings.Cut(v, "] "); ok {
		v = rest
	}
	v, _, _ = strings.Cut(v, "\r")
	v, _, _ = strings.Cut(v, "<br>")
	if i := strings.LastIndex(v, " ("); i > 0 && strings.HasSuffix(v, ")") {
		v = v[:i]
	}
	return strings.TrimSpace(v)
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
	// numPrefix and numNext number the One Piece cards only Cardmarket has
	// ("OP05-131"): the group's prefix, past its last number.
	numPrefix string
	numNext   int
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
	rv := rng.New(j.seed, "group-cases", j.group.GroupID)
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
	j.prepare(items)
	// The name and price cases go to the cards Cardmarket names like
	// TCGplayer; the others have cases of their own.
	cards = slices.DeleteFunc(cards, func(i int) bool {
		it := items[i]
		return it.tcgOnly != "" || it.variant || len(it.printings) > 0
	})
	roles := j.nameCases(r, cards)
	cases := priceCases(r, items, cards, roles, j.spec.code != "op")
	j.tcgPrices(items, cases, res)

	g := &cmGroup{job: j, r: r, res: res, next: j.cmFirstID, keys: map[string]bool{}, cosmetics: map[string]int{}}
	for _, it := range items {
		g.keys[fold.Key(it.p.Name)] = true
		g.keys[fold.Key(it.base)] = true
	}
	don := false
	for i, it := range items {
		switch {
		case it.kind == kindCode:
			res.cases.add(caseTCGOnly, Example{TCGProductID: it.p.ProductID, TCGGroupID: j.group.GroupID, Name: it.p.Name, Detail: "code card"})
		case it.kind == kindSealed:
			g.sealed(it)
		case it.tcgOnly != "":
			res.cases.add(caseTCGOnly, Example{TCGProductID: it.p.ProductID, TCGGroupID: j.group.GroupID, Name: it.p.Name, Detail: it.tcgOnly})
			don = don || it.rarity == "DON!!"
		case it.variant:
			// Made with its base card.
		case len(it.printings) > 0:
			g.printings(it)
		default:
			g.card(it, roles[i], cases[i])
		}
	}
	for _, o := range j.orphans {
		g.orphan(o)
	}
	for k := quota(len(items), 0.04, 1, 8); k > 0; k-- {
		g.cmOnly(caseCMOnly)
	}
	if don {
		g.donCard()
	}
	res.cm = encodeCM(g.entries, j.spec.foilSuffix)
	return res
}

// prepare reads what the game's names say of the items: the base name
// Cardmarket uses, Pokémon's misprints and One Piece's DON!! cards (no
// product Cardmarket names like them), One Piece's printings of one number
// and the number prefix of the group.
func (j *groupJob) prepare(items []*item) {
	switch j.spec.code {
	case "pkm":
		for _, it := range items {
			for _, e := range names.PkmErrorPrints {
				if strings.HasSuffix(it.p.Name, " "+e) {
					it.tcgOnly = "misprint TCGplayer lists apart; Cardmarket has no product of it"
				}
			}
		}
	case "op":
		byKey := map[string][]*item{}
		var keys []string
		for _, it := range items {
			if it.kind != kindCard {
				continue
			}
			if it.number == "" {
				if it.rarity == "DON!!" {
					it.tcgOnly = "DON!! card: no card number to link by; Cardmarket names it by its set"
				}
				continue
			}
			name := it.p.Name
			for _, v := range []string{names.OPMangaAlt, names.OPParallel, names.OPBoxTopper} {
				name = strings.TrimSuffix(name, v)
			}
			it.variant = name != it.p.Name
			it.base = ingest.WithoutNumberTail(name, it.number) // as ingest keys it
			k := it.number + "|" + fold.Key(it.base)
			if byKey[k] == nil {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], it)
			if i := strings.LastIndexByte(it.number, '-'); i > 0 {
				n, _ := strconv.Atoi(it.number[i+1:])
				if j.numPrefix == "" {
					j.numPrefix = it.number[:i]
				}
				if it.number[:i] == j.numPrefix {
					j.numNext = max(j.numNext, n+1)
				}
			}
		}
		for _, k := range keys {
			its := byKey[k]
			var base *item
			for _, it := range its {
				if !it.variant && base == nil {
					base = it
				}
			}
			if len(its) == 1 || base == nil {
				for _, it := range its {
					it.variant = false
				}
				continue
			}
			for _, it := range its {
				if it != base {
					base.printings = append(base.printings, it)
				}
			}
		}
		if j.numPrefix == "" {
			j.numPrefix, j.numNext = "P", 900
		}
	}
}

// nameCases gives cards (indices of items) their role in the name cases;
// the others are linked by their exact name.
func (j *groupJob) nameCases(r *rng.Stream, cards []int) map[int]role {
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
	perm := r.Perm(n)
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
// one each. cmFoil false: Cardmarket prices no second finish in the game, so
// neither case of a missing foil price is planted (One Piece).
func priceCases(r *rng.Stream, items []*item, cards []int, roles map[int]role, cmFoil bool) map[int]priceCase {
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
	if !cmFoil {
		left[priceCMFoilTCGNoFoil], left[priceTCGFoilCMNoFoil] = 0, 0
	}
	// The cases that fit fewest cards first.
	order := []priceCase{priceCMFoilTCGNoFoil, priceTCGFoilCMNoFoil, priceTCGNoRow, priceTCGNullRow, priceCMNoGuide, priceCMNullGuide}
	for _, ci := range r.Perm(n) {
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
	rv := rng.New(j.seed, "tcg-finishes", it.p.ProductID)
	r := &rv
	var finishes []string
	switch {
	case it.kind == kindCode:
		return
	case it.kind == kindSealed:
		finishes = []string{"Normal"}
	case j.spec.code == "mtg":
		switch {
		case strings.Contains(it.p.Name, "Foil"):
			finishes = []string{"Foil"}
		case strings.Contains(it.subType, "Plane") || strings.Contains(it.subType, "Phenomenon") || r.Chance(0.05):
			finishes = []string{"Normal"}
		default:
			finishes = []string{"Normal", "Foil"}
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
			finishes = []string{"Holofoil"}
		case (it.rarity == "Rare" || it.rarity == "Uncommon") && r.Chance(0.06):
			finishes = []string{"Normal", "Holofoil"}
		default:
			finishes = []string{"Normal"}
		}
	case j.spec.code == "pkm":
		// Holo rarities print holofoil only; from Legendary Collection (2002)
		// on, the other cards also have a reverse-holofoil printing.
		switch {
		case strings.Contains(it.rarity, "Holo") || pkmHoloOnly[it.rarity]:
			finishes = []string{"Holofoil"}
		case j.group.PublishedOn >= "2002" && it.rarity != "" && it.rarity != "Promo":
			finishes = []string{"Normal", "Reverse Holofoil"}
		default:
			finishes = []string{"Normal"}
		}
	case j.spec.code == "op":
		switch {
		case it.rarity == "SR" || it.rarity == "SEC" || it.rarity == "L" || strings.Contains(it.p.Name, "Parallel"):
			finishes = []string{"Foil"}
		default:
			finishes = []string{"Normal"}
		}
	default: // Dragon Ball Super Masters
		switch {
		case it.rarity == "Super Rare" || it.rarity == "Special Rare" || it.rarity == "Secret Rare":
			finishes = []string{"Foil"}
		case r.Chance(0.8):
			finishes = []string{"Normal", "Foil"}
		default:
			finishes = []string{"Normal"}
		}
	}
	premium := len(finishes) > 1
	for _, f := range finishes {
		it.finishes = append(it.finishes, tcgFinish{f, marketUSD(j.seed, j.spec.code, it, f, premium && isFoilFinish(f))})
	}
}

// pkmHoloOnly are the Pokémon rarities printed only as holofoils.
var pkmHoloOnly = map[string]bool{"Ultra Rare": true, "Secret Rare": true, "Double Rare": true,
	"Illustration Rare": true, "Special Illustration Rare": true, "Hyper Rare": true, "Shiny Rare": true,
	"Art Rare": true, "Super Rare": true, "Special Art Rare": true}
