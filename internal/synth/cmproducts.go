package synth

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
	"github.com/cardcat/cardcat/internal/synth/names"
	"github.com/cardcat/cardcat/internal/synth/rng"
)

// The Cardmarket products of one group: the cards and sealed products that
// Cardmarket also sells (under their own ids and names, planting the name and
// price cases), the ones only Cardmarket sells, and their price guide entries.

// cmGroup builds the Cardmarket side of one group.
type cmGroup struct {
	job  *groupJob
	r    *rng.Stream
	res  *groupResult
	next int
	keys map[string]bool // name keys in use in the pair (both marketplaces)
	// entries are the Cardmarket products made so far.
	entries []cmEntry
	promo   bool // names from the promo lists (the Cardmarket-only expansion)
	// cosmetics counts the cosmetic name variations used, by kind.
	cosmetics map[string]int
}

func (g *cmGroup) newID() int {
	for {
		id := g.next
		g.next += g.r.Between(1, 3)
		if !g.job.reserved[id] {
			return id
		}
	}
}

func (g *cmGroup) dateAdded(after bool) string {
	pub, err := time.Parse("2006-01-02T15:04:05", g.job.group.PublishedOn)
	if err != nil {
		pub = g.job.baseDate.AddDate(0, -6, 0)
	}
	var t time.Time
	if after {
		t = pub.AddDate(0, 0, g.r.Between(1, 300))
	} else {
		t = pub.AddDate(0, 0, -g.r.Between(3, 40))
	}
	t = t.Add(time.Duration(g.r.Intn(86400)) * time.Second)
	if limit := g.job.baseDate.AddDate(0, 0, -1); t.After(limit) {
		t = limit
	}
	return t.Format("2006-01-02 15:04:05")
}

// add appends a product; normal and foil are the day-0 levels of its finishes
// (0 = unpriced); guide false leaves it out of the price guide.
func (g *cmGroup) add(p cardmarket.Product, single bool, normal, foil cmFinish, guide bool) {
	e := cmEntry{product: p, single: single}
	if guide {
		pg := cmGuide(g.job.seed, g.job.day, g.job.spec.cmGame, p.IDProduct, p.IDCategory, normal, foil, g.job.trend)
		shapeGuide(g.job.spec.code, &pg)
		e.guide = &pg
		if single && pg.Trend != nil {
			c := caseCMBelow1EUR
			if *pg.Trend >= 1 {
				c = caseCMFrom1EUR
			}
			if g.res.cases.note(c) {
				g.res.cases.example(c, Example{CMProductIDs: []int{p.IDProduct}, CMExpansionID: p.IDExpansion, CMName: p.Name, Detail: trendDetail(pg)})
			}
		}
	}
	g.entries = append(g.entries, e)
}

func trendDetail(pg cardmarket.PriceGuide) string {
	return "trend " + fmtEUR(pg.Trend) + ", avg7 " + fmtEUR(pg.Avg7) + ", avg30 " + fmtEUR(pg.Avg30)
}

// level is the euro level of a Cardmarket finish derived from a USD price.
func (g *cmGroup) level(tag string, id int, usd int64) cmFinish {
	rv := rng.New(g.job.seed, "cm-level:"+tag, g.job.spec.cmGame, id)
	r := &rv
	return cmFinish(max(2, int64(math.Round(float64(usd)*usdToEUR*r.LogNormal(1, 0.2)))))
}

func (g *cmGroup) single(name, metaName string, added string) cardmarket.Product {
	if g.job.spec.code == "pkm" && g.job.group.PublishedOn < "2007" {
		added = "0000-00-00 00:00:00" // what Cardmarket's file says of the older sets' singles
	}
	cat := g.job.spec.cm.single
	return cardmarket.Product{
		IDProduct: g.newID(), Name: name, IDCategory: cat.id, CategoryName: cat.name,
		IDExpansion: g.job.expansion.IDExpansion, IDMetacard: metacard(g.job.seed, g.job.spec.cmGame, metaName),
		DateAdded: added,
	}
}

