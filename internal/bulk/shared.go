package bulk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/blob"
	"github.com/cardcat/cardcat/internal/catalog"
)

// The replicas of a deployment share their bulk files through a
// blob.Bucket (S3), so that each version's files are built once. The
// objects of a game's version are
//
//	bulk/{version}/{game}/cards.jsonl.gz, prices.csv.gz  the files
//	bulk/{version}/{game}/manifest.json                  their format, sizes and sha256, written last
//	bulk/{version}/claim.json                            while a replica builds the version's files
//
// A version is published once its manifest is there: files without one are
// not. Names are made by this package.

// WithShared makes the Builder fetch a version's files from s when another
// replica published them there (waiting while one is building them), and
// publish there the files it builds. Whatever fails in s (unreachable,
// missing or damaged objects) is logged and the files built here.
func WithShared(s blob.Bucket) Option {
	return func(b *Builder) {
		b.shared = s
		// The same replica after a restart: host and data directory.
		host, _ := os.Hostname()
		dir, err := filepath.Abs(b.dir)
		if err != nil {
			dir = b.dir
		}
		b.owner = host + ":" + dir
	}
}

// Format is the version of what the files say for a catalogue version. A
// replica fetches only files of its own Format: bump it whenever the
// content changes (TestFormat fails until it is), so that during an upgrade
// no replica serves files written by the other program.
const Format = 2

// KeepShared is how many versions' files the shared storage keeps: the
// newest ones, so that a replica still on an older version (replicas pick a
// new version up within their refresh interval) can still fetch it.
const KeepShared = 3

// jsonAttrs are the attributes of a manifest or a claim.
var jsonAttrs = blob.Attrs{ContentType: "application/json"}

const (
	sharedRoot         = "bulk/"
	sharedManifestName = "manifest.json"
	claimName          = "claim.json"
)

// useShared reports whether the running build asks the shared storage.
func (b *Builder) useShared() bool { return b.shared != nil && !b.sharedDown }

func sharedName(version int64, game, name string) string {
	return sharedRoot + strconv.FormatInt(version, 10) + "/" + game + "/" + name
}

func claimObject(version int64) string {
	return sharedRoot + strconv.FormatInt(version, 10) + "/" + claimName
}

// sharedTiming says how long a replica waits for another one's build.
type sharedTiming struct {
	poll    time.Duration // between two looks at the manifest while waiting
	beat    time.Duration // between two writes of the claim while building
	stale   time.Duration // a claim unchanged this long is a builder gone
	maxWait time.Duration // waiting on a live claim at most this long
}

var defaultTiming = sharedTiming{poll: 2 * time.Second, beat: 10 * time.Second, stale: 35 * time.Second, maxWait: 15 * time.Minute}

// sharedManifest is the manifest of a game's version in shared storage.
type sharedManifest struct {
	Format int `json:"format"`
	// CreatedAt is the catalogue version's: the same version number in
	// another store (another deployment on the same bucket and prefix) is
	// another catalogue.
	CreatedAt time.Time `json:"created_at"`
	Files     []File    `json:"files"`
}

func (m *sharedManifest) file(name string) File {
	for _, f := range m.Files {
		if f.Name == name {
			return f
		}
	}
	return File{Name: name}
}

const otherCatalogue = "shared bulk files of this version number are another catalogue's (another deployment on the same bucket and prefix?): building them here, not sharing them"

// errDamaged says that a shared object is not what the manifest says.
var errDamaged = errors.New("bulk: shared object damaged")

// maxSmallObject bounds what is read of a manifest or a claim.
const maxSmallObject = 64 << 10

func (b *Builder) getSmall(ctx context.Context, name string) ([]byte, error) {
	w := &limitWriter{max: maxSmallObject}
	if _, err := b.shared.Get(ctx, name, w); err != nil {
		return nil, err
	}
	return w.buf.Bytes(), nil
}

