package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/blob"
)

// Source reads upstream files by their mirror path, for example
// "tcgplayer/80/23401/products.json" or "cardmarket/13/price_guide.json".
// A file the source does not have answers an error matching fs.ErrNotExist.
type Source interface {
	Open(ctx context.Context, name string) (io.ReadCloser, error)
	// Describe names the file for messages (a file path or a URL).
	Describe(name string) string
}

// DirSource reads a local mirror directory.
type DirSource struct{ Dir string }

// Open opens a file of the mirror.
func (s DirSource) Open(_ context.Context, name string) (io.ReadCloser, error) {
	if !fs.ValidPath(name) {
		return nil, fmt.Errorf("invalid mirror path %q", name)
	}
	return os.Open(filepath.Join(s.Dir, filepath.FromSlash(name)))
}

// Describe returns the file's path.
func (s DirSource) Describe(name string) string {
	return filepath.Join(s.Dir, filepath.FromSlash(name))
}

// FSSource reads a mirror held in an fs.FS, such as the sample embedded in
// the binary.
type FSSource struct {
	FS   fs.FS
	Name string // how messages name the mirror, e.g. "embedded sample"
}

// Open opens a file of the mirror.
func (s FSSource) Open(_ context.Context, name string) (io.ReadCloser, error) {
	return s.FS.Open(name)
}

// Describe names the file inside the mirror.
func (s FSSource) Describe(name string) string { return s.Name + ":" + name }

// HTTPSource reads the live upstream: tcgcsv.com for TCGplayer, Cardmarket's
// public downloads for Cardmarket. The files no upstream publishes (links/,
// cardmarket/{game}/expansions.json) come from a local directory laid out
// like a mirror.
type HTTPSource struct {
	TCGBaseURL        string // default https://tcgcsv.com
	CardmarketBaseURL string // default https://downloads.s3.cardmarket.com/productCatalog
	LocalDir          string // mirror-layout directory for the files with no live source; "" for none
	Client            *http.Client
	UserAgent         string
	// CacheDir, when set, keeps each fetched file with its ETag and
	// Last-Modified, so the next ingest asks conditionally and reads an
	// unchanged file (304) from the cache instead of downloading it again.
	CacheDir string
	Retries  int           // attempts after the first, default 3
	Backoff  time.Duration // first retry delay, doubled each time; default 1s
	// Log, when set, gets one line per retry, so that a fetch that fails
	// is not a silent wait.
	Log *slog.Logger
}

// FetchError is a live file that could not be fetched after every attempt
// (no network, the source down or refusing): nothing else will fetch it
// now, and a mirror directory is the way to ingest without the source.
type FetchError struct {
	Attempts int
	Took     time.Duration
	Err      error // the last attempt's
}

func (e *FetchError) Error() string {
	return fmt.Sprintf("not fetched in %d attempts over %s: %v", e.Attempts, e.Took.Round(time.Millisecond), e.Err)
}

func (e *FetchError) Unwrap() error { return e.Err }

// Default upstream base URLs.
const (
	DefaultTCGBaseURL        = "https://tcgcsv.com"
	DefaultCardmarketBaseURL = "https://downloads.s3.cardmarket.com/productCatalog"
)

// URL maps a mirror path onto the upstream URL, or "" when the file has no
// live source (expansions.json, links).
func (s *HTTPSource) URL(name string) string {
	tcg := strings.TrimRight(orDefault(s.TCGBaseURL, DefaultTCGBaseURL), "/")
	cm := strings.TrimRight(orDefault(s.CardmarketBaseURL, DefaultCardmarketBaseURL), "/")
	parts := strings.Split(name, "/")
	switch {
	case parts[0] == "tcgplayer" && strings.HasSuffix(name, ".json"):
		return tcg + "/" + strings.TrimSuffix(name, ".json")
	case parts[0] == "cardmarket" && len(parts) == 3:
		g := parts[1]
		switch parts[2] {
		case "products_singles.json":
			return cm + "/productList/products_singles_" + g + ".json"
		case "products_nonsingles.json":
			return cm + "/productList/products_nonsingles_" + g + ".json"
		case "price_guide.json":
			return cm + "/priceGuide/price_guide_" + g + ".json"
		}
	}
	return ""
}

// Describe returns the URL, or the local path of a file with no live source;
// "." (the whole source) is both upstreams' base URLs.
func (s *HTTPSource) Describe(name string) string {
	if name == "." {
		return orDefault(s.TCGBaseURL, DefaultTCGBaseURL) + " and " + orDefault(s.CardmarketBaseURL, DefaultCardmarketBaseURL)
	}
	if u := s.URL(name); u != "" {
		return u
	}
	if s.LocalDir != "" {
		return DirSource{Dir: s.LocalDir}.Describe(name)
	}
	return name
}

