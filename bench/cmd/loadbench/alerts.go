package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The alerts phase (issue 25: a million alerts evaluated against a new
// version within a minute): -alerts N alerts of the harness's account are
// written into the store in bulk (a third each "above" 5% over a card's
// TCGplayer market price, "below" 5% under its Cardmarket trend, and "move
// 10%" against Cardmarket's avg7; half of them with a webhook endpoint that
// no worker sends to), then a serve polling every second evaluates them at
// its start (every alert's first evaluation) and again after `ingest` writes
// the catalogue of a later day (`synth --day`): the times are its log's
// "alerts evaluated ... took=". The alerts, their events and deliveries are
// deleted afterwards, so that the load runs serve the store as before; the
// catalogue ends one version on.

// alertsReport is the alerts phase's figures at one size.
type alertsReport struct {
	Alerts int
	Create time.Duration // the bulk insert
	First  alertsEval    // at serve's start: every alert's first evaluation
	Next   alertsEval    // the version a day later
	Err    string        // why the phase stopped early
}

// alertsEval is one "alerts evaluated" line of serve's log.
type alertsEval struct {
	Version, Evaluated, Fired, Queued int
	Took                              time.Duration
	OK                                bool
}

var alertsEvaluatedLine = regexp.MustCompile(`alerts evaluated.*?\bversion=(\d+).*?\balerts=(\d+).*?\bfired=(\d+).*?\bqueued=(\d+).*?\btook=(\S+)`)

// lastAlertsEval is the last "alerts evaluated" line of the log at path.
func lastAlertsEval(path string) alertsEval {
	b, _ := os.ReadFile(path)
	var e alertsEval
	for _, m := range alertsEvaluatedLine.FindAllStringSubmatch(string(b), -1) {
		took, err := time.ParseDuration(strings.Trim(m[5], `"`))
		if err != nil {
			continue
		}
		e = alertsEval{Took: took, OK: true}
		e.Version, _ = strconv.Atoi(m[1])
		e.Evaluated, _ = strconv.Atoi(m[2])
		e.Fired, _ = strconv.Atoi(m[3])
		e.Queued, _ = strconv.Atoi(m[4])
	}
	return e
}

// runAlerts measures the alerts phase.
func runAlerts(ctx context.Context, cfg *config, cardcat string, cat *catalogue, dir string, logf func(string, ...any)) *alertsReport {
	ar := &alertsReport{Alerts: cfg.alerts}
	fail := func(err error) *alertsReport {
		ar.Err = err.Error()
		logf("alerts phase: %v", err)
		return ar
	}
	dbPath := filepath.Join(cat.DataDir, "cardcat.db")
	db, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(wal)&_pragma=foreign_keys(on)")
	if err != nil {
		return fail(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	start := time.Now()
	account, err := createAlerts(ctx, db, cfg.alerts)
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err := deleteAlerts(context.WithoutCancel(ctx), db, account); err != nil {
			logf("alerts phase: deleting the alerts: %v", err)
		}
	}()
	ar.Create = time.Since(start)
	logf("alerts phase: %d alerts written in %s", cfg.alerts, dur(ar.Create))

	logPath := filepath.Join(dir, "logs", "alerts.log")
	os.Remove(logPath)
	addr, err := freeAddr()
	if err != nil {
		return fail(err)
	}
	env := append([]string{"CARDCAT_WEBHOOK_WORKERS=0"}, cfg.serveEnv...)
	srv, err := startServer(ctx, "cardcat (alerts)", cfg.serverCPUs,
		[]string{cardcat, "serve", "--addr", addr, "--data-dir", cat.DataDir, "--public-url", "http://" + addr, "--refresh-interval", "1s"},
		env, addr, logPath, 20*time.Minute)
	if err != nil {
		return fail(err)
	}
	defer srv.stop()
	wait := func(after int) (alertsEval, error) {
		for t0 := time.Now(); ; time.Sleep(200 * time.Millisecond) {
			if e := lastAlertsEval(logPath); e.OK && e.Version > after {
				return e, nil
			}
			if ctx.Err() != nil || time.Since(t0) > 30*time.Minute {
				return alertsEval{}, fmt.Errorf("no \"alerts evaluated\" line after version %d in %s", after, logPath)
			}
		}
	}
	if ar.First, err = wait(0); err != nil {
		return fail(err)
	}
	logf("alerts phase: first evaluation of %d alerts at version %d took %s (%d fired)", ar.First.Evaluated, ar.First.Version, dur(ar.First.Took), ar.First.Fired)

	// A day after the replica phase's (100, 101), and after this phase's of
	// an earlier run on a reused work directory (the same day again would
	// change no price).
	day := 102 + ar.First.Version
	mirror := filepath.Join(dir, "alerts-mirror")
	defer os.RemoveAll(mirror)
	if _, err := command(ctx, nil, cardcat, "synth", "--cards", strconv.Itoa(cat.Cards), "--seed", strconv.FormatUint(cfg.seed, 10),
		"--day", strconv.Itoa(day), "--out", mirror); err != nil {
		return fail(err)
	}
	if _, err := command(ctx, nil, cardcat, "ingest", "--from", mirror, "--data-dir", cat.DataDir); err != nil {
		return fail(err)
	}
	if ar.Next, err = wait(ar.First.Version); err != nil {
		return fail(err)
	}
	logf("alerts phase: %d alerts at version %d took %s (%d fired, %d queued)", ar.Next.Evaluated, ar.Next.Version, dur(ar.Next.Took), ar.Next.Fired, ar.Next.Queued)
	return ar
}

// priceRow is one finish's price, an alert's target.
type priceRow struct {
	game, card, finish string
	cents              int64
}

// createAlerts writes n alerts of the harness's account over the store's
// prices, in one transaction, and returns the account.
func createAlerts(ctx context.Context, db *sql.DB, n int) (int64, error) {
	var account int64
	if err := db.QueryRowContext(ctx, `SELECT id FROM accounts WHERE deleted_at = 0 ORDER BY id LIMIT 1`).Scan(&account); err != nil {
		return 0, fmt.Errorf("the harness's account: %w", err)
	}
	read := func(q string) ([]priceRow, error) {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []priceRow
		for rows.Next() {
			var p priceRow
			if err := rows.Scan(&p.game, &p.card, &p.finish, &p.cents); err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		return out, rows.Err()
	}
	tcg, err := read(`SELECT game, card_id, sub_type, market FROM tcg_prices WHERE market > 0 ORDER BY game, ordinal`)
	if err != nil {
		return 0, err
	}
	cm, err := read(`SELECT game, card_id, variant, trend FROM cm_prices WHERE trend > 0 AND avg7 > 0 ORDER BY game, ordinal`)
	if err != nil {
		return 0, err
	}
	if len(tcg) == 0 || len(cm) == 0 {
		return 0, errors.New("the catalogue has no prices to watch")
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	now := time.Now().UnixMicro()
	res, err := tx.ExecContext(ctx, `INSERT INTO webhook_endpoints (account_id, url, secret, created_at) VALUES (?, 'https://alerts.invalid/hook', 'whsec_loadbench', ?)`, account, now)
	if err != nil {
		return 0, err
	}
	hook, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	const rows = 500
	const cols = `(account_id, game, card_id, source, finish, rule, amount_cents, percent, webhook_id, paused, created_at, armed, last_version, last_price)`
	row := "(?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 1, 0, NULL)"
	full, err := tx.PrepareContext(ctx, "INSERT INTO alerts "+cols+" VALUES "+strings.TrimSuffix(strings.Repeat(row+", ", rows), ", "))
	if err != nil {
		return 0, err
	}
	defer full.Close()
	args := make([]any, 0, rows*10)
	for i := range n {
		var p priceRow
		var source, rule string
		var cents, percent int64
		switch i % 3 {
		case 0:
			p, source, rule = tcg[(i/3)%len(tcg)], "tcg", "above"
			cents = p.cents + p.cents/20 + 1
		case 1:
			p, source, rule = cm[(i/3)%len(cm)], "cm", "below"
			cents = max(1, p.cents-p.cents/20-1)
		default:
			p, source, rule, percent = cm[(i/3+len(cm)/2)%len(cm)], "cm", "move", 10
		}
		webhook := int64(0)
		if i%2 == 0 {
			webhook = hook
		}
		args = append(args, account, p.game, p.card, source, p.finish, rule, cents, percent, webhook, now)
		if len(args) == cap(args) {
			if _, err := full.ExecContext(ctx, args...); err != nil {
				return 0, err
			}
			args = args[:0]
		}
	}
	if len(args) > 0 {
		q := "INSERT INTO alerts " + cols + " VALUES " + strings.TrimSuffix(strings.Repeat(row+", ", len(args)/10), ", ")
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return 0, err
		}
	}
	return account, tx.Commit()
}

// deleteAlerts deletes the account's alerts, events, endpoints and
// deliveries.
func deleteAlerts(ctx context.Context, db *sql.DB, account int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range []string{
		`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE account_id = ?1))`,
		`DELETE FROM webhook_deliveries WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE account_id = ?1)`,
		`DELETE FROM alert_events WHERE account_id = ?1`,
		`DELETE FROM alerts WHERE account_id = ?1`,
		`DELETE FROM webhook_endpoints WHERE account_id = ?1`,
	} {
		if _, err := tx.ExecContext(ctx, q, account); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// alertsSection writes the alerts phase's table.
func (rep *report) alertsSection(p func(string, ...any), ar *alertsReport) {
	p("Alert evaluation (issue 25: %s alerts, a third each above 5%% over a TCGplayer market price, below 5%% under a Cardmarket trend, a move of 10%% against Cardmarket's avg7; the time of serve's \"alerts evaluated\" line; target: within a minute at 1M alerts):\n\n", thousands(float64(ar.Alerts)))
	p("| evaluation | version | alerts | fired | queued | took | per alert |\n|---|---|---|---|---|---|---|\n")
	for _, e := range []struct {
		name string
		ev   alertsEval
	}{{"first (every alert's first price)", ar.First}, {"the next day's version", ar.Next}} {
		if !e.ev.OK {
			continue
		}
		p("| %s | %d | %s | %s | %s | %s | %.1f µs |\n", e.name, e.ev.Version, thousands(float64(e.ev.Evaluated)), thousands(float64(e.ev.Fired)),
			thousands(float64(e.ev.Queued)), dur(e.ev.Took), float64(e.ev.Took.Microseconds())/float64(max(1, e.ev.Evaluated)))
	}
	p("\nWritten in bulk in %s.\n", dur(ar.Create))
	if ar.Err != "" {
		p("\nThe phase stopped early: %s\n", ar.Err)
	}
	p("\n")
}
