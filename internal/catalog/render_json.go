package catalog

import (
	"github.com/cardcat/cardcat/internal/jsonw"
	"strconv"
	"time"
)

// The snapshot renders its JSON by appending to byte slices rather than
// through encoding/json: it renders every card of a million-card catalogue
// once per version, and the output must be byte-for-byte what encoding/json
// would write for the same value (HTML-safe escaping included), so that the
// pre-rendered parts and the envelopes httpapi marshals look alike.

// appendNullableString appends s, or null when s is "" (the model's null).
func appendNullableString(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return jsonw.AppendString(b, s)
}

// appendKey appends "key": after a comma unless first.
func appendKey(b []byte, key string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// appendTime appends an RFC 3339 timestamp with its offset, or null for the zero time.
func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339)
	return append(b, '"')
}

func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }
