package serving

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cardcat/cardcat"
	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/blob"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/testkit"
)

// countingStore counts the store's heavy reads, the ones an artifact saves.
type countingStore struct {
	store.Store
	loads, averages atomic.Int64
}

func (s *countingStore) LoadCatalog(ctx context.Context) (*catalog.Catalog, error) {
	s.loads.Add(1)
	return s.Store.LoadCatalog(ctx)
}

func (s *countingStore) TCGMarketAverages(ctx context.Context, game string, day time.Time) (store.TCGHistory, error) {
	s.averages.Add(1)
	return s.Store.TCGMarketAverages(ctx, game, day)
}

// sampleStore is the bundled sample ingested into SQLite on two days, so
// that the TCGplayer history has points: shared by the tests of this file
// (each opens it read-only through its own Holder).
var sampleStore = sync.OnceValues(func() (store.Store, error) {
	dir, err := os.MkdirTemp("", "serving-artifact-")
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "cardcat.db"))
	if err != nil {
		return nil, err
	}
	day := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	for k := range 2 {
		if _, err := ingest.Run(ctx, st, ingest.FSSource{FS: cardcat.Sample(), Name: "sample"}, game.Default(), day.AddDate(0, 0, k), ingest.Options{}); err != nil {
			return nil, err
		}
	}
	return st, nil
})

func mustSampleStore(t *testing.T) *countingStore {
	t.Helper()
	st, err := sampleStore()
	if err != nil {
		t.Fatal(err)
	}
	return &countingStore{Store: st}
}

// mustBuiltArtifact builds the sample's version from the store through a
// Holder with artifacts in a new directory, which writes its artifact; it
// returns the view built (which the Holder then serves from the artifact
// where files are mapped).
func mustBuiltArtifact(t *testing.T) (*View, *Artifacts) {
	t.Helper()
	st := mustSampleStore(t)
	arts := &Artifacts{Dir: filepath.Join(t.TempDir(), "snapshots")}
	h := NewHolder(st, game.Default(), slog.New(slog.DiscardHandler))
	h.Artifacts = arts
	var built *View
	h.OnPublish = func(v *View) { built = v }
	if err := h.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st.loads.Load() != 1 || built == nil {
		t.Fatalf("%d catalogue loads building the first version", st.loads.Load())
	}
	if _, err := os.Stat(arts.Path(built.Version)); err != nil {
		t.Fatalf("no artifact after building: %v", err)
	}
	return built, arts
}

// TestArtifactRoundTrip: the view read from an artifact answers every
// route exactly as the view built from the store: every card's detail,
// listing, prices and image, every lookup by id and product, every set's
// page, codes and suggestions, searches of every name's words and every
// number, and every paid answer. Then the reread artifact is written again:
// the bytes are the same.
func TestArtifactRoundTrip(t *testing.T) {
	t.Parallel()
	built, arts := mustBuiltArtifact(t)
	read, err := ReadArtifact(arts.Path(built.Version), game.Default(), built.Version)
	if err != nil {
		t.Fatal(err)
	}
	compareViews(t, built, read)

	again := filepath.Join(t.TempDir(), "again.snap")
	if err := WriteArtifact(again, read); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(arts.Path(built.Version))
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Errorf("the artifact written from the read view differs (%d bytes, then %d)", len(a), len(b))
	}
}

