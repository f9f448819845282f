package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/synth"
)

func init() {
	register("synth", "generate upstream files (sample or load-test catalogues)", cmdSynth)
}

// cmdSynth writes a mirror: around a real one (--from) or wholly generated
// (--cards).
func cmdSynth(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "synth", "--out DIR [--from REAL_DIR | --cards N] [--seed N] [--day D] [--force]")
	c, err := bindConfig(env, fs, config.Synth)
	if err != nil {
		return err
	}
	seed := &c.Synth.Seed
	out := fs.String("out", "", "directory to write the mirror into (required)")
	from := fs.String("from", "", "sample mode: the real mirror to start from (e.g. ../shared/data)")
	cards := fs.Int("cards", 0, fmt.Sprintf("synthetic mode: number of TCGplayer cards (default %d when --from is absent)", synth.DefaultCards))
	day := fs.Int("day", 0, "the same mirror this many days later: same catalogue, about 10% of prices changed per day")
	force := fs.Bool("force", false, "replace a mirror in --out that synth did not write (a generated one is always replaced)")
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	cardsSet := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "cards" {
			cardsSet = true
		}
	})
	switch {
	case *out == "":
		return usageError{"synth: --out is required"}
	case *from != "" && cardsSet:
		return usageError{"synth: --from (sample mode) and --cards (synthetic mode) exclude each other"}
	case cardsSet && *cards <= 0:
		return usageError{fmt.Sprintf("synth: --cards must be at least 1, not %d", *cards)}
	case *day < 0:
		return usageError{fmt.Sprintf("synth: --day must be 0 or more, not %d", *day)}
	}

	opts := synth.Options{Out: *out, Replace: *force, Seed: *seed, Day: *day, From: *from, Cards: *cards, Log: env.Log}
	mode := "synthetic"
	generate := synth.Synthetic
	if *from != "" {
		mode, generate = "sample", synth.Sample
	}
	env.Log.Info("synth start", "mode", mode, "out", *out, "seed", *seed, "day", *day, "from", *from, "cards", *cards)
	res, err := generate(ctx, opts)
	if errors.Is(err, synth.ErrExists) {
		return fmt.Errorf("%w; pass --force to replace it", err)
	}
	if err != nil {
		return err
	}
	t := res.Totals()
	fmt.Fprintf(env.Stdout, "synth: %s mirror in %s: %d files; tcgplayer %d products, %d price rows; cardmarket %d products (%d singles, %d non-singles), %d price guide entries; %d links.csv rows; %.1fs\n",
		mode, *out, res.Files, t.TCGProducts, t.TCGPriceRows, t.CMSingles+t.CMNonSingles, t.CMSingles, t.CMNonSingles, t.CMPriceGuides, t.LinksCSVRows, res.Elapsed.Seconds())
	return nil
}
