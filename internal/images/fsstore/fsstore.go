// Package fsstore keeps images on local disk, one file per image under a
// directory (by default the data directory's images/).
//
// A file is a one-line JSON header (format version, content type, ETag, fetch
// time, body size) followed by the image bytes. It is written to a temporary
// file in the same directory and renamed into place, so a reader sees the old
// file or the new one, never a mix; a torn file (its size disagrees with the
// header) reads as an error, and the next fetch replaces it.
package fsstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cardcat/cardcat/internal/images"
)

var _ images.Storage = (*Store)(nil)

// formatVersion is the header version this package writes and reads.
const formatVersion = 1

// maxHeader bounds the header line.
const maxHeader = 4 << 10

// Store is an images.Storage on local disk.
type Store struct {
	dir string
}

// header is the first line of an image file.
type header struct {
	Version     int       `json:"v"`
	ContentType string    `json:"content_type"`
	ETag        string    `json:"etag"`
	FetchedAt   time.Time `json:"fetched_at"`
	Size        int       `json:"size"`
}

// New returns a Store under dir, creating dir if needed.
func New(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("fsstore: no directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("fsstore: %w", err)
	}
	return &Store{dir: dir}, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// path returns the file of key, refusing any key not made by package images.
func (s *Store) path(key images.Key) (string, error) {
	name := key.String()
	if !key.Valid() || !filepath.IsLocal(name) {
		return "", fmt.Errorf("fsstore: %w: %q", images.ErrInvalidKey, name)
	}
	return filepath.Join(s.dir, filepath.FromSlash(name)), nil
}

// Get reads the image stored under key.
func (s *Store) Get(ctx context.Context, key images.Key) (*images.Image, error) {
	path, err := s.path(key)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("fsstore: get %s: %w", key, err)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("fsstore: get %s: %w", key, images.ErrNotStored)
	}
	if err != nil {
		return nil, fmt.Errorf("fsstore: get %s: %w", key, err)
	}
	img, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("fsstore: get %s: %s: %w", key, path, err)
	}
	return img, nil
}

// Put writes img under key: to a temporary file, then renamed into place.
func (s *Store) Put(ctx context.Context, key images.Key, img *images.Image) (err error) {
	path, err := s.path(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("fsstore: put %s: %w", key, err)
	}
	data, err := encode(img)
	if err != nil {
		return fmt.Errorf("fsstore: put %s: %w", key, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("fsstore: put %s: %w", key, err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("fsstore: put %s: %w", key, err)
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("fsstore: put %s: %w", key, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("fsstore: put %s: %w", key, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("fsstore: put %s: %w", key, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("fsstore: put %s: %w", key, err)
	}
	return nil
}

func encode(img *images.Image) ([]byte, error) {
	head, err := json.Marshal(header{
		Version:     formatVersion,
		ContentType: img.ContentType,
		ETag:        img.ETag,
		FetchedAt:   img.FetchedAt.UTC(),
		Size:        len(img.Body),
	})
	if err != nil {
		return nil, err
	}
	if len(head) >= maxHeader {
		return nil, fmt.Errorf("header of %d bytes is too long", len(head))
	}
	data := make([]byte, 0, len(head)+1+len(img.Body))
	data = append(data, head...)
	data = append(data, '\n')
	return append(data, img.Body...), nil
}

func decode(data []byte) (*images.Image, error) {
	end := bytes.IndexByte(data[:min(len(data), maxHeader)], '\n')
	if end < 0 {
		return nil, errors.New("no header line")
	}
	var h header
	if err := json.Unmarshal(data[:end], &h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if h.Version != formatVersion {
		return nil, fmt.Errorf("header: format version %d, want %d", h.Version, formatVersion)
	}
	body := data[end+1:]
	if len(body) != h.Size {
		return nil, fmt.Errorf("body of %d bytes, header says %d (torn write?)", len(body), h.Size)
	}
	return &images.Image{Body: body, ContentType: h.ContentType, ETag: h.ETag, FetchedAt: h.FetchedAt}, nil
}
