// Package accountcli is the operator's commands on accounts and keys,
// `cardcat keys ...` and `cardcat accounts ...`: the same rules as the
// portal (internal/account), for support, scripts and tests. cmd/cardcat
// parses the flags each command binds, with the store's, and runs it.
package accountcli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/config"
)

// Command is one subcommand: its flags, bound on a flag set that also holds
// the store's (the configuration's Store group), and what it runs once they
// are parsed.
type Command struct {
	Name       string          // "keys create"
	Synopsis   string          // its arguments, for the usage line
	Store      config.Commands // the command group whose store settings it reads
	Positional bool            // takes arguments after its flags (keys revoke's KEY_ID)
	Bind       func(fs *flag.FlagSet) Run
}

// Run runs a command whose flags are parsed; args are the arguments after
// them.
type Run func(ctx context.Context, env Env, args []string) error

// Env is what a command needs from the program.
type Env struct {
	Stdout, Stderr io.Writer
	// Open opens the configured account store; done closes it.
	Open func() (st account.Store, done func(), err error)
}

// UsageError is a mistake on the command line (the program exits 2).
type UsageError string

func (e UsageError) Error() string { return string(e) }

// Keys and Accounts are the subcommands of `cardcat keys` and `cardcat
// accounts`, by name.
var (
	Keys     = []Command{KeysCreate, KeysList, KeysRevoke}
	Accounts = []Command{AccountsList, AccountsUsage, AccountsSetPlan, AccountsStartTrial, AccountsVerify}
)

// KeysCreate is `cardcat keys create`.
var KeysCreate = Command{Name: "keys create", Synopsis: "[--name NAME] [--plan PLAN] [--test] [--email EMAIL] [--trial-start RFC3339]", Store: config.Keys,
	Bind: func(fs *flag.FlagSet) Run {
		plan := fs.String("plan", "", "plan of a new account: free (default), early-access, coffee, pro, ultra, business; for an existing account, changes its plan")
		test := fs.Bool("test", false, "create a pk_test_ key instead of pk_live_")
		email := fs.String("email", "", "the account's email; a key for an existing email joins that account")
		trial := fs.String("trial-start", "", "start the account's 7-day trial at this time (RFC 3339)")
		name := fs.String("name", "", fmt.Sprintf("the key's label, to tell it from the account's others (at most %d characters)", account.MaxKeyName))
		return func(ctx context.Context, env Env, args []string) error {
			if err := account.CheckKeyName(*name); err != nil {
				return UsageError("--name: " + err.Error())
			}
			var p account.Plan
			if *plan != "" {
				var err error
				if p, err = account.ParsePlan(*plan); err != nil {
					return UsageError("--plan: " + err.Error())
				}
			}
			trialAt, err := parseTime("trial-start", *trial)
			if err != nil {
				return err
			}
			st, done, err := env.Open()
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
			// On stderr, so that the key stays stdout's last line for scripts:
			// a key tried at once was refused as unknown for up to 5 s.
			fmt.Fprintln(env.Stderr, "A running cardcat serve on this store accepts it within its --keys-refresh-interval (5s by default).")
			return nil
		}
	}}

// KeysList is `cardcat keys list`.
var KeysList = Command{Name: "keys list", Synopsis: "[--account ID]", Store: config.Keys,
	Bind: func(fs *flag.FlagSet) Run {
		accID := fs.Int64("account", 0, "only this account's keys")
		return func(ctx context.Context, env Env, args []string) error {
			st, done, err := env.Open()
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
	}}

// KeysRevoke is `cardcat keys revoke`.
var KeysRevoke = Command{Name: "keys revoke", Synopsis: "KEY_ID", Store: config.Keys, Positional: true,
	Bind: func(fs *flag.FlagSet) Run {
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) != 1 {
				return UsageError("keys revoke: give exactly one key id (see keys list)")
			}
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return UsageError(fmt.Sprintf("keys revoke: %q is not a key id", args[0]))
			}
			st, done, err := env.Open()
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
	}}

