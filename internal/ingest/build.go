package ingest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
)

// GameReport counts what one game's ingest found and linked.
type GameReport struct {
	Game string `json:"game"`
	// Sets are every set read (TCGplayer's groups, Cardmarket-only
	// expansions), SetsServed those with a product, the ones the API lists:
	// a group upstream lists before it has products is not served.
	Sets                int      `json:"sets"`
	SetsServed          int      `json:"sets_served"`
	CardmarketOnlySets  int      `json:"cardmarket_only_sets"`
	Cards               int      `json:"cards"`
	TCGProducts         int      `json:"tcgplayer_products"`
	CMProducts          int      `json:"cardmarket_products"`
	Linked              int      `json:"linked"`
	LinkedMTGJSON       int      `json:"linked_mtgjson"`  // by MTGJSON's identifiers
	LinkedOperator      int      `json:"linked_operator"` // by links.csv
	LinkedByName        int      `json:"linked_by_name"`
	LinkedBySetPair     int      `json:"linked_by_name_set_pair"` // by name, inside an expansion an explicit set pair matched
	Forbidden           int      `json:"forbidden"`               // pairs a rule would have linked, forbidden by never.csv
	TCGOnly             int      `json:"tcgplayer_only"`
	CardmarketOnly      int      `json:"cardmarket_only"`
	Ambiguous           int      `json:"ambiguous"`
	ExpansionsMatched   int      `json:"expansions_matched"`
	ExpansionsUnmatched int      `json:"expansions_unmatched"`
	TCGPrices           int      `json:"tcgplayer_prices"`
	CMPrices            int      `json:"cardmarket_prices"`
	PricesChanged       int      `json:"prices_changed"`
	PricesUnchanged     int      `json:"prices_unchanged"`
	Warnings            []string `json:"warnings,omitempty"`
	// The change feed's count, known once the version is written: printed,
	// not in the version's stored report.
	CardsChanged int `json:"-"` // cards new or whose detail body changed
	CardsRemoved int `json:"-"`
}

// Report is the outcome of one ingest.
type Report struct {
	Version  int64         `json:"version"`
	Source   string        `json:"source"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration_ns"`
	Games    []GameReport  `json:"games"`
	// PointsPruned are the price points Run deleted after writing the
	// version (Options.HistoryDays); not in the version's stored report,
	// which is written before.
	PointsPruned int64 `json:"-"`
}

// normaliser turns one game's upstream files into the catalogue model.
type normaliser struct {
	g     game.Game
	u     *upstream
	links *links
	now   time.Time
	rep   *GameReport

	ext  map[string]string // reused per product: folded extendedData name → value
	cmBy map[int]*cmProduct
}

type cmProduct struct {
	p      *cardmarket.Product
	sealed bool // from products_nonsingles
}

