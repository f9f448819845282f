package ingest

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
	"github.com/cardcat/cardcat/internal/ingest/mtgjson"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
)

// upstream is everything read for one game, before normalisation.
type upstream struct {
	game     game.Game
	groups   []tcgplayer.Group             // every group of the game's categories, file order
	products map[int][]tcgplayer.Product   // by groupId
	prices   map[int][]tcgplayer.Price     // by productId
	cmSingle []cardmarket.Product          // products_singles
	cmSealed []cardmarket.Product          // products_nonsingles
	cmGuide  map[int]cardmarket.PriceGuide // by idProduct
	cmExp    map[int]cardmarket.Expansion  // by idExpansion (optional file)
	links    []explicitLink
	never    map[linkPair]bool // pairs the operator forbids (links/never.csv)
	setPairs map[int]int       // Cardmarket idExpansion → TCGplayer groupId (game.SetLinks)
	warnings []string
}

// linkPair is a TCGplayer productId and a Cardmarket idProduct.
type linkPair struct{ tcg, cm int }

// explicitLink is a TCGplayer↔Cardmarket pair given by a linking file.
type explicitLink struct {
	tcg, cm int
	match   string // catalog.MatchMTGJSON or catalog.MatchOperator
	from    string // file that gave it
}

// fileError names the file (and, through the wrapped error, the record) that stopped the ingest.
func fileError(src Source, name string, err error) error {
	return fmt.Errorf("%s: %w", src.Describe(name), err)
}

// readFile opens and decodes one file. Missing files return an error
// matching fs.ErrNotExist.
func readFile[T any](ctx context.Context, src Source, name string, decode func(io.Reader) (T, error)) (T, error) {
	var zero T
	rc, err := src.Open(ctx, name)
	if err != nil {
		if isNotExist(err) {
			return zero, fmt.Errorf("%s: %w", src.Describe(name), fs.ErrNotExist)
		}
		return zero, fileError(src, name, err)
	}
	defer rc.Close()
	v, err := decode(rc)
	if err != nil {
		return zero, fileError(src, name, err)
	}
	return v, nil
}

// readUpstream reads every file of one game from src.
func readUpstream(ctx context.Context, src Source, g game.Game, opts Options) (*upstream, error) {
	u := &upstream{
		game:     g,
		products: map[int][]tcgplayer.Product{},
		prices:   map[int][]tcgplayer.Price{},
		cmGuide:  map[int]cardmarket.PriceGuide{},
		cmExp:    map[int]cardmarket.Expansion{},
	}
	for _, cat := range g.TCGCategories {
		name := join("tcgplayer", strconv.Itoa(cat), "groups.json")
		groups, err := readFile(ctx, src, name, tcgplayer.DecodeGroups)
		if err != nil {
			return nil, err
		}
		for i := range groups {
			if groups[i].CategoryID == 0 {
				groups[i].CategoryID = cat
			}
		}
		u.groups = append(u.groups, groups...)
	}
	if err := u.readGroups(ctx, src, opts); err != nil {
		return nil, err
	}
	if err := u.readCardmarket(ctx, src); err != nil {
		return nil, err
	}
	if err := u.readLinks(ctx, src); err != nil {
		return nil, err
	}
	return u, nil
}

// maxLiveFetches keeps a live ingest polite: at most this many requests to
// the upstream at once.
const maxLiveFetches = 4

