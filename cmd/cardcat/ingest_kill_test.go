package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/postgres"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// Fault test: `cardcat ingest` killed with SIGKILL at random points, the way
// an OOM kill or a node loss would end it. The catalogue is written in one
// transaction (ReplaceCatalog), so after each kill the store must pass its
// integrity check and hold either the previous version or the new one,
// complete (the card count of every game equals that of one of the two
// ingests); a following ingest must succeed.

// killRounds is how many ingests are killed per backend: half at a random
// point of the whole run, half within the write phase.
const killRounds = 12

func TestIngestKilled(t *testing.T) {
	bin, mirrors := ingestKillFixture(t)
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "cardcat.db")
		runIngestKills(t, bin, mirrors, killBackend{
			name:  "sqlite",
			args:  []string{"--data-dir", dir, "--database-url", "sqlite:" + path},
			check: func(t *testing.T) { killSQLiteIntegrityOK(t, path) },
			open: func(ctx context.Context) (store.Store, error) {
				return sqlite.Open(ctx, path)
			},
		})
	})
	t.Run("postgres", func(t *testing.T) {
		dbURL := postgresSchema(t)
		// The ingests' sessions carry a name of their own, so that the check
		// can wait for a killed one's to end: a COMMIT the server received
		// before the kill is still carried out after it, and the version it
		// writes could otherwise land after the test read the store.
		ingestURL, app := withApplicationName(t, dbURL)
		runIngestKills(t, bin, mirrors, killBackend{
			name:  "postgres",
			args:  []string{"--data-dir", t.TempDir(), "--database-url", ingestURL},
			check: func(t *testing.T) { waitSessionsGone(t, dbURL, app) }, // then the load checks what the kill left
			open: func(ctx context.Context) (store.Store, error) {
				return postgres.Open(ctx, dbURL)
			},
		})
	})
}

// withApplicationName returns dbURL with an application_name of its own,
// and that name.
func withApplicationName(t *testing.T, dbURL string) (string, string) {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	app := "cardcat-kill-" + u.Query().Get("search_path")
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	return u.String(), app
}

// waitSessionsGone waits until no PostgreSQL session named app is left:
// the server ends a killed client's session once its last statement is
// done and it reads the closed socket.
func waitSessionsGone(t *testing.T, dbURL, app string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for {
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", app).Scan(&n); err != nil {
			t.Fatalf("sessions of %s: %v", app, err)
		}
		if n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d sessions of the killed ingest (%s) still open after 30 s", n, app)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// killBackend is one store the ingests write to.
type killBackend struct {
	name  string
	args  []string // store flags of `cardcat ingest`
	check func(t *testing.T)
	open  func(ctx context.Context) (store.Store, error)
}

// ingestKillFixture builds cardcat once into a temporary directory and
// generates two mirrors of different sizes with it.
func ingestKillFixture(t *testing.T) (bin string, mirrors [2]string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds cardcat and kills ingests: not in -short")
	}
	dir := t.TempDir()
	bin = filepath.Join(dir, "cardcat")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for i, cards := range []string{"3000", "4000"} {
		mirrors[i] = filepath.Join(dir, fmt.Sprintf("mirror%d", i+1))
		killRunCardcat(t, bin, "synth", "--out", mirrors[i], "--cards", cards, "--seed", fmt.Sprint(i+1))
	}
	return bin, mirrors
}

// killCmd is the command line of bin, without the caller's CARDCAT_*
// settings (the flags given say which store).
func killCmd(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CARDCAT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd
}

