// Package bulk builds the whole-catalogue download files of each catalogue
// version (GET /{game}/bulk): every card's detail body, one per line, and
// every price row as CSV, each gzipped. They are built once per version, in
// the background while the version is already served, on disk under
// {dir}/{version}/{game}/ (a million cards make a few hundred MB: too much
// to keep in memory; figures in bench/README.md), written atomically
// (blob.WriteFile), and the older versions' files are removed once a newer
// version's are all built. A restart reuses the files of the version it
// serves when their sha256 still matches. With shared storage (WithShared:
// a blob.Bucket, S3), the replicas of a deployment build each version
// once: the first publishes its files there, the others fetch them
// (shared.go).
package bulk

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/cardcat/cardcat/internal/blob"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/pace"
)

// The files of each game of a version, in the order they are built and
// listed.
const (
	CardsFile  = "cards.jsonl.gz"
	PricesFile = "prices.csv.gz"
)

// Names are the files every version has, in build order.
var Names = []string{CardsFile, PricesFile}

// ContentType is every file's media type: the files are served as the gzip
// bytes they are (no Content-Encoding), so that a client saves them as is.
const ContentType = "application/gzip"

// File is one built file.
type File struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"` // lower-case hex of the gzip bytes
}

// Builder builds and keeps the bulk files. Its methods are safe for
// concurrent use.
type Builder struct {
	dir string
	log *slog.Logger

	mu      sync.Mutex
	ready   map[key]File // built files, of the version being built and the last complete one
	cancel  context.CancelFunc
	done    chan struct{} // closed when the running build ends
	version int64         // the version last published
	counts  counts

	shared blob.Bucket // nil: every replica builds its own files
	// sharedDown: shared storage failed during the running build, which
	// asks it nothing more (each call would wait its timeout); only the
	// build goroutine touches it.
	sharedDown bool
	owner      string // who this Builder is in the claims of shared storage
	timing     sharedTiming
}

// counts are what happened to the files, for the tests.
type counts struct{ built, fetched, uploaded int }

func (b *Builder) count(f func(*counts)) {
	b.mu.Lock()
	f(&b.counts)
	b.mu.Unlock()
}

type key struct {
	version int64
	game    string
	name    string
}

