// Package fold folds text for comparison: case and accents removed, and, for
// linking, punctuation removed too.
package fold

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Lower returns s in lower case with accents (combining marks) removed:
// "Éowyn" → "eowyn".
func Lower(s string) string {
	if isASCIILower(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func isASCIILower(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}

// isApostrophe reports characters that join a word rather than separate words.
func isApostrophe(r rune) bool {
	switch r {
	case '\'', '’', '‘', '`', '´':
		return true
	}
	return false
}

// Key is the linking key of a product name: folded with Lower, apostrophes
// dropped ("Saiyan's" = "Saiyans"), every other run of non-letters and
// non-digits one space, trimmed. "Son Goku - FB01-139" → "son goku fb01 139".
func Key(s string) string {
	s = Lower(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case isApostrophe(r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		default:
			space = true
		}
	}
	return b.String()
}

// Clean is TCGplayer's cleanName rule for names that have none: punctuation
// removed (apostrophes join, other punctuation separates), spaces collapsed,
// case and accents kept. "The Doctor's Tomb" → "The Doctors Tomb".
func Clean(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case isApostrophe(r):
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		default:
			space = true
		}
	}
	return b.String()
}