// compareViews fails t at every answer a and b give differently.
func compareViews(t *testing.T, a, b *View) {
	t.Helper()
	if a.Version != b.Version || !a.CreatedAt.Equal(b.CreatedAt) || a.CreatedAt.String() != b.CreatedAt.String() {
		t.Errorf("version %d at %v, then %d at %v", a.Version, a.CreatedAt, b.Version, b.CreatedAt)
	}
	ctx := context.Background()
	cards := 0
	for _, ga := range a.Games() {
		code := ga.Game().Code
		gb := b.Game(code)
		if gb == nil || ga.Len() != gb.Len() {
			t.Fatalf("%s: %d cards, then %v", code, ga.Len(), gb)
		}
		same := func(what string, x, y any) {
			t.Helper()
			if fmt.Sprint(x) != fmt.Sprint(y) {
				t.Errorf("%s %s:\n%v\nthen\n%v", code, what, x, y)
			}
		}
		same("set list", string(ga.SetListJSON()), string(gb.SetListJSON()))
		words := map[string]bool{}
		var pa, pb catalog.CardPrices
		for r := catalog.CardRef(0); int(r) < ga.Len(); r++ {
			cards++
			same("card detail", ga.CardJSON(r), gb.CardJSON(r))
			same("listing", string(ga.AppendListing(nil, r)), string(gb.AppendListing(nil, r)))
			same("listing length", ga.ListingLen(r), gb.ListingLen(r))
			ia, oka := ga.ImageProduct(r)
			ib, okb := gb.ImageProduct(r)
			same("image", fmt.Sprint(ia, oka), fmt.Sprint(ib, okb))
			ga.CardPrices(r, &pa)
			gb.CardPrices(r, &pb)
			same("prices", fmt.Sprintf("%+v", pa), fmt.Sprintf("%+v", pb))
			for _, id := range []string{pa.ID, strings.ToUpper(pa.ID)} {
				ra, oka := ga.LookupCard(id)
				rb, okb := gb.LookupCard(id)
				same("lookup "+id, fmt.Sprint(ra, oka), fmt.Sprint(rb, okb))
			}
			for _, w := range strings.Fields(pa.Name) {
				words[w] = true
			}
			words[pa.CardNumber] = true
		}
		for _, s := range ga.Sets() {
			sb, ok := gb.SetByID(s.ID)
			if !ok {
				t.Errorf("%s set %s missing", code, s.ID)
				continue
			}
			same("set "+s.ID, fmt.Sprintf("%+v %s", s.SetInfo, s.HeaderJSON()), fmt.Sprintf("%+v %s", sb.SetInfo, sb.HeaderJSON()))
			fa, ea := s.Cards()
			fb, eb := sb.Cards()
			same("set range "+s.ID, fmt.Sprint(fa, ea), fmt.Sprint(fb, eb))
			same("by code "+s.Code, len(ga.SetsByCode(s.Code)), len(gb.SetsByCode(s.Code)))
			for _, w := range strings.Fields(s.Name) {
				same("suggest "+w, setIDs(ga.SuggestSets(w, 10)), setIDs(gb.SuggestSets(w, 10)))
			}
			paidA, paidB := a.Paid[code], b.Paid[code]
			for _, src := range []string{"", analytics.SourceTCG, analytics.SourceCM} {
				same("prices of "+s.ID+" "+src, string(paidA.PricesBySet(s.ID, src).Body), string(paidB.PricesBySet(s.ID, src).Body))
			}
			for _, v := range []string{analytics.VariantNormal, analytics.VariantFoil} {
				same("statistics of "+s.ID+" "+v, string(paidA.Statistics(s.ID, v).Body), string(paidB.Statistics(s.ID, v).Body))
			}
			same("completion of "+s.ID, string(paidA.CompletionValue(s.ID).Body), string(paidB.CompletionValue(s.ID).Body))
		}
		for id := int64(-1); id < 3000; id++ { // the sample's products are numbered low
			ra, oka := ga.LookupTCGProduct(id)
			rb, okb := gb.LookupTCGProduct(id)
			same("TCGplayer product", fmt.Sprint(id, ra, oka), fmt.Sprint(id, rb, okb))
			ra, oka = ga.LookupCMProduct(id)
			rb, okb = gb.LookupCMProduct(id)
			same("Cardmarket product", fmt.Sprint(id, ra, oka), fmt.Sprint(id, rb, okb))
		}
		queries := slices.Sorted(func(yield func(string) bool) {
			for w := range words {
				if !yield(w) {
					return
				}
			}
		})
		for _, w := range queries {
			for _, q := range []string{w, w[:min(len(w), 2)], w[:min(len(w), 1)], "zq" + w} {
				same("search "+q, searchText(ga.Search(ctx, q)), searchText(gb.Search(ctx, q)))
			}
		}
		paidA, paidB := a.Paid[code], b.Paid[code]
		for limit := range analytics.TrendingMaxLimit + 1 {
			same(fmt.Sprint("trending ", limit), string(paidA.Trending(limit).Body), string(paidB.Trending(limit).Body))
		}
		for _, mt := range [][2]string{{"price", ""}, {"price", "tcg"}, {"price", "cm"}, {"growth", ""}, {"growth", "cm"}} {
			for _, limit := range []int{1, 2, 10, 100} {
				same(fmt.Sprint("top cards ", mt, limit), string(paidA.TopCards(mt[0], mt[1], limit).Body), string(paidB.TopCards(mt[0], mt[1], limit).Body))
			}
		}
	}
	if cards == 0 {
		t.Error("no card compared")
	}
}

