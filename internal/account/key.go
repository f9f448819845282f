package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
	"unicode/utf8"
)

// The key format (SPEC.md, "Authentication"): pk_live_ or pk_test_, then 32
// characters [A-Za-z0-9].
const (
	livePrefix = "pk_live_"
	testPrefix = "pk_test_"
	keyBody    = 32
	alphabet   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	// displayLen is how much of a key listings and logs show: its kind and 4
	// characters ("pk_live_ab12").
	displayLen = len(livePrefix) + 4
)

// WellFormed reports whether s has a key's form. Checked before any lookup.
func WellFormed(s string) bool {
	if len(s) != len(livePrefix)+keyBody || (s[:len(livePrefix)] != livePrefix && s[:len(testPrefix)] != testPrefix) {
		return false
	}
	for i := len(livePrefix); i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// NewKey returns a fresh key from the system's cryptographic random source.
func NewKey(test bool) (string, error) {
	prefix := livePrefix
	if test {
		prefix = testPrefix
	}
	b := make([]byte, keyBody)
	// Rejection sampling keeps every character uniformly likely.
	buf := make([]byte, 64)
	for n := 0; n < keyBody; {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("account: random source: %w", err)
		}
		for _, v := range buf {
			if n == keyBody {
				break
			}
			if int(v) < 256-256%len(alphabet) {
				b[n] = alphabet[int(v)%len(alphabet)]
				n++
			}
		}
	}
	return prefix + string(b), nil
}

// HashKey is the stored form of a key. Keys carry 190 bits of randomness, so a
// fast hash is enough: nothing can be guessed from it.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// DisplayPrefix is the part of a well-formed key shown in listings and logs.
func DisplayPrefix(key string) string { return key[:displayLen] }

// MaxKeyName is the longest key name, in characters.
const MaxKeyName = 64

// CheckKeyName says what is wrong with a key's name, the label its owner
// tells it from the account's others by: more than MaxKeyName characters,
// or not UTF-8. "" passes (keys made before names existed have it); the
// portal asks for a name all the same.
func CheckKeyName(name string) error {
	if utf8.RuneCountInString(name) > MaxKeyName || !utf8.ValidString(name) {
		return fmt.Errorf("at most %d characters of UTF-8", MaxKeyName)
	}
	return nil
}

// IssueKey makes a new key for the account, named name (CheckKeyName), and
// stores only its hash; the key itself is returned to be shown once. The
// store refuses it with ErrTooManyKeys when the account holds
// MaxActiveKeys already.
func IssueKey(ctx context.Context, st Store, accountID int64, test bool, name string, now time.Time) (string, *Key, error) {
	if err := CheckKeyName(name); err != nil {
		return "", nil, fmt.Errorf("account: key name: %w", err)
	}
	key, err := NewKey(test)
	if err != nil {
		return "", nil, err
	}
	k := &Key{AccountID: accountID, Hash: HashKey(key), Prefix: DisplayPrefix(key), Test: test, CreatedAt: now, Name: name}
	if err := st.CreateKey(ctx, k); err != nil {
		return "", nil, err
	}
	return key, k, nil
}