// readShared reads the manifest of a game's version.
func (b *Builder) readShared(ctx context.Context, version int64, game string) (*sharedManifest, error) {
	data, err := b.getSmall(ctx, sharedName(version, game, sharedManifestName))
	if err != nil {
		return nil, err
	}
	var m sharedManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: manifest: %v", errDamaged, err)
	}
	if m.Format == Format {
		for i, f := range m.Files {
			if i >= len(Names) || f.Name != Names[i] || f.Size <= 0 || len(f.SHA256) != 2*sha256.Size {
				return nil, fmt.Errorf("%w: manifest lists %+v", errDamaged, m.Files)
			}
		}
		if len(m.Files) != len(Names) {
			return nil, fmt.Errorf("%w: manifest lists %+v", errDamaged, m.Files)
		}
	}
	return &m, nil
}

// awaitShared returns the manifest of the files another replica published
// for a game's version, after waiting while another replica is building
// them; nil when this replica is to build them itself.
func (b *Builder) awaitShared(ctx context.Context, snap *catalog.Snapshot, game string) *sharedManifest {
	version, start := snap.Version, time.Now()
	var (
		lastClaim string
		changed   time.Time
		waiting   bool
		rechecked bool
	)
	for {
		m, err := b.readShared(ctx, version, game)
		switch {
		case err == nil && !m.CreatedAt.Equal(snap.CreatedAt):
			b.log.Warn(otherCatalogue, "version", version, "game", game, "created_at", snap.CreatedAt, "shared_created_at", m.CreatedAt)
			return nil
		case err == nil && m.Format == Format:
			return m
		case err == nil:
			b.log.Info("shared bulk files are of another format: building them here", "version", version, "game", game,
				"format", m.Format, "ours", Format)
			return nil
		case errors.Is(err, errDamaged):
			b.log.Warn("shared bulk manifest damaged: building the files here", "version", version, "game", game, "err", err)
			return nil
		case !errors.Is(err, fs.ErrNotExist):
			if ctx.Err() == nil {
				b.log.Warn("shared bulk storage unreachable: building the files here", "version", version, "game", game, "err", err)
				b.sharedDown = true
			}
			return nil
		}
		// Not published: is another replica building them?
		data, err := b.getSmall(ctx, claimObject(version))
		if err != nil {
			if !rechecked && errors.Is(err, fs.ErrNotExist) {
				// A builder may have published and removed its claim
				// between the two reads: its manifest, if any, is there now.
				rechecked = true
				continue
			}
			if !errors.Is(err, fs.ErrNotExist) && ctx.Err() == nil {
				b.log.Warn("shared bulk storage unreachable: building the files here", "version", version, "game", game, "err", err)
				b.sharedDown = true
			}
			return nil
		}
		rechecked = false // a claim seen: its end is worth one more look too
		var c claimBody
		if json.Unmarshal(data, &c) != nil || c.Owner == b.owner {
			return nil // damaged, or this replica's own before a restart
		}
		now := time.Now()
		if string(data) != lastClaim {
			lastClaim, changed = string(data), now
		}
		if now.Sub(changed) > b.timing.stale {
			b.log.Warn("the replica building the bulk files stopped: building them here", "version", version, "game", game, "builder", c.Owner)
			return nil
		}
		if now.Sub(start) > b.timing.maxWait {
			b.log.Warn("waited too long for another replica's bulk files: building them here", "version", version, "game", game,
				"builder", c.Owner, "waited", now.Sub(start).Round(time.Second))
			return nil
		}
		if !waiting {
			b.log.Info("bulk files being built by another replica: waiting for them", "version", version, "game", game, "builder", c.Owner)
			waiting = true
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(b.timing.poll):
		}
	}
}