// New returns a Builder that keeps its files under dir (created when needed).
func New(dir string, log *slog.Logger, opts ...Option) *Builder {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &Builder{dir: dir, log: log, ready: map[key]File{}, timing: defaultTiming}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Option configures a Builder.
type Option func(*Builder)

// Publish starts building the files of snap's version in the background,
// after stopping the build of an older version still running; a version
// already built or being built is left alone.
func (b *Builder) Publish(snap *catalog.Snapshot) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done != nil && b.version == snap.Version {
		return
	}
	if b.cancel != nil {
		b.cancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	prev := b.done
	b.cancel, b.done, b.version = cancel, done, snap.Version
	go func() {
		defer close(done)
		if prev != nil {
			<-prev // one build at a time: the canceled one removes its temporary files first
		}
		b.build(ctx, snap)
	}()
}

// Wait blocks until the build running now has ended (tests, shutdown).
func (b *Builder) Wait() {
	b.mu.Lock()
	done := b.done
	b.mu.Unlock()
	if done != nil {
		<-done
	}
}

// Close stops a running build and waits for it.
func (b *Builder) Close() {
	b.mu.Lock()
	if b.cancel != nil {
		b.cancel()
	}
	b.mu.Unlock()
	b.Wait()
}

// Ready returns the files of a game's version that are built, in Names
// order.
func (b *Builder) Ready(game string, version int64) []File {
	b.mu.Lock()
	defer b.mu.Unlock()
	var files []File
	for _, name := range Names {
		if f, ok := b.ready[key{version, game, name}]; ok {
			files = append(files, f)
		}
	}
	return files
}

// ErrNotBuilt is Open's error for a file of the format not built yet.
var ErrNotBuilt = errors.New("bulk: file not built yet")

// ErrUnknown is Open's error for a name that is no bulk file.
var ErrUnknown = errors.New("bulk: no such file")

// Open opens a built file of a game's version for reading.
func (b *Builder) Open(game string, version int64, name string) (*os.File, File, error) {
	if !Known(name) {
		return nil, File{}, ErrUnknown
	}
	b.mu.Lock()
	f, ok := b.ready[key{version, game, name}]
	b.mu.Unlock()
	if !ok {
		return nil, File{}, ErrNotBuilt
	}
	fh, err := os.Open(b.path(version, game, name))
	if err != nil {
		return nil, File{}, fmt.Errorf("bulk: opening %s of %s version %d: %w", name, game, version, err)
	}
	return fh, f, nil
}

// Known reports whether name is a bulk file's name.
func Known(name string) bool {
	for _, n := range Names {
		if n == name {
			return true
		}
	}
	return false
}

func (b *Builder) versionDir(version int64) string {
	return filepath.Join(b.dir, strconv.FormatInt(version, 10))
}

func (b *Builder) path(version int64, game, name string) string {
	return filepath.Join(b.versionDir(version), game, name)
}

// manifest is what a game's directory says of its built files, written
// after each file so that a restart can reuse them.
const manifestName = "manifest.json"

// build writes every file of every game of snap, reusing the ones a
// manifest lists whose bytes still match, or else fetching them from the
// shared storage when another replica published them there, then removes
// older versions.
func (b *Builder) build(ctx context.Context, snap *catalog.Snapshot) {
	start := time.Now()
	b.sharedDown = false
	// This replica's claim on the version, taken before it builds a file:
	// the others wait for its files rather than build them too.
	var held *claim
	defer func() { held.release() }()
	claim := func() {
		if b.useShared() && held == nil {
			held = b.claim(ctx, snap.Version)
		}
	}
	for _, gs := range snap.Games() {
		code := gs.Game().Code
		dir := filepath.Join(b.versionDir(snap.Version), code)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.log.Error("bulk files not built", "version", snap.Version, "game", code, "err", err)
			return
		}
		blob.RemoveTemporary(dir, 0) // of a build that a crash cut short
		if !b.buildGame(ctx, snap, gs, dir, claim) {
			return
		}
	}
	b.log.Info("bulk files ready", "version", snap.Version, "took", time.Since(start).Round(time.Millisecond))
	held.release()
	b.removeOlder(snap.Version)
	if b.useShared() {
		b.pruneShared(ctx, snap.Version)
	}
}

// buildGame makes the files of one game's version ready, and reports
// whether they all are; claim is called before a file is built.
func (b *Builder) buildGame(ctx context.Context, snap *catalog.Snapshot, gs *catalog.GameSnapshot, dir string, claim func()) bool {
	version, code := snap.Version, gs.Game().Code
	reused := b.reuse(ctx, dir)
	var published *sharedManifest // another replica's files, fetched rather than built
	if b.useShared() && len(reused) < len(Names) {
		published = b.awaitShared(ctx, snap, code)
		if ctx.Err() != nil {
			return false // a newer version is published: its build takes over
		}
	}
	var (
		files   []File
		built   bool
		suspect = map[string]bool{} // shared objects missing or damaged: uploaded again
	)
	for _, name := range Names {
		f, ok := reused[name]
		if !ok && published != nil {
			var err error
			if f, err = b.fetch(ctx, version, code, dir, published.file(name)); err == nil {
				ok = true
			} else if ctx.Err() == nil {
				b.log.Warn("bulk file not fetched from shared storage: building it here", "version", version, "game", code,
					"file", name, "err", err)
				if errors.Is(err, errDamaged) || errors.Is(err, fs.ErrNotExist) {
					suspect[name] = true
				} else {
					published, b.sharedDown = nil, true
				}
			}
		}
		if !ok {
			claim()
			t := time.Now()
			var err error
			f, err = writeFile(ctx, dir, name, func(w io.Writer) error { return writeBody(w, name, gs) })
			if err != nil {
				if ctx.Err() == nil {
					b.log.Error("bulk file not built", "version", version, "game", code, "file", name, "err", err)
				}
				return false
			}
			built = true
			b.count(func(c *counts) { c.built++ })
			b.log.Info("bulk file built", "version", version, "game", code, "file", name,
				"size", f.Size, "took", time.Since(t).Round(time.Millisecond))
		}
		files = append(files, f)
		if err := writeManifest(dir, files); err != nil {
			b.log.Error("bulk manifest not written", "version", version, "game", code, "err", err)
			return false
		}
		b.mu.Lock()
		b.ready[key{version, code, name}] = f
		b.mu.Unlock()
	}
	// Files all fetched need no sharing; files all reused may be of a
	// version built before the shared storage was configured.
	if b.useShared() && (published == nil || built) {
		b.share(ctx, snap, code, dir, files, suspect)
	}
	return true
}

