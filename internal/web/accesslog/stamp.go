package accesslog

import (
	"sync/atomic"
	"time"
)

// stamp appends a line's time as time.Time.AppendFormat does with slog's
// layouts, the part down to the second formatted once per second and shared
// by that second's lines: a layout's formatting was a third of the line's
// cost (bench/README.md, "The access log's time").
type stamp struct {
	nanos bool // RFC 3339 with nanoseconds, trailing zeros trimmed (JSON); else milliseconds (text)
	last  atomic.Pointer[stampSecond]
}

// stampSecond is one second's formatted parts, in one location.
type stampSecond struct {
	unix       int64
	loc        *time.Location
	date, zone string // "2006-01-02T15:04:05" and "Z07:00"
}

var (
	textStamp = &stamp{}            // slogTime: "2006-01-02T15:04:05.000Z07:00"
	jsonStamp = &stamp{nanos: true} // time.RFC3339Nano
)

func (s *stamp) append(b []byte, t time.Time) []byte {
	sec := s.last.Load()
	if sec == nil || sec.unix != t.Unix() || sec.loc != t.Location() {
		sec = &stampSecond{unix: t.Unix(), loc: t.Location(), date: t.Format("2006-01-02T15:04:05"), zone: t.Format("Z07:00")}
		s.last.Store(sec)
	}
	b = append(b, sec.date...)
	ns := t.Nanosecond()
	if !s.nanos {
		ms := ns / 1e6
		b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	} else if ns != 0 {
		var d [10]byte
		d[0] = '.'
		for i := 9; i >= 1; i-- {
			d[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for d[n-1] == '0' {
			n--
		}
		b = append(b, d[:n]...)
	}
	return append(b, sec.zone...)
}
