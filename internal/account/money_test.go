package account

import (
	"errors"
	"strings"
	"testing"
)

func TestParseEUR(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Cents
		ok   bool
	}{
		{"5", 500, true},
		{" 5 ", 500, true},
		{"5.5", 550, true},
		{"5.50", 550, true},
		{"5,50", 550, true},
		{"0.50", 50, true},
		{"0", 0, true},
		{"1000", 1000_00, true},
		{"", 0, false},
		{"5.", 0, false},
		{".50", 0, false},
		{"5.505", 0, false},
		{"-5", 0, false},
		{"+5", 0, false},
		{"1,000.00", 0, false},
		{"5 EUR", 0, false},
		{"€5", 0, false},
		{"1e3", 0, false},
		{"9999999999", 0, false},
		{"５", 0, false}, // a full-width digit
	} {
		got, err := ParseEUR(tt.in)
		if tt.ok && (err != nil || got != tt.want) || !tt.ok && err == nil {
			t.Errorf("ParseEUR(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
		if !tt.ok && err != nil && !strings.Contains(err.Error(), "like 5 or 4.50") && !strings.Contains(err.Error(), "not an amount") {
			t.Errorf("ParseEUR(%q): %v does not say how to write an amount", tt.in, err)
		}
	}
}

func TestCentsText(t *testing.T) {
	for c, want := range map[Cents]string{0: "0 EUR", 300: "3 EUR", 350: "3.50 EUR", 5: "0.05 EUR", 1000_00: "1000 EUR"} {
		if got := c.String(); got != want {
			t.Errorf("Cents(%d).String() = %q, want %q", c, got, want)
		}
		if back, err := ParseEUR(c.Number()); err != nil || back != c {
			t.Errorf("ParseEUR(%q) = %d, %v; want %d back", c.Number(), back, err, c)
		}
	}
}

func TestCheckVoluntary(t *testing.T) {
	for _, tt := range []struct {
		amount, minimum Cents
		want            string // in the error; "" for none
	}{
		{300, 300, ""},
		{301, 300, ""},
		{MaxVoluntary, 300, ""},
		{299, 300, "the least is 3 EUR a month"},
		{0, 250, "the least is 2.50 EUR a month"},
		{MaxVoluntary + 1, 300, "the most is 1000 EUR a month"},
	} {
		err := CheckVoluntary(tt.amount, tt.minimum)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("CheckVoluntary(%d, %d) = %v, want %q", tt.amount, tt.minimum, err, tt.want)
		}
		if below := tt.amount < tt.minimum; errors.Is(err, ErrBelowMinimum) != below {
			t.Errorf("CheckVoluntary(%d, %d) = %v: ErrBelowMinimum %v, want %v", tt.amount, tt.minimum, err, !below, below)
		}
	}
}