// readGroups reads the products and prices of every group, a few at a time.
// A group without products.json has no products yet; without prices.json,
// its products are unpriced.
func (u *upstream) readGroups(ctx context.Context, src Source, opts Options) error {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
		if _, live := src.(*HTTPSource); live {
			workers = min(workers, maxLiveFetches)
		}
	}
	type result struct {
		group    int
		products []tcgplayer.Product
		prices   []tcgplayer.Price
		err      error
	}
	jobs := make(chan tcgplayer.Group)
	results := make(chan result)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for grp := range jobs {
				r := result{group: grp.GroupID}
				dir := join("tcgplayer", strconv.Itoa(grp.CategoryID), strconv.Itoa(grp.GroupID))
				r.products, r.err = readFile(ctx, src, join(dir, "products.json"), tcgplayer.DecodeProducts)
				if isNotExist(r.err) {
					r.err = nil
				} else if r.err == nil && len(r.products) > 0 {
					r.prices, r.err = readFile(ctx, src, join(dir, "prices.json"), tcgplayer.DecodePrices)
					if isNotExist(r.err) {
						r.err = nil
					}
				}
				select {
				case results <- r:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, g := range u.groups {
			select {
			case jobs <- g:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()

	var errs []error
	done := 0
	for r := range results {
		done++
		if opts.Progress != nil {
			opts.Progress(u.game.Code, done, len(u.groups))
		}
		if r.err != nil {
			errs = append(errs, r.err)
			cancel()
			continue
		}
		for i := range r.products {
			r.products[i].GroupID = r.group
		}
		u.products[r.group] = r.products
		for _, p := range r.prices {
			u.prices[p.ProductID] = append(u.prices[p.ProductID], p)
		}
	}
	if len(errs) > 0 {
		// Report the first real failure, not a cancellation it caused.
		for _, err := range errs {
			if !errors.Is(err, context.Canceled) {
				return err
			}
		}
		return errs[0]
	}
	return ctx.Err()
}

func (u *upstream) readCardmarket(ctx context.Context, src Source) error {
	dir := join("cardmarket", strconv.Itoa(u.game.CardmarketGame))
	for _, f := range []struct {
		name string
		into *[]cardmarket.Product
	}{{"products_singles.json", &u.cmSingle}, {"products_nonsingles.json", &u.cmSealed}} {
		l, err := readFile(ctx, src, join(dir, f.name), cardmarket.DecodeProducts)
		if isNotExist(err) {
			u.warnings = append(u.warnings, fmt.Sprintf("no Cardmarket %s for game %d", f.name, u.game.CardmarketGame))
			continue
		}
		if err != nil {
			return err
		}
		*f.into = l.Products
	}
	suffix := u.game.FoilSuffix()
	guide, err := readFile(ctx, src, join(dir, "price_guide.json"), func(r io.Reader) (*cardmarket.PriceGuideFile, error) {
		return cardmarket.DecodePriceGuideFinish(r, suffix)
	})
	switch {
	case isNotExist(err):
		if len(u.cmSingle)+len(u.cmSealed) > 0 {
			u.warnings = append(u.warnings, fmt.Sprintf("no Cardmarket price guide for game %d", u.game.CardmarketGame))
		}
	case err != nil:
		return err
	default:
		for _, pg := range guide.PriceGuides {
			u.cmGuide[pg.IDProduct] = pg
		}
	}
	exps, err := readFile(ctx, src, join(dir, "expansions.json"), cardmarket.DecodeExpansions)
	if err != nil && !isNotExist(err) {
		return err
	}
	for _, e := range exps {
		if strings.TrimSpace(e.EnName) != "" { // a nameless entry tells nothing an absent one does not
			u.cmExp[e.IDExpansion] = e
		}
	}
	return nil
}

// mtgjsonSets are the mtg-sealed-content files read for Magic. The live
// source has no listing, so the set codes come from the game's groups.
func (u *upstream) mtgjsonSets() []string {
	seen := map[string]bool{}
	var codes []string
	for _, g := range u.groups {
		c := strings.ToUpper(g.Abbreviation)
		if c != "" && !seen[c] && fs.ValidPath(c) && !strings.Contains(c, "/") {
			seen[c] = true
			codes = append(codes, c)
		}
	}
	sort.Strings(codes)
	return codes
}

func (u *upstream) readLinks(ctx context.Context, src Source) error {
	if u.game.SealedLinks != "" {
		for _, code := range u.mtgjsonSets() {
			name := join(u.game.SealedLinks, code+".json")
			links, err := readFile(ctx, src, name, mtgjson.DecodeSealedLinks)
			if isNotExist(err) {
				continue
			}
			if err != nil {
				return err
			}
			for _, l := range links {
				u.links = append(u.links, explicitLink{tcg: l.TCGplayerProductID, cm: l.CardmarketID, match: catalog.MatchMTGJSON, from: name})
			}
		}
	}
	if u.game.SetLinks != "" {
		pairs, err := readFile(ctx, src, u.game.SetLinks, decodeSetPairs)
		if err != nil && !isNotExist(err) {
			return err
		}
		u.setPairs = map[int]int{}
		for e, gs := range pairs {
			if len(gs) != 1 {
				u.warnings = append(u.warnings, fmt.Sprintf("%s pairs Cardmarket expansion %d with %d TCGplayer groups: none used", u.game.SetLinks, e, len(gs)))
				continue
			}
			u.setPairs[e] = gs[0]
		}
	}
	neverName, linksName := join("links", "never.csv"), join("links", "links.csv")
	never, err := readFile(ctx, src, neverName, decodeLinksCSV)
	if err != nil && !isNotExist(err) {
		return err
	}
	rows, err := readFile(ctx, src, linksName, decodeLinksCSV)
	if err != nil && !isNotExist(err) {
		return err
	}
	ops, forbidden, err := operatorLinks(u.game.Code, rows, never)
	if err != nil {
		return fileError(src, linksName, err)
	}
	u.never = forbidden
	for _, r := range ops {
		u.links = append(u.links, explicitLink{tcg: r.tcg, cm: r.cm, match: catalog.MatchOperator, from: linksName})
	}
	return nil
}

// operatorLinks returns the links.csv rows of game and the pairs never.csv
// forbids in it. A pair in both files is an error, not a guess: the
// operator's two files disagree, and either reading could publish a wrong
// link or hide a right one. Nothing is written and the previous catalogue
// stays served until one of the two lines goes.
func operatorLinks(game string, links, never []csvLink) ([]csvLink, map[linkPair]bool, error) {
	forbidden := map[linkPair]bool{}
	lineOf := map[linkPair]int{}
	for _, r := range never {
		if r.game != game {
			continue
		}
		p := linkPair{r.tcg, r.cm}
		if !forbidden[p] {
			forbidden[p], lineOf[p] = true, r.line
		}
	}
	var out []csvLink
	for _, r := range links {
		if r.game != game {
			continue
		}
		if line, ok := lineOf[linkPair{r.tcg, r.cm}]; ok {
			return nil, nil, fmt.Errorf("line %d: %s,%d,%d is forbidden by links/never.csv line %d: remove one of the two lines", r.line, r.game, r.tcg, r.cm, line)
		}
		out = append(out, r)
	}
	return out, forbidden, nil
}

type csvLink struct {
	game    string
	tcg, cm int
	line    int // in the file, for messages
}

// decodeLinksCSV reads one of the operator's pair files, links.csv or
// never.csv: game,tcgplayer_product_id,cardmarket_id_product (header
// required).
func decodeLinksCSV(r io.Reader) ([]csvLink, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 3
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if strings.Join(header, ",") != "game,tcgplayer_product_id,cardmarket_id_product" {
		return nil, fmt.Errorf("header is %q, want game,tcgplayer_product_id,cardmarket_id_product", strings.Join(header, ","))
	}
	var out []csvLink
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		for i := range rec {
			// "mtg ,1,2" is mtg: a game that silently never matched would be a link or a ban that never applies.
			rec[i] = strings.TrimSpace(rec[i])
		}
		tcg, err1 := strconv.Atoi(rec[1])
		cm, err2 := strconv.Atoi(rec[2])
		if rec[0] == "" || err1 != nil || err2 != nil || tcg <= 0 || cm <= 0 {
			return nil, fmt.Errorf("line %d: want game,positive tcgplayer_product_id,positive cardmarket_id_product, got %q", line, strings.Join(rec, ","))
		}
		out = append(out, csvLink{game: rec[0], tcg: tcg, cm: cm, line: line})
	}
}

// decodeSetPairs reads a CSV of set pairs (game.SetLinks): the columns
// tcgplayer_group_id and cardmarket_id_expansion, found by their header, the
// others ignored; a line without both ids pairs nothing. It returns the
// distinct groups of each expansion.
func decodeSetPairs(r io.Reader) (map[int][]int, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	gcol, ecol := -1, -1
	for i, h := range header {
		switch strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) {
		case "tcgplayer_group_id":
			gcol = i
		case "cardmarket_id_expansion":
			ecol = i
		}
	}
	if gcol < 0 || ecol < 0 {
		return nil, fmt.Errorf("header: no tcgplayer_group_id and cardmarket_id_expansion columns")
	}
	out := map[int][]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		if len(rec) <= max(gcol, ecol) {
			return nil, fmt.Errorf("line %d: %d fields, want at least %d", line, len(rec), max(gcol, ecol)+1)
		}
		gs, es := strings.TrimSpace(rec[gcol]), strings.TrimSpace(rec[ecol])
		if gs == "" || es == "" {
			continue
		}
		g, err1 := strconv.Atoi(gs)
		e, err2 := strconv.Atoi(es)
		if err1 != nil || err2 != nil || g <= 0 || e <= 0 {
			return nil, fmt.Errorf("line %d: ids %q and %q are not positive integers", line, gs, es)
		}
		if !slices.Contains(out[e], g) {
			out[e] = append(out[e], g)
		}
	}
}
