package password

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	const email = "Ada.Lovelace@example.com"
	for _, tc := range []struct {
		name, password, email string
		want                  error
	}{
		{"fine", "plum tractor velvet", email, nil},
		{"fine at exactly 10 characters", "zq8!vx3#mw", email, nil},
		{"9 characters", "zq8!vx3#m", email, ErrTooShort},
		{"empty", "", email, ErrTooShort},
		{"10 bytes but 5 characters", "éééèè", email, ErrTooShort},
		{"10 characters of 2 bytes", "éàüöñçøåßœ", email, nil},
		{"256 bytes", strings.Repeat("ab", MaxBytes/2), email, nil},
		{"257 bytes", strings.Repeat("ab", MaxBytes/2) + "c", email, ErrTooLong},
		{"129 characters of 2 bytes", strings.Repeat("é", MaxBytes/2+1), email, ErrTooLong},
		{"the email", email, email, ErrIsEmail},
		{"the email in other case", "ada.lovelace@EXAMPLE.COM", email, ErrIsEmail},
		{"the local part", "ada.lovelace", email, ErrIsEmail},
		{"the local part of a padded email", "ada.lovelace", "  " + email + " ", ErrIsEmail},
		{"the local part and more", "ada.lovelace!", email, nil},
		{"no email given", "ada.lovelace", "", nil},
		{"common", "1234567890", email, ErrTooCommon},
		{"common in other case", "QwertyUiop", email, ErrTooCommon},
		{"common, near the list's end", "mailcreated5240", email, ErrTooCommon},
		{"common plus a character", "qwertyuiop!", email, nil},
		{"ten spaces", strings.Repeat(" ", 10), email, ErrBlank},
		{"white space of several kinds", " \t \t\u00a0\u3000 \n \r ", email, ErrBlank},
		{"spaces around a word", "   plum    ", email, nil},
		{"one letter ten times", "aaaaaaaaaa", email, ErrRepeated},
		{"one letter in other cases", "aAaAaAaAaA", email, nil},
		{"one accented letter", strings.Repeat("é", 12), email, ErrRepeated},
		{"one symbol", strings.Repeat("!", 30), email, ErrRepeated},
		{"one letter and another", "aaaaaaaaab", email, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := Check(tc.password, tc.email); err != tc.want {
				t.Errorf("Check = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestPolicyErrorsAreUsable(t *testing.T) {
	var pe PolicyError
	if err := Check("short", ""); !errors.As(err, &pe) || pe != ErrTooShort {
		t.Errorf("errors.As(Check(short), *PolicyError) = %v, %q", errors.As(err, &pe), pe)
	}
	// The sentences are constants: they must state the limits the code applies.
	if !strings.Contains(ErrTooShort.Error(), strconv.Itoa(MinRunes)) {
		t.Errorf("ErrTooShort %q does not say %d", ErrTooShort, MinRunes)
	}
	if !strings.Contains(ErrTooLong.Error(), strconv.Itoa(MaxBytes)) {
		t.Errorf("ErrTooLong %q does not say %d", ErrTooLong, MaxBytes)
	}
}

func TestCommonList(t *testing.T) {
	list := commonPasswords()
	if len(list) < 10_000 {
		t.Fatalf("the common-password list has %d entries, want at least 10,000", len(list))
	}
	long := 0
	for p := range list {
		if p != strings.ToLower(p) || strings.TrimSpace(p) != p || p == "" {
			t.Fatalf("the list holds %q: entries must be lower-case and trimmed", p)
		}
		if len([]rune(p)) >= MinRunes {
			long++
		}
	}
	// Only these can reach the list check once the length rule has passed.
	if long < 1_000 {
		t.Errorf("the list has %d entries of %d characters or more, want at least 1,000", long, MinRunes)
	}
	for _, p := range []string{"password", "123456", "qwertyuiop", "1q2w3e4r5t"} {
		if _, ok := list[p]; !ok {
			t.Errorf("the list lacks %q", p)
		}
	}
}
