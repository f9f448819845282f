package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
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
// public downloads for Cardmarket. Linking files come from a local directory.
type HTTPSource struct {
	TCGBaseURL        string // default https://tcgcsv.com
	CardmarketBaseURL string // default https://downloads.s3.cardmarket.com/productCatalog
	LinksDir          string // local directory holding links/ files; "" for none
	Client            *http.Client
	UserAgent         string
	Retries           int           // attempts after the first, default 3
	Backoff           time.Duration // first retry delay, doubled each time; default 1s
}

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

// Describe returns the URL, or the local path of a linking file.
func (s *HTTPSource) Describe(name string) string {
	if u := s.URL(name); u != "" {
		return u
	}
	if strings.HasPrefix(name, "links/") && s.LinksDir != "" {
		return DirSource{Dir: s.LinksDir}.Describe(strings.TrimPrefix(name, "links/"))
	}
	return name
}

// Open fetches the file, retrying transient failures with backoff.
func (s *HTTPSource) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if strings.HasPrefix(name, "links/") {
		if s.LinksDir == "" {
			return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
		}
		return DirSource{Dir: s.LinksDir}.Open(ctx, strings.TrimPrefix(name, "links/"))
	}
	u := s.URL(name)
	if u == "" {
		return nil, fmt.Errorf("%s: no live source: %w", name, fs.ErrNotExist)
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
	var lastErr error
	for attempt := 0; attempt <= retries; attempt++ {
		if attempt > 0 {
			d := backoff<<(attempt-1) + rand.N(backoff/2+1)
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(d):
			}
		}
		body, retry, err := s.get(ctx, client, u)
		if err == nil {
			return body, nil
		}
		lastErr = err
		if !retry {
			break
		}
	}
	return nil, lastErr
}

func (s *HTTPSource) get(ctx context.Context, client *http.Client, u string) (io.ReadCloser, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, fmt.Errorf("GET %s: %w", u, err)
	}
	req.Header.Set("User-Agent", orDefault(s.UserAgent, "cardcat (+https://github.com/cardcat/cardcat)"))
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, ctx.Err() == nil, fmt.Errorf("GET %s: %w", u, err)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return resp.Body, false, nil
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusForbidden:
		// S3 answers 403 for a missing key.
		resp.Body.Close()
		return nil, false, fmt.Errorf("GET %s: %s: %w", u, resp.Status, fs.ErrNotExist)
	default:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		return nil, retry, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
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