func buildGame(u *upstream, now time.Time) (*catalog.GameCatalog, *GameReport, error) {
	n := &normaliser{
		g:    u.game,
		u:    u,
		now:  now,
		rep:  &GameReport{Game: u.game.Code},
		ext:  map[string]string{},
		cmBy: map[int]*cmProduct{},
	}
	for _, list := range []struct {
		ps     []cardmarket.Product
		sealed bool
	}{{u.cmSingle, false}, {u.cmSealed, true}} {
		for i := range list.ps {
			p := &list.ps[i]
			if _, dup := n.cmBy[p.IDProduct]; dup {
				return nil, nil, fmt.Errorf("game %s: Cardmarket idProduct %d appears twice in the product lists", u.game.Code, p.IDProduct)
			}
			n.cmBy[p.IDProduct] = &cmProduct{p: p, sealed: list.sealed}
		}
	}
	n.links = linkProducts(u)
	out := &catalog.GameCatalog{Game: u.game.Code}

	seenProduct := map[int]int{} // productId → groupId
	for _, grp := range u.groups {
		set := catalog.Set{
			Game:          u.game.Code,
			ID:            strconv.Itoa(grp.GroupID),
			Code:          strings.TrimSpace(grp.Abbreviation),
			Name:          grp.Name,
			Language:      u.game.Language(grp.CategoryID),
			ReleaseDate:   isoDateTime(grp.PublishedOn),
			TCGCategoryID: grp.CategoryID,
			TCGGroupID:    grp.GroupID,
		}
		out.Sets = append(out.Sets, set)
		for i := range u.products[grp.GroupID] {
			p := &u.products[grp.GroupID][i]
			if other, dup := seenProduct[p.ProductID]; dup {
				return nil, nil, fmt.Errorf("game %s: TCGplayer productId %d appears in groups %d and %d", u.game.Code, p.ProductID, other, grp.GroupID)
			}
			seenProduct[p.ProductID] = grp.GroupID
			out.Cards = append(out.Cards, n.tcgCard(p, set.ID))
		}
	}
	setIndex := map[string]int{}
	for i, s := range out.Sets {
		setIndex[s.ID] = i
	}
	for e, gid := range n.links.groupOf {
		s := &out.Sets[setIndex[strconv.Itoa(gid)]]
		if s.CMExpansionID == 0 || e < s.CMExpansionID {
			s.CMExpansionID = e
		}
	}
	// Cardmarket products no TCGplayer product is linked to.
	for _, list := range [][]cardmarket.Product{u.cmSingle, u.cmSealed} {
		for i := range list {
			p := &list[i]
			if _, linked := n.links.tcgOf[p.IDProduct]; linked {
				continue
			}
			setID := "-" + strconv.Itoa(p.IDExpansion)
			if gid, ok := n.links.groupOf[p.IDExpansion]; ok {
				setID = strconv.Itoa(gid)
			} else if _, ok := setIndex[setID]; !ok {
				setIndex[setID] = len(out.Sets)
				out.Sets = append(out.Sets, n.cardmarketSet(p.IDExpansion))
				n.rep.CardmarketOnlySets++
			}
			out.Cards = append(out.Cards, n.cmOnlyCard(p, setID))
		}
	}

	r := n.rep
	r.Sets = len(out.Sets)
	served := map[string]bool{}
	for i := range out.Cards {
		served[out.Cards[i].SetID] = true
	}
	r.SetsServed = len(served)
	r.Cards = len(out.Cards)
	r.TCGProducts = len(seenProduct)
	r.CMProducts = len(n.cmBy)
	r.LinkedMTGJSON = n.links.counts[catalog.MatchMTGJSON]
	r.LinkedOperator = n.links.counts[catalog.MatchOperator]
	r.LinkedByName = n.links.counts[catalog.MatchName]
	r.LinkedBySetPair = n.links.counts[catalog.MatchNameSetPair]
	r.Forbidden = len(n.links.forbidden)
	r.Linked = len(n.links.cmOf)
	r.TCGOnly = r.TCGProducts - r.Linked
	r.CardmarketOnly = r.CMProducts - r.Linked
	r.Ambiguous = n.links.ambiguous
	exps := map[int]bool{}
	for _, cp := range n.cmBy {
		exps[cp.p.IDExpansion] = true
	}
	r.ExpansionsMatched = len(n.links.groupOf)
	r.ExpansionsUnmatched = len(exps) - len(n.links.groupOf)
	r.Warnings = append(append(r.Warnings, u.warnings...), n.links.warnings...)
	for _, c := range out.Cards {
		r.TCGPrices += len(c.TCGPrices)
		r.CMPrices += len(c.CMPrices)
	}
	return out, r, nil
}

// extended indexes a product's extendedData by folded name; the first
// non-empty value of a name wins.
func (n *normaliser) extended(p *tcgplayer.Product) {
	clear(n.ext)
	for _, e := range p.ExtendedData {
		k := game.NormName(e.Name)
		if v := strings.TrimSpace(e.Value); v != "" {
			if _, ok := n.ext[k]; !ok {
				n.ext[k] = e.Value
			}
		}
	}
}

func (n *normaliser) field(names []string) string {
	for _, name := range names {
		if v, ok := n.ext[game.NormName(name)]; ok {
			return v
		}
	}
	return ""
}

