package images

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cardcat/cardcat/internal/blob"
)

// Service gets card images: from storage while fresh, else from the source.
type Service struct {
	cfg     Config
	storage blob.Bucket
	fetcher *fetcher
	flights flights
	source  source
	now     func() time.Time
	log     *slog.Logger
	observe func(Outcome) // WithOutcomes; nil observes nothing

	mu       sync.Mutex
	failures map[string]failure // recent failed fetches, by target id
}

// target is one image the service gets: the key it is stored under, the
// URL it is fetched from, and its name in failures, flights and logs.
type target struct {
	key Key
	url string
	id  string
}

// failure is a failed fetch, remembered until a time: RetryInterval to twice
// that for ErrUnavailable, NotFoundInterval for ErrNotFound.
type failure struct {
	until time.Time
	err   error
}

// maxFailures bounds the failure map: past it, expired entries are dropped,
// and new failures are not remembered while it is still full.
const maxFailures = 1024

// Option changes how a Service is built.
type Option func(*Service)

// WithClock sets the clock that decides freshness and retry intervals.
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithHTTPClient sets the client of upstream fetches (its timeout, if any,
// applies on top of Config.FetchTimeout).
func WithHTTPClient(c *http.Client) Option { return func(s *Service) { s.fetcher.client = c } }

// WithLogger sets where storage failures and the source's outages are logged.
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.log = l } }

// New returns a Service that keeps images in storage.
func New(cfg Config, storage blob.Bucket, opts ...Option) (*Service, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if storage == nil {
		return nil, errors.New("images: no storage")
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxConnsPerHost = cfg.MaxConcurrentFetches
	s := &Service{
		cfg:     cfg,
		storage: storage,
		fetcher: &fetcher{
			client:    &http.Client{Transport: transport},
			template:  cfg.SourceURL,
			userAgent: cfg.UserAgent,
			maxBytes:  cfg.MaxBytes,
			slots:     make(chan struct{}, cfg.MaxConcurrentFetches),
		},
		now:      time.Now,
		log:      slog.New(slog.DiscardHandler),
		failures: make(map[string]failure),
	}
	for _, opt := range opts {
		opt(s)
	}
	s.fetcher.now = s.now
	s.source = source{now: s.now, log: s.log, probeInterval: cfg.ProbeInterval}
	return s, nil
}

// Get returns the image of a TCGplayer product: the stored copy while it is
// fresh (Config.TTL since its fetch), else one fetched from the source and
// stored. Concurrent calls for one product share one fetch, which goes on
// when a caller's ctx ends. When a copy is stored, the source's failure (any:
// a 404 too) or slowness (Config.StaleWait) gives the stale copy, never an
// error. After a failed fetch, the source is asked about that product again
// after Config.RetryInterval (jittered up to twice that; NotFoundInterval
// after a 404) at the earliest; until then the stale copy, or the same error,
// is given. While the source is down (see source), a caller that is not its
// probe is given the stale copy or ErrUnavailable at once. RetryAfter tells
// from an ErrUnavailable when asking again may help.
//
// Errors: ErrInvalidProduct (an ErrNotFound) for a product id that is not
// positive; ErrNotFound when the source has no image; ErrUnavailable when it
// could not give one and none is stored; ctx's error when ctx ends first.
func (s *Service) Get(ctx context.Context, productID int) (*Image, error) {
	return s.GetSize(ctx, productID, "")
}

// GetSize is Get of the product's image in another size: TCGplayer's file
// names differ only in their suffix ({productId}_400w.jpg,
// {productId}_in_1000x1000.jpg), so the size's URL is Config.SourceURL with
// its suffix in place of the template's (SizedURL). "" is the template's own.
func (s *Service) GetSize(ctx context.Context, productID int, suffix string) (*Image, error) {
	t, err := s.productTarget(productID, suffix)
	return s.getTarget(ctx, t, err)
}

// GetSetLogo returns a set's logo, fetched from Config.SetLogoURL with the
// TCGdex language, serie and set in its placeholders, and kept like card
// images. Errors as Get's; ErrInvalidProduct for an empty part.
func (s *Service) GetSetLogo(ctx context.Context, language, serie, set string) (*Image, error) {
	key, err := SetLogoKey(language, serie, set)
	url := strings.NewReplacer(LanguagePlaceholder, language, SeriePlaceholder, serie, SetPlaceholder, set).Replace(s.cfg.SetLogoURL)
	return s.getTarget(ctx, target{key: key, url: url, id: key.String()}, err)
}

// productTarget is the target of a product's image in the size suffix.
func (s *Service) productTarget(productID int, suffix string) (target, error) {
	key, err := ProductKey(productID)
	if err != nil {
		return target{}, err
	}
	url := s.fetcher.url(productID)
	if suffix != "" {
		if sized := SizedURL(s.cfg.SourceURL, suffix); sized != s.cfg.SourceURL {
			url = strings.ReplaceAll(sized, ProductIDPlaceholder, strconv.Itoa(productID))
			if key, err = sizedKey(key, suffix); err != nil {
				return target{}, err
			}
		}
	}
	return target{key: key, url: url, id: key.String()}, nil
}

// getTarget gets t, or answers err, the error of making t; either way
// reported to WithOutcomes.
func (s *Service) getTarget(ctx context.Context, t target, err error) (*Image, error) {
	var img *Image
	if err == nil {
		img, err = s.get(ctx, t)
	}
	if s.observe != nil {
		s.observe(s.outcome(img, err))
	}
	return img, err
}

func (s *Service) get(ctx context.Context, t target) (*Image, error) {
	key := t.key
	stored := s.load(ctx, key)
	if stored != nil && s.fresh(stored) {
		return stored, nil
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if err := s.recentFailure(t.id); err != nil {
		return s.failed(stored, err)
	}
	if err := s.source.turnedAway(); err != nil {
		return s.failed(stored, err)
	}
	detached := context.WithoutCancel(ctx)
	f := s.flights.start(t.id, func() (*Image, error) { return s.refresh(detached, t) })
	if stored == nil {
		img, err := f.wait(ctx)
		switch {
		case err == nil:
			s.countStale(img)
		case ctx.Err() == nil && errors.Is(err, ErrUnavailable):
			s.source.answered(false)
		}
		return img, err
	}
	// A stale copy is at hand: wait a little for the refresh, then give the
	// stale copy and let the refresh finish on its own.
	waitCtx, cancel := context.WithTimeout(ctx, s.cfg.StaleWait)
	defer cancel()
	img, err := f.wait(waitCtx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		s.source.answered(true)
		return stored, nil
	}
	s.countStale(img)
	return img, nil
}

// failed answers a caller not let through to the source: the stale copy if
// there is one, else err.
func (s *Service) failed(stored *Image, err error) (*Image, error) {
	if stored != nil {
		s.source.answered(true)
		return stored, nil
	}
	if errors.Is(err, ErrUnavailable) {
		s.source.answered(false)
	}
	return nil, err
}

// countStale counts a stale copy given by a refresh whose fetch failed.
func (s *Service) countStale(img *Image) {
	if !s.fresh(img) {
		s.source.answered(true)
	}
}

// refresh is the shared work of the callers of one product: it looks in
// storage again (a call that just finished may have stored the image), then
// fetches from the source and stores the result.
func (s *Service) refresh(ctx context.Context, t target) (*Image, error) {
	key := t.key
	loadCtx, cancel := context.WithTimeout(ctx, s.cfg.FetchTimeout)
	stored := s.load(loadCtx, key)
	cancel()
	if stored != nil && s.fresh(stored) {
		return stored, nil
	}

	fetchCtx, cancel := context.WithTimeout(ctx, s.cfg.FetchTimeout)
	img, err := s.fetch(fetchCtx, t.url)
	cancel()
	if err != nil {
		if !errors.Is(err, errSourceDown) {
			err = s.rememberFailure(t.id, err)
		}
		// At most one line per fetch, and at DEBUG: an outage is logged
		// once, by source.
		s.log.DebugContext(ctx, "image fetch failed", "image", t.id, "stale", stored != nil, "err", err)
		if stored != nil {
			return stored, nil
		}
		return nil, err
	}
	s.forgetFailure(t.id)

	putCtx, cancel := context.WithTimeout(ctx, s.cfg.FetchTimeout)
	defer cancel()
	if err := PutStored(putCtx, s.storage, key, img); err != nil {
		s.log.ErrorContext(ctx, "image storage: put failed, serving the fetched image unstored",
			"key", key.String(), "err", err)
	}
	return img, nil
}

// fetch fetches from the source when a slot is free and the source lets the
// caller through (see source), and reports the outcome to source. ctx bounds
// the wait for a slot and the fetch.
func (s *Service) fetch(ctx context.Context, url string) (*Image, error) {
	release, err := s.fetcher.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	probe, err := s.source.admit()
	if err != nil {
		return nil, err
	}
	img, err := s.fetcher.fetch(ctx, url)
	if s.source.done(probe, err) {
		// The failures remembered during the outage were the source's, not
		// the products': ask again at once.
		s.forgetUnavailable()
	}
	return img, err
}

// load returns the stored copy, or nil when there is none or storage failed
// (then the source is asked, so a storage outage does not take images down).
func (s *Service) load(ctx context.Context, key Key) *Image {
	img, err := GetStored(ctx, s.storage, key)
	if err != nil {
		if !errors.Is(err, ErrNotStored) && ctx.Err() == nil {
			s.log.ErrorContext(ctx, "image storage: get failed", "key", key.String(), "err", err)
		}
		return nil
	}
	if img.ETag == "" {
		img.ETag = ETagOf(img.Body)
	}
	return img
}

// fresh reports whether a stored copy is younger than the TTL.
func (s *Service) fresh(img *Image) bool {
	return s.now().Sub(img.FetchedAt) < s.cfg.TTL
}

// recentFailure returns the error of a fetch of the product that failed
// recently enough to be remembered (with when to ask again, for an
// ErrUnavailable), or nil.
func (s *Service) recentFailure(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.failures[id]
	if !ok {
		return nil
	}
	left := f.until.Sub(s.now())
	if left <= 0 {
		delete(s.failures, id)
		return nil
	}
	if errors.Is(f.err, ErrNotFound) {
		return f.err
	}
	return &retryError{err: f.err, after: left}
}

// rememberFailure remembers a failed fetch of the product, and returns its
// error with when to ask again.
func (s *Service) rememberFailure(id string, err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var wait time.Duration
	if errors.Is(err, ErrNotFound) {
		wait = s.cfg.NotFoundInterval
	} else {
		wait = s.cfg.RetryInterval + rand.N(s.cfg.RetryInterval)
		err = &retryError{err: err, after: wait}
	}
	if len(s.failures) >= maxFailures {
		for id, f := range s.failures {
			if !now.Before(f.until) {
				delete(s.failures, id)
			}
		}
		if len(s.failures) >= maxFailures {
			return err // a burst of failing products: retry them sooner rather than grow
		}
	}
	s.failures[id] = failure{until: now.Add(wait), err: err}
	return err
}

func (s *Service) forgetFailure(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.failures, id)
}

// forgetUnavailable forgets every remembered ErrUnavailable (the source's
// "no image" answers are kept).
func (s *Service) forgetUnavailable() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, f := range s.failures {
		if !errors.Is(f.err, ErrNotFound) {
			delete(s.failures, id)
		}
	}
}
