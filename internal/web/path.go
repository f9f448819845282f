package web

import "strings"

// CanonicalPath reports whether p has no empty, "." or ".." segment.
func CanonicalPath(p string) bool {
	if p == "/" {
		return true
	}
	if p == "" || p[0] != '/' {
		return false
	}
	start := 1
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		if seg := p[start:i]; seg == "" || seg == "." || seg == ".." {
			return false
		}
		start = i + 1
	}
	return true
}

// IsHTTPS reports whether callers reach a server at publicURL over https
// (TLS may end at a proxy in front of it).
func IsHTTPS(publicURL string) bool {
	return len(publicURL) >= len("https://") && strings.EqualFold(publicURL[:len("https://")], "https://")
}
