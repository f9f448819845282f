package images

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// Service gets card images: from storage while fresh, else from the source.
type Service struct {
	cfg     Config
	storage Storage
	fetcher *fetcher
	flights flights
	now     func() time.Time
	log     *slog.Logger

	mu       sync.Mutex
	failures map[int]failure // recent failed fetches, by product id
}

// failure is a failed fetch, remembered for Config.RetryInterval.
type failure struct {
	at  time.Time
	err error
}

// maxFailures bounds the failure map: past it, entries older than
// RetryInterval are dropped, and new failures are not remembered while it is
// still full.
const maxFailures = 1024

// Option changes how a Service is built.
type Option func(*Service)

// WithClock sets the clock that decides freshness and retry intervals.
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithHTTPClient sets the client of upstream fetches (its timeout, if any,
// applies on top of Config.FetchTimeout).
func WithHTTPClient(c *http.Client) Option { return func(s *Service) { s.fetcher.client = c } }

// WithLogger sets where storage failures and stale answers are logged.
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.log = l } }

// New returns a Service that keeps images in storage.
func New(cfg Config, storage Storage, opts ...Option) (*Service, error) {
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
		failures: make(map[int]failure),
	}
	for _, opt := range opts {
		opt(s)
	}
	s.fetcher.now = s.now
	return s, nil
}

// Get returns the image of a TCGplayer product: the stored copy while it is
// fresh (Config.TTL since its fetch), else one fetched from the source and
// stored. Concurrent calls for one product share one fetch, which goes on
// when a caller's ctx ends. When a copy is stored, the source's failure (any:
// a 404 too) or slowness (Config.StaleWait) gives the stale copy, never an
// error. After a failed fetch, the source is asked about that product again
// after Config.RetryInterval at the earliest; until then the stale copy, or
// the same error, is given.
//
// Errors: ErrInvalidProduct (an ErrNotFound) for a product id that is not
// positive; ErrNotFound when the source has no image; ErrUnavailable when it
// could not give one and none is stored; ctx's error when ctx ends first.
func (s *Service) Get(ctx context.Context, productID int) (*Image, error) {
	key, err := ProductKey(productID)
	if err != nil {
		return nil, err
	}
	stored := s.load(ctx, key)
	if stored != nil && s.fresh(stored) {
		return stored, nil
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if err := s.recentFailure(productID); err != nil {
		if stored != nil {
			return stored, nil
		}
		return nil, err
	}
	detached := context.WithoutCancel(ctx)
	f := s.flights.start(productID, func() (*Image, error) { return s.refresh(detached, productID, key) })
	if stored == nil {
		return f.wait(ctx)
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
		return stored, nil
	}
	return img, nil
}

// refresh is the shared work of the callers of one product: it looks in
// storage again (a call that just finished may have stored the image), then
// fetches from the source and stores the result.
func (s *Service) refresh(ctx context.Context, productID int, key Key) (*Image, error) {
	loadCtx, cancel := context.WithTimeout(ctx, s.cfg.FetchTimeout)
	stored := s.load(loadCtx, key)
	cancel()
	if stored != nil && s.fresh(stored) {
		return stored, nil
	}

	fetchCtx, cancel := context.WithTimeout(ctx, s.cfg.FetchTimeout)
	img, err := s.fetcher.fetch(fetchCtx, productID)
	cancel()
	if err != nil {
		s.rememberFailure(productID, err)
		if stored != nil {
			s.log.WarnContext(ctx, "image source failed, serving the stale copy",
				"product_id", productID, "fetched_at", stored.FetchedAt, "err", err)
			return stored, nil
		}
		return nil, err
	}
	s.forgetFailure(productID)

	putCtx, cancel := context.WithTimeout(ctx, s.cfg.FetchTimeout)
	defer cancel()
	if err := s.storage.Put(putCtx, key, img); err != nil {
		s.log.ErrorContext(ctx, "image storage: put failed, serving the fetched image unstored",
			"key", key.String(), "err", err)
	}
	return img, nil
}

// load returns the stored copy, or nil when there is none or storage failed
// (then the source is asked, so a storage outage does not take images down).
func (s *Service) load(ctx context.Context, key Key) *Image {
	img, err := s.storage.Get(ctx, key)
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

// recentFailure returns the error of a fetch of the product that failed less
// than RetryInterval ago, or nil.
func (s *Service) recentFailure(productID int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.failures[productID]
	if !ok {
		return nil
	}
	if s.now().Sub(f.at) >= s.cfg.RetryInterval {
		delete(s.failures, productID)
		return nil
	}
	return f.err
}

func (s *Service) rememberFailure(productID int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if len(s.failures) >= maxFailures {
		for id, f := range s.failures {
			if now.Sub(f.at) >= s.cfg.RetryInterval {
				delete(s.failures, id)
			}
		}
		if len(s.failures) >= maxFailures {
			return // a burst of failing products: retry them sooner rather than grow
		}
	}
	s.failures[productID] = failure{at: now, err: err}
}

func (s *Service) forgetFailure(productID int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.failures, productID)
}
