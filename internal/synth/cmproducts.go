package synth

import (
	"math"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
)

// The Cardmarket products of one group: the cards and sealed products that
// Cardmarket also sells (under their own ids and names, planting the name and
// price cases), the ones only Cardmarket sells, and their price guide entries.

// cmGroup builds the Cardmarket side of one group.
type cmGroup struct {
	job  *groupJob
	r    *rng
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
		g.next += g.r.between(1, 3)
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
		t = pub.AddDate(0, 0, g.r.between(1, 300))
	} else {
		t = pub.AddDate(0, 0, -g.r.between(3, 40))
	}
	t = t.Add(time.Duration(g.r.intn(86400)) * time.Second)
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
	rv := newRNG(g.job.seed, "cm-level:"+tag, g.job.spec.cmGame, id)
	r := &rv
	return cmFinish(max(2, int64(math.Round(float64(usd)*usdToEUR*r.logNormal(1, 0.2)))))
}

func (g *cmGroup) single(name, metaName string, added string) cardmarket.Product {
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
	name := it.p.Name
	switch ro {
	case roleCosmetic:
		var kind string
		name, kind = cosmeticVariant(name, g.cosmetics)
		ex.Detail = kind
	case roleRenamedLinked, roleRenamedUnlinked:
		name = g.newName()
	}
	p := g.single(name, it.p.Name, g.dateAdded(false))
	ex.CMProductIDs, ex.CMName = []int{p.IDProduct}, name

	// Finishes: Cardmarket's normal for TCGplayer's non-foil finishes, foil
	// for Foil and Holofoil, unless a case says otherwise.
	usdNormal, usdFoil := it.market(false), it.market(true)
	if usdNormal == 0 && usdFoil == 0 {
		usdNormal = marketUSD(j.seed, j.spec.code, it, "Normal", false)
	}
	wantNormal, wantFoil := it.hasNonFoil() || !it.hasFoil(), it.hasFoil()
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
			usdFoil = usdNormal * int64(g.r.between(15, 30)) / 10
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
		twin, _ := cosmeticVariant(it.p.Name, nil)
		q := g.single(twin, it.p.Name, g.dateAdded(true))
		g.add(q, true, g.level("normal", q.IDProduct, orElse(usdNormal, usdFoil)), 0, true)
		ex.CMProductIDs = append(ex.CMProductIDs, q.IDProduct)
		ex.CMName += " | " + twin
		g.res.cases.add(caseAmbiguous, ex)
	}
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
	} else if j.mtgjson && g.r.chance(0.5) {
		p.IDProduct = g.newID()
		l := g.mtgjsonLink(it, p.IDProduct)
		p.Name = l.name
		g.res.mtgjson = append(g.res.mtgjson, l)
		ex.Detail = "generated mtg-sealed-content mcmId"
	} else {
		p.IDProduct = g.newID()
		p.Name = it.p.Name
		kind := ""
		if g.r.chance(0.5) {
			p.Name, kind = cosmeticVariant(p.Name, g.cosmetics)
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
	r := newRNG(j.seed, "orphan", l.mcmID)
	usd := cents(r.logNormal(sealedMedian(l.name), 0.25))
	g.add(p, false, g.level("normal", p.IDProduct, usd), 0, true)
	g.res.cases.add(caseMTGJSONOrphan, Example{TCGProductID: l.tcgID, CMProductIDs: []int{l.mcmID}, CMExpansionID: j.expansion.IDExpansion, CMName: l.name,
		Detail: "mtg-sealed-content links a TCGplayer product that is not in the mirror"})
}

// newName returns a card name unlike every name of the pair.
func (g *cmGroup) newName() string {
	for {
		var name string
		if g.promo {
			name = promoName(g.r, g.job.spec.code)
		} else if g.job.spec.code == "mtg" {
			name, _ = mtgCardName(g.r)
		} else {
			name = dbsCharacterName(g.r) + ", " + pick(g.r, dbsEpithets)
		}
		if k := fold.Key(name); !g.keys[k] {
			g.keys[k] = true
			return name
		}
	}
}

// cmOnly adds a card that only Cardmarket lists, recorded under caseName.
func (g *cmGroup) cmOnly(caseName string) {
	name := g.newName()
	p := g.single(name, name, g.dateAdded(true))
	usd := cents(g.r.logNormal(0.6, 1.2))
	var normal, foil cmFinish
	switch k := g.r.intn(10); {
	case k < 6:
		normal = g.level("normal", p.IDProduct, usd)
	case k < 8:
		normal, foil = g.level("normal", p.IDProduct, usd), g.level("foil", p.IDProduct, usd*2)
	default:
		foil = g.level("foil", p.IDProduct, usd*2)
	}
	guide := !g.r.chance(0.08)
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
	h := streamKey("metacard:"+fold.Key(base), cmGame, int(seed))
	return 100000 + int(h%8_900_000)
}
