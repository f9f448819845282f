package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// TestQueueDuePlan: an idle queue worker's check reads the partial index
// of the due items, never the table, which keeps every email and delivery
// ever sent.
func TestQueueDuePlan(t *testing.T) {
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tt := range []struct{ name, query, want string }{
		{"emails", emailsDue, "SEARCH alert_emails USING INDEX alert_emails_due (next_at<?)"},
		{"deliveries", deliveriesDue, "SEARCH webhook_deliveries USING INDEX webhook_deliveries_due (next_at<?)"},
	} {
		if p := explain(t, db, tt.query, int64(1)); !strings.Contains(p, tt.want) {
			t.Errorf("%s plan lacks %q:\n%s", tt.name, tt.want, p)
		}
	}
}

// TestQueueDueFails: a check that cannot read is the worker's error, not
// "nothing due" (which the worker does not log).
func TestQueueDueFails(t *testing.T) {
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	ctx := context.Background()
	if _, err := db.ClaimEmail(ctx, time.Now(), time.Minute); err == nil || errors.Is(err, alerts.ErrNoEmail) ||
		!strings.Contains(err.Error(), "due alert emails") {
		t.Errorf("ClaimEmail on a closed store = %v, want the check's error", err)
	}
	if _, err := db.ClaimDelivery(ctx, time.Now(), time.Minute); err == nil || errors.Is(err, webhooks.ErrNoDelivery) ||
		!strings.Contains(err.Error(), "due webhook deliveries") {
		t.Errorf("ClaimDelivery on a closed store = %v, want the check's error", err)
	}
}
