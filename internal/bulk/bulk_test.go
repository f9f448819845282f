package bulk

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/catalog/catalogtest"
	"github.com/cardcat/cardcat/internal/game"
)

func mustSnapshot(tb testing.TB, version int64) *catalog.Snapshot {
	tb.Helper()
	c := catalogtest.Fixture(tb)
	c.Version = version
	snap, err := catalog.NewSnapshot(c, game.Default())
	if err != nil {
		tb.Fatal(err)
	}
	return snap
}

// mustBuild publishes snap on a Builder of dir and waits for its files.
func mustBuild(tb testing.TB, dir string, snap *catalog.Snapshot) *Builder {
	tb.Helper()
	b := New(dir, nil)
	tb.Cleanup(b.Close)
	b.Publish(snap)
	b.Wait()
	return b
}

// mustRead returns the gunzipped bytes of a built file, after checking its
// size and sha256 against what the Builder lists.
func mustRead(tb testing.TB, b *Builder, game string, version int64, name string) []byte {
	tb.Helper()
	f, meta, err := b.Open(game, version, name)
	if err != nil {
		tb.Fatalf("open %s %s: %v", game, name, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(f)
	if err != nil {
		tb.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	if got := (File{Name: name, Size: int64(len(raw)), SHA256: hex.EncodeToString(sum[:])}); got != meta {
		tb.Errorf("%s %s: the file is %+v, listed as %+v", game, name, got, meta)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		tb.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// TestFiles: every game's cards file is every card detail body, one per
// line, and its prices file every finish of both marketplaces.
func TestFiles(t *testing.T) {
	snap := mustSnapshot(t, 7)
	b := mustBuild(t, t.TempDir(), snap)
	for _, gs := range snap.Games() {
		code := gs.Game().Code
		t.Run(code, func(t *testing.T) {
			if gs.Len() == 0 {
				// The fixture has Dragon Ball Super and Magic; the other games'
				// files are checked on the sample (internal/httpapi, TestBulkDownload).
				t.Skipf("the fixture has no %s catalogue", code)
			}
			var names []string
			for _, f := range b.Ready(code, 7) {
				names = append(names, f.Name)
			}
			if diff := cmp.Diff(Names, names); diff != "" {
				t.Errorf("ready files (-want +got):\n%s", diff)
			}

			var wantCards strings.Builder
			wantRows := [][]string{PricesHeader}
			var p catalog.CardPrices
			for r := 0; r < gs.Len(); r++ {
				wantCards.WriteString(gs.CardJSON(catalog.CardRef(r)) + "\n")
				gs.CardPrices(catalog.CardRef(r), &p)
				for _, f := range p.TCG {
					wantRows = append(wantRows, []string{code, p.ID, "tcgplayer", f.SubType, "USD",
						amount(f.Low), amount(f.Mid), amount(f.High), amount(f.Market), amount(f.DirectLow), "", "", "", "", "", timestamp(f.UpdatedAt)})
				}
				for _, f := range p.CM {
					wantRows = append(wantRows, []string{code, p.ID, "cardmarket", f.Variant, "EUR",
						amount(f.Low), "", "", "", "", amount(f.Avg), amount(f.Trend), amount(f.Avg1), amount(f.Avg7), amount(f.Avg30), timestamp(f.UpdatedAt)})
				}
			}
			if gs.Len() == 0 || len(wantRows) < 2 {
				t.Fatalf("the fixture's %s has %d cards and %d price rows: nothing to check", code, gs.Len(), len(wantRows)-1)
			}
			if diff := cmp.Diff(wantCards.String(), string(mustRead(t, b, code, 7, CardsFile))); diff != "" {
				t.Errorf("cards.jsonl (-want +got):\n%s", diff)
			}
			prices := mustRead(t, b, code, 7, PricesFile)
			if !bytes.HasSuffix(prices, []byte("\r\n")) {
				t.Errorf("prices.csv lines do not end with CRLF (RFC 4180)")
			}
			rows, err := csv.NewReader(bytes.NewReader(prices)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantRows, rows); diff != "" {
				t.Errorf("prices.csv (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAmounts: a price is written as the card detail writes it, a null
// one as an empty field.
func TestAmounts(t *testing.T) {
	for _, tc := range []struct {
		m    catalog.Money
		want string
	}{
		{catalog.Cents(1250), "12.5"}, {catalog.Cents(3), "0.03"}, {catalog.Cents(0), "0"}, {catalog.Money{}, ""},
	} {
		if got := amount(tc.m); got != tc.want {
			t.Errorf("amount(%+v) = %q, want %q", tc.m, got, tc.want)
		}
	}
}

// TestSameBytes: two builds of the same version give the same bytes (the
// same ETag on every replica and after a restart).
func TestSameBytes(t *testing.T) {
	a := mustBuild(t, t.TempDir(), mustSnapshot(t, 3))
	b := mustBuild(t, t.TempDir(), mustSnapshot(t, 3))
	if diff := cmp.Diff(a.Ready("dbs", 3), b.Ready("dbs", 3)); diff != "" {
		t.Errorf("two builds differ (-a +b):\n%s", diff)
	}
}

// TestOpenErrors: an unknown name, and a version not built.
func TestOpenErrors(t *testing.T) {
	b := mustBuild(t, t.TempDir(), mustSnapshot(t, 1))
	if _, _, err := b.Open("dbs", 1, "cards.json"); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown name: %v, want ErrUnknown", err)
	}
	if _, _, err := b.Open("dbs", 1, "../1/dbs/cards.jsonl.gz"); !errors.Is(err, ErrUnknown) {
		t.Errorf("a path: %v, want ErrUnknown", err)
	}
	if _, _, err := b.Open("dbs", 2, CardsFile); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("version not built: %v, want ErrNotBuilt", err)
	}
	if got := b.Ready("dbs", 2); len(got) != 0 {
		t.Errorf("version not built lists %v", got)
	}
}

// TestNewVersion: a new version's files replace the older ones, whose
// directory is removed once the new files are all built.
func TestNewVersion(t *testing.T) {
	dir := t.TempDir()
	b := mustBuild(t, dir, mustSnapshot(t, 1))
	b.Publish(mustSnapshot(t, 2))
	b.Wait()
	if got := b.Ready("mtg", 1); len(got) != 0 {
		t.Errorf("version 1 still lists %v", got)
	}
	if got := b.Ready("mtg", 2); len(got) != len(Names) {
		t.Errorf("version 2 lists %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "1")); !os.IsNotExist(err) {
		t.Errorf("version 1's directory: %v, want removed", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "2", "mtg", CardsFile)); err != nil {
		t.Error(err)
	}
}

// TestRestart: a Builder started on files already built reuses the ones
// whose sha256 matches their manifest and rebuilds the others.
func TestRestart(t *testing.T) {
	dir := t.TempDir()
	first := mustBuild(t, dir, mustSnapshot(t, 5))
	want := first.Ready("dbs", 5)
	cards := filepath.Join(dir, "5", "dbs", CardsFile)
	prices := filepath.Join(dir, "5", "dbs", PricesFile)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, p := range []string{cards, prices} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	// A damaged prices file must be rebuilt, not served.
	if err := os.WriteFile(prices, []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(prices, old, old)
	// A temporary file a crash left behind is removed.
	stale := filepath.Join(dir, "5", "dbs", ".cards.jsonl.gz.tmp123")
	os.WriteFile(stale, []byte("x"), 0o644)

	second := mustBuild(t, dir, mustSnapshot(t, 5))
	if diff := cmp.Diff(want, second.Ready("dbs", 5)); diff != "" {
		t.Errorf("after a restart (-before +after):\n%s", diff)
	}
	if st, err := os.Stat(cards); err != nil || !st.ModTime().Equal(old) {
		t.Errorf("cards file rewritten though it matched its manifest (%v)", err)
	}
	if st, err := os.Stat(prices); err != nil || st.ModTime().Equal(old) {
		t.Errorf("damaged prices file not rebuilt (%v)", err)
	}
	mustRead(t, second, "dbs", 5, PricesFile)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temporary file: %v, want removed", err)
	}
}
