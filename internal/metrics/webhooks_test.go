package metrics

import (
	"testing"
	"time"
)

func TestWebhooks(t *testing.T) {
	var nilM *Metrics
	nilM.AlertsEvaluated(1, 1)
	nilM.WebhookAttempt(200, time.Second, true, false)

	m := New(nil)
	m.AlertsEvaluated(3, 2)
	m.AlertsEvaluated(1, 0)
	m.WebhookAttempt(503, 20*time.Millisecond, false, false)
	m.WebhookAttempt(0, 10*time.Second, false, true)
	m.WebhookAttempt(204, 30*time.Millisecond, true, false)
	mustValue(t, m, 4, "cardcat_alerts_fired_total")
	mustValue(t, m, 2, "cardcat_webhook_deliveries_queued_total")
	mustValue(t, m, 1, "cardcat_webhook_deliveries_delivered_total")
	mustValue(t, m, 1, "cardcat_webhook_deliveries_failed_total")
	for _, o := range []string{"ok", "status", "error"} {
		mustValue(t, m, 1, "cardcat_webhook_attempts_total", "outcome", o)
	}
	if h := family(t, m, "cardcat_webhook_attempt_duration_seconds").GetMetric()[0].GetHistogram(); h.GetSampleCount() != 3 {
		t.Errorf("%d attempts timed, want 3", h.GetSampleCount())
	}
}
