// Package s3share keeps objects in S3-compatible storage for package bulk,
// so that the replicas of a deployment build each version's bulk files once
// and fetch them from there. It uses the bucket, credentials and prefix of
// the image storage (s3store.Config, from CARDCAT_S3_*); names are put
// under the prefix as given (package bulk starts them with "bulk/").
package s3share

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/cardcat/cardcat/internal/images/s3store"
)

// minRate is the slowest transfer a file's Get or Put is given time for,
// on top of the config's Timeout: 250 MB (a million cards) in about four
// minutes.
const minRate = 1 << 20 // bytes per second

// Objects is a bucket's objects under a prefix.
type Objects struct {
	cfg    s3store.Config
	client *minio.Client
}

// New returns the Objects of cfg. It does not contact the server.
func New(cfg s3store.Config) (*Objects, error) {
	cfg, err := cfg.Normalized()
	if err != nil {
		return nil, err
	}
	// The same credentials as s3store's: static keys, else AWS's chain.
	creds := credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, "")
	if !cfg.StaticCredentials() {
		creds = credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{}, &credentials.FileAWSCredentials{}, &credentials.IAM{},
		})
	}
	client, err := minio.New(cfg.Endpoint, &minio.Options{Creds: creds, Secure: cfg.UseSSL, Region: cfg.Region})
	if err != nil {
		return nil, fmt.Errorf("s3share: %w", err)
	}
	return &Objects{cfg: cfg, client: client}, nil
}

// String says where the objects are, for logs.
func (o *Objects) String() string {
	return "s3 " + o.cfg.Endpoint + "/" + o.cfg.Bucket + "/" + o.cfg.Prefix
}

// Get writes the object's bytes to w, or returns an error wrapping
// fs.ErrNotExist when there is no such object.
func (o *Objects) Get(ctx context.Context, name string, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Timeout until the answer starts, then time for its length too.
	deadline := time.AfterFunc(o.cfg.Timeout, cancel)
	defer deadline.Stop()
	// Core's GetObject is one request: the body is one version of the
	// object even while another replica replaces it.
	body, info, _, err := minio.Core{Client: o.client}.GetObject(ctx, o.cfg.Bucket, o.cfg.Prefix+name, minio.GetObjectOptions{})
	if err != nil {
		if isNotFound(err) {
			return fmt.Errorf("s3share: get %s: %w", name, fs.ErrNotExist)
		}
		return fmt.Errorf("s3share: get %s: %w", name, err)
	}
	defer body.Close()
	deadline.Reset(o.cfg.Timeout + transferTime(info.Size))
	if _, err := io.Copy(w, body); err != nil {
		return fmt.Errorf("s3share: get %s: %w", name, err)
	}
	return nil
}

// Put stores size bytes of r as the object, replacing any: S3 replaces an
// object whole (a large one is uploaded in parts, visible once complete).
// An *os.File is read in parallel sections.
func (o *Objects) Put(ctx context.Context, name string, r io.Reader, size int64) error {
	ctx, cancel := context.WithTimeout(ctx, o.cfg.Timeout+transferTime(size))
	defer cancel()
	_, err := o.client.PutObject(ctx, o.cfg.Bucket, o.cfg.Prefix+name, r, size, minio.PutObjectOptions{
		ContentType: contentType(name),
	})
	if err != nil {
		return fmt.Errorf("s3share: put %s: %w", name, err)
	}
	return nil
}

// List returns the names of the objects whose names start with prefix.
func (o *Objects) List(ctx context.Context, prefix string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
	defer cancel()
	var names []string
	for obj := range o.client.ListObjects(ctx, o.cfg.Bucket, minio.ListObjectsOptions{Prefix: o.cfg.Prefix + prefix, Recursive: true}) {
		if obj.Err != nil {
			return nil, fmt.Errorf("s3share: list %s: %w", prefix, obj.Err)
		}
		names = append(names, strings.TrimPrefix(obj.Key, o.cfg.Prefix))
	}
	return names, nil
}

// Delete removes the object; one already gone is no error.
func (o *Objects) Delete(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
	defer cancel()
	if err := o.client.RemoveObject(ctx, o.cfg.Bucket, o.cfg.Prefix+name, minio.RemoveObjectOptions{}); err != nil && !isNotFound(err) {
		return fmt.Errorf("s3share: delete %s: %w", name, err)
	}
	return nil
}

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

func contentType(name string) string {
	switch {
	case strings.HasSuffix(name, ".gz"):
		return "application/gzip"
	case strings.HasSuffix(name, ".json"):
		return "application/json"
	}
	return "application/octet-stream"
}
