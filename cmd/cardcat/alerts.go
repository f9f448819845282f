package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/webhooks"
)

func init() {
	register("alerts", "create and list an account's price alerts", cmdAlerts)
	register("webhooks", "create and list an account's webhook endpoints", cmdWebhooks)
}

func cmdAlerts(ctx context.Context, env *Env, args []string) error {
	subs := map[string]func([]string) error{
		"create": func(args []string) error { return alertsCreate(ctx, env, args) },
		"list":   func(args []string) error { return alertsList(ctx, env, args) },
	}
	return subcommand(env, "alerts", args, subs, "create|list [flags]")
}

func cmdWebhooks(ctx context.Context, env *Env, args []string) error {
	subs := map[string]func([]string) error{
		"create": func(args []string) error { return webhooksCreate(ctx, env, args) },
		"list":   func(args []string) error { return webhooksList(ctx, env, args) },
	}
	return subcommand(env, "webhooks", args, subs, "create|list [flags]")
}

// alertsStore is the configured store as the alerts' commands use it.
type alertsStore interface {
	store.Store
	account.Store
	alerts.Store
	webhooks.Store
}

// openAlertsStore opens the store and loads the account of email.
func openAlertsStore(ctx context.Context, sf config.StoreConfig, email string) (alertsStore, *account.Account, error) {
	st, err := openStore(ctx, sf)
	if err != nil {
		return nil, nil, err
	}
	as, ok := st.(alertsStore)
	if !ok {
		st.Close()
		return nil, nil, fmt.Errorf("the %s store keeps no alerts", sf.Describe())
	}
	acc, err := as.AccountByEmail(ctx, email)
	if errors.Is(err, account.ErrNotFound) {
		st.Close()
		return nil, nil, usageError{fmt.Sprintf("no account with the email %q (see accounts list)", email)}
	}
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return as, acc, nil
}