// fetch downloads a shared file into dir, through a temporary file
// renamed into place once its size and sha256 match want (blob.WriteFile).
func (b *Builder) fetch(ctx context.Context, version int64, game, dir string, want File) (File, error) {
	t := time.Now()
	var got File
	err := blob.WriteFile(filepath.Join(dir, want.Name), 0o600, func(f *os.File) error {
		h := sha256.New()
		counted := &countWriter{w: io.MultiWriter(f, h)}
		if _, err := b.shared.Get(ctx, sharedName(version, game, want.Name), &sizeGuard{w: counted, left: want.Size}); err != nil {
			return err
		}
		got = File{Name: want.Name, Size: counted.n, SHA256: hex.EncodeToString(h.Sum(nil))}
		if got != want {
			return fmt.Errorf("%w: %d bytes of sha256 %s, the manifest says %d bytes of %s", errDamaged, got.Size, got.SHA256, want.Size, want.SHA256)
		}
		return nil
	})
	if err != nil {
		return File{}, err
	}
	b.count(func(c *counts) { c.fetched++ })
	b.log.Info("bulk file fetched", "version", version, "game", game, "file", want.Name, "size", got.Size,
		"took", time.Since(t).Round(time.Millisecond))
	return got, nil
}

// share publishes a game's files built here unless the same ones are
// published already: the files first, the manifest last. suspect names the
// files whose shared objects were found missing or damaged: uploaded again
// even under a manifest that matches.
func (b *Builder) share(ctx context.Context, snap *catalog.Snapshot, game, dir string, files []File, suspect map[string]bool) {
	version := snap.Version
	theirs, err := b.readShared(ctx, version, game)
	upload, withManifest := map[string]bool{}, true
	for _, f := range files {
		upload[f.Name] = true
	}
	switch {
	case err == nil && !theirs.CreatedAt.Equal(snap.CreatedAt):
		b.log.Warn(otherCatalogue, "version", version, "game", game, "created_at", snap.CreatedAt, "shared_created_at", theirs.CreatedAt)
		return
	case err == nil && theirs.Format > Format:
		return // a newer program's files: left to it
	case err == nil && theirs.Format == Format && slices.Equal(theirs.Files, files):
		upload, withManifest = suspect, false
	case err == nil && theirs.Format == Format:
		b.log.Warn("bulk files differ from the ones shared for the same version: replacing them", "version", version, "game", game,
			"shared", theirs.Files, "here", files)
	case err == nil, errors.Is(err, fs.ErrNotExist), errors.Is(err, errDamaged):
	default:
		if ctx.Err() == nil {
			b.log.Warn("bulk files not shared: shared storage unreachable", "version", version, "game", game, "err", err)
			b.sharedDown = true
		}
		return
	}
	for _, f := range files {
		if !upload[f.Name] {
			continue
		}
		if err := b.upload(ctx, version, game, dir, f); err != nil {
			if ctx.Err() == nil {
				b.log.Warn("bulk files not shared", "version", version, "game", game, "file", f.Name, "err", err)
				b.sharedDown = true
			}
			return
		}
	}
	if !withManifest {
		return
	}
	data, err := json.Marshal(sharedManifest{Format: Format, CreatedAt: snap.CreatedAt, Files: files})
	if err != nil {
		return
	}
	if err := b.shared.Put(ctx, sharedName(version, game, sharedManifestName), bytes.NewReader(data), int64(len(data)), jsonAttrs); err != nil {
		if ctx.Err() == nil {
			b.log.Warn("bulk files not shared", "version", version, "game", game, "file", sharedManifestName, "err", err)
		}
		return
	}
	b.log.Info("bulk files shared", "version", version, "game", game)
}

func (b *Builder) upload(ctx context.Context, version int64, game, dir string, f File) error {
	fh, err := os.Open(filepath.Join(dir, f.Name))
	if err != nil {
		return err
	}
	defer fh.Close()
	// The *os.File itself, so that a large file is read in parallel parts.
	if err := b.shared.Put(ctx, sharedName(version, game, f.Name), fh, f.Size, blob.Attrs{ContentType: ContentType}); err != nil {
		return err
	}
	b.count(func(c *counts) { c.uploaded++ })
	return nil
}

