// Package s3blob is a blob.Bucket in S3-compatible object storage (AWS S3,
// MinIO, Ceph, R2, versitygw, ...), so that the replicas of a deployment
// share one image cache, one build of each version's bulk files and one
// snapshot artifact per version. It is cardcat's one S3 client: every user
// of S3 gets its Bucket from New, with one Config and one credential chain.
//
// It talks to the server through minio-go, which signs requests (SigV4),
// retries the ones worth retrying, finds the bucket's region when none is
// configured, and gets credentials either from the Config or from AWS's
// chain (environment, shared credentials file, IAM roles). An object's
// content type is its Content-Type, its metadata x-amz-meta-* headers.
// Objects are addressed virtual-hosted style on AWS and Google endpoints
// (https://bucket.endpoint/key), path-style elsewhere
// (https://endpoint/bucket/key): minio-go's default.
package s3blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/cardcat/cardcat/internal/blob"
)

var _ blob.Bucket = (*Bucket)(nil)

// minRate is the slowest transfer an object's Get or Put is given time
// for, on top of Config.Timeout: 250 MB (a million cards' bulk files) in
// about four minutes.
const minRate = 1 << 20 // bytes per second

// metaHeader starts the headers that carry an object's metadata.
const metaHeader = "X-Amz-Meta-"

// Bucket is a blob.Bucket in an S3 bucket, under Config.Prefix.
type Bucket struct {
	cfg    Config
	creds  *credentials.Credentials
	client *minio.Client
}

// New returns the Bucket of cfg. It does not contact the server; Check does.
func New(cfg Config) (*Bucket, error) {
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
		return nil, fmt.Errorf("s3blob: %w", err)
	}
	return &Bucket{cfg: cfg, creds: creds, client: client}, nil
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

// String says where the objects are, for logs.
func (b *Bucket) String() string {
	return "s3 " + b.cfg.Endpoint + "/" + b.cfg.Bucket + "/" + b.cfg.Prefix
}

// Check asks the server whether the bucket exists and the credentials may use
// it (HeadBucket), for a clear error at start-up.
func (b *Bucket) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	if !b.cfg.StaticCredentials() {
		// Without credentials minio-go sends anonymous requests, whose
		// AccessDenied would not say that no credentials were found.
		creds, err := b.creds.GetWithContext(&credentials.CredContext{Client: http.DefaultClient, Context: ctx})
		if err != nil {
			return fmt.Errorf("s3blob: credentials: %w", err)
		}
		if creds.SignerType.IsAnonymous() {
			return errors.New("s3blob: no access key configured and none found by the AWS credential chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, the shared credentials file, IAM role)")
		}
	}
	ok, err := b.client.BucketExists(ctx, b.cfg.Bucket)
	if err != nil {
		return fmt.Errorf("s3blob: bucket %s at %s: %w", b.cfg.Bucket, b.cfg.Endpoint, err)
	}
	if !ok {
		return fmt.Errorf("s3blob: bucket %s at %s: no such bucket", b.cfg.Bucket, b.cfg.Endpoint)
	}
	return nil
}

// key is the S3 key of an object.
func (b *Bucket) key(name string) (string, error) {
	if err := blob.CheckName(name); err != nil {
		return "", fmt.Errorf("s3blob: %w", err)
	}
	return b.cfg.Prefix + name, nil
}

// Get writes the object's bytes to w and returns its attributes. It has
// Config.Timeout until the answer starts, then as long again plus a second
// per MiB of the object.
func (b *Bucket) Get(ctx context.Context, name string, w io.Writer) (blob.Attrs, error) {
	key, err := b.key(name)
	if err != nil {
		return blob.Attrs{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	deadline := time.AfterFunc(b.cfg.Timeout, cancel)
	defer deadline.Stop()
	// Core's GetObject is one request whose answer carries both the bytes
	// and the attributes, so they belong to one version of the object even
	// while another replica replaces it.
	body, info, header, err := minio.Core{Client: b.client}.GetObject(ctx, b.cfg.Bucket, key, minio.GetObjectOptions{})
	if err != nil {
		if isNotFound(err) {
			return blob.Attrs{}, fmt.Errorf("s3blob: get %s: %w", name, fs.ErrNotExist)
		}
		return blob.Attrs{}, fmt.Errorf("s3blob: get %s: %w", name, err)
	}
	defer body.Close()
	deadline.Reset(b.cfg.Timeout + transferTime(info.Size))
	if _, err := io.Copy(w, body); err != nil {
		return blob.Attrs{}, fmt.Errorf("s3blob: get %s: %w", name, err)
	}
	attrs := blob.Attrs{ContentType: info.ContentType}
	for h, v := range header {
		if meta, ok := strings.CutPrefix(h, metaHeader); ok && len(v) > 0 {
			if attrs.Metadata == nil {
				attrs.Metadata = map[string]string{}
			}
			attrs.Metadata[strings.ToLower(meta)] = v[0]
		}
	}
	return attrs, nil
}

// Put stores size bytes of r as the object, with attrs, in one request
// (S3 replaces an object whole), or for an object over 16 MiB in parts,
// visible once all are there; an *os.File is read in parallel sections.
func (b *Bucket) Put(ctx context.Context, name string, r io.Reader, size int64, attrs blob.Attrs) error {
	key, err := b.key(name)
	if err != nil {
		return err
	}
	if err := blob.CheckAttrs(attrs); err != nil {
		return fmt.Errorf("s3blob: put %s: %w", name, err)
	}
	if attrs.ContentType == "" {
		attrs.ContentType = blob.DefaultContentType
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout+transferTime(size))
	defer cancel()
	_, err = b.client.PutObject(ctx, b.cfg.Bucket, key, r, size, minio.PutObjectOptions{
		ContentType:  attrs.ContentType,
		UserMetadata: attrs.Metadata,
	})
	if err != nil {
		return fmt.Errorf("s3blob: put %s: %w", name, err)
	}
	return nil
}

// List returns the names of the objects whose names start with prefix.
func (b *Bucket) List(ctx context.Context, prefix string) ([]string, error) {
	if err := blob.CheckPrefix(prefix); err != nil {
		return nil, fmt.Errorf("s3blob: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	var names []string
	for obj := range b.client.ListObjects(ctx, b.cfg.Bucket, minio.ListObjectsOptions{Prefix: b.cfg.Prefix + prefix, Recursive: true}) {
		if obj.Err != nil {
			return nil, fmt.Errorf("s3blob: list %s: %w", prefix, obj.Err)
		}
		names = append(names, strings.TrimPrefix(obj.Key, b.cfg.Prefix))
	}
	slices.Sort(names)
	return names, nil
}

// Delete removes the object; one already gone is no error.
func (b *Bucket) Delete(ctx context.Context, name string) error {
	key, err := b.key(name)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	if err := b.client.RemoveObject(ctx, b.cfg.Bucket, key, minio.RemoveObjectOptions{}); err != nil && !isNotFound(err) {
		return fmt.Errorf("s3blob: delete %s: %w", name, err)
	}
	return nil
}

// isNotFound reports whether err says the object is not there (a missing
// bucket is no missing object: it is a configuration to fix).
func isNotFound(err error) bool {
	r := minio.ToErrorResponse(err)
	return r.Code == minio.NoSuchKey || r.StatusCode == http.StatusNotFound && r.Code != minio.NoSuchBucket
}

func transferTime(size int64) time.Duration {
	if size <= 0 {
		return 0
	}
	return time.Duration(size/minRate+1) * time.Second
}