func (n *normaliser) tcgCard(p *tcgplayer.Product, setID string) catalog.Card {
	n.extended(p)
	c := catalog.Card{
		Game:         n.g.Code,
		ID:           catalog.TCGCardID(n.g.Code, p.ProductID),
		SetID:        setID,
		TCGProductID: p.ProductID,
		Name:         p.Name,
		CleanName:    p.CleanName,
		CardNumber:   n.field(n.g.Number),
		Rarity:       n.field(n.g.Rarity),
		CardType:     n.field(n.g.CardType),
		CardText:     n.field(n.g.CardText),
		ImageCount:   p.ImageCount,
		TCGURL:       p.URL,
	}
	if c.CleanName == "" {
		c.CleanName = fold.Clean(p.Name)
	}
	for _, f := range n.g.Extra {
		if f.List {
			for _, name := range f.Names {
				if v := n.field([]string{name}); v != "" {
					c.Extra = append(c.Extra, catalog.ExtraField{Key: f.Key, Value: v})
				}
			}
		} else if v := n.field(f.Names); v != "" {
			c.Extra = append(c.Extra, catalog.ExtraField{Key: f.Key, Value: v})
		}
	}
	c.TCGPrices, c.Variants = n.tcgPrices(p.ProductID)

	var cm *cmProduct
	if id, ok := n.links.cmOf[p.ProductID]; ok {
		cm = n.cmBy[id]
		n.attachCardmarket(&c, cm.p)
		c.CMMatch = n.links.matchOf[p.ProductID]
	}
	c.ProductType = n.productType(&c, p, cm)
	return c
}

// sealedName matches the words that name a sealed product.
var sealedName = regexp.MustCompile(`(?i)\b(booster|boosters|box|boxes|pack|packs|deck|decks|display|displays|case|cases|bundle|bundles|tin|tins|collection|collections|kit|kits|sleeved)\b|\bset of \d+\b`)

// productType applies DECISIONS.md: card when TCGplayer gives a rarity or a
// number, or the product is a Cardmarket single; sealed when it has a UPC or
// GTIN, is linked to a Cardmarket non-single, or its name says so; else null.
func (n *normaliser) productType(c *catalog.Card, p *tcgplayer.Product, cm *cmProduct) string {
	switch {
	case c.Rarity != "" || c.CardNumber != "":
		return catalog.ProductCard
	case n.ext["upc"] != "" || n.ext["gtin"] != "" || cm != nil && cm.sealed || sealedName.MatchString(p.Name):
		return catalog.ProductSealed
	case cm != nil:
		return catalog.ProductCard
	}
	return ""
}

func (n *normaliser) tcgPrices(productID int) ([]catalog.TCGPrice, []string) {
	rows := n.u.prices[productID]
	var prices []catalog.TCGPrice
	var variants []string
	for _, r := range rows {
		p := catalog.TCGPrice{
			SubType:   r.SubTypeName,
			Low:       catalog.MoneyFromPtr(r.LowPrice),
			Mid:       catalog.MoneyFromPtr(r.MidPrice),
			High:      catalog.MoneyFromPtr(r.HighPrice),
			Market:    catalog.MoneyFromPtr(r.MarketPrice),
			DirectLow: catalog.MoneyFromPtr(r.DirectLowPrice),
			UpdatedAt: n.now,
		}
		if !p.Low.OK && !p.Mid.OK && !p.High.OK && !p.Market.OK && !p.DirectLow.OK {
			continue // a finish without any price is not priced
		}
		dup := false
		for _, v := range variants {
			dup = dup || v == p.SubType
		}
		if dup {
			continue
		}
		prices = append(prices, p)
		variants = append(variants, p.SubType)
	}
	return prices, variants
}