// Open fetches the file, retrying transient failures (the network, 429,
// 5xx) with backoff, and returns a *FetchError when every attempt failed so;
// a file with no live source is read from LocalDir. Its errors do not name
// the URL: the caller does (Describe).
func (s *HTTPSource) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	u := s.URL(name)
	if u == "" {
		if s.LocalDir == "" {
			return nil, fmt.Errorf("%s: no live source: %w", name, fs.ErrNotExist)
		}
		return DirSource{Dir: s.LocalDir}.Open(ctx, name)
	}
	client := s.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Minute}
	}
	retries := s.Retries
	if retries == 0 {
		retries = 3
	}
	backoff := s.Backoff
	if backoff == 0 {
		backoff = time.Second
	}
	start := time.Now()
	for attempt := 1; ; attempt++ {
		body, retry, err := s.get(ctx, client, name)
		switch {
		case err == nil:
			return body, nil
		case !retry:
			return nil, err
		case attempt > retries:
			return nil, &FetchError{Attempts: attempt, Took: time.Since(start), Err: err}
		}
		d := backoff<<(attempt-1) + rand.N(backoff/2+1)
		if s.Log != nil {
			s.Log.Warn("live source: fetch failed, retrying", "url", u, "retry", fmt.Sprintf("%d/%d", attempt, retries),
				"in", d.Round(100*time.Millisecond), "err", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(d):
		}
	}
}

// get asks for the file once; retry says whether another attempt may
// succeed.
func (s *HTTPSource) get(ctx context.Context, client *http.Client, name string) (body io.ReadCloser, retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL(name), nil)
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("User-Agent", orDefault(s.UserAgent, "cardcat (+https://github.com/cardcat/cardcat)"))
	req.Header.Set("Accept", "application/json")
	cached := s.cached(name)
	if cached != nil {
		if cached.ETag != "" {
			req.Header.Set("If-None-Match", cached.ETag)
		}
		if cached.LastModified != "" {
			req.Header.Set("If-Modified-Since", cached.LastModified)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text repeats the method and the URL
		}
		return nil, ctx.Err() == nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && cached != nil:
		resp.Body.Close()
		f, err := os.Open(s.cachePath(name))
		if err != nil {
			return nil, true, fmt.Errorf("304 but the cached copy is gone: %w", err)
		}
		return f, false, nil
	case resp.StatusCode == http.StatusOK:
		if s.CacheDir == "" {
			return resp.Body, false, nil
		}
		defer resp.Body.Close()
		if err := s.store(name, resp); err != nil {
			return nil, true, err
		}
		f, err := os.Open(s.cachePath(name))
		return f, false, err
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusForbidden:
		// S3 answers 403 for a missing key.
		resp.Body.Close()
		return nil, false, fmt.Errorf("%s: %w", resp.Status, fs.ErrNotExist)
	default:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		return nil, retry, errors.New(resp.Status)
	}
}

// cacheMeta is what a conditional request needs of a cached file.
type cacheMeta struct {
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
}

func (s *HTTPSource) cachePath(name string) string {
	return filepath.Join(s.CacheDir, filepath.FromSlash(name))
}

// cached returns the validators of a cached copy, nil when there is none.
func (s *HTTPSource) cached(name string) *cacheMeta {
	if s.CacheDir == "" {
		return nil
	}
	b, err := os.ReadFile(s.cachePath(name) + ".meta")
	if err != nil {
		return nil
	}
	var m cacheMeta
	if json.Unmarshal(b, &m) != nil || m.ETag == "" && m.LastModified == "" {
		return nil
	}
	if _, err := os.Stat(s.cachePath(name)); err != nil {
		return nil
	}
	return &m
}

// store writes a fetched file and its validators into the cache, each
// atomically (blob.WriteFile), so a crash leaves no torn copy.
func (s *HTTPSource) store(name string, resp *http.Response) error {
	p := s.cachePath(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	// The old validators go first: a body without them is only re-fetched.
	os.Remove(p + ".meta")
	if err := blob.WriteFile(p, 0o600, func(f *os.File) error { _, err := io.Copy(f, resp.Body); return err }); err != nil {
		return err
	}
	m := cacheMeta{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}
	if m.ETag == "" && m.LastModified == "" {
		return nil
	}
	b, _ := json.Marshal(m)
	return blob.WriteFile(p+".meta", 0o600, func(f *os.File) error { _, err := f.Write(b); return err })
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// isNotExist reports a missing file from any source.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// join builds a mirror path.
func join(parts ...string) string { return path.Join(parts...) }
