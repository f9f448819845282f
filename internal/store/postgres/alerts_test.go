package postgres_test

import (
	"testing"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/storetest"
)

func TestAlertsStore(t *testing.T) {
	baseURL(t)
	storetest.RunAlerts(t, func(t *testing.T) store.Store { return mustOpen(t, newSchema(t)) })
}

// BenchmarkAlertEvaluation evaluates $CARDCAT_BENCH_ALERTS alerts (100,000
// by default) over $CARDCAT_BENCH_CARDS cards (20,000 by default) against
// a new version (storetest.BenchAlertEvaluation); skipped without
// $CARDCAT_TEST_POSTGRES_URL:
// CARDCAT_BENCH_ALERTS=1000000 CARDCAT_BENCH_CARDS=1000000 go test -run - -bench AlertEvaluation -benchtime 2x
func BenchmarkAlertEvaluation(b *testing.B) {
	db := mustOpen(b, newSchema(b))
	storetest.BenchAlertEvaluation(b, db, storetest.BenchCards(b), storetest.BenchAlerts(b))
}

// BenchmarkClaimNothingDue is an idle queue worker's poll
// (storetest.BenchClaimNothingDue); skipped without
// $CARDCAT_TEST_POSTGRES_URL.
func BenchmarkClaimNothingDue(b *testing.B) {
	storetest.BenchClaimNothingDue(b, mustOpen(b, newSchema(b)))
}
