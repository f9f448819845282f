package main

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

	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/status"
)

func init() {
	register("incidents", "open, update, close and list the incidents of the status page", cmdIncidents)
}

const incidentsSynopsis = "open|update|close|list [flags]"

// cmdIncidents is `cardcat incidents ...`: the operator's announcements of
// the status page (GET /status, /status/incidents.atom), kept in the store
// every replica reads; a page shows a change within its cache (10 s).
func cmdIncidents(ctx context.Context, env *Env, args []string) error {
	subs := map[string]func([]string) error{
		"open":   func(args []string) error { return incidentsOpen(ctx, env, args) },
		"update": func(args []string) error { return incidentsUpdate(ctx, env, args, false) },
		"close":  func(args []string) error { return incidentsUpdate(ctx, env, args, true) },
		"list":   func(args []string) error { return incidentsList(ctx, env, args) },
	}
	return subcommand(env, "incidents", args, subs, incidentsSynopsis)
}

// statusStore opens the configured store as the status page's.
func statusStore(ctx context.Context, sf *config.StoreConfig) (status.Store, func(), error) {
	st, err := openStore(ctx, *sf)
	if err != nil {
		return nil, nil, err
	}
	ss, ok := st.(status.Store)
	if !ok {
		st.Close()
		return nil, nil, fmt.Errorf("the %s store keeps no incidents", sf.Describe())
	}
	return ss, func() { st.Close() }, nil
}

// defaultMessages are the first update's message when open is given none.
var defaultMessages = map[status.State]string{
	status.Investigating: "We are investigating this problem.",
	status.Identified:    "We have found the cause and are working on a fix.",
	status.Monitoring:    "A fix is in place; we are watching the results.",
}

func incidentsOpen(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "incidents open", "--title TITLE [--status investigating|identified|monitoring] [--message MESSAGE] [--impact minor|major|critical]")
	sf, err := storeSettings(env, fs, config.Incidents)
	if err != nil {
		return err
	}
	title := fs.String("title", "", fmt.Sprintf("what callers see of the problem (at most %d characters)", status.MaxTitle))
	state := fs.String("status", string(status.Investigating), "investigating, identified or monitoring")
	message := fs.String("message", "", "the first update's text (default: a sentence for the status)")
	impact := fs.String("impact", string(status.Minor), "minor, major or critical")
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	if err := status.CheckText("--title", *title, status.MaxTitle, false); err != nil {
		return usageError{"incidents open: " + err.Error()}
	}
	st, err := status.ParseState(*state)
	if err != nil {
		return usageError{"incidents open: --status: " + err.Error()}
	}
	imp, err := status.ParseImpact(*impact)
	if err != nil {
		return usageError{"incidents open: --impact: " + err.Error()}
	}
	if *message == "" {
		*message = defaultMessages[st]
	}
	if err := status.CheckText("--message", *message, status.MaxMessage, true); err != nil {
		return usageError{"incidents open: " + err.Error()}
	}
	store, done, err := statusStore(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	in := &status.Incident{Title: *title, Impact: imp, Updates: []status.Update{{State: st, Message: *message, At: time.Now().UTC()}}}
	if err := store.OpenIncident(ctx, in); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "incident %d opened (%s, %s): %s\n", in.ID, in.Impact, in.State, in.Title)
	return nil
}

// incidentsUpdate is `incidents update ID --status S --message M`, and
// `incidents close ID --message M` (closing: the update resolves it).
func incidentsUpdate(ctx context.Context, env *Env, args []string, closing bool) error {
	name, synopsis := "incidents update", "ID --status identified|investigating|monitoring --message MESSAGE"
	if closing {
		name, synopsis = "incidents close", "ID --message MESSAGE"
	}
	fs := newFlagSet(env, name, synopsis)
	sf, err := storeSettings(env, fs, config.Incidents)
	if err != nil {
		return err
	}
	var state *string
	if !closing {
		state = fs.String("status", "", "investigating, identified or monitoring (close resolves)")
	}
	message := fs.String("message", "", fmt.Sprintf("the update's text (at most %d characters)", status.MaxMessage))
	idArg, err := parseFlagsAndID(fs, env, args)
	if err != nil {
		return err
	}
	if idArg == "" {
		return usageError{name + ": give the incident's id (see incidents list)"}
	}
	id, err := strconv.ParseInt(idArg, 10, 64)
	if err != nil || id <= 0 {
		return usageError{fmt.Sprintf("%s: %q is not an incident id (see incidents list)", name, idArg)}
	}
	u := status.Update{State: status.Resolved, Message: *message, At: time.Now().UTC()}
	if !closing {
		if u.State, err = status.ParseState(*state); err != nil {
			return usageError{name + ": --status: " + err.Error()}
		}
	}
	if err := status.CheckText("--message", *message, status.MaxMessage, true); err != nil {
		return usageError{name + ": " + err.Error()}
	}
	store, done, err := statusStore(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	in, err := store.UpdateIncident(ctx, id, u)
	switch {
	case errors.Is(err, status.ErrNotFound):
		return usageError{fmt.Sprintf("%s: no incident %d (see incidents list)", name, id)}
	case errors.Is(err, status.ErrResolved):
		return usageError{fmt.Sprintf("%s: incident %d is resolved already; open a new one", name, id)}
	case err != nil:
		return err
	}
	verb := "updated"
	if closing {
		verb = "closed"
	}
	fmt.Fprintf(env.Stdout, "incident %d %s (%s, %s, %d updates): %s\n", in.ID, verb, in.Impact, in.State, len(in.Updates), in.Title)
	return nil
}

func incidentsList(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "incidents list", "[--all]")
	sf, err := storeSettings(env, fs, config.Incidents)
	if err != nil {
		return err
	}
	all := fs.Bool("all", false, "every incident, not only the open ones and those of the status page's 90 days")
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	store, done, err := statusStore(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	since := status.WindowStart(time.Now())
	if *all {
		since = time.Time{}
	}
	ins, err := store.Incidents(ctx, since)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tIMPACT\tOPENED\tUPDATED\tUPDATES\tTITLE")
	for _, in := range ins {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\n", in.ID, in.State, in.Impact, in.CreatedAt.Format(time.RFC3339),
			in.UpdatedAt.Format(time.RFC3339), len(in.Updates), in.Title)
	}
	return tw.Flush()
}

// parseFlagsAndID parses args, flags and one positional argument (an
// incident's id) in any order: "update 3 --status identified" as well as
// "update --status identified 3". It returns the argument, "" when none.
func parseFlagsAndID(fs *flag.FlagSet, env *Env, args []string) (string, error) {
	var ids []string
	for len(args) > 0 {
		if !strings.HasPrefix(args[0], "-") {
			ids = append(ids, args[0])
			args = args[1:]
			continue
		}
		fs.SetOutput(io.Discard)
		err := fs.Parse(args)
		fs.SetOutput(env.Stderr)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(env.Stdout)
			fs.Usage()
			return "", flag.ErrHelp
		}
		if err != nil {
			return "", usageError{err.Error()}
		}
		args = fs.Args()
	}
	if len(ids) > 1 {
		return "", usageError{fmt.Sprintf("unexpected argument %q", ids[1])}
	}
	if len(ids) == 0 {
		return "", nil
	}
	return ids[0], nil
}
