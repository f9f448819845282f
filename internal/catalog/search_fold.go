package catalog

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Folding makes names and queries comparable: lower case, accents removed
// ("É" and "e" are equal), quote characters dropped (so "Doctor's" matches
// "Doctors"), runs of white space turned into one space, surrounding space
// trimmed. Everything else, punctuation included, is kept as it is: "*", "%"
// and "_" are plain text.

// isQuote reports whether r is a quote character that search ignores.
func isQuote(r rune) bool {
	switch r {
	case '"', '\'', '`', '\u2018', '\u2019', '\u201c', '\u201d':
		return true
	}
	return false
}

// latinFold holds the folded form of U+0080..U+024F (Latin-1 and Latin
// Extended A/B), computed once; other runes are folded on the fly.
var latinFold = func() [0x250 - 0x80]string {
	var t [0x250 - 0x80]string
	for r := rune(0x80); r < 0x250; r++ {
		t[r-0x80] = foldRuneSlow(r)
	}
	return t
}()

// special are letters that do not decompose into a base letter and a mark.
var special = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe", 'ø': "o", 'Ø': "o",
	'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d", 'þ': "th", 'Þ': "th", 'ł': "l", 'Ł': "l", 'ı': "i",
	'ħ': "h", 'Ħ': "h", 'ŀ': "l", 'Ŀ': "l",
}

func foldRuneSlow(r rune) string {
	if s, ok := special[r]; ok {
		return s
	}
	if unicode.IsSpace(r) {
		return " "
	}
	if isQuote(r) || unicode.IsControl(r) {
		return ""
	}
	var b strings.Builder
	for _, d := range norm.NFD.String(string(r)) {
		if unicode.Is(unicode.Mn, d) {
			continue
		}
		b.WriteRune(unicode.ToLower(d))
	}
	return b.String()
}

// appendFolded appends the folded form of s to dst.
func appendFolded(dst []byte, s string) []byte {
	start := len(dst)
	space := true // drops leading space and collapses runs
	for i := 0; i < len(s); {
		c := s[i]
		var piece string
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
				if !space {
					dst = append(dst, ' ')
					space = true
				}
				continue
			case c == '"' || c == '\'' || c == '`' || c < 0x20 || c == 0x7f:
				continue
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			space = false
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r < 0x250 {
			piece = latinFold[r-0x80]
		} else {
			piece = foldRuneSlow(r)
		}
		if piece == " " {
			if !space {
				dst = append(dst, ' ')
				space = true
			}
			continue
		}
		if piece != "" {
			dst = append(dst, piece...)
			space = false
		}
	}
	if len(dst) > start && dst[len(dst)-1] == ' ' {
		dst = dst[:len(dst)-1]
	}
	return dst
}

// Fold returns the folded form of s (see the package's search rules).
func Fold(s string) string { return string(appendFolded(nil, s)) }

// StripQuotes removes the quote characters search ignores and trims space;
// a query that is empty afterwards asks for nothing.
func StripQuotes(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if isQuote(r) {
			return -1
		}
		return r
	}, s))
}
