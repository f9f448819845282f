package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/storetest"
)

func TestAlertsStore(t *testing.T) {
	storetest.RunAlerts(t, func(t *testing.T) store.Store {
		return mustOpen(t, filepath.Join(t.TempDir(), "cardcat.db"))
	})
}

// BenchmarkAlertEvaluation evaluates $CARDCAT_BENCH_ALERTS alerts (100,000
// by default) over $CARDCAT_BENCH_CARDS cards (20,000 by default) against
// a new version (storetest.BenchAlertEvaluation):
// CARDCAT_BENCH_ALERTS=1000000 CARDCAT_BENCH_CARDS=1000000 go test -run - -bench AlertEvaluation -benchtime 2x
func BenchmarkAlertEvaluation(b *testing.B) {
	db := mustOpen(b, filepath.Join(b.TempDir(), "cardcat.db"))
	storetest.BenchAlertEvaluation(b, db, storetest.BenchCards(b), storetest.BenchAlerts(b))
}

// BenchmarkClaimNothingDue is an idle queue worker's poll
// (storetest.BenchClaimNothingDue).
func BenchmarkClaimNothingDue(b *testing.B) {
	storetest.BenchClaimNothingDue(b, mustOpen(b, filepath.Join(b.TempDir(), "cardcat.db")))
}
