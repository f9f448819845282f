package postgres_test

import (
	"testing"

	"github.com/cardcat/cardcat/internal/store/storetest"
)

// BenchmarkPruneAlertHistory prunes a history of $CARDCAT_BENCH_EVENTS
// events (100,000 by default) over 40 days, 30 days of it at once
// (storetest.BenchPruneAlertHistory); skipped without
// $CARDCAT_TEST_POSTGRES_URL:
// CARDCAT_BENCH_EVENTS=1000000 go test -run - -bench PruneAlertHistory -benchtime 1x
func BenchmarkPruneAlertHistory(b *testing.B) {
	db := mustOpen(b, newSchema(b))
	storetest.BenchPruneAlertHistory(b, db, storetest.BenchEvents(b))
}