func killRunCardcat(t *testing.T, bin string, args ...string) {
	t.Helper()
	if out, err := killCmd(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("cardcat %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// killState is what a kill must leave whole: the version and each
// game's card count.
type killState struct {
	version int64
	cards   string // "dbs=1592 mtg=1644"
}

func killLoadState(t *testing.T, b killBackend) killState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := b.open(ctx)
	if err != nil {
		t.Fatalf("%s: open: %v", b.name, err)
	}
	defer st.Close()
	cat, err := st.LoadCatalog(ctx)
	if err != nil {
		t.Fatalf("%s: LoadCatalog: %v", b.name, err)
	}
	var counts []string
	for _, g := range cat.Games {
		counts = append(counts, fmt.Sprintf("%s=%d", g.Game, len(g.Cards)))
	}
	return killState{version: cat.Version, cards: strings.Join(counts, " ")}
}

func killSQLiteIntegrityOK(t *testing.T, path string) {
	t.Helper()
	for _, file := range []string{path, sqlite.CataloguePath(path)} { // the ingest writes the latter
		db, err := sql.Open("sqlite", "file:"+file)
		if err != nil {
			t.Fatal(err)
		}
		var res string
		err = db.QueryRow("PRAGMA integrity_check").Scan(&res)
		db.Close()
		if err != nil {
			t.Fatalf("integrity_check of %s: %v", file, err)
		}
		if res != "ok" {
			t.Fatalf("integrity_check of %s: %s", file, res)
		}
	}
}

// ingestRun is one `cardcat ingest` running; writing is closed when it logs
// that it starts writing (ReplaceCatalog's transaction).
type ingestRun struct {
	cmd     *exec.Cmd
	pw      *io.PipeWriter
	writing chan struct{}
	done    chan struct{}
	out     bytes.Buffer // read after wait
}

func startIngest(t *testing.T, cmd *exec.Cmd) *ingestRun {
	t.Helper()
	pr, pw := io.Pipe()
	r := &ingestRun{cmd: cmd, pw: pw, writing: make(chan struct{}), done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = pw, pw
	go func() {
		defer close(r.done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		seen := false
		for sc.Scan() {
			r.out.Write(sc.Bytes())
			r.out.WriteByte('\n')
			if !seen && strings.Contains(sc.Text(), "msg=writing") {
				seen = true
				close(r.writing)
			}
		}
		io.Copy(io.Discard, pr)
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *ingestRun) wait() error {
	err := r.cmd.Wait()
	r.pw.Close()
	<-r.done
	return err
}

func runIngestKills(t *testing.T, bin string, mirrors [2]string, b killBackend) {
	ingest := func(mirror string) *exec.Cmd {
		return killCmd(bin, append([]string{"ingest", "--from", mirror}, b.args...)...)
	}
	// full runs a whole ingest and returns how long it took, and how long
	// its write phase.
	full := func(mirror string) (took, writing time.Duration) {
		t.Helper()
		start := time.Now()
		r := startIngest(t, ingest(mirror))
		var wroteAt time.Time
		select {
		case <-r.writing:
			wroteAt = time.Now()
		case <-r.done:
		}
		if err := r.wait(); err != nil {
			t.Fatalf("ingest %s: %v\n%s", mirror, err, r.out.String())
		}
		end := time.Now()
		if wroteAt.IsZero() {
			t.Fatalf("ingest %s: no msg=writing in its log:\n%s", mirror, r.out.String())
		}
		return end.Sub(start), end.Sub(wroteAt)
	}

	// The two versions the kills go between, and how long a whole ingest
	// and its write phase take (the kills are spread over them).
	full(mirrors[0])
	counts := [2]string{killLoadState(t, b).cards}
	took, writing := full(mirrors[1])
	cur := killLoadState(t, b)
	counts[1] = cur.cards
	if counts[0] == counts[1] {
		t.Fatalf("the two mirrors give the same card counts (%s): a partial catalogue could pass for whole", counts[0])
	}
	t.Logf("%s: one ingest takes %v, its write phase %v; versions have %s / %s", b.name, took, writing, counts[0], counts[1])

	curIdx := 1
	var kept, replaced, inWrite int
	for round := range killRounds {
		next := 1 - curIdx
		r := startIngest(t, ingest(mirrors[next]))
		// Even rounds: anywhere in the run. Odd rounds: within the write
		// phase, the part a kill is most likely to leave half done.
		var delay time.Duration
		if round%2 == 0 {
			delay = time.Duration(rand.Int64N(int64(took) * 11 / 10))
			time.Sleep(delay)
		} else {
			select {
			case <-r.writing:
			case <-r.done:
			}
			delay = time.Duration(rand.Int64N(int64(writing) * 11 / 10))
			time.Sleep(delay)
		}
		r.cmd.Process.Kill() // SIGKILL; an ingest already done is not an error
		err := r.wait()
		select {
		case <-r.writing:
			if err != nil {
				inWrite++
			}
		default:
		}

		b.check(t)
		got := killLoadState(t, b)
		switch {
		case got.version == cur.version && got.cards == counts[curIdx]:
			kept++
		case got.version == cur.version+1 && got.cards == counts[next]:
			replaced++
			curIdx = next
		default:
			t.Fatalf("round %d, killed after %v: store at version %d with %s; want version %d with %s or version %d with %s\ningest output:\n%s",
				round, delay, got.version, got.cards, cur.version, counts[curIdx], cur.version+1, counts[next], r.out.String())
		}
		cur = got
	}
	t.Logf("%s: %d ingests killed (%d while writing): %d left the previous version, %d had committed the new one",
		b.name, killRounds, inWrite, kept, replaced)

	next := 1 - curIdx
	full(mirrors[next])
	b.check(t)
	if got := killLoadState(t, b); got.version != cur.version+1 || got.cards != counts[next] {
		t.Fatalf("ingest after the kills: version %d with %s, want version %d with %s", got.version, got.cards, cur.version+1, counts[next])
	}
}
