package web

import "strings"

// redacted replaces a credential in a logged request target.
const redacted = "REDACTED"

// RedactTarget hides the credentials a client put in a request target, for
// the logs. The API reads keys from headers only, but a caller who sends one
// as ?api_key= would otherwise have it written to the access log: the value
// of every key-like query parameter (keyLikeParam) is replaced, and so is
// every key-shaped token (pk_live_ or pk_test_ and the letters and digits
// after it) anywhere in the target, path included. A target with nothing to
// hide, nearly every one, is returned as it is, without allocating.
func RedactTarget(t string) string {
	rd := redactor{t: t}
	path, query := t, ""
	if i := strings.IndexByte(t, '?'); i >= 0 {
		path, query = t[:i], t[i+1:]
	}
	rd.keyShaped(0, len(path))
	for start := len(path) + 1; query != ""; {
		end := 0
		for end < len(query) && query[end] != '&' && query[end] != ';' {
			end++
		}
		param := query[:end]
		query = query[min(end+1, len(query)):]
		name, value, hasValue := strings.Cut(param, "=")
		if hasValue && value != "" && keyLikeParam(name) {
			rd.cut(start+len(name)+1, start+len(param))
		} else {
			rd.keyShaped(start, start+len(param))
		}
		start += len(param) + 1
	}
	return rd.result()
}

// redactor copies a target with spans cut out, from left to right; it
// allocates only at the first cut.
type redactor struct {
	t    string
	b    []byte
	done int // t[:done] is in b
}

// cut replaces t[from:to] with redacted.
func (rd *redactor) cut(from, to int) {
	if rd.b == nil {
		rd.b = make([]byte, 0, len(rd.t)+len(redacted))
	}
	rd.b = append(append(rd.b, rd.t[rd.done:from]...), redacted...)
	rd.done = to
}

// keyShaped cuts the key-shaped tokens of t[from:to].
func (rd *redactor) keyShaped(from, to int) {
	for i := from; i+len("pk_live_") <= to; i++ {
		// To the next p or P (IndexByte's vector loop rather than a byte at
		// a time: every request's target is scanned, and most have none).
		i = nextP(rd.t[:to], i)
		if i+len("pk_live_") > to {
			return
		}
		n := keyPrefixLen(rd.t[i:to])
		if n == 0 {
			continue
		}
		end := i + n
		for end < to && isAlnum(rd.t[end]) {
			end++
		}
		if end > i+n {
			rd.cut(i, end)
		}
		i = end - 1
	}
}

func (rd *redactor) result() string {
	if rd.b == nil {
		return rd.t
	}
	return string(append(rd.b, rd.t[rd.done:]...))
}

// keyPrefixLen is the length of the key prefix s starts with (pk_live_ or
// pk_test_, in any case, an underscore possibly written %5F), 0 when none.
func keyPrefixLen(s string) int {
	if len(s) < 2 || !strings.EqualFold(s[:2], "pk") {
		return 0
	}
	n := underscoreEnd(s, 2)
	if n == 0 || len(s) < n+4 || !strings.EqualFold(s[n:n+4], "live") && !strings.EqualFold(s[n:n+4], "test") {
		return 0
	}
	return underscoreEnd(s, n+4)
}

// underscoreEnd is where the underscore at s[i:], "_" or "%5F", ends; 0 when
// s[i:] starts with neither.
func underscoreEnd(s string, i int) int {
	switch {
	case strings.HasPrefix(s[i:], "_"):
		return i + 1
	case len(s) >= i+3 && strings.EqualFold(s[i:i+3], "%5f"):
		return i + 3
	}
	return 0
}

// keyLikeParam reports whether a query parameter's name says its value is a
// credential: key, or a name ending in apikey, token, secret or password,
// compared in any case, without - and _, percent-escapes decoded (api_key,
// API-Key, x-api-key, access_token, client_secret, ...).
func keyLikeParam(name string) bool {
	// The name is read from its end: only its last 8 bytes as compared, and
	// whether there is more, decide.
	var tail [8]byte
	n := 0 // bytes of tail filled, from its end
	for i := len(name) - 1; i >= 0 && n <= len(tail); i-- {
		c := name[i]
		if i >= 2 && name[i-2] == '%' && isHex(name[i-1]) && isHex(c) {
			c = unhex(name[i-1])<<4 | unhex(c)
			i -= 2
		}
		switch {
		case c == '-' || c == '_':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		n++
		if n <= len(tail) {
			tail[len(tail)-n] = c
		}
	}
	s := tail[len(tail)-min(n, len(tail)):]
	if n == 3 && string(s) == "key" {
		return true
	}
	for _, suffix := range [...]string{"apikey", "token", "secret", "password"} {
		if len(s) >= len(suffix) && string(s[len(s)-len(suffix):]) == suffix {
			return true
		}
	}
	return false
}

func isAlnum(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' }

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f' }

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return (c | 0x20) - 'a' + 10
}

// nextP is the index of the first p or P in s[i:], len(s) when none.
func nextP(s string, i int) int {
	n := len(s)
	if j := strings.IndexByte(s[i:n], 'p'); j >= 0 {
		n = i + j
	}
	if j := strings.IndexByte(s[i:n], 'P'); j >= 0 {
		n = i + j
	}
	return n
}
