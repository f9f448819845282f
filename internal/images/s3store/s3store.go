// Package s3store keeps images in S3-compatible object storage (AWS S3,
// MinIO, Ceph, R2, ...), so that API replicas share one image cache.
//
// It speaks the three calls it needs (GetObject, PutObject, HeadBucket) over
// net/http with its own Signature Version 4 signer, rather than pulling in an
// SDK. An image's content type is the object's Content-Type; its fetch time
// and ETag are object metadata (x-amz-meta-fetched-at, x-amz-meta-etag).
// Objects are addressed path-style (https://endpoint/bucket/key), except on
// amazonaws.com endpoints with a bucket name without dots, which get
// virtual-hosted style (https://bucket.endpoint/key).
package s3store

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/images"
)

var _ images.Storage = (*Store)(nil)

// maxObjectSize bounds what Get reads: far above any image the service
// stores, it only keeps a wrong object from exhausting memory.
const maxObjectSize = 64 << 20

// Metadata headers of an image object.
const (
	metaFetchedAt = "X-Amz-Meta-Fetched-At"
	metaETag      = "X-Amz-Meta-Etag"
)

// Store is an images.Storage in an S3 bucket.
type Store struct {
	cfg    Config
	client *http.Client
	signer signer
	now    func() time.Time
}

// New returns a Store for cfg. It does not contact the server; Check does.
func New(cfg Config) (*Store, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	return &Store{
		cfg:    cfg,
		client: &http.Client{Timeout: cfg.Timeout},
		signer: signer{accessKey: cfg.AccessKey, secretKey: cfg.SecretKey, region: cfg.Region},
		now:    time.Now,
	}, nil
}

// Check asks the server whether the bucket exists and the credentials may use
// it (HeadBucket), for a clear error at start-up.
func (s *Store) Check(ctx context.Context) error {
	resp, err := s.do(ctx, http.MethodHead, "", nil, nil)
	if err != nil {
		return fmt.Errorf("s3store: bucket %s: %w", s.cfg.Bucket, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("s3store: bucket %s at %s: %s", s.cfg.Bucket, s.cfg.Endpoint, resp.Status)
	}
	return nil
}

// Get reads the object of key.
func (s *Store) Get(ctx context.Context, key images.Key) (*images.Image, error) {
	name, err := s.objectName(key)
	if err != nil {
		return nil, err
	}
	resp, err := s.do(ctx, http.MethodGet, name, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("s3store: get %s: %w", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		err := responseError(resp)
		if resp.StatusCode == http.StatusNotFound && (err.Code == "NoSuchKey" || err.Code == "") {
			return nil, fmt.Errorf("s3store: get %s: %w", name, images.ErrNotStored)
		}
		return nil, fmt.Errorf("s3store: get %s: %w", name, err)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxObjectSize+1))
	if err != nil {
		return nil, fmt.Errorf("s3store: get %s: %w", name, err)
	}
	if len(body) > maxObjectSize {
		return nil, fmt.Errorf("s3store: get %s: object larger than %d bytes", name, maxObjectSize)
	}
	img := &images.Image{Body: body, ContentType: resp.Header.Get("Content-Type"), ETag: resp.Header.Get(metaETag)}
	if v := resp.Header.Get(metaFetchedAt); v != "" {
		if img.FetchedAt, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return nil, fmt.Errorf("s3store: get %s: fetched-at metadata %q: %w", name, v, err)
		}
	}
	return img, nil
}

// Put writes img as the object of key. S3 replaces an object atomically.
func (s *Store) Put(ctx context.Context, key images.Key, img *images.Image) error {
	name, err := s.objectName(key)
	if err != nil {
		return err
	}
	header := http.Header{}
	header.Set("Content-Type", img.ContentType)
	header.Set(metaFetchedAt, img.FetchedAt.UTC().Format(time.RFC3339Nano))
	if img.ETag != "" {
		header.Set(metaETag, img.ETag)
	}
	resp, err := s.do(ctx, http.MethodPut, name, header, img.Body)
	if err != nil {
		return fmt.Errorf("s3store: put %s: %w", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("s3store: put %s: %w", name, responseError(resp))
	}
	return nil
}

// objectName is the object of key, refusing any key not made by package images.
func (s *Store) objectName(key images.Key) (string, error) {
	name := key.String()
	if !key.Valid() {
		return "", fmt.Errorf("s3store: %w", images.ErrInvalidKey)
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." || !safeName(part) {
			return "", fmt.Errorf("s3store: %w: %q", images.ErrInvalidKey, name)
		}
	}
	return s.cfg.Prefix + name, nil
}

// do sends one signed request about object name ("" for the bucket itself).
func (s *Store) do(ctx context.Context, method, name string, header http.Header, body []byte) (*http.Response, error) {
	scheme := "http"
	if s.cfg.UseSSL {
		scheme = "https"
	}
	host, path := s.cfg.Endpoint, "/"+s.cfg.Bucket+"/"+name
	if strings.HasSuffix(host, ".amazonaws.com") && !strings.Contains(s.cfg.Bucket, ".") {
		host, path = s.cfg.Bucket+"."+host, "/"+name
	}
	req, err := http.NewRequestWithContext(ctx, method, scheme+"://"+host+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	payloadHash := emptyPayloadHash
	if len(body) > 0 {
		payloadHash = hexSHA256(body)
	}
	s.signer.sign(req, payloadHash, s.now())
	return s.client.Do(req)
}

// s3Error is an S3 error answer.
type s3Error struct {
	Status  string `xml:"-"`
	Code    string `xml:"Code"`
	Message string `xml:"Message"`
}

func (e *s3Error) Error() string {
	if e.Code == "" {
		return e.Status
	}
	return e.Status + ": " + e.Code + ": " + e.Message
}

// responseError reads the error document of a failed answer (HEAD answers
// have none: then only the status is known).
func responseError(resp *http.Response) *s3Error {
	e := &s3Error{Status: resp.Status}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err == nil && len(data) > 0 {
		_ = xml.Unmarshal(data, e)
	}
	return e
}
