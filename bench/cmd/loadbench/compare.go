package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// The search comparison runs the query mix of the load runs, one query at a
// time from one client, against three engines over the same names and numbers:
//
//   - cardcat: the snapshot's own index (catalog.GameSnapshot.Search),
//     in-process, built from the same store the server loads;
//   - SQLite FTS5 with the trigram tokenizer, one table per game, a LIKE
//     '%word%' per word (which the trigram index serves for 3+ characters);
//   - PostgreSQL pg_trgm: GIN trigram indexes on name and number, an ILIKE
//     '%word%' per word.
//
// All three answer the same thing: cardcat's rules on the folded name and
// number (every word inside the name, or the number starting with the query;
// under 3 characters, name or number starting with it), in cardcat's order
// (name equal to the query, then starting with it, then the rest; then the
// snapshot's card order), at most 1,000 cards. The answers are compared, so
// the speeds are of equal work.

// indexedCard is one card as the engines index it.
type indexedCard struct {
	ref       uint32 // position in the snapshot's game: the answer order
	name, num string // folded
	game      string
}

// engineResult is one engine's timings over the query mix.
type engineResult struct {
	Name     string
	Build    time.Duration // loading and indexing the names
	Lat      []time.Duration
	Answers  [][]uint32
	Agree    int // queries answered exactly as cardcat answers them
	TimedOut int
	Skipped  string // why the engine did not run
}

type comparison struct {
	Queries []query
	Engines []*engineResult
}

// queryTimeout bounds one query of an alternative engine.
const queryTimeout = 10 * time.Second

func compareSearch(ctx context.Context, cfg *config, dbPath string, queries []query, logf func(string, ...any)) (*comparison, error) {
	cmp := &comparison{Queries: queries}

	logf("compare: loading the catalogue and building cardcat's snapshot in-process")
	t0 := time.Now()
	st, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	cat, err := st.LoadCatalog(ctx)
	st.Close()
	if err != nil {
		return nil, err
	}
	snap, err := catalog.NewSnapshot(cat, game.Default())
	if err != nil {
		return nil, err
	}
	var cards []indexedCard
	for _, gs := range snap.Games() {
		gc := cat.Game(gs.Game().Code)
		if gc == nil {
			continue
		}
		for i := range gc.Cards {
			c := &gc.Cards[i]
			ref, ok := gs.LookupCard(c.ID)
			if !ok {
				return nil, fmt.Errorf("compare: card %s is not in the snapshot", c.ID)
			}
			cards = append(cards, indexedCard{ref: uint32(ref), name: catalog.Fold(c.Name), num: catalog.Fold(c.CardNumber), game: gs.Game().Code})
		}
	}
	cat = nil
	runtime.GC()
	cc := &engineResult{Name: "cardcat index (in-process)", Build: time.Since(t0)}
	cc.Lat, cc.Answers = timeQueries(queries, func(q query) ([]uint32, error) {
		res, err := snap.Game(q.Game).Search(ctx, q.Text)
		refs := make([]uint32, len(res.Cards))
		for i, r := range res.Cards {
			refs[i] = uint32(r)
		}
		res.Release()
		return refs, err
	})
	cc.Agree = len(queries)
	cmp.Engines = append(cmp.Engines, cc)
	logf("compare: cardcat median %s", median(cc.Lat))
	snap = nil
	runtime.GC()

	fts := &engineResult{Name: "SQLite FTS5 trigram"}
	if err := runFTS5(ctx, filepath.Join(cfg.sizeWork, "fts5.db"), cards, queries, fts, logf); err != nil {
		fts.Skipped = err.Error()
		logf("compare: FTS5 skipped: %v", err)
	}
	cmp.Engines = append(cmp.Engines, fts)

	pg := &engineResult{Name: "PostgreSQL pg_trgm"}
	if cfg.postgresURL == "" {
		pg.Skipped = "no -postgres-url"
	} else if err := runPgTrgm(ctx, cfg.postgresURL, cards, queries, pg, logf); err != nil {
		pg.Skipped = err.Error()
		logf("compare: pg_trgm skipped: %v", err)
	}
	cmp.Engines = append(cmp.Engines, pg)

	for _, e := range cmp.Engines[1:] {
		if e.Skipped != "" {
			continue
		}
		e.Agree = 0
		for i := range queries {
			if slices.Equal(e.Answers[i], cc.Answers[i]) {
				e.Agree++
			}
		}
	}
	return cmp, nil
}