func (g *cmGroup) card(it *item, ro role, pc priceCase) {
	j, gid := g.job, g.job.group.GroupID
	ex := Example{TCGProductID: it.p.ProductID, TCGGroupID: gid, Name: it.p.Name, CMExpansionID: j.expansion.IDExpansion}
	if ro == roleTCGOnly {
		g.res.cases.add(caseTCGOnly, ex)
		return
	}
	base := g.cmBase(it)
	name := base
	switch ro {
	case roleExact:
		if base != it.base {
			ro, ex.Detail = roleCosmetic, "Cardmarket's spelling"
		}
	case roleCosmetic:
		var kind string
		name, kind = names.CosmeticVariant(base, g.cosmetics)
		ex.Detail = kind
	case roleRenamedLinked, roleRenamedUnlinked:
		name = g.newName()
	}
	name = g.dress(it, name)
	p := g.single(name, g.metaName(it), g.dateAdded(false))
	ex.CMProductIDs, ex.CMName = []int{p.IDProduct}, name

	// Finishes: Cardmarket's normal for the finishes it prices as normal,
	// its second finish for the others (spec.cmFoilFinish), unless a case
	// says otherwise.
	cmFoil := j.spec.cmFoilFinish
	usdNormal, usdFoil := it.marketBy(cmFoil, false), it.marketBy(cmFoil, true)
	if usdNormal == 0 && usdFoil == 0 {
		usdNormal = marketUSD(j.seed, j.spec.code, it, "Normal", false)
	}
	wantNormal, wantFoil := it.hasBy(cmFoil, false) || !it.hasBy(cmFoil, true), it.hasBy(cmFoil, true)
	if pc == priceNormal && j.spec.code == "op" && it.hasFoil() {
		// Not planted: every One Piece foil is priced so.
		fx := ex
		fx.Detail = "Cardmarket prices One Piece in one finish"
		g.res.cases.add(caseTCGFoilCMNoFoil, fx)
	}
	switch pc {
	case priceTCGFoilCMNoFoil:
		wantNormal, wantFoil = true, false
		g.res.cases.add(caseTCGFoilCMNoFoil, ex)
	case priceCMFoilTCGNoFoil:
		wantNormal, wantFoil = false, true
		g.res.cases.add(caseCMFoilTCGNoFoil, ex)
	}
	var normal, foil cmFinish
	if wantNormal {
		normal = g.level("normal", p.IDProduct, orElse(usdNormal, usdFoil))
	}
	if wantFoil {
		if usdFoil == 0 {
			usdFoil = usdNormal * int64(g.r.Between(15, 30)) / 10
		}
		foil = g.level("foil", p.IDProduct, usdFoil)
	}
	guide := true
	switch pc {
	case priceCMNoGuide:
		guide = false
		g.res.cases.add(caseCMNoGuide, ex)
	case priceCMNullGuide:
		normal, foil = 0, 0
		g.res.cases.add(caseCMNullGuide, ex)
	}
	g.add(p, true, normal, foil, guide)

	switch ro {
	case roleExact:
		g.res.cases.add(caseLinkedByName, ex)
	case roleCosmetic:
		g.res.cases.add(caseNameCosmetic, ex)
	case roleRenamedLinked:
		g.res.links = append(g.res.links, linkRow{j.spec.code, it.p.ProductID, p.IDProduct})
		g.res.cases.add(caseRenamedLinked, ex)
	case roleRenamedUnlinked:
		g.res.cases.add(caseRenamedUnlinked, ex)
	case roleAmbiguous:
		// A second product with the same name (cosmetically varied), same
		// metacard: name matching finds two candidates and must refuse.
		twin, _ := names.CosmeticVariant(base, nil)
		twin = g.dress(it, twin)
		q := g.single(twin, g.metaName(it), g.dateAdded(true))
		g.add(q, true, g.level("normal", q.IDProduct, orElse(usdNormal, usdFoil)), 0, true)
		ex.CMProductIDs = append(ex.CMProductIDs, q.IDProduct)
		ex.CMName += " | " + twin
		g.res.cases.add(caseAmbiguous, ex)
	}
}

