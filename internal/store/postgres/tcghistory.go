package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/store/sqlrow"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The TCGplayer history of the current version (migration 0006) is written
// by the replace that creates the version, in its transaction, with the very
// queries TCGMarketAverages would run (tcgDays, tcgAverages), after the
// version's row and price points: a reader sees the version and its history
// together or neither. TCGMarketAverages reads it back when it is of the day
// asked and of the current version, and computes it otherwise. The old rows
// are deleted, not truncated: TRUNCATE would lock out the replicas reading
// the current version's history until the commit.
const (
	nextTCGGame      = `SELECT min(game) FROM tcg_prices WHERE game > $1`
	writeTCGDays     = `INSERT INTO tcg_history (game, version, day, days) VALUES ($1, $2, $3, $4)`
	writeTCGAverages = `INSERT INTO tcg_history_averages (game, card_id, finish, avg7, avg30)
SELECT $1, a.* FROM (` + tcgAverages + `) AS a`
	storedTCGHistory = `SELECT days FROM tcg_history
WHERE game = $1 AND day = $2 AND version = (SELECT max(version) FROM catalog_versions)`
	storedTCGAverages = `SELECT card_id, finish, avg7, avg30 FROM tcg_history_averages WHERE game = $1 ORDER BY card_id, finish`
)

// writeTCGHistory replaces the stored TCGplayer history with that of
// version, created at now, for every game with TCGplayer prices (those
// replaced and the others: the windows moved with the day).
func writeTCGHistory(ctx context.Context, tx pgx.Tx, version int64, now time.Time) error {
	for _, table := range []string{"tcg_history", "tcg_history_averages"} {
		if _, err := tx.Exec(ctx, "DELETE FROM "+table); err != nil {
			return fmt.Errorf("TCGplayer history: delete from %s: %w", table, err)
		}
	}
	w := sqlrow.NewTCGWindow(now)
	var game string
	for {
		var next pgtype.Text
		if err := tx.QueryRow(ctx, nextTCGGame, game).Scan(&next); err != nil {
			return fmt.Errorf("TCGplayer history: games: %w", err)
		}
		if !next.Valid {
			return nil
		}
		game = next.String
		days, averages := tcgHistoryQueries(game, w)
		var n int
		if err := tx.QueryRow(ctx, days.SQL, days.Args...).Scan(&n); err != nil {
			return fmt.Errorf("TCGplayer history of %s: days: %w", game, err)
		}
		if _, err := tx.Exec(ctx, writeTCGDays, game, version, w.Day, n); err != nil {
			return fmt.Errorf("TCGplayer history of %s: %w", game, err)
		}
		if n == 0 { // as sqlrow.TCGHistory: no day, no averages
			continue
		}
		if _, err := tx.Exec(ctx, writeTCGAverages, averages.Args...); err != nil {
			return fmt.Errorf("TCGplayer history of %s: averages: %w", game, err)
		}
	}
}
