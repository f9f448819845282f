package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/config"
)

func init() {
	register("keys", "create, list and revoke API keys", cmdKeys)
	register("accounts", "list accounts; show one's usage; change its plan, limits, trial or verification", cmdAccounts)
}

// accountStore opens the configured store as an account store.
func accountStore(ctx context.Context, sf *config.StoreConfig) (account.Store, func(), error) {
	st, err := openStore(ctx, *sf)
	if err != nil {
		return nil, nil, err
	}
	as, ok := st.(account.Store)
	if !ok {
		st.Close()
		return nil, nil, fmt.Errorf("the %s store keeps no accounts", sf.Describe())
	}
	return as, func() { st.Close() }, nil
}

func subcommand(env *Env, group string, args []string, subs map[string]func([]string) error, synopsis string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintf(env.Stdout, "Usage: cardcat %s %s\n", group, synopsis)
		if len(args) == 0 {
			return usageError{"cardcat " + group + ": a subcommand is required"}
		}
		return flag.ErrHelp
	}
	run, ok := subs[args[0]]
	if !ok {
		return usageError{fmt.Sprintf("cardcat %s: unknown subcommand %q (%s)", group, args[0], synopsis)}
	}
	return run(args[1:])
}

func cmdKeys(ctx context.Context, env *Env, args []string) error {
	return subcommand(env, "keys", args, map[string]func([]string) error{
		"create": func(a []string) error { return keysCreate(ctx, env, a) },
		"list":   func(a []string) error { return keysList(ctx, env, a) },
		"revoke": func(a []string) error { return keysRevoke(ctx, env, a) },
	}, "create|list|revoke [flags]")
}

func cmdAccounts(ctx context.Context, env *Env, args []string) error {
	return subcommand(env, "accounts", args, map[string]func([]string) error{
		"list":        func(a []string) error { return accountsList(ctx, env, a) },
		"usage":       func(a []string) error { return accountsUsage(ctx, env, a) },
		"set-plan":    func(a []string) error { return accountsSetPlan(ctx, env, a) },
		"start-trial": func(a []string) error { return accountsStartTrial(ctx, env, a) },
		"verify":      func(a []string) error { return accountsVerify(ctx, env, a) },
	}, "list|usage|set-plan|start-trial|verify [flags]")
}

func parseTime(flagName, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, usageError{fmt.Sprintf("--%s: want an RFC 3339 time like 2026-11-22T10:00:00Z, got %q", flagName, s)}
	}
	return t.UTC(), nil
}

func keysCreate(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "keys create", "[--name NAME] [--plan PLAN] [--test] [--email EMAIL] [--trial-start RFC3339]")
	sf, err := storeSettings(env, fs, config.Keys)
	if err != nil {
		return err
	}
	plan := fs.String("plan", "", "plan of a new account: free (default), early-access, coffee, pro, ultra, business; for an existing account, changes its plan")
	test := fs.Bool("test", false, "create a pk_test_ key instead of pk_live_")
	email := fs.String("email", "", "the account's email; a key for an existing email joins that account")
	trial := fs.String("trial-start", "", "start the account's 7-day trial at this time (RFC 3339)")
	name := fs.String("name", "", fmt.Sprintf("the key's label, to tell it from the account's others (at most %d characters)", account.MaxKeyName))
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	if err := account.CheckKeyName(*name); err != nil {
		return usageError{"--name: " + err.Error()}
	}
	var p account.Plan
	if *plan != "" {
		if p, err = account.ParsePlan(*plan); err != nil {
			return usageError{"--plan: " + err.Error()}
		}
	}
	trialAt, err := parseTime("trial-start", *trial)
	if err != nil {
		return err
	}
	st, done, err := accountStore(ctx, sf)
	if err != nil {
		return err
	}
	defer done()

	var acc *account.Account
	if *email != "" {
		acc, err = st.AccountByEmail(ctx, *email)
		if err != nil && !errors.Is(err, account.ErrNotFound) {
			return err
		}
	}
	if acc == nil {
		acc = &account.Account{Email: *email, Plan: account.Free, TrialStartedAt: trialAt}
		if p != "" {
			acc.Plan = p
		}
		if err := st.CreateAccount(ctx, acc); err != nil {
			return err
		}
	} else if p != "" || !trialAt.IsZero() {
		if p != "" {
			acc.Plan = p
		}
		if !trialAt.IsZero() {
			acc.TrialStartedAt = trialAt
		}
		if err := st.UpdateAccount(ctx, acc); err != nil {
			return err
		}
	}
	key, k, err := account.IssueKey(ctx, st, acc.ID, *test, *name, time.Now().UTC())
	if errors.Is(err, account.ErrTooManyKeys) {
		return fmt.Errorf("account %d already has %d active keys; revoke one first (keys list --account %d): %w", acc.ID, account.MaxActiveKeys, acc.ID, err)
	} else if err != nil {
		return err
	}
	lim := acc.Limits()
	fmt.Fprintf(env.Stdout, "key %d for account %d (plan %s, %d/hour, %d/day); shown once, store it now:\n", k.ID, acc.ID, acc.Plan, lim.Hour, lim.Day)
	fmt.Fprintln(env.Stdout, key)
	return nil
}