// cmBase is the card's name as Cardmarket spells it: Pokémon's names keep
// the accent TCGplayer drops ("Pokémon Center") and bracket Nidoran's sex
// ("Nidoran [M]").
func (g *cmGroup) cmBase(it *item) string {
	if g.job.spec.code == "pkm" {
		return pkmSpelling.Replace(it.base)
	}
	return it.base
}

var pkmSpelling = strings.NewReplacer("Pokemon", "Pokémon", "Pokedex", "Pokédex", "Nidoran M", "Nidoran [M]", "Nidoran F", "Nidoran [F]")

// dress adds to a card's name what Cardmarket writes after it in the game:
// a Pokémon's powers and attacks in brackets ("Alakazam [Damage Swap |
// Confuse Ray]"), a One Piece card's number ("Roronoa Zoro (OP01-001)").
func (g *cmGroup) dress(it *item, name string) string {
	switch g.job.spec.code {
	case "pkm":
		if len(it.attacks) > 0 {
			return name + " [" + strings.Join(it.attacks, " | ") + "]"
		}
	case "op":
		if it.number != "" {
			return name + " (" + it.number + ")"
		}
	}
	return name
}

// metaName is the name metacard keys a card by: one card across its
// printings (Pokémon: with its attacks; One Piece: with its number).
func (g *cmGroup) metaName(it *item) string {
	switch g.job.spec.code {
	case "pkm":
		return strings.Join(append([]string{it.base}, it.attacks...), " ")
	case "op":
		return it.base + " " + it.number
	}
	return it.p.Name
}

// printings are a One Piece card and its other printings under its number
// (parallels, box toppers): Cardmarket sells each as a product of the same
// name ("Nami (OP01-016)") and idMetacard, so the card's name is ambiguous
// and none of them links by name; the other printings are TCGplayer-only.
func (g *cmGroup) printings(base *item) {
	j := g.job
	name := g.dress(base, g.cmBase(base))
	ex := Example{TCGProductID: base.p.ProductID, TCGGroupID: j.group.GroupID, Name: base.p.Name, CMExpansionID: j.expansion.IDExpansion,
		CMName: name, Detail: "its other printings are Cardmarket products of the same name"}
	for _, it := range append([]*item{base}, base.printings...) {
		p := g.single(name, g.metaName(base), g.dateAdded(it != base))
		usd := orElse(it.market(false), it.market(true))
		if usd == 0 {
			usd = marketUSD(j.seed, j.spec.code, it, "Normal", false)
		}
		g.add(p, true, g.level("normal", p.IDProduct, usd), 0, true)
		ex.CMProductIDs = append(ex.CMProductIDs, p.IDProduct)
		if it != base {
			g.res.cases.add(caseTCGOnly, Example{TCGProductID: it.p.ProductID, TCGGroupID: j.group.GroupID, Name: it.p.Name,
				CMProductIDs: []int{p.IDProduct}, CMExpansionID: j.expansion.IDExpansion, CMName: name,
				Detail: "printing Cardmarket names like its base card " + strconv.Itoa(base.p.ProductID)})
		}
	}
	g.res.cases.add(caseAmbiguous, ex)
}

// donCard is the set's One Piece DON!! card as Cardmarket names it: by the
// set ("DON!! (OP01)"), which no TCGplayer DON!! card's name links to.
func (g *cmGroup) donCard() {
	j := g.job
	set := j.group.Abbreviation
	if set == "" {
		set = j.group.Name
	}
	name := "DON!! (" + set + ")"
	p := g.single(name, name, g.dateAdded(true))
	g.add(p, true, g.level("normal", p.IDProduct, cents(g.r.LogNormal(1.5, 0.8))), 0, true)
	g.res.cases.add(caseCMOnly, Example{CMProductIDs: []int{p.IDProduct}, CMExpansionID: j.expansion.IDExpansion, TCGGroupID: j.group.GroupID,
		CMName: name, Detail: "DON!! card, named by its set"})
}