// AccountsSetPlan is `cardcat accounts set-plan`.
var AccountsSetPlan = Command{Name: "accounts set-plan", Synopsis: "(--account ID | --email EMAIL) --plan PLAN [--hour N --day N]", Store: config.Accounts,
	Bind: func(fs *flag.FlagSet) Run {
		af := addAccountFlags(fs)
		plan := fs.String("plan", "", "free, early-access, coffee, pro, ultra or business")
		floor := account.Coffee.DefaultLimits()
		hour := fs.Int64("hour", 0, fmt.Sprintf("custom hourly limit (coffee: at least %d; business)", floor.Hour))
		day := fs.Int64("day", 0, fmt.Sprintf("custom daily limit (coffee: at least %d; business)", floor.Day))
		return func(ctx context.Context, env Env, args []string) error {
			p, err := account.ParsePlan(*plan)
			if err != nil {
				return UsageError("--plan: " + err.Error())
			}
			if err := account.CheckLimits(p, *hour, *day); err != nil {
				return UsageError("--hour/--day: " + err.Error())
			}
			st, acc, done, err := af.open(ctx, env)
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
	}}

// AccountsStartTrial is `cardcat accounts start-trial`.
var AccountsStartTrial = Command{Name: "accounts start-trial", Synopsis: "(--account ID | --email EMAIL) [--at RFC3339]", Store: config.Accounts,
	Bind: func(fs *flag.FlagSet) Run {
		af := addAccountFlags(fs)
		at := fs.String("at", "", "trial start (RFC 3339); default now")
		return func(ctx context.Context, env Env, args []string) error {
			start, err := parseTime("at", *at)
			if err != nil {
				return err
			}
			if start.IsZero() {
				start = time.Now().UTC()
			}
			st, acc, done, err := af.open(ctx, env)
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
	}}

// AccountsList is `cardcat accounts list`.
var AccountsList = Command{Name: "accounts list", Synopsis: "", Store: config.Accounts,
	Bind: func(fs *flag.FlagSet) Run {
		return func(ctx context.Context, env Env, args []string) error {
			st, done, err := env.Open()
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
	}}

// AccountsVerify is `cardcat accounts verify`.
var AccountsVerify = Command{Name: "accounts verify", Synopsis: "(--account ID | --email EMAIL)", Store: config.Accounts,
	Bind: func(fs *flag.FlagSet) Run {
		af := addAccountFlags(fs)
		return func(ctx context.Context, env Env, args []string) error {
			st, acc, done, err := af.open(ctx, env)
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
	}}

// AccountsUsage is `cardcat accounts usage`.
var AccountsUsage = Command{Name: "accounts usage", Synopsis: "(--account ID | --email EMAIL) [--hours 48] [--days 30]", Store: config.Accounts,
	Bind: func(fs *flag.FlagSet) Run {
		af := addAccountFlags(fs)
		hours := fs.Int("hours", 48, "hourly rows: this hour and the ones before it (UTC)")
		days := fs.Int("days", 30, "daily rows: today and the days before it (UTC)")
		return func(ctx context.Context, env Env, args []string) error {
			if *hours < 0 || *hours > 24*366 || *days < 0 || *days > 366 {
				return UsageError("--hours: 0 to 8784; --days: 0 to 366")
			}
			st, acc, done, err := af.open(ctx, env)
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
	}}

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

// open opens the store and loads the account f selects; done closes the
// store.
func (f accountFlags) open(ctx context.Context, env Env) (st account.Store, acc *account.Account, done func(), err error) {
	if *f.id <= 0 && *f.email == "" {
		return nil, nil, nil, UsageError("give --account ID or --email EMAIL")
	}
	if st, done, err = env.Open(); err != nil {
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

func parseTime(flagName, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, UsageError(fmt.Sprintf("--%s: want an RFC 3339 time like 2026-11-22T10:00:00Z, got %q", flagName, s))
	}
	return t.UTC(), nil
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
