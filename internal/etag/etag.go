// Package etag makes and compares HTTP entity tags (RFC 9110 section 8.8.3):
// the strong tag of an answer's bytes, and the If-None-Match comparison that
// decides a 304.
package etag

import (
	"encoding/binary"
	"encoding/hex"
	"strings"

	"github.com/zeebo/xxh3"
)

// Of returns the strong entity tag of body, quoted: the XXH3 (64-bit, seed 0)
// of its bytes in 16 hex digits. It depends on the bytes alone, so every
// replica, and the same replica after a restart, gives the same tag for the
// same answer. XXH3 rather than a cryptographic hash: a tag only has to tell
// one answer of a URL from the next, and hashing is on every made body's
// path, where it is the fastest of the hashes measured (bench/README.md, the
// ETag section). Card details and set pages have tags the snapshot made
// (catalog.CardTag, SetPageTag).
func Of(body []byte) string { return quote(xxh3.Hash(body)) }

// OfString is Of of a body held in a string, without copying it.
func OfString(body string) string { return quote(xxh3.HashString(body)) }

// SumString is the hash behind OfString(body), for a caller that keeps
// tags as 8 bytes: OfString(body) == FromSum(SumString(body)).
func SumString(body string) uint64 { return xxh3.HashString(body) }

// FromSum is the tag of a body whose SumString is sum.
func FromSum(sum uint64) string { return quote(sum) }

// Len is the length of every tag Of, OfString and FromSum return.
const Len = 18

func quote(sum uint64) string {
	var raw [8]byte
	binary.BigEndian.PutUint64(raw[:], sum)
	var b [Len]byte
	b[0], b[Len-1] = '"', '"'
	hex.Encode(b[1:Len-1], raw[:])
	return string(b[:])
}

// NoneMatch reports whether the If-None-Match field values fields name tag:
// "*", or any member equal to it by weak comparison (W/ ignored on either
// side), as RFC 9110 section 13.1.2 says for If-None-Match. Members are
// separated by commas; a malformed member ends the scan of its field value.
func NoneMatch(fields []string, tag string) bool {
	tag = strings.TrimPrefix(tag, "W/")
	for _, field := range fields {
		s := field
		for {
			s = strings.TrimLeft(s, " \t,")
			if s == "" {
				break
			}
			if s[0] == '*' {
				return true
			}
			member, rest, ok := cutEntityTag(s)
			if !ok {
				break
			}
			if member == tag {
				return true
			}
			s = rest
		}
	}
	return false
}

// cutEntityTag splits the entity-tag at the start of s, returning its opaque
// tag (quotes kept, W/ dropped) and the rest.
func cutEntityTag(s string) (tag, rest string, ok bool) {
	s = strings.TrimPrefix(s, "W/")
	if len(s) < 2 || s[0] != '"' {
		return "", "", false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return s[:i+1], s[i+1:], true
		case c == 0x21 || c >= 0x23 && c != 0x7f: // etagc
		default:
			return "", "", false
		}
	}
	return "", "", false
}