// claimBody is what a replica building a version's files writes, again
// every beat, so that the others wait for its files rather than build them too,
// and see when it stopped.
type claimBody struct {
	Owner string `json:"owner"`
	Beat  int    `json:"beat"`
}

// claim is this Builder's claim on a version while it builds its files.
type claim struct {
	b        *Builder
	name     string
	stop     chan struct{}
	done     chan struct{}
	released bool
}

// claim writes the claim of a version, and again every beat until
// released. Two replicas may claim at once: both build the same bytes.
func (b *Builder) claim(ctx context.Context, version int64) *claim {
	c := &claim{b: b, name: claimObject(version), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for beat := 0; ; beat++ {
			data, _ := json.Marshal(claimBody{Owner: b.owner, Beat: beat})
			if err := b.shared.Put(ctx, c.name, bytes.NewReader(data), int64(len(data)), jsonAttrs); err != nil && ctx.Err() == nil {
				b.log.Debug("bulk claim not written", "version", version, "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-c.stop:
				return
			case <-time.After(b.timing.beat):
			}
		}
	}()
	return c
}

// release stops the claim's beats and removes it: the files are published
// by now, or another replica had better build them. Once is enough.
func (c *claim) release() {
	if c == nil || c.released {
		return
	}
	c.released = true
	// Stopped between two beats, never during one: a write cancelled in
	// flight can still land on the server after the delete below.
	close(c.stop)
	<-c.done
	if err := c.b.shared.Delete(context.Background(), c.name); err != nil {
		c.b.log.Debug("bulk claim not removed", "name", c.name, "err", err)
	}
}

// pruneShared removes the shared objects of the versions older than
// current that are not among the KeepShared newest, manifests first so that
// no version is ever published without its files.
func (b *Builder) pruneShared(ctx context.Context, current int64) {
	names, err := b.shared.List(ctx, sharedRoot)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Warn("older shared bulk files not removed", "err", err)
		}
		return
	}
	byVersion := map[int64][]string{}
	for _, n := range names {
		v, _, _ := strings.Cut(strings.TrimPrefix(n, sharedRoot), "/")
		if version, err := strconv.ParseInt(v, 10, 64); err == nil {
			byVersion[version] = append(byVersion[version], n)
		}
	}
	versions := make([]int64, 0, len(byVersion))
	for v := range byVersion {
		versions = append(versions, v)
	}
	slices.Sort(versions)
	slices.Reverse(versions)
	for i, v := range versions {
		if i < KeepShared || v >= current {
			continue
		}
		objs := byVersion[v]
		slices.SortStableFunc(objs, func(x, y string) int {
			return boolCmp(strings.HasSuffix(y, "/"+sharedManifestName), strings.HasSuffix(x, "/"+sharedManifestName))
		})
		for _, n := range objs {
			if err := b.shared.Delete(ctx, n); err != nil {
				if ctx.Err() == nil {
					b.log.Warn("older shared bulk files not removed", "version", v, "err", err)
				}
				return
			}
		}
		b.log.Info("older shared bulk files removed", "version", v, "objects", len(objs))
	}
}

func boolCmp(x, y bool) int {
	switch {
	case x == y:
		return 0
	case x:
		return 1
	}
	return -1
}

// limitWriter keeps what is written, up to max bytes.
type limitWriter struct {
	buf bytes.Buffer
	max int
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > w.max {
		return 0, fmt.Errorf("%w: larger than %d bytes", errDamaged, w.max)
	}
	return w.buf.Write(p)
}

// sizeGuard fails a download that goes past the size the manifest says,
// rather than fill the disk.
type sizeGuard struct {
	w    io.Writer
	left int64
}

func (g *sizeGuard) Write(p []byte) (int, error) {
	if int64(len(p)) > g.left {
		return 0, fmt.Errorf("%w: larger than the manifest says", errDamaged)
	}
	g.left -= int64(len(p))
	return g.w.Write(p)
}
