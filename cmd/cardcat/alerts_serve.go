package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/cardcat/cardcat/internal/alertmail"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/metrics"
	portalmail "github.com/cardcat/cardcat/internal/portal/mail"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// startAlerts starts serve's part of the price alerts: the evaluation of
// each catalogue version the holder publishes (under the store's lock, so
// that of the replicas noticing a version one evaluates it), the delivery
// of the queued webhooks (Workers at once, from the queue every replica
// shares), the sending of the queued alert emails through mailer (the
// portal's), their links on publicURL, and the daily prune of the finished
// history older than HistoryDays (first historyFirst after the start,
// alerts.DefaultPruneFirst when 0; under its own lock, so that one replica
// prunes at a time). notify and replace are the holder's hooks (OnPublish,
// OnRemap); stop waits for all to end, before the store closes.
func startAlerts(ctx context.Context, c config.AlertsConfig, st store.Store, log *slog.Logger, mx *metrics.Metrics,
	mailer portalmail.Mailer, publicURL string, historyFirst time.Duration) (notify func(*catalog.Snapshot), replace func(was, now *catalog.Snapshot), stop func()) {
	as, okA := st.(alerts.Store)
	ws, okW := st.(webhooks.Store)
	locker, okL := st.(store.Locker)
	if !okA || !okW || !okL {
		log.Warn("price alerts off: the store keeps no alerts", "store", st)
		return func(*catalog.Snapshot) {}, func(_, _ *catalog.Snapshot) {}, func() {}
	}
	if c.AllowHTTP {
		log.Warn("webhooks: http:// endpoints are taken (CARDCAT_WEBHOOK_ALLOW_HTTP): for tests and private deployments only")
	}
	if c.AllowPrivate {
		log.Warn("webhooks: deliveries may reach loopback and private addresses (CARDCAT_WEBHOOK_ALLOW_PRIVATE): for tests and private deployments only")
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	emx := newAlertEmailMetrics(mx)
	ev := &alerts.Evaluator{
		Alerts: as, Catalog: st, Log: log.With("job", "alerts"), EmailsPerHour: c.EmailsPerHour,
		Lock: func(ctx context.Context) (func(), bool, error) { return locker.TryLock(ctx, alerts.LockName) },
		// The queue's metric counts the card.changed subscriptions'
		// deliveries too; fired counts the alerts' firings only.
		OnEvaluated: func(r alerts.Result) {
			mx.AlertsEvaluated(r.Fired, r.Queued+r.Subscriptions.Queued)
			emx.queued(r.Emailed, r.Capped)
		},
	}
	if ss, ok := st.(alerts.SubscriptionStore); ok {
		ev.Subscriptions, ev.Changes = ss, st
	}
	ev.Start()
	wg.Go(func() { ev.Run(ctx) })
	if c.Workers > 0 {
		w := &webhooks.Worker{
			Store: ws, AllowHTTP: c.AllowHTTP, Client: webhooks.NewClient(webhooks.ClientOptions{AllowPrivate: c.AllowPrivate}),
			Log: log.With("job", "webhooks"), Workers: c.Workers,
			OnAttempt: func(a webhooks.Attempt, s webhooks.State) {
				mx.WebhookAttempt(a.Status, a.Duration, s == webhooks.Delivered, s == webhooks.Failed)
			},
		}
		wg.Go(func() { w.Run(ctx) })
		if es, ok := st.(alerts.EmailStore); ok {
			mw := &alertmail.Worker{Store: es, Mailer: mailer, PublicURL: publicURL, EmailsPerHour: c.EmailsPerHour,
				Log: log.With("job", "alert-emails"), OnFinish: emx.finished}
			wg.Go(func() { mw.Run(ctx) })
		}
	}
	if hs, ok := st.(alerts.HistoryStore); ok {
		r := &alerts.Retention{
			Store: hs, Days: c.HistoryDays, First: historyFirst, Log: log.With("job", "alert-history"),
			Lock:     func(ctx context.Context) (func(), bool, error) { return locker.TryLock(ctx, alerts.HistoryLockName) },
			OnPruned: newAlertHistoryMetrics(mx).pruned,
		}
		if c.HistoryDays == 0 {
			log.Info("alert history kept for ever: no prune (--alert-history-days 0)")
		}
		wg.Go(func() { r.Run(ctx) })
	}
	return ev.Notify, ev.Replace, func() { cancel(); wg.Wait() }
}