func setIDs(sets []*catalog.ListedSet) []string {
	var ids []string
	for _, s := range sets {
		ids = append(ids, s.ID)
	}
	return ids
}

// TestHolderStartsFromArtifact: with the version's artifact present, a
// Holder's first refresh reads it and never the store's catalogue or
// price history, and logs where the version came from.
func TestHolderStartsFromArtifact(t *testing.T) {
	t.Parallel()
	built, arts := mustBuiltArtifact(t)
	st := mustSampleStore(t)
	var logs testkit.SyncBuffer
	h := NewHolder(st, game.Default(), slog.New(slog.NewTextHandler(&logs, nil)))
	h.Artifacts = &Artifacts{Dir: arts.Dir}
	if err := h.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n, m := st.loads.Load(), st.averages.Load(); n != 0 || m != 0 {
		t.Errorf("%d catalogue loads and %d history reads with an artifact present", n, m)
	}
	if !strings.Contains(logs.String(), `msg="catalogue snapshot ready" version=`+fmt.Sprint(built.Version)+` source=artifact where=disk read=`) {
		t.Errorf("the log does not say the version came from the artifact:\n%s", logs.String())
	}
	if s := h.LastSwap(); s.Version != built.Version || s.Load <= 0 || s.Build != 0 {
		t.Errorf("LastSwap after a start from the artifact: %+v, want its read as Load and no Build", s)
	}
	compareViews(t, built, h.Current())
}

// TestArtifactRefused: a damaged, truncated or foreign artifact is refused
// by ReadArtifact with an error that says why, and a Holder then builds the
// version from the store, logs why, and writes a good artifact again.
func TestArtifactRefused(t *testing.T) {
	t.Parallel()
	built, arts := mustBuiltArtifact(t)
	good, err := os.ReadFile(arts.Path(built.Version))
	if err != nil {
		t.Fatal(err)
	}
	flip := func(at int) func([]byte) []byte {
		return func(b []byte) []byte { b[at] ^= 0x20; return b }
	}
	hl := headerLen(1 + len(game.Default().All()))
	cases := []struct {
		name   string
		damage func([]byte) []byte
		want   string
		holder bool // also check a Holder's fallback (each costs a build)
	}{
		{"magic", flip(0), "not a snapshot artifact", true},
		{"other format version", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], ArtifactFormat+1); return b }, fmt.Sprintf("format %d.%d.%d, this build reads %d.%d.%d", ArtifactFormat+1, catalog.SnapshotEncoding, analytics.Encoding,
			ArtifactFormat, catalog.SnapshotEncoding, analytics.Encoding), true},
		{"other snapshot encoding", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], 99); return b }, fmt.Sprintf("format %d.99.%d", ArtifactFormat, analytics.Encoding), false},
		{"other catalogue version", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[20:], uint64(built.Version+1)); return b }, "catalogue version", true},
		{"section length", flip(33), "section", false},
		{"checksum", flip(hl - 1), "checksum", false},
		{"header's padding", flip(hl - 9), "checksum", false},
		{"first body byte", flip(hl), "", false},
		{"a byte in the middle", flip(len(good) / 2), "", true},
		{"last byte", flip(len(good) - 1), "", false},
		{"truncated by one byte", func(b []byte) []byte { return b[:len(b)-1] }, "truncated", false},
		{"truncated by half", func(b []byte) []byte { return b[:len(b)/2] }, "truncated", true},
		{"header only", func(b []byte) []byte { return b[:hl] }, "truncated", false},
		{"shorter than a header", func(b []byte) []byte { return b[:10] }, "shorter than its header", false},
		{"empty", func(b []byte) []byte { return nil }, "shorter than its header", false},
		{"a byte more", func(b []byte) []byte { return append(b, 0) }, "sections of", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			a := &Artifacts{Dir: dir}
			if err := os.WriteFile(a.Path(built.Version), tc.damage(bytes.Clone(good)), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadArtifact(a.Path(built.Version), game.Default(), built.Version)
			if !errors.Is(err, ErrArtifactInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ReadArtifact: %v, want ErrArtifactInvalid saying %q", err, tc.want)
			}
			if !tc.holder {
				return
			}

			st := mustSampleStore(t)
			var logs testkit.SyncBuffer
			h := NewHolder(st, game.Default(), slog.New(slog.NewTextHandler(&logs, nil)))
			h.Artifacts = a
			if err := h.Refresh(t.Context()); err != nil {
				t.Fatal(err)
			}
			if st.loads.Load() != 1 {
				t.Errorf("%d catalogue loads: the version was not built from the store", st.loads.Load())
			}
			for _, line := range []string{`msg="snapshot artifact refused; building the version from the store"`, `source=store`, `msg="snapshot artifact written"`} {
				if !strings.Contains(logs.String(), line) {
					t.Errorf("the log lacks %s:\n%s", line, logs.String())
				}
			}
			if got, _ := os.ReadFile(a.Path(built.Version)); !bytes.Equal(got, good) {
				t.Error("the artifact written after the fallback differs from the first")
			}
		})
	}

	// Another catalogue version asked of a good file.
	if _, err := ReadArtifact(arts.Path(built.Version), game.Default(), built.Version+1); !errors.Is(err, ErrArtifactInvalid) ||
		!strings.Contains(err.Error(), fmt.Sprintf("catalogue version %d, want %d", built.Version, built.Version+1)) {
		t.Errorf("another version: %v", err)
	}
	// Another registry (a game less): refused, not misread.
	one := game.NewRegistry(game.Default().All()[0])
	if _, err := ReadArtifact(arts.Path(built.Version), one, built.Version); !errors.Is(err, ErrArtifactInvalid) {
		t.Errorf("another registry: %v", err)
	}
}

