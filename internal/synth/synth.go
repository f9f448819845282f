// Package synth generates the upstream files cardcat ingests, in the real
// formats, with a seeded deterministic generator: the same seed and options
// give byte-identical output.
//
// A mirror is a directory laid out like the upstream paths (what
// `cardcat ingest --from DIR` reads):
//
//	tcgplayer/categories.json
//	tcgplayer/{categoryId}/groups.json
//	tcgplayer/{categoryId}/{groupId}/products.json, prices.json
//	cardmarket/{idGame}/products_singles.json, products_nonsingles.json, price_guide.json, expansions.json
//	links/mtg-sealed-content/{SET}.json, links/links.csv
//	links/pokemon-tcgdex/sets.csv (TCGdex's pairs of Pokémon groups and expansions)
//	synth-cases.json (not upstream: where the generator planted each case)
//
// Sample builds a mirror around a real one (shared/data): the real TCGplayer
// files, links and Cardmarket files (Pokémon, One Piece) are copied byte for
// byte, the missing files (TCGplayer prices, the other games' Cardmarket
// files, links.csv) are generated. Synthetic builds a whole mirror of N cards
// of every game of the registry for load tests, each in the forms of its real
// files: Pokémon's Cardmarket singles named with their attacks ("Alakazam
// [Damage Swap | Confuse Ray]") and priced with "-holo" keys, One Piece's
// named with the card number ("Roronoa Zoro (OP01-001)"), their parallels
// products of the same name. Both plant the cases listed in cases.go, against
// the name keys ingest links by (ingest.TCGKey, ingest.CMKey). Options.Day
// gives the same mirror on a later day: the catalogue is identical and about
// 10% of the prices differ per day.
//
// This package is the run and the pairing of the two marketplaces: Sample
// (sample.go) and Synthetic (synthetic.go) hand their groups to runGame
// (run.go), which generates each group with its Cardmarket expansion
// (group.go: TCGplayer prices and the cases; cmproducts.go: the Cardmarket
// products; prices.go: the price models; cardmarket.go: the Cardmarket
// files; links.go: the link files). Its parts of their own are packages:
//
//	tcgcatalog  the synthetic TCGplayer catalogue: groups planned up front, their products per game
//	names       word lists and name makers per game, the words of a name, cosmetic name variations
//	encode      hand-written encoders of the four records a mirror has millions of
//	rng         the deterministic random streams every part draws from
package synth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// baseDate is day 0 of every generated mirror (the real TCGplayer snapshot in
// shared/data is of 2026-01-30). Nothing depends on the clock.
var baseDate = time.Date(2026, 1, 31, 2, 41, 7, 0, time.UTC)

// DefaultCards is the size of a synthetic mirror when Options.Cards is 0.
const DefaultCards = 10000

// CasesFile is the report of planted cases at the top of a mirror.
const CasesFile = "synth-cases.json"

// mirrorParts are the entries a run writes into the output directory.
var mirrorParts = []string{"tcgplayer", "cardmarket", "links", CasesFile}

// ErrExists is returned when the output directory already holds a mirror
// that synth did not write and Options.Replace is false.
var ErrExists = errors.New("output directory already holds a mirror")

// Options configures a run.
type Options struct {
	Out     string // directory to write the mirror into (created if missing)
	Replace bool   // replace a mirror in Out even when synth did not write it
	Seed    uint64
	Day     int // 0 = day 0; d > 0 = the same mirror d days later
	From    string
	Cards   int          // synthetic mode: TCGplayer cards (sealed products come on top); 0 = DefaultCards
	Log     *slog.Logger // progress lines; nil = silent
	Workers int          // groups generated at once; 0 = GOMAXPROCS
}

// Result sums up a run.
type Result struct {
	Files   int
	Report  *Report
	Elapsed time.Duration
}

