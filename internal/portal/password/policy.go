package password

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// MinRunes is the shortest password Check accepts, counted in characters (runes), not bytes.
const MinRunes = 10

// MaxBytes is the longest password Check and Hash accept. argon2 reads the whole password, and a
// login form is open to anyone: a cap bounds the work one request can ask for. 256 bytes leaves
// room for any passphrase a person or a password manager makes.
const MaxBytes = 256

// PolicyError is a password Check refused. Its text is a sentence meant for the person choosing
// the password, so the portal can show it as it is.
type PolicyError string

func (e PolicyError) Error() string { return string(e) }

// The reasons Check gives. Their texts state MinRunes and MaxBytes, which a test keeps in step.
const (
	ErrTooShort  PolicyError = "Use at least 10 characters."
	ErrTooLong   PolicyError = "Use at most 256 characters (fewer if they include accents or emoji)."
	ErrIsEmail   PolicyError = "Don't use your email address, or its part before the @, as your password."
	ErrTooCommon PolicyError = "This password is among the most common ones; choose another."
	ErrBlank     PolicyError = "Don't use only spaces: add letters, digits or symbols."
	ErrRepeated  PolicyError = "Don't use one character over and over; mix several."
)

// Check applies the sign-up policy to password for the account email, returning nil or one of
// the PolicyError values above.
func Check(password, email string) error {
	switch {
	case utf8.RuneCountInString(password) < MinRunes:
		return ErrTooShort
	case len(password) > MaxBytes:
		return ErrTooLong
	case strings.TrimFunc(password, unicode.IsSpace) == "":
		return ErrBlank
	case oneCharacter(password):
		return ErrRepeated
	case isEmail(password, email):
		return ErrIsEmail
	case isCommon(password):
		return ErrTooCommon
	}
	return nil
}

// oneCharacter reports whether s is one character repeated ("aaaaaaaaaa"),
// which the length rule would otherwise let through.
func oneCharacter(s string) bool {
	first, _ := utf8.DecodeRuneInString(s)
	return strings.TrimLeft(s, string(first)) == ""
}

func isEmail(password, email string) bool {
	email = strings.TrimSpace(email)
	if email == "" {
		return false
	}
	local, _, _ := strings.Cut(email, "@")
	return strings.EqualFold(password, email) || (local != "" && strings.EqualFold(password, local))
}

//go:embed common.txt
var commonTxt string

// commonPasswords is the embedded list (README.txt says where it comes from), read once at first
// use so that a process that never checks a password never builds the map.
var commonPasswords = sync.OnceValue(func() map[string]struct{} {
	set := make(map[string]struct{}, strings.Count(commonTxt, "\n"))
	for line := range strings.Lines(commonTxt) {
		if p := strings.TrimRight(line, "\r\n"); p != "" {
			set[p] = struct{}{}
		}
	}
	return set
})

func isCommon(password string) bool {
	_, ok := commonPasswords()[strings.ToLower(password)]
	return ok
}