// TestArtifactsPrune: Save keeps the Keep newest versions' artifacts and
// leaves other files alone; a temporary file an hour old goes.
func TestArtifactsPrune(t *testing.T) {
	t.Parallel()
	built, _ := mustBuiltArtifact(t)
	dir := t.TempDir()
	a := &Artifacts{Dir: dir, Keep: 2}
	for _, n := range []string{"1.snap", "3.snap", "10.snap", "notes.txt", "x.snap", ".tmp-old.snap", ".tmp-new.snap"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(filepath.Join(dir, ".tmp-old.snap"), old, old)
	v := *built
	v.Snapshot = &catalog.Snapshot{}
	*v.Snapshot = *built.Snapshot
	v.Snapshot.Version = 11
	if err := a.Save(t.Context(), &v); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{".tmp-new.snap", "10.snap", "11.snap", "notes.txt", "x.snap"}; !slices.Equal(names, want) {
		t.Errorf("after saving version 11 keeping 2: %v, want %v", names, want)
	}
}

// emptyRemote is shared storage that holds nothing and keeps nothing.
type emptyRemote struct{}

func (emptyRemote) Get(context.Context, string, io.Writer) (blob.Attrs, error) {
	return blob.Attrs{}, fmt.Errorf("no object: %w", fs.ErrNotExist)
}
func (emptyRemote) Put(context.Context, string, io.Reader, int64, blob.Attrs) error { return nil }
func (emptyRemote) List(context.Context, string) ([]string, error)                  { return nil, nil }
func (emptyRemote) Delete(context.Context, string) error                            { return nil }

// TestHolderWaitsForArtifact: a running holder with shared storage that sees a new version
// without its artifact keeps serving the current one, up to ArtifactWait,
// and swaps the new one in from its artifact as soon as it is written;
// after ArtifactWait it builds the version from the store.
func TestHolderWaitsForArtifact(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &holderStore{cat: mustFixture(t)}
		var logs testkit.SyncBuffer
		h := NewHolder(st, game.Default(), slog.New(slog.NewTextHandler(&logs, nil)))
		h.Artifacts = &Artifacts{Dir: t.TempDir(), Remote: emptyRemote{}}
		h.ArtifactWait = time.Minute
		if err := h.Refresh(t.Context()); err != nil || st.loads != 1 {
			t.Fatalf("first refresh: %v, %d loads", err, st.loads)
		}
		first := h.Current()

		st.cat.Version++
		for range 2 {
			if err := h.Refresh(t.Context()); err != nil || h.Current() != first || st.loads != 1 {
				t.Fatalf("waiting: %v, view swapped %v, %d loads", err, h.Current() != first, st.loads)
			}
			time.Sleep(30 * time.Second)
		}
		next, err := Build(st.cat, game.Default(), analytics.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteArtifact(h.Artifacts.Path(next.Version), next); err != nil {
			t.Fatal(err)
		}
		if err := h.Refresh(t.Context()); err != nil || h.Current().Version != next.Version || st.loads != 1 {
			t.Fatalf("artifact written: %v, version %d, %d loads", err, h.Current().Version, st.loads)
		}

		st.cat.Version++
		h.Refresh(t.Context())
		time.Sleep(time.Minute)
		if err := h.Refresh(t.Context()); err != nil || h.Current().Version != st.cat.Version || st.loads != 2 {
			t.Fatalf("after the wait: %v, version %d, %d loads", err, h.Current().Version, st.loads)
		}
		for _, line := range []string{`msg="waiting for the snapshot artifact of the new version"`, `msg="no snapshot artifact of the version in time; building it from the store"`} {
			if !strings.Contains(logs.String(), line) {
				t.Errorf("the log lacks %s:\n%s", line, logs.String())
			}
		}
		if n := strings.Count(logs.String(), "waiting for the snapshot artifact"); n != 2 {
			t.Errorf("%d waiting lines for two versions waited for:\n%s", n, logs.String())
		}

		// A data directory shared with the store's writer (SQLite in it)
		// is waited for like shared storage.
		h.Artifacts.Remote, h.Artifacts.SharedDir = nil, true
		st.cat.Version++
		if err := h.Refresh(t.Context()); err != nil || h.Current().Version == st.cat.Version || st.loads != 2 {
			t.Fatalf("with a shared directory: %v, version %d, %d loads, want the wait", err, h.Current().Version, st.loads)
		}
		time.Sleep(time.Minute)

		// Without shared storage another process's artifact is not here:
		// the version is built at once.
		h.Artifacts.SharedDir = false
		st.cat.Version++
		if err := h.Refresh(t.Context()); err != nil || h.Current().Version != st.cat.Version || st.loads != 3 {
			t.Fatalf("without shared storage: %v, version %d, %d loads", err, h.Current().Version, st.loads)
		}
	})
}

