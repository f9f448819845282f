package web

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync/atomic"
)

// RequestIDs makes request ids: a random prefix per process and a counter,
// unique without a system call per request.
type RequestIDs struct {
	prefix string
	n      atomic.Uint64
}

func NewRequestIDs() *RequestIDs {
	var b [4]byte
	rand.Read(b[:])
	return &RequestIDs{prefix: hex.EncodeToString(b[:]) + "-"}
}

func (g *RequestIDs) Next() string {
	var b [32]byte
	return string(strconv.AppendUint(append(b[:0], g.prefix...), g.n.Add(1), 16))
}

// ValidRequestID accepts a caller's X-Request-Id that is short and plain.
func ValidRequestID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
