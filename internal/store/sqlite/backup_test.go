package sqlite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/store/storetest"
)

// trimmed is g with only its first n cards: a catalogue whose size says
// which version wrote it.
func trimmed(g catalog.GameCatalog, n int) []catalog.GameCatalog {
	return []catalog.GameCatalog{{Game: g.Game, Sets: g.Sets, Cards: g.Cards[:n]}}
}

func cardCount(cat *catalog.Catalog) int {
	n := 0
	for _, g := range cat.Games {
		n += len(g.Cards)
	}
	return n
}

// waitFor polls cond every few milliseconds until it holds, failing t after
// d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestBackupDuringWrites backs the store up while another handle on it (as a
// server or an ingest would be) creates accounts and keys one after another
// and writes catalogue versions of changing sizes. The backup must be the
// store as of one commit: the catalogue its version wrote, whole, and a
// prefix of the keys.
func TestBackupDuringWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "cardcat.db")
	st := mustOpen(t, src)
	full := storetest.Generate("dbs", 3000, time.Now().UTC())
	if _, err := st.ReplaceCatalog(ctx, 0, []catalog.GameCatalog{full}, `{"test_cards":3000}`, time.Now()); err != nil {
		t.Fatal(err)
	}
	total := len(full.Cards)

	var (
		stop     = make(chan struct{})
		wg       sync.WaitGroup
		keysMade atomic.Int64
		versions atomic.Int64
		errs     = make(chan error, 2)
	)
	wg.Add(2)
	go func() { // accounts and keys, one after the other
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			acc := &account.Account{Email: fmt.Sprintf("w%d@example.com", i), Plan: account.Free}
			if err := st.CreateAccount(ctx, acc); err != nil {
				errs <- err
				return
			}
			key, err := account.NewKey(false)
			if err != nil {
				errs <- err
				return
			}
			k := &account.Key{AccountID: acc.ID, Hash: account.HashKey(key), Prefix: account.DisplayPrefix(key), CreatedAt: time.Now().UTC()}
			if err := st.CreateKey(ctx, k); err != nil {
				errs <- err
				return
			}
			keysMade.Add(1)
		}
	}()
	go func() { // catalogue versions: version v holds total-(v%7)*20 cards
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			base, err := st.CatalogVersion(ctx)
			if err != nil {
				errs <- err
				return
			}
			n := total - int((base+1)%7)*20
			report := fmt.Sprintf(`{"test_cards":%d}`, n)
			if _, err := st.ReplaceCatalog(ctx, base, trimmed(full, n), report, time.Now()); err != nil {
				errs <- err
				return
			}
			versions.Add(1)
		}
	}()
	waitFor(t, 20*time.Second, "writes before the backup", func() bool { return keysMade.Load() >= 5 && versions.Load() >= 2 })

	keysBefore := keysMade.Load()
	out := filepath.Join(t.TempDir(), "backup.db")
	sum, backupErr := sqlite.Backup(ctx, src, out, false)
	keysAfter := keysMade.Load()
	versionsAfter := versions.Load()
	// The writers were not held up: they go on after the backup.
	waitFor(t, 20*time.Second, "writes after the backup", func() bool {
		return keysMade.Load() > keysAfter+2 && versions.Load() > versionsAfter
	})
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a writer failed during the backup: %v", err)
	}
	if backupErr != nil {
		t.Fatalf("Backup: %v", backupErr)
	}
	t.Logf("%+v (keys made during it: %d)", sum, keysAfter-keysBefore)

	// The copy opens as a store (journal files of its own: a backup restored
	// is a database in its own right) and holds one commit's state.
	bk := mustOpen(t, out)
	cat, err := bk.LoadCatalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	vi, err := bk.LatestVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		TestCards int `json:"test_cards"`
	}
	if err := json.Unmarshal([]byte(vi.Report), &rep); err != nil {
		t.Fatalf("report of version %d: %q: %v", vi.Version, vi.Report, err)
	}
	if vi.Version != cat.Version || rep.TestCards == 0 || cardCount(cat) != rep.TestCards {
		t.Errorf("backup: version %d says %d cards; loaded version %d with %d cards", vi.Version, rep.TestCards, cat.Version, cardCount(cat))
	}
	if sum.Catalogue != vi.Version {
		t.Errorf("summary: catalogue version %d, the copy's is %d", sum.Catalogue, vi.Version)
	}

	srcKeys, err := st.Keys(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := bk.Keys(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := int64(len(got)); n < keysBefore || n > keysAfter {
		t.Fatalf("backup holds %d keys; %d were made before it started, %d when it ended", n, keysBefore, keysAfter)
	}
	for i, k := range got {
		if k.ID != srcKeys[i].ID || k.Hash != srcKeys[i].Hash {
			t.Fatalf("backup's key %d is %d %x, the store's %d %x: not a prefix", i, k.ID, k.Hash, srcKeys[i].ID, srcKeys[i].Hash)
		}
		if _, err := bk.Account(ctx, k.AccountID); err != nil {
			t.Errorf("key %d's account %d: %v", k.ID, k.AccountID, err)
		}
	}
	// The copy may fall between an account and its key.
	if n := int64(len(got)); sum.Keys != n || sum.Accounts != n && sum.Accounts != n+1 || sum.Schema == 0 || sum.Bytes == 0 {
		t.Errorf("summary %+v: want %d keys, as many accounts or one more, a schema and a size", sum, len(got))
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); !hasOnlyDatabaseFiles(entries, "backup.db") {
		t.Errorf("backup left files beside it: %v", entries)
	}
}

// hasOnlyDatabaseFiles says whether entries are name and its journal files,
// and its catalogue file and that file's journal files (the test's own open
// of the backup makes them).
func hasOnlyDatabaseFiles(entries []os.DirEntry, name string) bool {
	for _, e := range entries {
		n := strings.TrimSuffix(strings.TrimSuffix(e.Name(), "-wal"), "-shm")
		if n != name && n != sqlite.CataloguePath(name) {
			return false
		}
	}
	return true
}

// TestBackupRefusals: each mistake in the paths is its own error, and
// leaves no file behind; replace writes a whole backup over a file.
func TestBackupRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "cardcat.db")
	mustOpen(t, src)
	outDir := t.TempDir()
	existing := filepath.Join(outDir, "existing.db")
	if err := os.WriteFile(existing, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	notDB := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		src, out string
		replace  bool
		want     error // or, when nil, wantText in the message
		wantText string
	}{
		{"the store itself", src, src, true, sqlite.ErrBackupIsSource, ""},
		{"no store", filepath.Join(dir, "nowhere.db"), filepath.Join(outDir, "x.db"), false, sqlite.ErrNoDatabase, ""},
		{"not a database", notDB, filepath.Join(outDir, "x.db"), false, nil, "backup: copying"},
		{"existing file", src, existing, false, sqlite.ErrBackupExists, ""},
		{"a directory", src, outDir, true, sqlite.ErrBackupIsDir, ""},
		{"no such directory", src, filepath.Join(outDir, "sub", "x.db"), false, sqlite.ErrBackupNoDir, ""},
	} {
		_, err := sqlite.Backup(ctx, tc.src, tc.out, tc.replace)
		if tc.want != nil && !errors.Is(err, tc.want) || tc.want == nil && (err == nil || !strings.Contains(err.Error(), tc.wantText)) {
			t.Errorf("%s: %v; want %v %q", tc.name, err, tc.want, tc.wantText)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep me" {
		t.Errorf("the existing file was changed: %q", b)
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 1 {
		t.Errorf("refusals left files: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a backup of a missing database created it: %v", err)
	}

	sum, err := sqlite.Backup(ctx, src, existing, true)
	if err != nil {
		t.Fatalf("replace: %v", err)
	}
	if b, _ := os.ReadFile(existing); !bytes.HasPrefix(b, []byte("SQLite format 3\x00")) || sum.Bytes != int64(len(b)) {
		t.Errorf("replace did not write a database of %d bytes: %.20q", sum.Bytes, b)
	}
}
