package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestAlertHistoryPlan pins down the plans of PruneAlertHistory's
// statements on an analysed history of 20,000 events: the walk is a range
// of the index alert_events_created, each event's deliveries and email are
// probed on their event_id indexes, and the deletes find their rows by
// index, never by a scan or a hash of a table (a scan per batch).
func TestAlertHistoryPlan(t *testing.T) {
	ctx := context.Background()
	db := openInNewSchema(t)
	for _, q := range []string{
		`INSERT INTO accounts (email, plan, hour_limit, day_limit, created_at) VALUES ('plan@example.com', 'business', 1, 1, now())`,
		`INSERT INTO webhook_endpoints (account_id, url, secret, created_at) VALUES (1, 'https://example.com/hook', 's', now())`,
		`INSERT INTO alert_events (id, account_id, alert_id, version, created_at, body)
	SELECT 'evt_' || lpad(to_hex(i / 100), 8, '0') || lpad(to_hex(i % 100), 16, '0'), 1, i % 100, i / 100,
	timestamptz '2025-01-01' + i * interval '1 minute', '{}' FROM generate_series(0, 19999) i`,
		`INSERT INTO webhook_deliveries (event_id, endpoint_id, state, attempts, next_at, created_at)
	SELECT id, 1, 'delivered', 2, created_at, created_at FROM alert_events`,
		`INSERT INTO webhook_attempts SELECT id, n, created_at, 200, 1, '', 'ok' FROM webhook_deliveries, generate_series(1, 2) n`,
		`INSERT INTO alert_emails (event_id, account_id, alert_id, card_name, state, attempts, next_at, created_at)
	SELECT id, 1, alert_id, 'Son Goku', 'sent', 1, created_at, created_at FROM alert_events WHERE alert_id % 4 = 0`,
		`ANALYZE`,
	} {
		if _, err := db.pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	cutoff := time.Date(2025, 1, 10, 0, 0, 0, 0, time.UTC)
	ids := []string{"evt_000000000000000000000001", "evt_000000000000000000000002"}
	for _, tt := range []struct {
		name, query string
		args        []any
		want        []string
	}{
		{"candidates", pruneCandidates, []any{cutoff, time.Time{}, "", 500}, []string{
			"Index Only Scan using alert_events_created on alert_events e",
			"Index Scan using webhook_deliveries_event_id_endpoint_id_key on webhook_deliveries d",
			"Index Cond: (event_id = e.id)",
			"Index Scan using alert_emails_event_id_key on alert_emails m"}},
		{"attempts", pruneAttempts, []any{ids}, []string{"Index Scan using webhook_attempts_pkey on webhook_attempts"}},
		{"deliveries", pruneDeliveries, []any{ids, cutoff}, []string{"webhook_deliveries_event_id_endpoint_id_key"}},
		{"emails", pruneEmails, []any{ids}, []string{"alert_emails_event_id_key"}},
		{"left", pruneLeft, []any{ids}, []string{"webhook_deliveries_event_id_endpoint_id_key", "alert_emails_event_id_key"}},
		{"events", pruneEvents, []any{ids}, []string{"alert_events_pkey"}},
	} {
		rows, err := db.pool.Query(ctx, "EXPLAIN (COSTS OFF) "+tt.query, tt.args...)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		p := strings.Join(lines, "\n")
		for _, want := range tt.want {
			if !strings.Contains(p, want) {
				t.Errorf("%s plan lacks %q:\n%s", tt.name, want, p)
			}
		}
		if strings.Contains(p, "Seq Scan") || strings.Contains(p, "Hash") {
			t.Errorf("%s plan scans or hashes a table:\n%s", tt.name, p)
		}
	}
}