func (n *normaliser) attachCardmarket(c *catalog.Card, p *cardmarket.Product) {
	c.CMID = catalog.CMCardID(n.g.Code, n.g.CardmarketGame, p.IDProduct)
	c.CMProductID = p.IDProduct
	c.CMProductName = p.Name
	c.CMProductURL = n.cardmarketURL(p)
	g, ok := n.u.cmGuide[p.IDProduct]
	if !ok {
		return
	}
	for _, cp := range []catalog.CMPrice{
		{Variant: catalog.CMNormal, Avg: cmMoney(g.Avg), Low: cmMoney(g.Low), Trend: cmMoney(g.Trend),
			Avg1: cmMoney(g.Avg1), Avg7: cmMoney(g.Avg7), Avg30: cmMoney(g.Avg30)},
		{Variant: catalog.CMFoil, Avg: cmMoney(g.AvgFoil), Low: cmMoney(g.LowFoil), Trend: cmMoney(g.TrendFoil),
			Avg1: cmMoney(g.Avg1Foil), Avg7: cmMoney(g.Avg7Foil), Avg30: cmMoney(g.Avg30Foil)},
	} {
		if cp.Empty() {
			continue
		}
		cp.UpdatedAt = n.now
		c.CMPrices = append(c.CMPrices, cp)
	}
}

// cmMoney is a Cardmarket price guide value. 0 is no price: Cardmarket
// writes "trend-foil":0 beside null foil values for products sold in no foil
// (every One Piece row of the real guides, some Pokémon rows), and no
// article sells for 0 EUR.
func cmMoney(v *float64) catalog.Money {
	if v == nil || *v == 0 {
		return catalog.Money{}
	}
	return catalog.MoneyFromPtr(v)
}

// cardmarketURL is the product's page on Cardmarket, built from the
// expansion's and the product's names the way Cardmarket slugs them; "" when
// the expansion's name is unknown or the product is sealed (the spec allows
// product_url to be absent).
func (n *normaliser) cardmarketURL(p *cardmarket.Product) string {
	e, ok := n.u.cmExp[p.IDExpansion]
	if !ok || n.g.CardmarketSlug == "" {
		return ""
	}
	if cp := n.cmBy[p.IDProduct]; cp == nil || cp.sealed {
		return "" // sealed products sit under per-category paths that the files do not name
	}
	return "https://www.cardmarket.com/en/" + n.g.CardmarketSlug + "/Products/Singles/" + slug(e.EnName) + "/" + slug(p.Name)
}

func slug(s string) string {
	return strings.ReplaceAll(fold.Clean(s), " ", "-")
}

func (n *normaliser) cmOnlyCard(p *cardmarket.Product, setID string) catalog.Card {
	c := catalog.Card{
		Game:      n.g.Code,
		SetID:     setID,
		Name:      p.Name,
		CleanName: fold.Clean(p.Name),
	}
	n.attachCardmarket(&c, p)
	c.ID = c.CMID
	c.ProductType = catalog.ProductCard
	if n.cmBy[p.IDProduct].sealed {
		c.ProductType = catalog.ProductSealed
	}
	return c
}

// cardmarketSet is the set of an expansion that no TCGplayer group matches.
func (n *normaliser) cardmarketSet(idExpansion int) catalog.Set {
	s := catalog.Set{
		Game:          n.g.Code,
		ID:            "-" + strconv.Itoa(idExpansion),
		Name:          "Cardmarket expansion " + strconv.Itoa(idExpansion),
		Language:      "en",
		CMExpansionID: idExpansion,
	}
	if e, ok := n.u.cmExp[idExpansion]; ok {
		s.Name = e.EnName
		s.Code = strings.TrimSpace(e.Abbreviation)
		s.ReleaseDate = isoDateTime(e.ReleaseDate)
	} else {
		n.rep.Warnings = append(n.rep.Warnings, fmt.Sprintf("Cardmarket expansion %d has no name (no expansions.json entry)", idExpansion))
	}
	return s
}

// isoDateTime normalises an upstream date or date-time to the API's form
// "YYYY-MM-DDTHH:MM:SS" (no fraction, no offset); "" when empty or unreadable.
func isoDateTime(s string) string {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05-0700", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format("2006-01-02T15:04:05")
		}
	}
	return ""
}
