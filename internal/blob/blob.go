// Package blob is cardcat's one store of files that are not rows: named
// objects of bytes, each with a content type and a few metadata strings,
// kept on local disk (fileblob) or in S3-compatible object storage (s3blob).
// The image cache (internal/images), the bulk files the replicas share
// (internal/bulk) and the snapshot artifacts (internal/serving) keep their
// objects in a Bucket; every driver passes blobtest.Run.
//
// WriteFile (atomic.go) is the one way cardcat replaces a file on disk.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Bucket keeps objects by name. Its methods are safe for concurrent use, by
// this process and by others on the same directory or bucket.
type Bucket interface {
	// Get writes the object's bytes to w and returns its attributes, both of
	// one version of the object even while another process replaces it. An
	// object that is not there is an error wrapping fs.ErrNotExist. When w
	// fails, or the transfer does, some bytes may have been written.
	Get(ctx context.Context, name string, w io.Writer) (Attrs, error)
	// Put stores size bytes read from r as the object, with attrs,
	// replacing any: a reader sees the old object or the new one, whole.
	// An r that ends before size bytes is an error, and stores nothing.
	Put(ctx context.Context, name string, r io.Reader, size int64, attrs Attrs) error
	// List returns the names of the objects whose names start with prefix,
	// in byte order.
	List(ctx context.Context, prefix string) ([]string, error)
	// Delete removes the object; one already gone is no error.
	Delete(ctx context.Context, name string) error
}

// Attrs are what a Bucket keeps of an object beside its bytes.
type Attrs struct {
	// ContentType is the object's media type; DefaultContentType when
	// empty.
	ContentType string
	// Metadata are the caller's own strings (S3's x-amz-meta-*): names of
	// lowercase letters, digits and '-'; values of printable ASCII without
	// leading or trailing spaces; MaxMetadata bytes of names and values in
	// all, as S3 allows.
	Metadata map[string]string
}

// DefaultContentType is the content type of an object put without one.
const DefaultContentType = "application/octet-stream"

// MaxMetadata bounds the bytes of an object's metadata names and values.
const MaxMetadata = 2 << 10

// ErrInvalidName is wrapped by the errors of a name or prefix that
// CheckName or CheckPrefix refuses.
var ErrInvalidName = errors.New("blob: invalid name")

// ErrInvalidAttrs is wrapped by the errors of Attrs that CheckAttrs refuses.
var ErrInvalidAttrs = errors.New("blob: invalid attributes")

// MaxName bounds a name's length (S3's limit on a key is 1024 bytes; the
// prefix of s3blob's config takes its share).
const MaxName = 512

// CheckName reports whether name may name an object: slash-separated parts,
// each of ASCII letters, digits, '-', '_' and '.', none empty nor starting
// with '.' (so no "." or ".." to escape a directory with, and never the
// name of a temporary file of WriteFile). Names need no escaping in a URL
// path nor on any file system.
func CheckName(name string) error {
	if name == "" || len(name) > MaxName {
		return fmt.Errorf("%w: %q: want 1 to %d bytes", ErrInvalidName, name, MaxName)
	}
	for part := range strings.SplitSeq(name, "/") {
		if part == "" || part[0] == '.' || !safe(part) {
			return fmt.Errorf("%w: %q: want slash-separated parts of letters, digits, '-', '_' and '.', none empty or starting with '.'", ErrInvalidName, name)
		}
	}
	return nil
}

// CheckPrefix reports whether prefix may start the names List returns:
// empty (every object), or the start of a name that CheckName accepts
// ("bulk/", "snapshots/4").
func CheckPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if err := CheckName(prefix + "x"); err != nil {
		return fmt.Errorf("%w: prefix %q", ErrInvalidName, prefix)
	}
	return nil
}

// CheckAttrs reports whether a's metadata may be stored (see Attrs).
func CheckAttrs(a Attrs) error {
	total := 0
	for k, v := range a.Metadata {
		total += len(k) + len(v)
		if k == "" || strings.TrimLeft(k, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return fmt.Errorf("%w: metadata name %q: want lowercase letters, digits and '-'", ErrInvalidAttrs, k)
		}
		if strings.TrimSpace(v) != v || strings.IndexFunc(v, func(r rune) bool { return r < ' ' || r > '~' }) >= 0 {
			return fmt.Errorf("%w: metadata %s=%q: want printable ASCII without leading or trailing spaces", ErrInvalidAttrs, k, v)
		}
	}
	if total > MaxMetadata {
		return fmt.Errorf("%w: %d bytes of metadata, at most %d", ErrInvalidAttrs, total, MaxMetadata)
	}
	if strings.IndexFunc(a.ContentType, func(r rune) bool { return r < ' ' || r > '~' }) >= 0 {
		return fmt.Errorf("%w: content type %q", ErrInvalidAttrs, a.ContentType)
	}
	return nil
}

// safe reports whether s has only letters, digits, '-', '_' and '.'.
func safe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
