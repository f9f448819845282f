package synth

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
	"github.com/cardcat/cardcat/internal/synth/rng"
	"github.com/cardcat/cardcat/internal/synth/tcgcatalog"
)

// Synthetic writes a whole generated mirror of opts.Cards TCGplayer cards,
// split evenly between the registry's games (Dragon Ball Super: 60% Fusion
// World, 40% Masters; Pokémon: half English, half Japanese), in groups of
// about 100 to 400 products. Groups are generated and written one by one
// (several at once), so memory stays bounded whatever the size.
func Synthetic(ctx context.Context, opts Options) (*Result, error) {
	start := time.Now()
	if err := opts.check(); err != nil {
		return nil, err
	}
	if opts.Cards == 0 {
		opts.Cards = DefaultCards
	}
	tmp, err := stage(opts.Out, opts.Replace)
	if err != nil {
		return nil, err
	}
	report, err := synthetic(ctx, &opts, tmp)
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

func synthetic(ctx context.Context, opts *Options, dir string) (*Report, error) {
	specs := gameSpecs(game.Default())
	games := make([]game.Game, len(specs))
	for i, spec := range specs {
		games[i] = spec.g
	}
	plans := tcgcatalog.PlanCatalogue(opts.Seed, opts.Cards, games, baseDate)
	report := &Report{Mode: "synthetic", Seed: opts.Seed, Day: opts.Day, Cards: opts.Cards, Games: map[string]*GameReport{}}

	// Categories and groups (upstream order: newest group first).
	var cats []tcgplayer.Category
	byCat := map[int][]tcgplayer.Group{}
	for _, spec := range specs {
		for _, c := range spec.categories {
			cats = append(cats, tcgcatalog.Category(c))
		}
	}
	slices.SortFunc(cats, func(a, b tcgplayer.Category) int { return a.CategoryID - b.CategoryID })
	if err := writeTCG(filepath.Join(dir, "tcgplayer", "categories.json"), cats, true); err != nil {
		return nil, err
	}
	for i := len(plans) - 1; i >= 0; i-- {
		g := plans[i].Group
		byCat[g.CategoryID] = append(byCat[g.CategoryID], g)
	}
	for _, c := range cats {
		if err := writeTCG(filepath.Join(dir, "tcgplayer", strconv.Itoa(c.CategoryID), "groups.json"), byCat[c.CategoryID], true); err != nil {
			return nil, err
		}
	}

	total := 0
	for _, p := range plans {
		total += p.Cards + p.Sealed
	}
	prog := &progress{log: opts.Log, what: "tcgplayer products", total: total, start: time.Now()}
	var links []linkRow
	rv := rng.New(opts.Seed, "cardmarket-ids")
	r := &rv
	cmID := 300000 + r.Intn(100000)
	for _, spec := range specs {
		var tasks []task
		var groups []tcgplayer.Group
		for _, p := range plans {
			if p.Game != spec.code {
				continue
			}
			groups = append(groups, p.Group)
			job := &groupJob{
				seed: opts.Seed, day: opts.Day, spec: spec, group: p.Group, baseDate: baseDate, reserved: map[int]bool{},
				expansion: expansionFor(opts.Seed, spec.cmGame, 0, p.Group, p.CodeShared),
				mtgjson:   spec.code == "mtg" && p.Group.Abbreviation != "" && !p.CodeShared,
				ambiguous: len(tasks)%25 == 24, // and the largest group
			}
			tasks = append(tasks, task{job: job, plan: p, size: p.Cards + p.Sealed})
		}
		l, err := runGame(ctx, opts, spec, dir, report.game(spec.code), prog, r, &cmID, groups, tasks)
		if err != nil {
			return nil, err
		}
		links = append(links, l...)
		if spec.g.SetLinks != "" {
			n, err := writeTCGdexSets(dir, spec.g.SetLinks, opts.Seed, tasks)
			if err != nil {
				return nil, err
			}
			report.game(spec.code).Counts.TCGdexSetPairs = n
		}
	}
	if err := writeLinksCSV(dir, links); err != nil {
		return nil, err
	}
	return report, writeReport(dir, report)
}
