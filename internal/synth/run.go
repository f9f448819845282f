package synth

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
	"github.com/cardcat/cardcat/internal/synth/encode"
	"github.com/cardcat/cardcat/internal/synth/rng"
	"github.com/cardcat/cardcat/internal/synth/tcgcatalog"
)

// gameRun generates one game's groups (in parallel, consumed in order) and
// writes the game's Cardmarket files as the groups come in. Sample and
// Synthetic differ only in where the groups' products come from.
type gameRun struct {
	opts  *Options
	spec  *gameSpec
	dir   string // the staging directory
	rep   *GameReport
	cases *caseLog
	cm    *cmWriter
	links []linkRow
	prog  *progress
}

// task is one group to generate. With plan set (synthetic mode) the group's
// products are generated and written first; else job.products are the real
// ones, already in the mirror. size is the number of its products.
type task struct {
	job  *groupJob
	plan *tcgcatalog.Plan
	size int
}

// runGame generates one game: it numbers the Cardmarket expansions and id
// blocks of tasks (oldest group first) from r and *cmID, gives each
// expansion a trend (all three occur from three expansions on), plants the
// ambiguous case in the largest group, generates the groups and the game's
// Cardmarket-only expansion. groups are all the game's TCGplayer groups. It
// returns the game's links.csv rows.
func runGame(ctx context.Context, opts *Options, spec *gameSpec, dir string, rep *GameReport, prog *progress,
	r *rng.Stream, cmID *int, groups []tcgplayer.Group, tasks []task) ([]linkRow, error) {
	biggest := -1
	expansion := 1000*spec.cmGame + r.Intn(1000)
	for i, t := range tasks {
		j := t.job
		j.expansion.IDExpansion = expansion
		expansion += r.Between(1, 6)
		// A block holds the group's products, its Cardmarket-only extras and
		// the gaps between ids (1 to 3).
		j.cmFirstID = *cmID
		*cmID += 4*t.size + 64
		j.trend = trend((i + int(opts.Seed%3)) % 3)
		if biggest < 0 || t.size > tasks[biggest].size {
			biggest = i
		}
	}
	if biggest >= 0 {
		tasks[biggest].job.ambiguous = true
	}
	g, err := newGameRun(opts, spec, dir, rep, prog)
	if err != nil {
		return nil, err
	}
	if err := g.run(ctx, tasks); err != nil {
		g.cm.abort()
		return nil, fmt.Errorf("synth: %s: %w", spec.code, err)
	}
	if err := g.finish(groups, expansion+r.Between(1, 6), *cmID); err != nil {
		return nil, fmt.Errorf("synth: %s: %w", spec.code, err)
	}
	*cmID += 1000
	return g.links, nil
}

func newGameRun(opts *Options, spec *gameSpec, dir string, rep *GameReport, prog *progress) (*gameRun, error) {
	cm, err := newCMWriter(dir, spec.cmGame, opts.createdAt(), &rep.Counts)
	if err != nil {
		return nil, err
	}
	return &gameRun{opts: opts, spec: spec, dir: dir, rep: rep, cases: newCaseLog(), cm: cm, prog: prog}, nil
}

func groupDir(dir string, g tcgplayer.Group) string {
	return filepath.Join(dir, "tcgplayer", strconv.Itoa(g.CategoryID), strconv.Itoa(g.GroupID))
}

// writeTCG writes a tcgcsv envelope file.
func writeTCG[T any](path string, results []T, withTotal bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	if err := tcgplayer.Encode(w, results, withTotal); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// bufPool holds the buffers the workers encode a group's files into.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1<<20); return &b }}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

func (g *gameRun) run(ctx context.Context, tasks []task) error {
	work := func(i int) (*groupResult, error) {
		t := tasks[i]
		dir := groupDir(g.dir, t.job.group)
		buf := bufPool.Get().(*[]byte)
		defer bufPool.Put(buf)
		if t.plan != nil {
			t.job.products = t.plan.Products(g.opts.Seed)
			*buf = encode.AppendTCGProducts((*buf)[:0], t.job.products)
			if err := writeFile(filepath.Join(dir, "products.json"), *buf); err != nil {
				return nil, err
			}
		}
		res := t.job.run()
		*buf = encode.AppendTCGPrices((*buf)[:0], res.prices)
		if err := writeFile(filepath.Join(dir, "prices.json"), *buf); err != nil {
			return nil, err
		}
		res.priceRows, res.prices = len(res.prices), nil
		t.job.products = nil
		return res, nil
	}
	consume := func(i int, res *groupResult) error {
		j := tasks[i].job
		if err := g.add(j, res); err != nil {
			return err
		}
		if len(res.mtgjson) > 0 {
			if err := writeMTGJSON(g.dir, j.group.Abbreviation, res.mtgjson); err != nil {
				return err
			}
			g.rep.Counts.MTGJSONFiles++
			for _, l := range res.mtgjson {
				if l.mcmID > 0 {
					g.rep.Counts.MTGJSONLinks++
				}
			}
		}
		g.prog.step(res.tcgProducts)
		return nil
	}
	return runOrdered(ctx, len(tasks), g.opts.Workers, work, consume)
}

// add takes in one generated group (or the Cardmarket-only expansion).
func (g *gameRun) add(j *groupJob, res *groupResult) error {
	if err := g.cm.add(j.expansion, res.cm); err != nil {
		return err
	}
	g.links = append(g.links, res.links...)
	g.cases.merge(res.cases)
	g.rep.Counts.TCGProducts += res.tcgProducts
	g.rep.Counts.TCGPriceRows += res.priceRows
	g.cases.add(map[trend]string{trendUp: caseTrendUp, trendDown: caseTrendDown, trendStable: caseTrendStable}[j.trend],
		Example{TCGGroupID: j.group.GroupID, CMExpansionID: j.expansion.IDExpansion, Name: j.expansion.EnName})
	return nil
}

// finish adds the game's Cardmarket-only expansion, the cases of its groups
// list, and closes its Cardmarket files.
func (g *gameRun) finish(groups []tcgplayer.Group, expansionID, firstCMID int) error {
	taken := map[string]bool{}
	codes := map[string][]tcgplayer.Group{}
	for _, gr := range groups {
		taken[fold.Key(gr.Name)] = true
		taken[gr.Abbreviation] = true
		codes[gr.Abbreviation] = append(codes[gr.Abbreviation], gr)
	}
	job, res := cmOnlyExpansion(g.opts.Seed, g.opts.Day, g.spec, expansionID, firstCMID, taken, baseDate)
	if err := g.add(job, res); err != nil {
		return err
	}
	for _, gr := range groups {
		ex := Example{TCGGroupID: gr.GroupID, Name: gr.Name, Detail: gr.Abbreviation}
		if gr.Abbreviation == "" {
			g.cases.add(caseEmptySetCode, ex)
		} else if len(codes[gr.Abbreviation]) > 1 {
			g.cases.add(caseSharedSetCode, ex)
		}
		if gr.PublishedOn > baseDate.Format("2006-01-02T15:04:05") {
			ex.Detail = gr.PublishedOn
			g.cases.add(casePresaleGroup, ex)
		}
	}
	g.rep.Counts.TCGGroups = len(groups)
	g.rep.Counts.LinksCSVRows = len(g.links)
	g.rep.Cases = g.cases.cases
	_, err := g.cm.close()
	return err
}
