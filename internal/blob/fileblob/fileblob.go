// Package fileblob is a blob.Bucket on local disk: one file per object
// under a directory, at the object's name.
//
// A file is a one-line JSON header (format version, content type,
// metadata, body size) followed by the object's bytes, so that the bytes
// and their attributes are replaced together: each file is written by
// blob.WriteFile, and a reader sees the old file or the new one. A file
// whose size disagrees with its header (torn by something else) reads as
// an error, never as an object. The image cache's files of earlier
// versions (images/fsstore) have the same header without metadata: they
// read as their bytes and content type.
//
// Unlike in S3, a name cannot be both an object and a directory of others
// ("a" and "a/b"): a Put of the second fails. cardcat's names never are.
package fileblob

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/cardcat/cardcat/internal/blob"
)

var _ blob.Bucket = (*Bucket)(nil)

// formatVersion is the header version this package writes and reads.
const formatVersion = 1

// maxHeader bounds the header line: the metadata's 2 KiB and the rest.
const maxHeader = 4 << 10

// Bucket is a blob.Bucket in a directory.
type Bucket struct {
	dir string
}

// header is the first line of an object's file.
type header struct {
	Version     int               `json:"v"`
	ContentType string            `json:"content_type"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	Size        int64             `json:"size"`
}

// New returns the Bucket of dir, creating dir if needed.
func New(dir string) (*Bucket, error) {
	if dir == "" {
		return nil, errors.New("fileblob: no directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("fileblob: %w", err)
	}
	return &Bucket{dir: dir}, nil
}

// Dir returns the bucket's directory.
func (b *Bucket) Dir() string { return b.dir }

// String says where the objects are, for logs.
func (b *Bucket) String() string { return "disk " + b.dir }

// path returns the file of an object.
func (b *Bucket) path(name string) (string, error) {
	if err := blob.CheckName(name); err != nil {
		return "", fmt.Errorf("fileblob: %w", err)
	}
	return filepath.Join(b.dir, filepath.FromSlash(name)), nil
}

// Get writes the object's bytes to w and returns its attributes.
func (b *Bucket) Get(ctx context.Context, name string, w io.Writer) (blob.Attrs, error) {
	path, err := b.path(name)
	if err != nil {
		return blob.Attrs{}, err
	}
	if err := ctx.Err(); err != nil {
		return blob.Attrs{}, fmt.Errorf("fileblob: get %s: %w", name, err)
	}
	f, err := os.Open(path)
	if errors.Is(err, syscall.ENOTDIR) {
		err = fs.ErrNotExist // below an object's name: no object
	}
	if err != nil {
		return blob.Attrs{}, fmt.Errorf("fileblob: get %s: %w", name, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.IsDir() {
		// A directory holds objects under its name, as a prefix in S3.
		return blob.Attrs{}, fmt.Errorf("fileblob: get %s: %w", name, fs.ErrNotExist)
	}
	r := bufio.NewReader(f)
	h, err := readHeader(r)
	if err != nil {
		return blob.Attrs{}, fmt.Errorf("fileblob: get %s: %s: %w", name, path, err)
	}
	n, err := io.Copy(ctxWriter{ctx, w}, r)
	if err != nil {
		return blob.Attrs{}, fmt.Errorf("fileblob: get %s: %w", name, err)
	}
	if n != h.Size {
		return blob.Attrs{}, fmt.Errorf("fileblob: get %s: %s: %d bytes, the header says %d", name, path, n, h.Size)
	}
	return blob.Attrs{ContentType: h.ContentType, Metadata: h.Metadata}, nil
}

func readHeader(r *bufio.Reader) (header, error) {
	var h header
	line, err := r.ReadSlice('\n')
	if err != nil {
		return h, errors.New("no header line")
	}
	if err := json.Unmarshal(line, &h); err != nil {
		return h, fmt.Errorf("header: %w", err)
	}
	if h.Version != formatVersion {
		return h, fmt.Errorf("header: format version %d, want %d", h.Version, formatVersion)
	}
	return h, nil
}

// Put stores size bytes of r as the object, with attrs.
func (b *Bucket) Put(ctx context.Context, name string, r io.Reader, size int64, attrs blob.Attrs) error {
	path, err := b.path(name)
	if err != nil {
		return err
	}
	if err := blob.CheckAttrs(attrs); err != nil {
		return fmt.Errorf("fileblob: put %s: %w", name, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("fileblob: put %s: %w", name, err)
	}
	if attrs.ContentType == "" {
		attrs.ContentType = blob.DefaultContentType
	}
	head, err := json.Marshal(header{Version: formatVersion, ContentType: attrs.ContentType, Metadata: attrs.Metadata, Size: size})
	if err != nil {
		return fmt.Errorf("fileblob: put %s: %w", name, err)
	}
	if len(head) >= maxHeader {
		return fmt.Errorf("fileblob: put %s: header of %d bytes is too long", name, len(head))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("fileblob: put %s: %w", name, err)
	}
	err = blob.WriteFile(path, 0o644, func(f *os.File) error {
		w := bufio.NewWriterSize(ctxWriter{ctx, f}, 64<<10)
		w.Write(head)
		w.WriteByte('\n')
		n, err := io.CopyN(w, r, size)
		if err == io.EOF {
			return fmt.Errorf("%d bytes read, %d said: %w", n, size, io.ErrUnexpectedEOF)
		}
		if err != nil {
			return err
		}
		return w.Flush()
	})
	if err != nil {
		return fmt.Errorf("fileblob: put %s: %w", name, err)
	}
	return nil
}

// List returns the names of the objects whose names start with prefix.
func (b *Bucket) List(ctx context.Context, prefix string) ([]string, error) {
	if err := blob.CheckPrefix(prefix); err != nil {
		return nil, fmt.Errorf("fileblob: %w", err)
	}
	// Walk only the directory the prefix is in.
	root := b.dir
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		root = filepath.Join(b.dir, filepath.FromSlash(prefix[:i]))
	}
	var names []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if path == root {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			// Temporary files, and nothing this package wrote.
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(b.dir, path)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if d.IsDir() {
			if !strings.HasPrefix(name+"/", prefix) && !strings.HasPrefix(prefix, name+"/") {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("fileblob: list %s: %w", prefix, err)
	}
	slices.Sort(names)
	return names, nil
}

// Delete removes the object; one already gone is no error. The
// directories it leaves empty stay: removing them would race with a Put
// creating an object in them.
func (b *Bucket) Delete(ctx context.Context, name string) error {
	path, err := b.path(name)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("fileblob: delete %s: %w", name, err)
	}
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		return nil // objects under the name, not one of its own
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("fileblob: delete %s: %w", name, err)
	}
	return nil
}

// ctxWriter fails its writes once ctx ends, so that a long copy stops.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
