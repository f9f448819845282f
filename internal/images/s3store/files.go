package s3store

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/minio/minio-go/v7"
)

// Files: the bucket also shares large files between replicas that are not
// images (the serving snapshot's artifacts, internal/serving.Remote), under
// the same prefix and credentials. Their calls are bounded by the caller's
// context, not Config.Timeout: a file can be gigabytes.

// PutFile writes the file at path as the object name (minio-go uploads a
// large one in parts; the object appears whole when the upload completes).
func (s *Store) PutFile(ctx context.Context, name, path string) error {
	obj, err := s.fileObject(name)
	if err != nil {
		return err
	}
	if _, err := s.client.FPutObject(ctx, s.cfg.Bucket, obj, path, minio.PutObjectOptions{ContentType: "application/octet-stream"}); err != nil {
		return fmt.Errorf("s3store: put %s: %w", obj, err)
	}
	return nil
}

// GetFile writes the object name into the file at path (created or
// truncated); an error wrapping fs.ErrNotExist when there is no such object.
func (s *Store) GetFile(ctx context.Context, name, path string) error {
	obj, err := s.fileObject(name)
	if err != nil {
		return err
	}
	body, _, _, err := minio.Core{Client: s.client}.GetObject(ctx, s.cfg.Bucket, obj, minio.GetObjectOptions{})
	if err != nil {
		if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
			return fmt.Errorf("s3store: get %s: %w", obj, fs.ErrNotExist)
		}
		return fmt.Errorf("s3store: get %s: %w", obj, err)
	}
	defer body.Close()
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("s3store: get %s: %w", obj, err)
	}
	if _, err := io.Copy(f, body); err != nil {
		f.Close()
		return fmt.Errorf("s3store: get %s: %w", obj, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("s3store: get %s: %w", obj, err)
	}
	return nil
}

// ListFiles returns the names (without the store's prefix) of the objects
// whose names start with prefix.
func (s *Store) ListFiles(ctx context.Context, prefix string) ([]string, error) {
	full, err := s.fileObject(prefix)
	if err != nil {
		return nil, err
	}
	var names []string
	for o := range s.client.ListObjects(ctx, s.cfg.Bucket, minio.ListObjectsOptions{Prefix: full, Recursive: true}) {
		if o.Err != nil {
			return nil, fmt.Errorf("s3store: list %s: %w", full, o.Err)
		}
		names = append(names, strings.TrimPrefix(o.Key, s.cfg.Prefix))
	}
	return names, nil
}

// RemoveFile deletes the object name (no error when there is none).
func (s *Store) RemoveFile(ctx context.Context, name string) error {
	obj, err := s.fileObject(name)
	if err != nil {
		return err
	}
	if err := s.client.RemoveObject(ctx, s.cfg.Bucket, obj, minio.RemoveObjectOptions{}); err != nil {
		return fmt.Errorf("s3store: remove %s: %w", obj, err)
	}
	return nil
}

// fileObject is the object of a file's name, refusing names that could
// leave the prefix; a trailing "/" is allowed (ListFiles' prefixes).
func (s *Store) fileObject(name string) (string, error) {
	parts := strings.Split(strings.TrimSuffix(name, "/"), "/")
	for _, part := range parts {
		if part == "" || part == "." || part == ".." || !safeName(part) {
			return "", fmt.Errorf("s3store: file name %q refused", name)
		}
	}
	return s.cfg.Prefix + name, nil
}