func keysList(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "keys list", "[--account ID]")
	sf, err := storeSettings(env, fs, config.Keys)
	if err != nil {
		return err
	}
	accID := fs.Int64("account", 0, "only this account's keys")
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	st, done, err := accountStore(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	keys, err := st.Keys(ctx, *accID)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKEY\tNAME\tACCOUNT\tCREATED\tLAST USED\tREVOKED")
	for _, k := range keys {
		revoked := "-"
		if !k.RevokedAt.IsZero() {
			revoked = k.RevokedAt.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%d\t%s…\t%s\t%d\t%s\t%s\t%s\n", k.ID, k.Prefix, cell(k.Name), k.AccountID,
			k.CreatedAt.Format(time.RFC3339), timeOr(k.LastUsedAt, "never"), revoked)
	}
	return tw.Flush()
}

func keysRevoke(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "keys revoke", "KEY_ID")
	sf, err := storeSettings(env, fs, config.Keys)
	if err != nil {
		return err
	}
	fs.SetOutput(env.Stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() != 1 {
		return usageError{"keys revoke: give exactly one key id (see keys list)"}
	}
	id, err := strconv.ParseInt(fs.Arg(0), 10, 64)
	if err != nil || id <= 0 {
		return usageError{fmt.Sprintf("keys revoke: %q is not a key id", fs.Arg(0))}
	}
	st, done, err := accountStore(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	if err := st.RevokeKey(ctx, id, time.Now().UTC()); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "key %d revoked\n", id)
	return nil
}

// accountFlags selects an account by id or email.
type accountFlags struct {
	id    *int64
	email *string
}

func addAccountFlags(fs *flag.FlagSet) accountFlags {
	return accountFlags{
		id:    fs.Int64("account", 0, "account id"),
		email: fs.String("email", "", "account email"),
	}
}

// open opens the store of sf and loads the account f selects; done closes
// the store.
func (f accountFlags) open(ctx context.Context, sf *config.StoreConfig) (st account.Store, acc *account.Account, done func(), err error) {
	if *f.id <= 0 && *f.email == "" {
		return nil, nil, nil, usageError{"give --account ID or --email EMAIL"}
	}
	if st, done, err = accountStore(ctx, sf); err != nil {
		return nil, nil, nil, err
	}
	if *f.id > 0 {
		acc, err = st.Account(ctx, *f.id)
	} else {
		acc, err = st.AccountByEmail(ctx, *f.email)
	}
	if err != nil {
		done()
		return nil, nil, nil, err
	}
	return st, acc, done, nil
}

func accountsSetPlan(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "accounts set-plan", "(--account ID | --email EMAIL) --plan PLAN [--hour N --day N]")
	sf, err := storeSettings(env, fs, config.Accounts)
	if err != nil {
		return err
	}
	af := addAccountFlags(fs)
	plan := fs.String("plan", "", "free, early-access, coffee, pro, ultra or business")
	floor := account.Coffee.DefaultLimits()
	hour := fs.Int64("hour", 0, fmt.Sprintf("custom hourly limit (coffee: at least %d; business)", floor.Hour))
	day := fs.Int64("day", 0, fmt.Sprintf("custom daily limit (coffee: at least %d; business)", floor.Day))
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	p, err := account.ParsePlan(*plan)
	if err != nil {
		return usageError{"--plan: " + err.Error()}
	}
	if err := account.CheckLimits(p, *hour, *day); err != nil {
		return usageError{"--hour/--day: " + err.Error()}
	}
	st, acc, done, err := af.open(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	acc.Plan, acc.HourLimit, acc.DayLimit = p, *hour, *day
	if err := st.UpdateAccount(ctx, acc); err != nil {
		return err
	}
	lim := acc.Limits()
	fmt.Fprintf(env.Stdout, "account %d: plan %s, %d/hour, %d/day\n", acc.ID, acc.Plan, lim.Hour, lim.Day)
	return nil
}

func accountsStartTrial(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "accounts start-trial", "(--account ID | --email EMAIL) [--at RFC3339]")
	sf, err := storeSettings(env, fs, config.Accounts)
	if err != nil {
		return err
	}
	af := addAccountFlags(fs)
	at := fs.String("at", "", "trial start (RFC 3339); default now")
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	start, err := parseTime("at", *at)
	if err != nil {
		return err
	}
	if start.IsZero() {
		start = time.Now().UTC()
	}
	st, acc, done, err := af.open(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	acc.TrialStartedAt = start
	if err := st.UpdateAccount(ctx, acc); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "account %d: trial from %s to %s\n", acc.ID, start.Format(time.RFC3339), acc.TrialEnd().Format(time.RFC3339))
	return nil
}