// orElse returns a if it is set, else b.
func orElse(a, b int64) int64 {
	if a > 0 {
		return a
	}
	return b
}

func (g *cmGroup) sealed(it *item) {
	j, gid := g.job, g.job.group.GroupID
	ex := Example{TCGProductID: it.p.ProductID, TCGGroupID: gid, Name: it.p.Name, CMExpansionID: j.expansion.IDExpansion}
	cat, ok := j.spec.cm.sealedCategory(it.p.Name)
	if !ok {
		ex.Detail = "sealed product Cardmarket does not sell"
		g.res.cases.add(caseTCGOnly, ex)
		if j.mtgjson {
			g.res.mtgjson = append(g.res.mtgjson, g.mtgjsonLink(it, 0))
		}
		return
	}
	usd := it.market(false)
	if usd == 0 {
		usd = marketUSD(j.seed, j.spec.code, it, "Normal", false)
	}
	p := cardmarket.Product{IDCategory: cat.id, CategoryName: cat.name, IDExpansion: j.expansion.IDExpansion, DateAdded: g.dateAdded(false)}
	if l, ok := j.sealed[it.p.ProductID]; ok {
		// The real Cardmarket id from mtg-sealed-content, under MTGJSON's name.
		p.IDProduct, p.Name = l.mcmID, l.name
		ex.Detail = "mtg-sealed-content mcmId"
	} else if j.mtgjson && g.r.Chance(0.5) {
		p.IDProduct = g.newID()
		l := g.mtgjsonLink(it, p.IDProduct)
		p.Name = l.name
		g.res.mtgjson = append(g.res.mtgjson, l)
		ex.Detail = "generated mtg-sealed-content mcmId"
	} else {
		p.IDProduct = g.newID()
		p.Name = it.p.Name
		kind := ""
		if g.r.Chance(0.5) {
			p.Name, kind = names.CosmeticVariant(p.Name, g.cosmetics)
		}
		ex.Detail = strings.TrimSpace("linked by name " + kind)
		if j.mtgjson {
			g.res.mtgjson = append(g.res.mtgjson, g.mtgjsonLink(it, 0))
		}
	}
	ex.CMProductIDs, ex.CMName = []int{p.IDProduct}, p.Name
	g.add(p, false, g.level("normal", p.IDProduct, usd), 0, true)
	g.res.cases.add(caseSealedNonSingle, ex)
}

// mtgjsonLink is the synthetic mtg-sealed-content entry of a sealed product;
// mcmID 0 leaves the Cardmarket id out, as MTGJSON does for products it
// knows no Cardmarket id of.
func (g *cmGroup) mtgjsonLink(it *item, mcmID int) sealedLink {
	category, subtype := mtgjsonCategory(it.p.Name)
	return sealedLink{
		name: mtgjsonName(g.job.group.Name, it.p.Name), tcgID: it.p.ProductID, mcmID: mcmID,
		category: category, subtype: subtype, release: g.job.group.PublishedOn[:min(10, len(g.job.group.PublishedOn))],
	}
}

// orphan is a sealed product that mtg-sealed-content links to a TCGplayer
// product absent from the mirror: Cardmarket sells it, TCGplayer's side of the
// link resolves to nothing.
func (g *cmGroup) orphan(l sealedLink) {
	j := g.job
	cat, _ := j.spec.cm.sealedCategory(l.name)
	p := cardmarket.Product{IDProduct: l.mcmID, Name: l.name, IDCategory: cat.id, CategoryName: cat.name,
		IDExpansion: j.expansion.IDExpansion, DateAdded: g.dateAdded(true)}
	r := rng.New(j.seed, "orphan", l.mcmID)
	usd := cents(r.LogNormal(sealedMedian(l.name), 0.25))
	g.add(p, false, g.level("normal", p.IDProduct, usd), 0, true)
	g.res.cases.add(caseMTGJSONOrphan, Example{TCGProductID: l.tcgID, CMProductIDs: []int{l.mcmID}, CMExpansionID: j.expansion.IDExpansion, CMName: l.name,
		Detail: "mtg-sealed-content links a TCGplayer product that is not in the mirror"})
}

