package synth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest/mtgjson"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
	"github.com/cardcat/cardcat/internal/synth/encode"
	"github.com/cardcat/cardcat/internal/synth/rng"
)

// Paths inside a real mirror (shared/data).
const (
	historyPath = "derived/tcg-collector/dbfw-price-history.json"
	sealedDir   = "links/mtg-sealed-content"
	tcgdexDir   = "links/pokemon-tcgdex" // TCGdex's set and card pairs for Pokémon
)

// Sample writes a mirror around the real one in opts.From: its TCGplayer
// files, its mtg-sealed-content and TCGdex links and its Cardmarket files
// (Pokémon and One Piece) are copied byte for byte; prices.json for every
// products.json, the Cardmarket files of the games without real ones and
// links/links.csv are generated. Fusion World market prices are the latest real ones of the
// derived price history where it has them.
func Sample(ctx context.Context, opts Options) (*Result, error) {
	start := time.Now()
	if err := opts.check(); err != nil {
		return nil, err
	}
	if opts.From == "" {
		return nil, errors.New("synth: no real mirror to start from")
	}
	if _, err := os.Stat(filepath.Join(opts.From, "tcgplayer", "categories.json")); err != nil {
		return nil, fmt.Errorf("synth: %s is not a mirror: %w", opts.From, err)
	}
	tmp, err := stage(opts.Out, opts.Replace)
	if err != nil {
		return nil, err
	}
	report, err := sample(ctx, &opts, tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	files, err := commit(opts.Out, tmp)
	if err != nil {
		return nil, err
	}
	return &Result{Files: files, Report: report, Elapsed: time.Since(start)}, nil
}

func sample(ctx context.Context, opts *Options, dir string) (*Report, error) {
	from := opts.From
	for _, sub := range []string{"tcgplayer", sealedDir, tcgdexDir} {
		if err := copyTree(filepath.Join(from, sub), filepath.Join(dir, sub)); err != nil {
			return nil, fmt.Errorf("synth: copy %s: %w", sub, err)
		}
	}
	history, err := readHistory(filepath.Join(from, historyPath))
	if err != nil {
		return nil, err
	}
	report := &Report{Mode: "sample", Seed: opts.Seed, Day: opts.Day, Games: map[string]*GameReport{}}
	specs := gameSpecs(game.Mirrored())
	rv := rng.New(opts.Seed, "cardmarket-ids")
	r := &rv
	cmID := 600000 + r.Intn(50000)
	var links []linkRow
	total := 0
	type loaded struct {
		spec   *gameSpec
		groups []tcgplayer.Group // every group of the game
		tasks  []task
	}
	var games []loaded
	for _, spec := range specs {
		l := loaded{spec: spec}
		for _, cat := range spec.categories {
			groups, err := readTCG(filepath.Join(from, "tcgplayer", strconv.Itoa(cat), "groups.json"), tcgplayer.DecodeGroups)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			l.groups = append(l.groups, groups...)
		}
		// Oldest first, as Cardmarket numbers its expansions.
		ordered := slices.Clone(l.groups)
		slices.SortStableFunc(ordered, func(a, b tcgplayer.Group) int {
			if c := strings.Compare(a.PublishedOn, b.PublishedOn); c != 0 {
				return c
			}
			return a.GroupID - b.GroupID
		})
		codes := map[string]int{}
		for _, g := range l.groups {
			codes[g.Abbreviation]++
		}
		for _, g := range ordered {
			path := filepath.Join(from, "tcgplayer", strconv.Itoa(g.CategoryID), strconv.Itoa(g.GroupID), "products.json")
			products, err := readTCG(path, tcgplayer.DecodeProducts)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			total += len(products)
			l.tasks = append(l.tasks, task{job: &groupJob{
				seed: opts.Seed, day: opts.Day, spec: spec, group: g, products: products,
				history: history, baseDate: baseDate, reserved: map[int]bool{},
				expansion: expansionFor(opts.Seed, spec.cmGame, 0, g, codes[g.Abbreviation] > 1),
			}})
		}
		games = append(games, l)
	}

	prog := &progress{log: opts.Log, what: "tcgplayer products", total: total, start: time.Now()}
	for _, l := range games {
		spec := l.spec
		if spec.code == "mtg" {
			nFiles, nLinks, err := attachSealedLinks(filepath.Join(from, sealedDir), l.tasks)
			if err != nil {
				return nil, err
			}
			c := &report.game(spec.code).Counts
			c.MTGJSONFiles, c.MTGJSONLinks = nFiles, nLinks
		}
		if real := filepath.Join(from, "cardmarket", strconv.Itoa(spec.cmGame)); isDir(real) {
			if err := copyTree(real, filepath.Join(dir, "cardmarket", strconv.Itoa(spec.cmGame))); err != nil {
				return nil, fmt.Errorf("synth: copy %s: %w", real, err)
			}
			if err := priceGroups(ctx, opts, dir, report.game(spec.code), prog, l.groups, l.tasks); err != nil {
				return nil, fmt.Errorf("synth: %s: %w", spec.code, err)
			}
			continue
		}
		for i := range l.tasks {
			l.tasks[i].size = len(l.tasks[i].job.products) + len(l.tasks[i].job.orphans)
		}
		gl, err := runGame(ctx, opts, spec, dir, report.game(spec.code), prog, r, &cmID, l.groups, l.tasks)
		if err != nil {
			return nil, err
		}
		links = append(links, gl...)
	}
	if err := writeLinksCSV(dir, links); err != nil {
		return nil, err
	}
	return report, writeReport(dir, report)
}

// priceGroups writes the TCGplayer prices of a game whose Cardmarket files
// are real: no Cardmarket file, link or case is generated for it, since
// linking its real products is ingest's to do, not synth's to plant.
func priceGroups(ctx context.Context, opts *Options, dir string, rep *GameReport, prog *progress,
	groups []tcgplayer.Group, tasks []task) error {
	rep.RealCardmarket = true
	rep.Counts.TCGGroups = len(groups)
	work := func(i int) (int, error) {
		j := tasks[i].job
		res := &groupResult{cases: newCaseLog()}
		items := make([]*item, len(j.products))
		for k := range j.products {
			items[k] = newItem(&j.products[k])
			j.setFinishes(items[k])
		}
		j.tcgPrices(items, nil, res)
		b := encode.AppendTCGPrices(nil, res.prices)
		return len(res.prices), writeFile(filepath.Join(groupDir(dir, j.group), "prices.json"), b)
	}
	consume := func(i, rows int) error {
		rep.Counts.TCGProducts += len(tasks[i].job.products)
		rep.Counts.TCGPriceRows += rows
		prog.step(len(tasks[i].job.products))
		return nil
	}
	return runOrdered(ctx, len(tasks), opts.Workers, work, consume)
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

func readTCG[T any](path string, decode func(io.Reader) ([]T, error)) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v, err := decode(f)
	if err != nil {
		return nil, fmt.Errorf("synth: %s: %w", path, err)
	}
	return v, nil
}

// copyTree copies every file under src to dst, byte for byte.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// readHistory returns the latest snapshot of the derived Fusion World price
// history, by productId; nothing when the file is absent.
func readHistory(path string) (map[int]histPrice, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Snapshots []struct {
			Prices map[string]struct {
				U  float64 `json:"u"`
				UF float64 `json:"uf"`
			} `json:"prices"`
		} `json:"snapshots"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("synth: %s: %w", path, err)
	}
	if len(doc.Snapshots) == 0 {
		return nil, nil
	}
	out := map[int]histPrice{}
	for id, p := range doc.Snapshots[len(doc.Snapshots)-1].Prices {
		n, err := strconv.Atoi(id)
		if err != nil || p.U <= 0 {
			continue
		}
		out[n] = histPrice{u: p.U, uf: p.UF}
	}
	return out, nil
}

// attachSealedLinks gives the Magic groups the mtg-sealed-content links of
// their sealed products. A link whose TCGplayer product is not in the mirror
// goes to the group holding most of its file's other products. It returns
// the number of files and links read.
func attachSealedLinks(dir string, tasks []task) (files, count int, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	groupOf := map[int]int{} // productId → task
	for i, t := range tasks {
		for _, p := range t.job.products {
			groupOf[p.ProductID] = i
		}
	}
	reserved := map[int]bool{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return 0, 0, err
		}
		links, err := mtgjson.DecodeSealedLinks(f)
		f.Close()
		if err != nil {
			return 0, 0, fmt.Errorf("synth: %s: %w", e.Name(), err)
		}
		files++
		count += len(links)
		votes := map[int]int{}
		var orphans []sealedLink
		for _, l := range links {
			reserved[l.CardmarketID] = true
			sl := sealedLink{name: l.Name, tcgID: l.TCGplayerProductID, mcmID: l.CardmarketID}
			i, ok := groupOf[l.TCGplayerProductID]
			if !ok {
				orphans = append(orphans, sl)
				continue
			}
			votes[i]++
			j := tasks[i].job
			if j.sealed == nil {
				j.sealed = map[int]sealedLink{}
			}
			j.sealed[sl.tcgID] = sl
		}
		best := -1
		for i, v := range votes {
			if best < 0 || v > votes[best] || v == votes[best] && i < best {
				best = i
			}
		}
		if best >= 0 {
			tasks[best].job.orphans = append(tasks[best].job.orphans, orphans...)
		}
	}
	for _, t := range tasks {
		t.job.reserved = reserved
	}
	return files, count, nil
}
