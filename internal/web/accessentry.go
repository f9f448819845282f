package web

import (
	"log/slog"
	"time"
)

// AccessEntry is the access log's line of one request.
type AccessEntry struct {
	Time      time.Time // when the answer was done
	RequestID string
	Method    string
	Path      string // the request target as the client sent it, query included, credentials redacted (RedactTarget)
	Status    int
	Bytes     int // of the body
	Duration  time.Duration
	Remote    string // the peer's address
	Account   string // the caller's account when it sent a valid key, else ""
}

// Attrs are the entry's fields as slog attributes, in the line's order,
// with duration d.
func (e *AccessEntry) Attrs(d time.Duration) []slog.Attr {
	return []slog.Attr{
		slog.String("request_id", e.RequestID),
		slog.String("method", e.Method),
		slog.String("path", e.Path),
		slog.Int("status", e.Status),
		slog.Int("bytes", e.Bytes),
		slog.Duration("duration", d),
		slog.String("remote", e.Remote),
		slog.String("account", e.Account),
	}
}