// newName returns a card name unlike every name of the pair (without what
// dress adds).
func (g *cmGroup) newName() string {
	for i := 0; ; i++ {
		var name string
		switch code := g.job.spec.code; {
		case g.promo:
			name = names.PromoName(g.r, code)
		case code == "mtg":
			name, _ = names.MTGCardName(g.r)
		case code == "pkm":
			name, _ = names.PkmPokemonName(g.r, names.PkmEraOf(g.job.group.PublishedOn), rng.Pick(g.r, names.PkmSpecies).Name)
		case code == "op":
			name = rng.Pick(g.r, names.OPCharacters)
			if i > 10 {
				name += " & " + rng.Pick(g.r, names.OPCharacters)
			}
		default:
			name = names.DBSCharacterName(g.r) + ", " + rng.Pick(g.r, names.DBSEpithets)
		}
		if k := fold.Key(name); !g.keys[k] {
			g.keys[k] = true
			return name
		}
	}
}

// cmOnlyName is the name of a card only Cardmarket lists, in the game's
// form, and its name for metacard.
func (g *cmGroup) cmOnlyName() (name, meta string) {
	part := g.newName()
	switch g.job.spec.code {
	case "pkm":
		if g.promo {
			return part + " [" + rng.Pick(g.r, names.PkmPromoBracket) + "]", part
		}
		a := rng.Pick(g.r, names.PkmAttacks)
		b := rng.Pick(g.r, names.PkmAttacks)
		if a == b {
			return part + " [" + a + "]", part + " " + a
		}
		return part + " [" + a + " | " + b + "]", part + " " + a + " " + b
	case "op":
		number := fmt.Sprintf("%s-%03d", g.job.numPrefix, g.job.numNext%1000)
		g.job.numNext++
		return part + " (" + number + ")", part + " " + number
	}
	return part, part
}

// cmOnly adds a card that only Cardmarket lists, recorded under caseName.
func (g *cmGroup) cmOnly(caseName string) {
	name, meta := g.cmOnlyName()
	p := g.single(name, meta, g.dateAdded(true))
	usd := cents(g.r.LogNormal(0.6, 1.2))
	var normal, foil cmFinish
	switch k := g.r.Intn(10); {
	case k < 6:
		normal = g.level("normal", p.IDProduct, usd)
	case k < 8:
		normal, foil = g.level("normal", p.IDProduct, usd), g.level("foil", p.IDProduct, usd*2)
	default:
		foil = g.level("foil", p.IDProduct, usd*2)
	}
	if g.job.spec.code == "op" { // one finish
		normal, foil = max(normal, foil), 0
	}
	guide := !g.r.Chance(0.08)
	g.add(p, true, normal, foil, guide)
	detail := "priced"
	if !guide {
		detail = "no price guide entry"
	}
	g.res.cases.add(caseName, Example{CMProductIDs: []int{p.IDProduct}, CMExpansionID: p.IDExpansion, TCGGroupID: g.job.group.GroupID, CMName: name, Detail: detail})
}

// metacard is Cardmarket's id of a card across its printings: products whose
// names differ only by a printing suffix ("(Showcase)", "- FB01-001") share it.
func metacard(seed uint64, cmGame int, name string) int {
	base := name
	if i := strings.Index(base, " ("); i > 0 {
		base = base[:i]
	}
	if i := strings.Index(base, " - "); i > 0 {
		base = base[:i]
	}
	h := rng.Key("metacard:"+fold.Key(base), cmGame, int(seed))
	return 100000 + int(h%8_900_000)
}
