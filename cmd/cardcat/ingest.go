package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
)

func init() {
	register("ingest", "read the marketplaces' files and write a new catalogue version", cmdIngest)
}

func cmdIngest(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "ingest", "[--from MIRROR] [flags]")
	sf, err := addStoreFlags(fs, env)
	if err != nil {
		return err
	}
	from := fs.String("from", "", "read a local mirror directory instead of the live sources")
	tcgURL := fs.String("tcgplayer-url", envOr(env.Getenv, "CARDCAT_TCGPLAYER_URL", ingest.DefaultTCGBaseURL), "TCGplayer (tcgcsv) base URL for live ingest (env CARDCAT_TCGPLAYER_URL)")
	cmURL := fs.String("cardmarket-url", envOr(env.Getenv, "CARDCAT_CARDMARKET_URL", ingest.DefaultCardmarketBaseURL), "Cardmarket downloads base URL for live ingest (env CARDCAT_CARDMARKET_URL)")
	localDir := fs.String("local-dir", envOr(env.Getenv, "CARDCAT_LOCAL_DIR", ""), "for live ingest, a mirror-layout directory with the files no upstream publishes (links/, cardmarket/{game}/expansions.json); default DATA_DIR (env CARDCAT_LOCAL_DIR)")
	changeDays := defaultChangeDays
	if v := env.Getenv("CARDCAT_CHANGE_DAYS"); v != "" {
		if err := setChangeDays(&changeDays, v); err != nil {
			return usageError{"CARDCAT_CHANGE_DAYS: " + err.Error()}
		}
	}
	fs.Func("change-days", fmt.Sprintf("days the change feed (GET /{game}/changes) keeps the cards removed from the catalogue: a since older than the newest removal forgotten is refused; 0 keeps every removal (env CARDCAT_CHANGE_DAYS; default %d)", defaultChangeDays),
		func(v string) error { return setChangeDays(&changeDays, v) })
	historyDays := defaultHistoryDays
	if v := env.Getenv("CARDCAT_HISTORY_DAYS"); v != "" {
		if err := setHistoryDays(&historyDays, v); err != nil {
			return usageError{"CARDCAT_HISTORY_DAYS: " + err.Error()}
		}
	}
	fs.Func("history-days", fmt.Sprintf("UTC days of price history to keep, today's included: older points are deleted after the version is written; 0 keeps every point, else at least %d (env CARDCAT_HISTORY_DAYS; default %d)", minHistoryDays, defaultHistoryDays),
		func(v string) error { return setHistoryDays(&historyDays, v) })
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	var src ingest.Source
	if *from != "" {
		src = ingest.DirSource{Dir: *from}
	} else {
		ld := *localDir
		if ld == "" {
			ld = sf.dataDir
		}
		src = &ingest.HTTPSource{TCGBaseURL: *tcgURL, CardmarketBaseURL: *cmURL, LocalDir: ld,
			UserAgent: "cardcat/" + Version() + " (+https://github.com/cardcat/cardcat)", CacheDir: filepath.Join(sf.dataDir, "upstream")}
	}
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	env.Log.Info("ingest starting", "source", src.Describe("."), "store", sf.describe())
	rep, err := ingest.Run(ctx, st, src, game.Default(), time.Now(), ingest.Options{Log: env.Log, Progress: newProgress(env).update, ChangeDays: changeDays, HistoryDays: historyDays})
	if err != nil {
		return err
	}
	printReport(env, rep)
	return nil
}

// defaultChangeDays is the change feed's kept history: a client that syncs
// at least once a quarter never needs the bulk files again.
const defaultChangeDays = 90

func setChangeDays(days *int, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("want 0 (keep every removal) or a number of days, got %q", v)
	}
	*days = n
	return nil
}

// The price history's retention: the API answers up to 365 days of it, and
// the product promises at least 400 kept.
const (
	defaultHistoryDays = 400
	minHistoryDays     = 400
)

func setHistoryDays(days *int, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || (n > 0 && n < minHistoryDays) {
		return fmt.Errorf("want 0 (keep every point) or a number of days of at least %d, got %q", minHistoryDays, v)
	}
	*days = n
	return nil
}

// printReport writes the ingest summary, one line per game.
func printReport(env *Env, rep *ingest.Report) {
	for _, g := range rep.Games {
		for _, w := range g.Warnings {
			env.Log.Warn("ingest", "game", g.Game, "warning", w)
		}
		fmt.Fprintf(env.Stdout, "%s: %d sets, %d cards; TCGplayer %d products, Cardmarket %d products; linked %d (%d mtgjson, %d operator, %d by name), forbidden %d, TCGplayer-only %d, Cardmarket-only %d, ambiguous %d; prices %d changed, %d unchanged\n",
			g.Game, g.Sets, g.Cards, g.TCGProducts, g.CMProducts, g.Linked, g.LinkedMTGJSON, g.LinkedOperator, g.LinkedByName,
			g.Forbidden, g.TCGOnly, g.CardmarketOnly, g.Ambiguous, g.PricesChanged, g.PricesUnchanged)
		fmt.Fprintf(env.Stdout, "%s: change feed: %d cards changed, %d removed\n", g.Game, g.CardsChanged, g.CardsRemoved)
	}
	fmt.Fprintf(env.Stdout, "catalogue version %d written in %s\n", rep.Version, rep.Duration.Round(time.Millisecond))
	if rep.PointsPruned > 0 {
		fmt.Fprintf(env.Stdout, "price history: %d points past the kept days deleted\n", rep.PointsPruned)
	}
}
