package account

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Cents is an amount of money in euro cents: every plan is priced in EUR.
type Cents int64

// MaxVoluntary is the most a plan of voluntary payment takes a month: a
// mistyped amount ("500" for "5.00") stops here, and whoever means to pay
// more is better served by Business.
const MaxVoluntary Cents = 1000_00

// ParseEUR reads an amount of euros as a person types it: "5", "5.5",
// "5.50" or "5,50" (a comma is Europe's decimal point), at most two
// decimals, no sign, no thousands separator.
func ParseEUR(s string) (Cents, error) {
	s = strings.TrimSpace(s)
	whole, frac, hasFrac := strings.Cut(strings.Replace(s, ",", ".", 1), ".")
	if whole == "" || len(whole) > 9 || !digits(whole) || hasFrac && (frac == "" || len(frac) > 2 || !digits(frac)) {
		return 0, fmt.Errorf("%q is not an amount of euros (write it like 5 or 4.50)", s)
	}
	euros, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an amount of euros: %w", s, err)
	}
	cents := int64(0)
	if hasFrac {
		cents, _ = strconv.ParseInt((frac + "0")[:2], 10, 64)
	}
	return Cents(euros*100 + cents), nil
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Number is the amount as ParseEUR reads it back: "5", "4.50".
func (c Cents) Number() string {
	if c%100 == 0 {
		return strconv.FormatInt(int64(c/100), 10)
	}
	return fmt.Sprintf("%d.%02d", c/100, c%100)
}

// String is the amount as the plan table writes prices: "5 EUR", "4.50 EUR".
func (c Cents) String() string { return c.Number() + " EUR" }

// ErrBelowMinimum is CheckVoluntary's answer to an amount under the
// operator's minimum.
var ErrBelowMinimum = errors.New("below the minimum")

// CheckVoluntary says what is wrong with amount as a month's voluntary
// payment (Coffee) when the operator asks for at least minimum: an amount
// is at least the minimum and at most MaxVoluntary.
func CheckVoluntary(amount, minimum Cents) error {
	switch {
	case amount < minimum:
		return fmt.Errorf("%w: the least is %s a month", ErrBelowMinimum, minimum)
	case amount > MaxVoluntary:
		return fmt.Errorf("the most is %s a month", MaxVoluntary)
	}
	return nil
}
