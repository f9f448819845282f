package images

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Defaults of Config.
const (
	DefaultSourceURL            = "https://tcgplayer-cdn.tcgplayer.com/product/{productId}_in_1000x1000.jpg"
	DefaultTTL                  = 24 * time.Hour
	DefaultRetryInterval        = 2 * time.Second
	DefaultNotFoundInterval     = time.Minute
	DefaultProbeInterval        = time.Second
	DefaultFetchTimeout         = 10 * time.Second
	DefaultStaleWait            = time.Second
	DefaultMaxBytes             = 5 << 20
	DefaultMaxConcurrentFetches = 8
	DefaultUserAgent            = "cardcat (card image cache)"
	// DefaultSetLogoURL is TCGdex's asset server, where the Pokémon sets'
	// logos are, by the TCGdex language, serie and set of links/pokemon-tcgdex/sets.csv.
	DefaultSetLogoURL = "https://assets.tcgdex.net/{language}/{serie}/{set}/logo.png"
)

// Placeholders of Config.SetLogoURL.
const (
	LanguagePlaceholder = "{language}"
	SeriePlaceholder    = "{serie}"
	SetPlaceholder      = "{set}"
)

// ProductIDPlaceholder is replaced by the product id in Config.SourceURL.
const ProductIDPlaceholder = "{productId}"

// Config tunes a Service. A zero field takes its default.
type Config struct {
	// SourceURL is the image URL template, with ProductIDPlaceholder.
	SourceURL string
	// SetLogoURL is the set logo URL template, with LanguagePlaceholder,
	// SeriePlaceholder and SetPlaceholder.
	SetLogoURL string
	// TTL is how long a fetched image is served from storage before it is
	// refreshed from the source.
	TTL time.Duration
	// RetryInterval is how long after a failed fetch of one product the source
	// is not asked about it again: the stale copy (or the same error) is given
	// instead. Each failure is remembered for a random time between
	// RetryInterval and twice that, so that products that failed together are
	// not asked again together.
	RetryInterval time.Duration
	// NotFoundInterval is how long the source's "no image" (404, 410) for a
	// product is believed before it is asked again.
	NotFoundInterval time.Duration
	// ProbeInterval is, while the source is failing, the least time between
	// two probe fetches (one at a time, each the fetch of a caller's image);
	// the first that succeeds ends the outage.
	ProbeInterval time.Duration
	// FetchTimeout bounds one upstream fetch, waiting for a fetch slot included.
	FetchTimeout time.Duration
	// StaleWait is how long a caller that has a stale copy waits for its
	// refresh before it is given the stale copy (the refresh goes on).
	StaleWait time.Duration
	// MaxBytes is the largest image accepted from the source; a larger one is
	// rejected, not truncated.
	MaxBytes int64
	// MaxConcurrentFetches caps the upstream fetches in flight at once.
	MaxConcurrentFetches int
	// UserAgent is sent to the source.
	UserAgent string
}

// withDefaults fills zero fields and validates the result.
func (c Config) withDefaults() (Config, error) {
	if c.SourceURL == "" {
		c.SourceURL = DefaultSourceURL
	}
	if c.TTL <= 0 {
		c.TTL = DefaultTTL
	}
	if c.RetryInterval <= 0 {
		c.RetryInterval = DefaultRetryInterval
	}
	if c.NotFoundInterval <= 0 {
		c.NotFoundInterval = DefaultNotFoundInterval
	}
	if c.ProbeInterval <= 0 {
		c.ProbeInterval = DefaultProbeInterval
	}
	if c.FetchTimeout <= 0 {
		c.FetchTimeout = DefaultFetchTimeout
	}
	if c.StaleWait <= 0 {
		c.StaleWait = DefaultStaleWait
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.MaxConcurrentFetches <= 0 {
		c.MaxConcurrentFetches = DefaultMaxConcurrentFetches
	}
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent
	}
	if c.SetLogoURL == "" {
		c.SetLogoURL = DefaultSetLogoURL
	}
	for _, ph := range []string{LanguagePlaceholder, SeriePlaceholder, SetPlaceholder} {
		if !strings.Contains(c.SetLogoURL, ph) {
			return c, fmt.Errorf("images: set logo URL %q: no %s placeholder", c.SetLogoURL, ph)
		}
	}
	if u, err := url.Parse(strings.NewReplacer(LanguagePlaceholder, "en", SeriePlaceholder, "s", SetPlaceholder, "s").Replace(c.SetLogoURL)); err != nil ||
		(u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, fmt.Errorf("images: set logo URL %q: want an absolute http or https URL", c.SetLogoURL)
	}
	if !strings.Contains(c.SourceURL, ProductIDPlaceholder) {
		return c, fmt.Errorf("images: source URL %q: no %s placeholder", c.SourceURL, ProductIDPlaceholder)
	}
	u, err := url.Parse(strings.ReplaceAll(c.SourceURL, ProductIDPlaceholder, "1"))
	if err != nil {
		return c, fmt.Errorf("images: source URL %q: %w", c.SourceURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, fmt.Errorf("images: source URL %q: want an absolute http or https URL", c.SourceURL)
	}
	return c, nil
}