// timeQueries runs every query once untimed (warm-up), then once timed.
func timeQueries(queries []query, do func(query) ([]uint32, error)) ([]time.Duration, [][]uint32) {
	for _, q := range queries {
		do(q)
	}
	lat := make([]time.Duration, len(queries))
	answers := make([][]uint32, len(queries))
	for i, q := range queries {
		t0 := time.Now()
		refs, err := do(q)
		lat[i] = time.Since(t0)
		if err != nil {
			refs = nil
		}
		answers[i] = refs
	}
	return lat, answers
}

// searchTerms are a query's folded form and the words every name must hold.
func searchTerms(text string) (qn string, words []string, short bool) {
	qn = catalog.Fold(text)
	return qn, strings.Split(qn, " "), utf8.RuneCountInString(qn) < 3
}

func runFTS5(ctx context.Context, path string, cards []indexedCard, queries []query, res *engineResult, logf func(string, ...any)) error {
	os.Remove(path)
	defer os.Remove(path)
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(off)&_pragma=synchronous(off)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	logf("compare: building FTS5 trigram tables")
	t0 := time.Now()
	games := map[string]bool{}
	for _, c := range cards {
		games[c.game] = true
	}
	for g := range games {
		if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE fts_`+g+` USING fts5(name, num, tokenize='trigram')`); err != nil {
			return err
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	stmts := map[string]*sql.Stmt{}
	for g := range games {
		if stmts[g], err = tx.PrepareContext(ctx, `INSERT INTO fts_`+g+`(rowid, name, num) VALUES (?, ?, ?)`); err != nil {
			tx.Rollback()
			return err
		}
	}
	for _, c := range cards {
		if _, err := stmts[c.game].ExecContext(ctx, int64(c.ref)+1, c.name, c.num); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	for g := range games {
		if _, err := db.ExecContext(ctx, `INSERT INTO fts_`+g+`(fts_`+g+`) VALUES ('optimize')`); err != nil {
			return err
		}
	}
	res.Build = time.Since(t0)
	logf("compare: FTS5 built in %s; querying", res.Build.Round(time.Millisecond))

	res.Lat, res.Answers = timeQueries(queries, func(q query) ([]uint32, error) {
		qn, words, short := searchTerms(q.Text)
		var cond []string
		var args []any
		if short {
			cond, args = []string{"name LIKE ?"}, []any{qn + "%"}
		} else {
			for _, w := range words {
				cond = append(cond, "name LIKE ?")
				args = append(args, "%"+w+"%")
			}
		}
		t := "fts_" + q.Game
		query := `SELECT r FROM (SELECT rowid AS r, name AS n FROM ` + t + ` WHERE ` + strings.Join(cond, " AND ") +
			` UNION SELECT rowid, name FROM ` + t + ` WHERE num LIKE ?)` +
			` ORDER BY n = ? DESC, substr(n, 1, ?) = ? DESC, r LIMIT 1000`
		args = append(args, qn+"%", qn, utf8.RuneCountInString(qn), qn)
		qctx, cancel := context.WithTimeout(ctx, queryTimeout)
		defer cancel()
		refs, err := collectRefs(db.QueryContext(qctx, query, args...))
		if errors.Is(qctx.Err(), context.DeadlineExceeded) {
			res.TimedOut++
		}
		for i := range refs {
			refs[i]--
		}
		return refs, err
	})
	return nil
}

func collectRefs(rows *sql.Rows, err error) ([]uint32, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var refs []uint32
	for rows.Next() {
		var r int64
		if err := rows.Scan(&r); err != nil {
			return nil, err
		}
		refs = append(refs, uint32(r))
	}
	return refs, rows.Err()
}

func runPgTrgm(ctx context.Context, url string, cards []indexedCard, queries []query, res *engineResult, logf func(string, ...any)) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("PostgreSQL: %w", err)
	}
	defer conn.Close(context.Background())
	schema := "loadbench_" + strconv.Itoa(os.Getpid())
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		return err
	}
	defer conn.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
	// pg_trgm is installed once per database. When it is not, it goes into
	// the harness's schema, so that dropping the schema removes it again.
	var extSchema string
	err = conn.QueryRow(ctx, `SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_trgm'`).Scan(&extSchema)
	if errors.Is(err, pgx.ErrNoRows) {
		if _, err := conn.Exec(ctx, `CREATE EXTENSION pg_trgm SCHEMA `+schema); err != nil {
			return fmt.Errorf("pg_trgm: %w", err)
		}
		extSchema = schema
	} else if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, `SET search_path = `+schema+`, `+extSchema); err != nil {
		return err
	}
	logf("compare: loading PostgreSQL (schema %s) and building GIN trigram indexes", schema)
	t0 := time.Now()
	if _, err := conn.Exec(ctx, `CREATE TABLE cards (game text NOT NULL, ref integer NOT NULL, name text NOT NULL, num text NOT NULL)`); err != nil {
		return err
	}
	i := 0
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{schema, "cards"}, []string{"game", "ref", "name", "num"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if i == len(cards) {
				return nil, nil
			}
			c := &cards[i]
			i++
			return []any{c.game, int32(c.ref), c.name, c.num}, nil
		})); err != nil {
		return err
	}
	for _, ddl := range []string{
		`CREATE INDEX cards_name_trgm ON cards USING gin (name gin_trgm_ops)`,
		`CREATE INDEX cards_num_trgm ON cards USING gin (num gin_trgm_ops)`,
		`ANALYZE cards`,
		`SET statement_timeout = '` + strconv.Itoa(int(queryTimeout/time.Millisecond)) + `ms'`,
	} {
		if _, err := conn.Exec(ctx, ddl); err != nil {
			return err
		}
	}
	res.Build = time.Since(t0)
	logf("compare: PostgreSQL built in %s; querying", res.Build.Round(time.Millisecond))

	res.Lat, res.Answers = timeQueries(queries, func(q query) ([]uint32, error) {
		qn, words, short := searchTerms(q.Text)
		args := []any{q.Game}
		var cond []string
		if short {
			args = append(args, likeEscape(qn)+"%")
			cond = []string{"name ILIKE $2"}
		} else {
			for _, w := range words {
				args = append(args, "%"+likeEscape(w)+"%")
				cond = append(cond, "name ILIKE $"+strconv.Itoa(len(args)))
			}
		}
		args = append(args, likeEscape(qn)+"%", qn)
		n := len(args)
		query := `SELECT ref FROM cards WHERE game = $1 AND ((` + strings.Join(cond, " AND ") + `) OR num ILIKE $` + strconv.Itoa(n-1) + `)` +
			` ORDER BY name = $` + strconv.Itoa(n) + ` DESC, starts_with(name, $` + strconv.Itoa(n) + `) DESC, ref LIMIT 1000`
		rows, err := conn.Query(ctx, query, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var refs []uint32
		for rows.Next() {
			var r int32
			if err := rows.Scan(&r); err != nil {
				return nil, err
			}
			refs = append(refs, uint32(r))
		}
		if err := rows.Err(); err != nil {
			if strings.Contains(err.Error(), "statement timeout") {
				res.TimedOut++
			}
			return nil, err
		}
		return refs, nil
	})
	return nil
}

// likeEscape escapes LIKE's wildcards (PostgreSQL's default escape is \).
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
