// Package s3store keeps images in S3-compatible object storage (AWS S3,
// MinIO, Ceph, R2, ...), so that API replicas share one image cache.
//
// It talks to the server through minio-go, which signs requests (SigV4),
// retries the ones worth retrying, finds the bucket's region when none is
// configured, and gets credentials either from the Config or from AWS's
// chain (environment, shared credentials file, IAM roles). An image's content
// type is the object's Content-Type; its fetch time and ETag are object
// metadata (x-amz-meta-fetched-at, x-amz-meta-etag). Objects are addressed
// virtual-hosted style on AWS and Google endpoints
// (https://bucket.endpoint/key), path-style elsewhere
// (https://endpoint/bucket/key): minio-go's default.
package s3store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/images"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

var _ images.Storage = (*Store)(nil)

// maxObjectSize bounds what Get reads: far above any image the service
// stores, it only keeps a wrong object from exhausting memory.
const maxObjectSize = 64 << 20

// Metadata of an image object: the names given to minio-go, which sends them
// as x-amz-meta-fetched-at and x-amz-meta-etag, and the headers they come
// back in.
const (
	metaFetchedAt       = "fetched-at"
	metaETag            = "etag"
	metaFetchedAtHeader = "X-Amz-Meta-Fetched-At"
	metaETagHeader      = "X-Amz-Meta-Etag"
)

// Store is an images.Storage in an S3 bucket.
type Store struct {
	cfg    Config
	creds  *credentials.Credentials
	client *minio.Client
}

// New returns a Store for cfg. It does not contact the server; Check does.
func New(cfg Config) (*Store, error) {
	cfg, err := cfg.Normalized()
	if err != nil {
		return nil, err
	}
	creds := credentialsOf(cfg)
	client, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:  creds,
		Secure: cfg.UseSSL,
		Region: cfg.Region,
	})
	if err != nil {
		return nil, fmt.Errorf("s3store: %w", err)
	}
	return &Store{cfg: cfg, creds: creds, client: client}, nil
}

// credentialsOf is cfg's static keys, or else AWS's credential chain. The
// chain's providers read the process environment and files themselves: that
// is how AWS's own tools find instance and role credentials, which no
// CARDCAT_* variable could carry (they expire and are renewed).
func credentialsOf(cfg Config) *credentials.Credentials {
	if cfg.StaticCredentials() {
		return credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, "")
	}
	return credentials.NewChainCredentials([]credentials.Provider{
		&credentials.EnvAWS{},
		&credentials.FileAWSCredentials{},
		&credentials.IAM{},
	})
}

// Check asks the server whether the bucket exists and the credentials may use
// it (HeadBucket), for a clear error at start-up.
func (s *Store) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	if !s.cfg.StaticCredentials() {
		// Without credentials minio-go sends anonymous requests, whose
		// AccessDenied would not say that no credentials were found.
		creds, err := s.creds.GetWithContext(&credentials.CredContext{Client: http.DefaultClient, Context: ctx})
		if err != nil {
			return fmt.Errorf("s3store: credentials: %w", err)
		}
		if creds.SignerType.IsAnonymous() {
			return errors.New("s3store: no access key configured and none found by the AWS credential chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, the shared credentials file, IAM role)")
		}
	}
	ok, err := s.client.BucketExists(ctx, s.cfg.Bucket)
	if err != nil {
		return fmt.Errorf("s3store: bucket %s at %s: %w", s.cfg.Bucket, s.cfg.Endpoint, err)
	}
	if !ok {
		return fmt.Errorf("s3store: bucket %s at %s: no such bucket", s.cfg.Bucket, s.cfg.Endpoint)
	}
	return nil
}

// Get reads the object of key.
func (s *Store) Get(ctx context.Context, key images.Key) (*images.Image, error) {
	name, err := s.objectName(key)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	// Core's GetObject is one request whose answer carries both the body and
	// its metadata, so they belong to one version of the object even while
	// another replica replaces it.
	body, info, header, err := minio.Core{Client: s.client}.GetObject(ctx, s.cfg.Bucket, name, minio.GetObjectOptions{})
	if err != nil {
		if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
			return nil, fmt.Errorf("s3store: get %s: %w", name, images.ErrNotStored)
		}
		return nil, fmt.Errorf("s3store: get %s: %w", name, err)
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, maxObjectSize+1))
	if err != nil {
		return nil, fmt.Errorf("s3store: get %s: %w", name, err)
	}
	if len(data) > maxObjectSize {
		return nil, fmt.Errorf("s3store: get %s: object larger than %d bytes", name, maxObjectSize)
	}
	img := &images.Image{Body: data, ContentType: info.ContentType, ETag: header.Get(metaETagHeader)}
	if v := header.Get(metaFetchedAtHeader); v != "" {
		if img.FetchedAt, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return nil, fmt.Errorf("s3store: get %s: fetched-at metadata %q: %w", name, v, err)
		}
	}
	return img, nil
}

// Put writes img as the object of key, in one PutObject request: S3 replaces
// an object atomically.
func (s *Store) Put(ctx context.Context, key images.Key, img *images.Image) error {
	name, err := s.objectName(key)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	meta := map[string]string{metaFetchedAt: img.FetchedAt.UTC().Format(time.RFC3339Nano)}
	if img.ETag != "" {
		meta[metaETag] = img.ETag
	}
	_, err = s.client.PutObject(ctx, s.cfg.Bucket, name, bytes.NewReader(img.Body), int64(len(img.Body)), minio.PutObjectOptions{
		ContentType:      img.ContentType,
		UserMetadata:     meta,
		DisableMultipart: true,
	})
	if err != nil {
		return fmt.Errorf("s3store: put %s: %w", name, err)
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