// Totals are the counts summed over the games.
func (r *Result) Totals() GameCounts {
	var t GameCounts
	for _, g := range r.Report.Games {
		c := g.Counts
		t.TCGGroups += c.TCGGroups
		t.TCGProducts += c.TCGProducts
		t.TCGPriceRows += c.TCGPriceRows
		t.CMExpansions += c.CMExpansions
		t.CMSingles += c.CMSingles
		t.CMNonSingles += c.CMNonSingles
		t.CMPriceGuides += c.CMPriceGuides
		t.LinksCSVRows += c.LinksCSVRows
		t.MTGJSONLinks += c.MTGJSONLinks
		t.MTGJSONFiles += c.MTGJSONFiles
		t.TCGdexSetPairs += c.TCGdexSetPairs
	}
	return t
}

func (o *Options) check() error {
	if o.Out == "" {
		return errors.New("synth: no output directory")
	}
	if o.Day < 0 {
		return fmt.Errorf("synth: day %d is negative", o.Day)
	}
	if o.Cards < 0 {
		return fmt.Errorf("synth: cards %d is negative", o.Cards)
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return nil
}

// createdAt is the timestamp of the Cardmarket files on the run's day.
func (o *Options) createdAt() string { return cmTimestamp(baseDate.AddDate(0, 0, o.Day)) }

// stage checks the output directory and returns a fresh directory inside it
// to write the mirror into, so that a failed run leaves no half mirror.
func stage(out string, replace bool) (string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("synth: %w", err)
	}
	// A mirror synth wrote (it has CasesFile) is replaced; any other one
	// (a real download, say) only when asked to.
	if _, err := os.Stat(filepath.Join(out, CasesFile)); err != nil && !replace {
		for _, p := range mirrorParts {
			if _, err := os.Stat(filepath.Join(out, p)); err == nil {
				return "", fmt.Errorf("synth: %s: %w (%s exists)", out, ErrExists, p)
			}
		}
	}
	tmp, err := os.MkdirTemp(out, ".synth-")
	if err != nil {
		return "", fmt.Errorf("synth: %w", err)
	}
	return tmp, nil
}

// commit moves the staged mirror into place, replacing an older one, and
// returns the number of files it holds.
func commit(out, tmp string) (int, error) {
	files := 0
	err := filepath.WalkDir(tmp, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("synth: %w", err)
	}
	for _, p := range mirrorParts {
		if err := os.RemoveAll(filepath.Join(out, p)); err != nil {
			return 0, fmt.Errorf("synth: %w", err)
		}
		if err := os.Rename(filepath.Join(tmp, p), filepath.Join(out, p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, fmt.Errorf("synth: %w", err)
		}
	}
	return files, os.Remove(tmp)
}

func writeReport(dir string, r *Report) error {
	f, err := os.Create(filepath.Join(dir, CasesFile))
	if err != nil {
		return err
	}
	if err := r.write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runOrdered calls work(i) for i in [0, n) on up to workers goroutines and
// consume(i, result) in order of i. At most workers results exist at a time.
// It returns the first error and waits for the work already started.
func runOrdered[T any](ctx context.Context, n, workers int, work func(i int) (T, error), consume func(i int, v T) error) error {
	type result struct {
		v   T
		err error
	}
	results := make([]chan result, n)
	for i := range results {
		results[i] = make(chan result, 1)
	}
	sem := make(chan struct{}, workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < n; i++ {
			select {
			case sem <- struct{}{}:
			case <-stop:
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				v, err := work(i)
				results[i] <- result{v, err}
			}()
		}
	}()
	defer wg.Wait()
	defer close(stop)
	for i := 0; i < n; i++ {
		var r result
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-sem
		if r.err != nil {
			return r.err
		}
		if err := consume(i, r.v); err != nil {
			return err
		}
	}
	return nil
}

// progressFrom is the size of a run (in products) from which progress is logged.
const progressFrom = 20000

// progress logs every tenth of a long run.
type progress struct {
	log   *slog.Logger
	what  string
	total int
	done  int
	tenth int
	start time.Time
}

func (p *progress) step(n int) {
	p.done += n
	for p.total >= progressFrom && p.done*10 >= (p.tenth+1)*p.total && p.tenth < 10 {
		p.tenth++
		p.log.Info("synth progress", "what", p.what, "done", p.done, "total", p.total, "percent", p.tenth*10,
			"elapsed", time.Since(p.start).Round(time.Millisecond).String())
	}
}
