// Package accesslog writes the server's log: the access log's line per
// request, and the buffer that every log line goes through.
//
// It exists because the log is on every request's path. Through slog the
// access line cost a card-detail request a large share of its time (a
// Record with its attributes copied, a caller's program counter, the
// handler's generic formatting), and a write system call per line held the
// answer behind it. New writes the same line, byte for byte what slog's
// text or JSON handler would write (the tests compare the two on arbitrary
// values), straight into a pooled buffer; Buffer batches the lines into
// few writes, made by one goroutine off the requests' path
// (bench/README.md, "The log buffer's flusher").
package accesslog

import (
	"io"
	"log/slog"
	"strconv"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/jsonw"
	"github.com/cardcat/cardcat/internal/web"
)

// New returns the access log: lines in cfg's format written to w, or
// nothing when cfg's level is above info. Without w, nil: httpapi then logs
// through its slog Logger.
func New(cfg config.Log, w io.Writer) func(web.AccessEntry) {
	if w == nil {
		return nil
	}
	if cfg.Level > slog.LevelInfo {
		return func(web.AccessEntry) {}
	}
	l := &writer{w: w, json: cfg.JSON}
	return l.write
}

type writer struct {
	w    io.Writer
	json bool
	bufs sync.Pool // *[]byte
}

func (l *writer) write(e web.AccessEntry) {
	bp, _ := l.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	if l.json {
		*bp = appendJSON((*bp)[:0], &e)
	} else {
		*bp = appendText((*bp)[:0], &e)
	}
	l.w.Write(*bp)
	if cap(*bp) <= 4<<10 {
		l.bufs.Put(bp)
	}
}

// slogTime is the time layout of slog's TextHandler: RFC 3339 with
// milliseconds.
const slogTime = "2006-01-02T15:04:05.000Z07:00"

// appendText appends e as slog.TextHandler writes the Info record
// "request" with e.Attrs.
func appendText(b []byte, e *web.AccessEntry) []byte {
	if !e.Time.IsZero() {
		b = append(b, "time="...)
		b = textStamp.append(b, e.Time) // as AppendFormat(b, slogTime)
		b = append(b, ' ')
	}
	b = append(b, "level=INFO msg=request request_id="...)
	b = appendTextString(b, e.RequestID)
	b = append(b, " method="...)
	b = appendTextString(b, e.Method)
	b = append(b, " path="...)
	b = appendTextString(b, e.Path)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(e.Status), 10)
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, int64(e.Bytes), 10)
	b = append(b, " duration="...)
	b = append(b, e.Duration.String()...)
	b = append(b, " remote="...)
	b = appendTextString(b, e.Remote)
	b = append(b, " account="...)
	b = appendTextString(b, e.Account)
	return append(b, '\n')
}

// appendJSON appends e as slog.JSONHandler writes the Info record
// "request" with e.Attrs (durations in nanoseconds, as slog writes them).
func appendJSON(b []byte, e *web.AccessEntry) []byte {
	b = append(b, '{')
	if !e.Time.IsZero() {
		b = append(b, `"time":"`...)
		b = jsonStamp.append(b, e.Time) // as AppendFormat(b, time.RFC3339Nano): JSONHandler's, unlike TextHandler's
		b = append(b, `",`...)
	}
	b = append(b, `"level":"INFO","msg":"request","request_id":`...)
	b = jsonw.AppendStringSlog(b, e.RequestID)
	b = append(b, `,"method":`...)
	b = jsonw.AppendStringSlog(b, e.Method)
	b = append(b, `,"path":`...)
	b = jsonw.AppendStringSlog(b, e.Path)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(e.Status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, int64(e.Bytes), 10)
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(e.Duration), 10)
	b = append(b, `,"remote":`...)
	b = jsonw.AppendStringSlog(b, e.Remote)
	b = append(b, `,"account":`...)
	b = jsonw.AppendStringSlog(b, e.Account)
	return append(b, "}\n"...)
}

// appendTextString writes s as slog.TextHandler does: as it is, or quoted
// (strconv.Quote) when it is empty or holds a space, '=', a character JSON
// would escape, or a rune that is not printable.
func appendTextString(b []byte, s string) []byte {
	if textNeedsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// textQuoted marks the ASCII bytes that make slog quote a string: one load
// a byte instead of four comparisons (a line's path, id and address are
// scanned for every answer).
var textQuoted = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c != '\\' && (c == ' ' || c == '=' || c == '"' || c < ' ')
	}
	return t
}()

// textNeedsQuoting is slog's rule (log/slog's needsQuoting).
func textNeedsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if textQuoted[c] {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}