func writeBody(w io.Writer, name string, gs *catalog.GameSnapshot) error {
	switch name {
	case CardsFile:
		return WriteCards(w, gs)
	case PricesFile:
		return WritePrices(w, gs)
	}
	return ErrUnknown
}

// reuse returns the files of dir's manifest whose bytes match it.
func (b *Builder) reuse(ctx context.Context, dir string) map[string]File {
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil
	}
	var files []File
	if err := json.Unmarshal(data, &files); err != nil {
		return nil
	}
	ok := map[string]File{}
	for _, f := range files {
		if Known(f.Name) && verify(ctx, filepath.Join(dir, f.Name), f) {
			ok[f.Name] = f
		}
	}
	return ok
}

func verify(ctx context.Context, path string, f File) bool {
	fh, err := os.Open(path)
	if err != nil {
		return false
	}
	defer fh.Close()
	h := sha256.New()
	n, err := io.Copy(&ctxWriter{ctx: ctx, w: h}, fh)
	return err == nil && n == f.Size && hex.EncodeToString(h.Sum(nil)) == f.SHA256
}

func writeManifest(dir string, files []File) error {
	data, err := json.Marshal(files)
	if err != nil {
		return err
	}
	_, err = writeFile(context.Background(), dir, manifestName, func(w io.Writer) error { _, err := w.Write(data); return err })
	return err
}

// gzipLevel is klauspost/compress's level 6: at a million cards it takes a
// third of the CPU of the standard library's default (1.7 against 4.8 s for a
// game's cards) for files about 5% larger, and a server builds them while it
// answers (bench/README.md, "Bulk files' gzip").
const gzipLevel = 6