func alertsCreate(ctx context.Context, env *Env, args []string) error {
	const name = "alerts create"
	fs := newFlagSet(env, name, "--email EMAIL --card ID --source tcg|cm --variant FINISH (--above X | --below X | --move N) [--webhook URL] [--email-notify]")
	c, err := bindConfig(env, fs, config.Alerts)
	if err != nil {
		return err
	}
	email := fs.String("email", "", "the account's email")
	card := fs.String("card", "", "the card's id (pkm_0123456789abcdef, or a Cardmarket id of 64 hex digits)")
	source := fs.String("source", "", "the marketplace: tcg (TCGplayer's market price) or cm (Cardmarket's trend price)")
	variant := fs.String("variant", "", "the finish: TCGplayer's (Normal, Foil, Holofoil, ...) or Cardmarket's (normal, foil)")
	above := fs.String("above", "", "fire when the price is at or above this amount (12.50)")
	below := fs.String("below", "", "fire when the price is at or below this amount")
	move := fs.String("move", "", fmt.Sprintf("fire when the price is at least this percentage (1 to %d) away from its 7-day average", alerts.MaxPercent))
	hook := fs.String("webhook", "", "the URL of one of the account's webhook endpoints (webhooks create) to send the alert's events to")
	notify := fs.Bool("email-notify", false, "also email each firing to the account's address, which must be verified (accounts verify)")
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	bad := func(msg string) error { return usageError{name + ": " + msg} }
	if *email == "" || *card == "" || *variant == "" {
		return bad("give --email, --card, --source, --variant and one of --above, --below, --move")
	}
	src, err := alerts.ParseSource(*source)
	if err != nil {
		return bad("--source: " + err.Error())
	}
	var rule alerts.Rule
	n := 0
	for _, r := range []struct {
		kind alerts.Kind
		v    string
	}{{alerts.Above, *above}, {alerts.Below, *below}, {alerts.Move, *move}} {
		if r.v == "" {
			continue
		}
		n++
		if rule, err = alerts.ParseRule(string(r.kind), r.v); err != nil {
			return bad("--" + string(r.kind) + ": " + err.Error())
		}
	}
	if n != 1 {
		return bad("give exactly one of --above, --below and --move")
	}
	st, acc, err := openAlertsStore(ctx, c.Store, *email)
	if err != nil {
		return err
	}
	defer st.Close()
	maxAlerts, maxHooks := acc.Plan.AlertLimits(c.Alerts.BusinessMax)
	a := &alerts.Alert{AccountID: acc.ID, CardID: *card, Source: src, Finish: *variant, Rule: rule, Email: *notify}
	if a.Email && acc.VerifiedAt.IsZero() {
		return bad(fmt.Sprintf("--email-notify: the address of account %d, %s, is not verified: alert emails go to verified addresses only "+
			"(the portal's link, or accounts verify --email %s)", acc.ID, acc.Email, acc.Email))
	}
	if *hook != "" {
		if maxHooks == 0 {
			return bad(fmt.Sprintf("--webhook: the %s plan has no webhooks (see the plans' limits)", acc.Plan.Name()))
		}
		eps, err := st.Endpoints(ctx, acc.ID)
		if err != nil {
			return err
		}
		for _, e := range eps {
			if e.URL == *hook {
				a.WebhookID = e.ID
			}
		}
		if a.WebhookID == 0 {
			return bad(fmt.Sprintf("--webhook: account %d has no webhook %s; create it first (webhooks create)", acc.ID, *hook))
		}
	}
	snap, err := currentSnapshot(ctx, st)
	if err != nil {
		return err
	}
	if err := alerts.Check(a, snap); err != nil {
		return bad(err.Error())
	}
	err = st.CreateAlert(ctx, a, maxAlerts)
	if errors.Is(err, alerts.ErrLimit) {
		return fmt.Errorf("account %d (plan %s) has %d alerts already, its plan's limit: %w", acc.ID, acc.Plan.Name(), maxAlerts, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "alert %d for account %d: %s %s %s %s%s\n", a.ID, acc.ID, a.CardID, a.Source, a.Finish, a.Rule, sendsTo(*hook, a.Email, acc.Email))
	return nil
}

// sendsTo says where an alert's firings go.
func sendsTo(url string, email bool, address string) string {
	switch {
	case url == "" && !email:
		return " (no webhook, no email: its events are kept, not sent)"
	case url == "":
		return ", emailed to " + address
	case email:
		return ", sent to " + url + " and emailed to " + address
	}
	return ", sent to " + url
}

// currentSnapshot is the store's current catalogue, as the server serves
// it, which an alert's card and finish are checked against.
func currentSnapshot(ctx context.Context, st store.Store) (*catalog.Snapshot, error) {
	cat, err := st.LoadCatalog(ctx)
	if err != nil {
		return nil, err
	}
	if cat.Version == 0 {
		return nil, errors.New("the store has no catalogue yet: ingest one first")
	}
	return catalog.NewSnapshot(cat, game.Default())
}

func alertsList(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "alerts list", "--email EMAIL")
	c, err := bindConfig(env, fs, config.Alerts)
	if err != nil {
		return err
	}
	email := fs.String("email", "", "the account's email")
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	if *email == "" {
		return usageError{"alerts list: give --email"}
	}
	st, acc, err := openAlertsStore(ctx, c.Store, *email)
	if err != nil {
		return err
	}
	defer st.Close()
	as, err := st.Alerts(ctx, acc.ID)
	if err != nil {
		return err
	}
	eps, err := st.Endpoints(ctx, acc.ID)
	if err != nil {
		return err
	}
	urls := map[int64]string{}
	for _, e := range eps {
		urls[e.ID] = e.URL
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCARD\tSOURCE\tVARIANT\tRULE\tSTATE\tLAST VERSION\tLAST PRICE\tWEBHOOK\tEMAIL\tCREATED")
	for _, a := range as {
		state := "armed"
		switch {
		case a.Paused:
			state = "paused"
		case !a.Armed:
			state = "fired"
		}
		price, hook, email := "-", "-", "-"
		if a.LastPrice.OK {
			price = alerts.FormatAmount(a.LastPrice.Cents)
		}
		if a.WebhookID != 0 {
			hook = urls[a.WebhookID]
		}
		if a.Email {
			email = "yes"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", a.ID, a.CardID, a.Source, a.Finish, a.Rule, state,
			a.LastVersion, price, hook, email, a.CreatedAt.Format(time.RFC3339))
	}
	return tw.Flush()
}

func webhooksCreate(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "webhooks create", "--email EMAIL --url URL")
	c, err := bindConfig(env, fs, config.Webhooks)
	if err != nil {
		return err
	}
	email := fs.String("email", "", "the account's email")
	url := fs.String("url", "", "the endpoint: an https:// URL that answers 2xx within 10 s")
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	if *email == "" || *url == "" {
		return usageError{"webhooks create: give --email and --url"}
	}
	if err := webhooks.CheckURL(strings.TrimSpace(*url), c.Alerts.AllowHTTP); err != nil {
		return usageError{"webhooks create: --url: " + err.Error()}
	}
	st, acc, err := openAlertsStore(ctx, c.Store, *email)
	if err != nil {
		return err
	}
	defer st.Close()
	_, max := acc.Plan.AlertLimits(c.Alerts.BusinessMax)
	if max == 0 {
		return usageError{fmt.Sprintf("webhooks create: the %s plan has no webhooks (see the plans' limits)", acc.Plan.Name())}
	}
	e := &webhooks.Endpoint{AccountID: acc.ID, URL: strings.TrimSpace(*url), Secret: webhooks.NewSecret()}
	err = st.CreateEndpoint(ctx, e, max)
	if errors.Is(err, webhooks.ErrLimit) {
		return fmt.Errorf("account %d (plan %s) has %d webhook endpoints already, its plan's limit: %w", acc.ID, acc.Plan.Name(), max, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "webhook %d for account %d: %s; its signing secret, shown once, store it now:\n", e.ID, acc.ID, e.URL)
	fmt.Fprintln(env.Stdout, e.Secret)
	return nil
}

func webhooksList(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "webhooks list", "--email EMAIL")
	c, err := bindConfig(env, fs, config.Webhooks)
	if err != nil {
		return err
	}
	email := fs.String("email", "", "the account's email")
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	if *email == "" {
		return usageError{"webhooks list: give --email"}
	}
	st, acc, err := openAlertsStore(ctx, c.Store, *email)
	if err != nil {
		return err
	}
	defer st.Close()
	eps, err := st.Endpoints(ctx, acc.ID)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tURL\tSECRET\tCREATED")
	for _, e := range eps {
		fmt.Fprintf(tw, "%d\t%s\t%s…\t%s\n", e.ID, e.URL, e.Secret[:min(len(e.Secret), 10)], e.CreatedAt.Format(time.RFC3339))
	}
	return tw.Flush()
}
