package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/cardcat/cardcat/internal/store/storetest"
)

// BenchmarkPruneAlertHistory prunes a history of $CARDCAT_BENCH_EVENTS
// events (100,000 by default) over 40 days, 30 days of it at once
// (storetest.BenchPruneAlertHistory):
// CARDCAT_BENCH_EVENTS=1000000 go test -run - -bench PruneAlertHistory -benchtime 1x
func BenchmarkPruneAlertHistory(b *testing.B) {
	db := mustOpen(b, filepath.Join(b.TempDir(), "cardcat.db"))
	storetest.BenchPruneAlertHistory(b, db, storetest.BenchEvents(b))
}
