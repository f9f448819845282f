package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestAlertHistoryPlan pins down the plans of PruneAlertHistory's
// statements: the walk is a range of the index alert_events_created, each
// event's deliveries and email are probed on their event_id indexes, and
// the deletes find their rows by index (and the foreign keys' checks
// theirs), never by a scan of a table (a scan per batch, holding the
// writer).
func TestAlertHistoryPlan(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids := `["evt_000000000000000000000001"]`
	for _, tt := range []struct {
		name, query string
		args        []any
		want        []string
	}{
		{"candidates", pruneCandidates, []any{int64(1e15), int64(0), "", 500}, []string{
			"SEARCH e USING INDEX alert_events_created ((created_at,id)>(?,?) AND created_at<?)",
			"SEARCH d USING INDEX sqlite_autoindex_webhook_deliveries_1 (event_id=?)",
			"SEARCH m USING INDEX sqlite_autoindex_alert_emails_1 (event_id=?)"}},
		{"attempts", pruneAttempts, []any{ids}, []string{
			"SEARCH webhook_attempts USING INDEX sqlite_autoindex_webhook_attempts_1 (delivery_id=?)",
			"SEARCH webhook_deliveries USING INDEX sqlite_autoindex_webhook_deliveries_1 (event_id=?)"}},
		{"deliveries", pruneDeliveries, []any{ids}, []string{"SEARCH webhook_deliveries USING INDEX sqlite_autoindex_webhook_deliveries_1 (event_id=?)"}},
		{"emails", pruneEmails, []any{ids}, []string{"SEARCH alert_emails USING INDEX sqlite_autoindex_alert_emails_1 (event_id=?)"}},
		{"events", pruneEvents, []any{ids}, []string{"SEARCH alert_events USING INDEX sqlite_autoindex_alert_events_1 (id=?)"}},
	} {
		// Whether an index covers the query is not the point.
		p := strings.ReplaceAll(explain(t, db, tt.query, tt.args...), "USING COVERING INDEX", "USING INDEX")
		for _, want := range tt.want {
			if !strings.Contains(p, want) {
				t.Errorf("%s plan lacks %q:\n%s", tt.name, want, p)
			}
		}
		for _, line := range strings.Split(p, "\n") {
			if strings.HasPrefix(line, "SCAN ") && !strings.HasPrefix(line, "SCAN json_each ") {
				t.Errorf("%s plan scans a table (%s):\n%s", tt.name, line, p)
			}
		}
	}
}
