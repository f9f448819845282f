package s3store

import "github.com/cardcat/cardcat/internal/blob/s3blob"

// Config is the one S3 configuration of cardcat, s3blob's.
type Config = s3blob.Config

// DefaultTimeout is Config.Timeout when it is zero.
const DefaultTimeout = s3blob.DefaultTimeout

// safeName reports whether s has only characters that need no escaping in a
// URL path.
func safeName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