// writeFile writes dir/name atomically (blob.WriteFile), so that a reader
// never sees a partial file; the body is gzipped unless name is the
// manifest. ctx is checked as the body is written.
func writeFile(ctx context.Context, dir, name string, body func(io.Writer) error) (File, error) {
	var f File
	err := blob.WriteFile(filepath.Join(dir, name), 0o600, func(tmp *os.File) error {
		h := sha256.New()
		counted := &countWriter{w: io.MultiWriter(tmp, h)}
		buf := bufio.NewWriterSize(counted, 256<<10)
		var out io.Writer = buf
		var zw *gzip.Writer
		if name != manifestName {
			// No name nor time in the header: the same catalogue gives the
			// same bytes (and ETag) on every replica and after a restart.
			zw, _ = gzip.NewWriterLevel(buf, gzipLevel)
			out = zw
		}
		if err := body(&ctxWriter{ctx: ctx, w: out}); err != nil {
			return err
		}
		if zw != nil {
			if err := zw.Close(); err != nil {
				return err
			}
		}
		if err := buf.Flush(); err != nil {
			return err
		}
		f = File{Name: name, Size: counted.n, SHA256: hex.EncodeToString(h.Sum(nil))}
		return nil
	})
	if err != nil {
		return File{}, err
	}
	return f, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ctxWriter fails its writes once ctx ends, so that a build of a version
// already replaced stops early, and paces them: a server builds its files
// beside its requests, on the same core.
type ctxWriter struct {
	ctx   context.Context
	w     io.Writer
	pacer pace.Pacer
}

func (c *ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	c.pacer.Step()
	return c.w.Write(p)
}

// removeOlder removes the directories of versions older than version, and
// forgets their files.
func (b *Builder) removeOlder(version int64) {
	b.mu.Lock()
	for k := range b.ready {
		if k.version < version {
			delete(b.ready, k)
		}
	}
	b.mu.Unlock()
	entries, err := os.ReadDir(b.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		v, err := strconv.ParseInt(e.Name(), 10, 64)
		if err != nil || v >= version {
			continue
		}
		// An open download keeps its file readable after the removal.
		if err := os.RemoveAll(filepath.Join(b.dir, e.Name())); err != nil {
			b.log.Warn("older bulk files not removed", "version", v, "err", err)
		}
	}
}

// WriteCards writes every card's detail body, as GET /{game}/cards/{id}
// answers it, one per line, in the snapshot's card order.
func WriteCards(w io.Writer, gs *catalog.GameSnapshot) error {
	var line []byte
	for r := 0; r < gs.Len(); r++ {
		line = append(gs.AppendCard(line[:0], catalog.CardRef(r)), '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// PricesHeader is the header row of prices.csv. A TCGplayer row fills low,
// mid, high, market and direct_low; a Cardmarket row avg, low, trend, avg1,
// avg7 and avg30; an amount that is null in the card detail is empty.
var PricesHeader = []string{"game", "card_id", "market", "finish", "currency",
	"low", "mid", "high", "market_price", "direct_low", "avg", "trend", "avg1", "avg7", "avg30", "updated_at"}

// Market values of prices.csv.
const (
	MarketTCGplayer  = "tcgplayer"
	MarketCardmarket = "cardmarket"
)

// WritePrices writes prices.csv (RFC 4180, CRLF line ends): the header, then
// per card in the snapshot's order one row per TCGplayer finish (unpriced
// ones included, as in market_t.prices) in USD, then one per Cardmarket
// finish (as in market_c.prices) in EUR.
func WritePrices(w io.Writer, gs *catalog.GameSnapshot) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(PricesHeader); err != nil {
		return err
	}
	code := gs.Game().Code
	var p catalog.CardPrices
	row := make([]string, len(PricesHeader))
	for r := 0; r < gs.Len(); r++ {
		gs.CardPrices(catalog.CardRef(r), &p)
		for _, t := range p.TCG {
			clear(row)
			row[0], row[1], row[2], row[3], row[4] = code, p.ID, MarketTCGplayer, t.SubType, "USD"
			row[5], row[6], row[7], row[8], row[9] = amount(t.Low), amount(t.Mid), amount(t.High), amount(t.Market), amount(t.DirectLow)
			row[15] = timestamp(t.UpdatedAt)
			if err := cw.Write(row); err != nil {
				return err
			}
		}
		for _, c := range p.CM {
			clear(row)
			row[0], row[1], row[2], row[3], row[4] = code, p.ID, MarketCardmarket, c.Variant, "EUR"
			row[5], row[10], row[11], row[12], row[13], row[14] = amount(c.Low), amount(c.Avg), amount(c.Trend), amount(c.Avg1), amount(c.Avg7), amount(c.Avg30)
			row[15] = timestamp(c.UpdatedAt)
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// amount is a price as the card detail writes it, empty for null.
func amount(m catalog.Money) string {
	if !m.OK {
		return ""
	}
	return string(m.AppendJSON(nil))
}

func timestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}