// TestHolderWatchPollsForArtifact: a holder waiting for a new version's
// artifact looks for it every ArtifactPoll, not every refresh interval, so
// that the version is swapped in about a second after the artifact is
// published, without building it.
func TestHolderWatchPollsForArtifact(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &holderStore{cat: mustFixture(t)}
		h := NewHolder(st, game.Default(), slog.New(slog.DiscardHandler))
		h.Artifacts = &Artifacts{Dir: t.TempDir(), SharedDir: true}
		if err := h.Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
		first := h.Current().Version
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		const every = 30 * time.Second
		go h.Watch(ctx, every)

		st.bump()
		time.Sleep(every + time.Second) // the interval's check has seen it: waiting
		if v := h.Current().Version; v != first || st.loadCount() != 1 {
			t.Fatalf("after the interval: version %d, %d loads, want %d and 1: waiting", v, st.loadCount(), first)
		}
		st.mu.Lock()
		next, err := Build(st.cat, game.Default(), analytics.Options{})
		st.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteArtifact(h.Artifacts.Path(next.Version), next); err != nil {
			t.Fatal(err)
		}
		published := time.Now()
		for h.Current().Version != next.Version {
			if time.Since(published) > every/2 {
				t.Fatalf("not swapped in %v after its artifact was published", time.Since(published))
			}
			time.Sleep(100 * time.Millisecond)
		}
		if took := time.Since(published); took > ArtifactPoll+100*time.Millisecond {
			t.Errorf("swapped in %v after its artifact was published, want within %v", took, ArtifactPoll)
		}
		if n := st.loadCount(); n != 1 {
			t.Errorf("%d loads from the store, want 1: the version read from its artifact", n)
		}
	})
}

// searchText is a search's outcome as text, for comparing two snapshots'
// answers (the result's memory, which differs, left out), and releases it.
func searchText(res catalog.SearchResult, err error) string {
	defer res.Release()
	return fmt.Sprintf("%v %v %+v %v", res.Cards, res.Truncated, res.Counts, err)
}