// cell is s for a tabwriter column: "-" when empty, control characters
// (tabs and newlines would break the table) as spaces.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// timeOr is t in RFC 3339 (UTC), or zero when t is the zero time.
func timeOr(t time.Time, zero string) string {
	if t.IsZero() {
		return zero
	}
	return t.UTC().Format(time.RFC3339)
}

func accountsList(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "accounts list", "")
	sf, err := storeSettings(env, fs, config.Accounts)
	if err != nil {
		return err
	}
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	st, done, err := accountStore(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	accs, err := st.Accounts(ctx)
	if err != nil {
		return err
	}
	keys, err := st.Keys(ctx, 0)
	if err != nil {
		return err
	}
	active := map[int64]int{}
	for _, k := range keys {
		if k.RevokedAt.IsZero() {
			active[k.AccountID]++
		}
	}
	now := time.Now()
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEMAIL\tPLAN\tVERIFIED\tTRIAL\tLAST USED\tKEYS")
	for _, a := range accs {
		verified := "no"
		if !a.VerifiedAt.IsZero() {
			verified = a.VerifiedAt.UTC().Format(time.DateOnly)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\n", a.ID, cell(a.Email), a.Plan, verified, trialState(&a, now),
			timeOr(a.LastUsedAt, "never"), active[a.ID])
	}
	return tw.Flush()
}

// trialState says where the account's trial stands at now.
func trialState(a *account.Account, now time.Time) string {
	if a.TrialStartedAt.IsZero() {
		return "not started"
	}
	end := a.TrialEnd().UTC().Format(time.RFC3339)
	if now.Before(a.TrialEnd()) {
		return "active until " + end
	}
	return "ended " + end
}

func accountsVerify(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "accounts verify", "(--account ID | --email EMAIL)")
	sf, err := storeSettings(env, fs, config.Accounts)
	if err != nil {
		return err
	}
	af := addAccountFlags(fs)
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	st, acc, done, err := af.open(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	if !acc.VerifiedAt.IsZero() {
		fmt.Fprintf(env.Stdout, "account %d (%s): already verified at %s\n", acc.ID, cell(acc.Email), timeOr(acc.VerifiedAt, ""))
		return nil
	}
	acc.VerifiedAt = time.Now().UTC()
	if err := st.UpdateAccount(ctx, acc); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "account %d (%s): verified at %s\n", acc.ID, cell(acc.Email), timeOr(acc.VerifiedAt, ""))
	return nil
}

func accountsUsage(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "accounts usage", "(--account ID | --email EMAIL) [--hours 48] [--days 30]")
	sf, err := storeSettings(env, fs, config.Accounts)
	if err != nil {
		return err
	}
	af := addAccountFlags(fs)
	hours := fs.Int("hours", 48, "hourly rows: this hour and the ones before it (UTC)")
	days := fs.Int("days", 30, "daily rows: today and the days before it (UTC)")
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	if *hours < 0 || *hours > 24*366 || *days < 0 || *days > 366 {
		return usageError{"--hours: 0 to 8784; --days: 0 to 366"}
	}
	st, acc, done, err := af.open(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	t := account.NewUsagePeriods(time.Now(), *hours, *days)
	us, err := st.UsageBetween(ctx, acc.ID, t.From, t.To)
	if err != nil {
		return err
	}
	t.Add(us)
	lim := acc.Limits()
	fmt.Fprintf(env.Stdout, "account %d (%s), plan %s: %d/hour, %d/day; every keyed request, 429s included (running servers save their counts every %s)\n",
		acc.ID, cell(acc.Email), acc.Plan, lim.Hour, lim.Day, account.DefaultFlushInterval)
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	if *hours > 0 {
		fmt.Fprintln(env.Stdout)
		writeUsage(tw, "HOUR (UTC)", t.Hours, "2006-01-02 15:04")
	}
	if *days > 0 {
		fmt.Fprintln(tw)
		writeUsage(tw, "DAY (UTC)", t.Days, time.DateOnly)
	}
	return tw.Flush()
}

// writeUsage prints one table of `accounts usage`, with a total.
func writeUsage(tw *tabwriter.Writer, title string, rows []account.UsagePeriod, layout string) {
	fmt.Fprintf(tw, "%s\tREQUESTS\t429\n", title)
	var total account.UsagePeriod
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", r.Start.Format(layout), r.Requests, r.Refused)
		total.Requests += r.Requests
		total.Refused += r.Refused
	}
	fmt.Fprintf(tw, "total\t%d\t%d\n", total.Requests, total.Refused)
}
