package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/config"
)

func init() {
	register("subscriptions", "create, list and delete an account's card.changed webhook subscriptions", cmdSubscriptions)
}

func cmdSubscriptions(ctx context.Context, env *Env, args []string) error {
	subs := map[string]func([]string) error{
		"create": func(args []string) error { return subscriptionsCreate(ctx, env, args) },
		"list":   func(args []string) error { return subscriptionsList(ctx, env, args) },
		"delete": func(args []string) error { return subscriptionsDelete(ctx, env, args) },
	}
	return subcommand(env, "subscriptions", args, subs, "create|list|delete [flags]")
}

// openSubscriptionsStore opens the store and loads the account of email.
func openSubscriptionsStore(ctx context.Context, sf config.StoreConfig, email string) (alertsStore, alerts.SubscriptionStore, int64, error) {
	st, acc, err := openAlertsStore(ctx, sf, email)
	if err != nil {
		return nil, nil, 0, err
	}
	ss, ok := st.(alerts.SubscriptionStore)
	if !ok {
		st.Close()
		return nil, nil, 0, fmt.Errorf("the %s store keeps no subscriptions", sf.Describe())
	}
	return st, ss, acc.ID, nil
}

func subscriptionsCreate(ctx context.Context, env *Env, args []string) error {
	const name = "subscriptions create"
	fs := newFlagSet(env, name, "--email EMAIL --webhook-id N --game GAME (--set SET_ID | --cards ID,ID,...)")
	c, err := bindConfig(env, fs, config.Alerts)
	if err != nil {
		return err
	}
	email := fs.String("email", "", "the account's email")
	hook := fs.Int64("webhook-id", 0, "the id of the account's webhook endpoint the events go to (webhooks list)")
	gameCode := fs.String("game", "", "the game's code (pkm, op, mtg, dbs, ...)")
	set := fs.String("set", "", "the set_id of the set to watch, as GET /{game}/sets lists it")
	cards := fs.String("cards", "", fmt.Sprintf("the ids of the cards to watch, separated by commas (at most %d)", alerts.MaxSubscriptionCards))
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	bad := func(msg string) error { return usageError{name + ": " + msg} }
	if *email == "" || *gameCode == "" || (*set == "") == (*cards == "") {
		return bad("give --email, --webhook-id, --game and one of --set and --cards")
	}
	if *hook <= 0 {
		return bad("--webhook-id: give the id of one of the account's webhook endpoints (webhooks list; webhooks create makes one)")
	}
	st, ss, _, err := openSubscriptionsStore(ctx, c.Store, *email)
	if err != nil {
		return err
	}
	defer st.Close()
	acc, err := st.AccountByEmail(ctx, *email)
	if err != nil {
		return err
	}
	max := acc.Plan.SubscriptionLimit()
	if max == 0 {
		return bad(fmt.Sprintf("the %s plan has no webhooks, so no subscriptions (see the plans' limits)", acc.Plan.Name()))
	}
	eps, err := st.Endpoints(ctx, acc.ID)
	if err != nil {
		return err
	}
	found := false
	for _, e := range eps {
		found = found || e.ID == *hook
	}
	if !found {
		return bad(fmt.Sprintf("--webhook-id: account %d has no webhook %d (see webhooks list)", acc.ID, *hook))
	}
	s := &alerts.Subscription{AccountID: acc.ID, WebhookID: *hook, Game: *gameCode, SetID: *set, Cards: alerts.ParseCardList(*cards)}
	snap, err := currentSnapshot(ctx, st)
	if err != nil {
		return err
	}
	if err := alerts.CheckSubscription(s, snap); err != nil {
		return bad(err.Error())
	}
	err = ss.CreateSubscription(ctx, s, max)
	if errors.Is(err, alerts.ErrLimit) {
		return fmt.Errorf("account %d (plan %s) has %d subscriptions already, its plan's limit: %w", acc.ID, acc.Plan.Name(), max, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "subscription %d for account %d: %s of %s, sent to webhook %d\n", s.ID, acc.ID, s.Watches(), s.Game, s.WebhookID)
	return nil
}

func subscriptionsList(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "subscriptions list", "--email EMAIL")
	c, err := bindConfig(env, fs, config.Alerts)
	if err != nil {
		return err
	}
	email := fs.String("email", "", "the account's email")
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	if *email == "" {
		return usageError{"subscriptions list: give --email"}
	}
	st, ss, accID, err := openSubscriptionsStore(ctx, c.Store, *email)
	if err != nil {
		return err
	}
	defer st.Close()
	subs, err := ss.Subscriptions(ctx, accID)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tGAME\tWATCHES\tWEBHOOK\tLAST VERSION\tCREATED")
	for _, s := range subs {
		watches := "set " + s.SetID
		if s.SetID == "" {
			watches = strings.Join(s.Cards, ",")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%s\n", s.ID, s.Game, watches, s.WebhookID, s.LastVersion, s.CreatedAt.Format(time.RFC3339))
	}
	return tw.Flush()
}

func subscriptionsDelete(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "subscriptions delete", "--email EMAIL --id N")
	c, err := bindConfig(env, fs, config.Alerts)
	if err != nil {
		return err
	}
	email := fs.String("email", "", "the account's email")
	id := fs.Int64("id", 0, "the subscription's id (subscriptions list)")
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	if *email == "" || *id <= 0 {
		return usageError{"subscriptions delete: give --email and --id"}
	}
	st, ss, accID, err := openSubscriptionsStore(ctx, c.Store, *email)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := ss.DeleteSubscription(ctx, accID, *id); errors.Is(err, alerts.ErrNotFound) {
		return usageError{"subscriptions delete: account " + strconv.FormatInt(accID, 10) + " has no subscription " + strconv.FormatInt(*id, 10)}
	} else if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "subscription %d deleted\n", *id)
	return nil
}
