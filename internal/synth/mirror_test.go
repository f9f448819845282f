package synth

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
	"github.com/cardcat/cardcat/internal/ingest/mtgjson"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
)

// mirror is a generated mirror read back with the lead's decoders.
type mirror struct {
	categories []tcgplayer.Category
	groups     map[int][]tcgplayer.Group    // by categoryId
	products   map[int][]tcgplayer.Product  // by groupId
	prices     map[int][]tcgplayer.Price    // by groupId
	productsCM map[int][]cardmarket.Product // by idGame
	singles    map[int]map[int]bool         // idGame → idProduct → is a single
	guides     map[int]map[int]cardmarket.PriceGuide
	expansions map[int][]cardmarket.Expansion
	createdAt  map[string]string // Cardmarket file → createdAt
	sealed     map[string][]mtgjson.Link
	links      [][3]string
	report     Report
	realCM     map[int]bool // Cardmarket games whose files are copied from the real mirror, not generated
}

func decodeFile[T any](t *testing.T, path string, decode func(io.Reader) (T, error)) T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// readMirror decodes every file of a mirror; a file it does not know fails
// the test, so that every generated file is checked.
func readMirror(t *testing.T, dir string) *mirror {
	t.Helper()
	m := &mirror{
		groups: map[int][]tcgplayer.Group{}, products: map[int][]tcgplayer.Product{}, prices: map[int][]tcgplayer.Price{},
		productsCM: map[int][]cardmarket.Product{}, singles: map[int]map[int]bool{}, guides: map[int]map[int]cardmarket.PriceGuide{},
		expansions: map[int][]cardmarket.Expansion{}, createdAt: map[string]string{}, realCM: map[int]bool{}, sealed: map[string][]mtgjson.Link{},
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		atoi := func(s string) int {
			n, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			return n
		}
		switch {
		case rel == CasesFile:
			b, _ := os.ReadFile(path)
			if err := json.Unmarshal(b, &m.report); err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
		case rel == "README.md":
		case parts[0] == "tcgplayer" && len(parts) == 2 && parts[1] == "categories.json":
			m.categories = decodeFile(t, path, tcgplayer.DecodeCategories)
		case parts[0] == "tcgplayer" && len(parts) == 3 && parts[2] == "groups.json":
			m.groups[atoi(parts[1])] = decodeFile(t, path, tcgplayer.DecodeGroups)
		case parts[0] == "tcgplayer" && len(parts) == 4 && parts[3] == "products.json":
			m.products[atoi(parts[2])] = decodeFile(t, path, tcgplayer.DecodeProducts)
		case parts[0] == "tcgplayer" && len(parts) == 4 && parts[3] == "prices.json":
			m.prices[atoi(parts[2])] = decodeFile(t, path, tcgplayer.DecodePrices)
		case parts[0] == "cardmarket" && len(parts) == 3:
			g := atoi(parts[1])
			switch parts[2] {
			case "products_singles.json", "products_nonsingles.json":
				l := decodeFile(t, path, cardmarket.DecodeProducts)
				if l.Version != 1 || l.CreatedAt == "" {
					t.Errorf("%s: version %d, createdAt %q", rel, l.Version, l.CreatedAt)
				}
				m.createdAt[rel] = l.CreatedAt
				m.productsCM[g] = append(m.productsCM[g], l.Products...)
				if m.singles[g] == nil {
					m.singles[g] = map[int]bool{}
				}
				for _, p := range l.Products {
					if _, dup := m.singles[g][p.IDProduct]; dup {
						t.Errorf("%s: idProduct %d twice", rel, p.IDProduct)
					}
					m.singles[g][p.IDProduct] = parts[2] == "products_singles.json"
				}
			case "price_guide.json":
				f := decodeFile(t, path, decodeGuide(g))
				m.createdAt[rel] = f.CreatedAt
				m.guides[g] = map[int]cardmarket.PriceGuide{}
				for _, pg := range f.PriceGuides {
					m.guides[g][pg.IDProduct] = pg
				}
			case "expansions.json":
				m.expansions[g] = decodeFile(t, path, cardmarket.DecodeExpansions)
			default:
				t.Errorf("unexpected file %s", rel)
			}
		case parts[0] == "cardmarket" && len(parts) == 5 && parts[2] == "history" && parts[4] == "price_guide.json":
			decodeFile(t, path, decodeGuide(atoi(parts[1]))) // a real earlier day, read by ingest's history tests
		case len(parts) == 3 && parts[0] == "links" && parts[1] == "pokemon-tcgdex":
		case rel == "links/links.csv":
			b, _ := os.ReadFile(path)
			rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
			if err != nil || len(rows) == 0 || strings.Join(rows[0], ",") != "game,tcgplayer_product_id,cardmarket_id_product" {
				t.Fatalf("%s: %v %q", rel, err, rows)
			}
			for _, r := range rows[1:] {
				m.links = append(m.links, [3]string{r[0], r[1], r[2]})
			}
		case len(parts) == 3 && parts[0] == "links" && parts[1] == "mtg-sealed-content":
			m.sealed[parts[2]] = decodeFile(t, path, mtgjson.DecodeSealedLinks)
		default:
			t.Errorf("unexpected file %s", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range game.Mirrored().All() {
		if r := m.report.Games[g.Code]; r != nil && r.RealCardmarket {
			m.realCM[g.CardmarketGame] = true
		}
	}
	return m
}

// guideSuffix is the key suffix of the second finish in the price guide of
// Cardmarket game cmGame ("holo" for Pokémon).
func guideSuffix(cmGame int) string {
	for _, g := range game.Mirrored().All() {
		if g.CardmarketGame == cmGame {
			return g.FoilSuffix()
		}
	}
	return "foil"
}

func decodeGuide(cmGame int) func(io.Reader) (*cardmarket.PriceGuideFile, error) {
	return func(r io.Reader) (*cardmarket.PriceGuideFile, error) {
		return cardmarket.DecodePriceGuideFinish(r, guideSuffix(cmGame))
	}
}

// gameView is one game of a mirror with the pairs of TCGplayer groups and
// Cardmarket expansions matched by normalised name.
type gameView struct {
	g        game.Game
	m        *mirror
	products map[int]tcgplayer.Product
	rows     map[int][]tcgplayer.Price // by productId
	cm       map[int]cardmarket.Product
	groupOf  map[int]int // expansion → group
	byExp    map[int][]cardmarket.Product
	pairs    map[int]int // group → expansion
	cmOnly   []cardmarket.Expansion
	links    map[int]int // tcg → cm
}

func newGameView(t *testing.T, m *mirror, g game.Game) *gameView {
	t.Helper()
	v := &gameView{g: g, m: m, products: map[int]tcgplayer.Product{}, rows: map[int][]tcgplayer.Price{},
		cm: map[int]cardmarket.Product{}, groupOf: map[int]int{}, byExp: map[int][]cardmarket.Product{},
		pairs: map[int]int{}, links: map[int]int{}}
	groupByKey := map[string]tcgplayer.Group{}
	for _, cat := range g.TCGCategories {
		for _, gr := range m.groups[cat] {
			groupByKey[fold.Key(gr.Name)] = gr
			for _, p := range m.products[gr.GroupID] {
				v.products[p.ProductID] = p
			}
			for _, r := range m.prices[gr.GroupID] {
				v.rows[r.ProductID] = append(v.rows[r.ProductID], r)
			}
		}
	}
	for _, p := range m.productsCM[g.CardmarketGame] {
		v.cm[p.IDProduct] = p
		v.byExp[p.IDExpansion] = append(v.byExp[p.IDExpansion], p)
	}
	for _, e := range m.expansions[g.CardmarketGame] {
		gr, ok := groupByKey[fold.Key(e.EnName)]
		if !ok {
			v.cmOnly = append(v.cmOnly, e)
			continue
		}
		if len(m.products[gr.GroupID]) == 0 {
			t.Errorf("%s: expansion %d matches group %d, which has no products", g.Code, e.IDExpansion, gr.GroupID)
		}
		if e.Abbreviation != "" && e.Abbreviation != gr.Abbreviation {
			t.Errorf("%s: expansion %d abbreviation %q, group %d has %q", g.Code, e.IDExpansion, e.Abbreviation, gr.GroupID, gr.Abbreviation)
		}
		v.groupOf[e.IDExpansion] = gr.GroupID
		v.pairs[gr.GroupID] = e.IDExpansion
	}
	for _, l := range m.links {
		if l[0] != g.Code {
			continue
		}
		tcg, _ := strconv.Atoi(l[1])
		cm, _ := strconv.Atoi(l[2])
		v.links[tcg] = cm
	}
	return v
}

func isCard(p tcgplayer.Product) bool {
	for _, e := range p.ExtendedData {
		if e.Name == "Rarity" || e.Name == "Number" {
			return true
		}
	}
	return false
}

func allNull(vs ...*float64) bool {
	for _, v := range vs {
		if v != nil {
			return false
		}
	}
	return true
}

func normalNull(g cardmarket.PriceGuide) bool {
	return allNull(g.Avg, g.Low, g.Trend, g.Avg1, g.Avg7, g.Avg30)
}

// foilNull: no foil price; One Piece's rows say so with "trend-foil": 0
// and the others null.
func foilNull(g cardmarket.PriceGuide) bool {
	return unpriced(g.AvgFoil, g.LowFoil, g.TrendFoil, g.Avg1Foil, g.Avg7Foil, g.Avg30Foil)
}

// unpriced: every value null or 0.
func unpriced(vs ...*float64) bool {
	for _, v := range vs {
		if v != nil && *v != 0 {
			return false
		}
	}
	return true
}

// found counts the cases as the files show them, without the report.
type found map[string]int

// checkCases finds every planted case in one game's files.
func checkCases(t *testing.T, v *gameView) found {
	t.Helper()
	f := found{}
	linkedCM := map[int]bool{}
	for tcg, cm := range v.links {
		p, ok := v.products[tcg]
		c, ok2 := v.cm[cm]
		if !ok || !ok2 {
			t.Errorf("%s: links.csv row %d,%d does not resolve (tcgplayer %v, cardmarket %v)", v.g.Code, tcg, cm, ok, ok2)
			continue
		}
		if ingest.TCGKey(v.g, &p) == ingest.CMKey(v.g, c.Name) {
			t.Errorf("%s: links.csv row %d,%d links names that match anyway (%q)", v.g.Code, tcg, cm, p.Name)
		}
		linkedCM[cm] = true
		f["links_csv_row"]++
	}
	for gid, exp := range v.pairs {
		// Names are compared as ingest links them: Pokémon's without
		// Cardmarket's attacks, One Piece's with the card number.
		tcgKeys := map[string][]tcgplayer.Product{}
		for _, p := range v.m.products[gid] {
			k := ingest.TCGKey(v.g, &p)
			tcgKeys[k] = append(tcgKeys[k], p)
		}
		cmKeys := map[string][]cardmarket.Product{}
		for _, c := range v.byExp[exp] {
			k := ingest.CMKey(v.g, c.Name)
			cmKeys[k] = append(cmKeys[k], c)
		}
		for k, ps := range tcgKeys {
			if len(ps) != 1 {
				t.Errorf("%s: group %d has %d products named %q", v.g.Code, gid, len(ps), k)
			}
			p := ps[0]
			cs := cmKeys[k]
			switch {
			case len(cs) > 1:
				f["ambiguous"]++
			case len(cs) == 0 && isCard(p) && v.links[p.ProductID] == 0:
				f["tcgplayer_only_card"]++
			case len(cs) == 1:
				c := cs[0]
				if ingest.CMNamePart(v.g, c.Name) != tcgNamePart(v.g, p) {
					f["cosmetic"]++
				}
				if !v.m.singles[v.g.CardmarketGame][c.IDProduct] {
					f["sealed_non_single"]++
					continue
				}
				checkPricePair(v, p, c, f)
			}
		}
		for k, cs := range cmKeys {
			for _, c := range cs {
				if len(tcgKeys[k]) == 0 && !linkedCM[c.IDProduct] {
					if v.m.singles[v.g.CardmarketGame][c.IDProduct] {
						f["cardmarket_only_single"]++
					} else {
						f["cardmarket_only_non_single"]++
					}
				}
			}
		}
		if _, ok := v.rows[0]; ok {
			t.Errorf("price row for productId 0")
		}
		for _, p := range v.m.products[gid] {
			if len(v.rows[p.ProductID]) == 0 && isCard(p) {
				f["tcgplayer_no_price_row"]++
			}
		}
	}
	for _, p := range v.cm {
		g, ok := v.m.guides[v.g.CardmarketGame][p.IDProduct]
		switch {
		case !ok:
			f["cardmarket_no_guide"]++
		case normalNull(g) && foilNull(g):
			f["cardmarket_guide_all_null"]++
		case g.Trend != nil && *g.Trend >= 1 && v.m.singles[v.g.CardmarketGame][p.IDProduct]:
			f["single_from_1_eur"]++
		case g.Trend != nil && *g.Trend < 1 && v.m.singles[v.g.CardmarketGame][p.IDProduct]:
			f["single_below_1_eur"]++
		}
	}
	for _, rows := range v.rows {
		for _, r := range rows {
			if allNull(r.LowPrice, r.MidPrice, r.HighPrice, r.MarketPrice, r.DirectLowPrice) {
				f["tcgplayer_row_all_null"]++
				continue
			}
			if r.LowPrice == nil || r.MidPrice == nil || r.HighPrice == nil || r.MarketPrice == nil ||
				*r.LowPrice > *r.MarketPrice || *r.MarketPrice > *r.HighPrice || *r.MidPrice < *r.LowPrice || *r.MidPrice > *r.HighPrice {
				t.Errorf("%s: implausible price row %+v", v.g.Code, r)
			}
		}
	}
	// Trends per expansion: the median of avg7/avg30 over priced finishes.
	for _, e := range v.m.expansions[v.g.CardmarketGame] {
		var ratios []float64
		for _, c := range v.byExp[e.IDExpansion] {
			g := v.m.guides[v.g.CardmarketGame][c.IDProduct]
			if g.Avg7 != nil && g.Avg30 != nil {
				ratios = append(ratios, *g.Avg7 / *g.Avg30)
			}
		}
		if len(ratios) == 0 {
			continue
		}
		slices.Sort(ratios)
		switch r := ratios[len(ratios)/2]; {
		case r > 1.05:
			f["expansion_trend_up"]++
		case r < 0.95:
			f["expansion_trend_down"]++
		default:
			f["expansion_trend_stable"]++
		}
	}
	for _, e := range v.cmOnly {
		f["cardmarket_only_expansion"]++
		f["cardmarket_only_expansion_products"] += len(v.byExp[e.IDExpansion])
	}
	return f
}

// tcgNamePart is a TCGplayer name without the number's tail One Piece's
// names carry ("Jinbe (014)").
func tcgNamePart(g game.Game, p tcgplayer.Product) string {
	if g.CardmarketNames == game.NameNumbered {
		for _, e := range p.ExtendedData {
			if game.NormName(e.Name) == "number" {
				return ingest.WithoutNumberTail(p.Name, e.Value)
			}
		}
	}
	return p.Name
}

// checkPricePair classifies the finishes of a product linked by name.
func checkPricePair(v *gameView, p tcgplayer.Product, c cardmarket.Product, f found) {
	var tcgFoil, tcgNormal bool
	for _, r := range v.rows[p.ProductID] {
		if r.MarketPrice == nil {
			continue
		}
		if isFoilFinish(r.SubTypeName) {
			tcgFoil = true
		} else {
			tcgNormal = true
		}
	}
	g, ok := v.m.guides[v.g.CardmarketGame][c.IDProduct]
	if !ok {
		return
	}
	if tcgFoil && foilNull(g) && !normalNull(g) {
		f["tcgplayer_foil_cardmarket_no_foil"]++
	}
	if tcgNormal && !tcgFoil && normalNull(g) && !foilNull(g) {
		f["cardmarket_foil_only_tcgplayer_normal"]++
	}
}

// sharedData locates the real mirror: CARDCAT_SHARED_DATA, else
// ../shared/data next to the repository.
func sharedData(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("CARDCAT_SHARED_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "data")
	}
	if _, err := os.Stat(filepath.Join(dir, "tcgplayer", "categories.json")); err != nil {
		t.Skipf("real data not found at %s (set CARDCAT_SHARED_DATA to the shared/data directory): %v", dir, err)
	}
	return dir
}

// readTree returns every file under dir/part for each part, by relative path.
func readTree(t *testing.T, dir string, parts ...string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, p := range parts {
		root := filepath.Join(dir, p)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			rel, _ := filepath.Rel(dir, path)
			files[filepath.ToSlash(rel)] = b
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// diffTrees reports the files that differ between two trees.
func diffTrees(a, b map[string][]byte) []string {
	var diff []string
	for name, x := range a {
		if y, ok := b[name]; !ok || !bytes.Equal(x, y) {
			diff = append(diff, name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			diff = append(diff, name)
		}
	}
	slices.Sort(diff)
	return diff
}
