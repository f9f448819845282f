package analytics

import (
	"github.com/cardcat/cardcat/internal/jsonw"
	"math/bits"
	"strconv"

	"github.com/cardcat/cardcat/internal/catalog"
)

// Every amount here is integer cents (catalog.Money). Sums are exact int64
// sums; a mean or a percentage is one integer division of exact sums,
// rounded half away from zero by divRound, so nothing drifts.

// divRound returns n/d rounded to the nearest integer, halves away from zero.
// d must be positive.
func divRound(n, d int64) int64 {
	q, r := n/d, n%d
	if r < 0 {
		r = -r
	}
	if r >= d-r { // 2r >= d without overflow
		if n < 0 {
			q--
		} else {
			q++
		}
	}
	return q
}

// meanCents is the mean of n amounts whose sum is sum, rounded once to cents.
func meanCents(sum int64, n int) catalog.Money {
	if n == 0 {
		return catalog.Money{}
	}
	return catalog.Cents(divRound(sum, int64(n)))
}

// changeTenths is (now - before) / before in tenths of a percent, rounded
// once: the percentage with one decimal, as an integer. before must be positive.
func changeTenths(now, before int64) int64 {
	return divRound(1000*(now-before), before)
}

// appendPercent appends a signed percentage with one decimal from tenths of a
// percent: 123 -> "+12.3%", -40 -> "-4.0%", 0 -> "+0.0%". A change that
// rounds to zero is "+0.0%", never "-0.0%".
func appendPercent(b []byte, tenths int64) []byte {
	b = append(b, '"')
	if tenths < 0 {
		b = append(b, '-')
		tenths = -tenths
	} else {
		b = append(b, '+')
	}
	b = strconv.AppendInt(b, tenths/10, 10)
	b = append(b, '.', byte('0'+tenths%10), '%', '"')
	return b
}

// appendDecimalString appends an amount as a JSON string with exactly two
// decimals ("12.50", "0.03"), or null.
func appendDecimalString(b []byte, m catalog.Money) []byte {
	if !m.OK {
		return append(b, "null"...)
	}
	c := m.Cents
	b = append(b, '"')
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	frac := c % 100
	b = append(b, '.', byte('0'+frac/10), byte('0'+frac%10), '"')
	return b
}

// appendNullableString appends s as a JSON string, or null when s is "" (the
// model's null).
func appendNullableString(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return jsonw.AppendString(b, s)
}

func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// cmpRatio compares n1/d1 with n2/d2 exactly (d1, d2 > 0): the cross
// products are taken in 128 bits, so no amount can overflow them.
func cmpRatio(n1, d1, n2, d2 int64) int {
	h1, l1 := mul128(n1, d2)
	h2, l2 := mul128(n2, d1)
	switch {
	case h1 != h2:
		if h1 < h2 {
			return -1
		}
		return 1
	case l1 != l2:
		if l1 < l2 {
			return -1
		}
		return 1
	}
	return 0
}

// mul128 returns a*b as a two's-complement 128-bit integer.
func mul128(a, b int64) (hi int64, lo uint64) {
	ua, ub := uint64(a), uint64(b)
	if a < 0 {
		ua = -ua
	}
	if b < 0 {
		ub = -ub
	}
	h, l := bits.Mul64(ua, ub)
	if (a < 0) != (b < 0) {
		l = ^l + 1
		h = ^h
		if l == 0 {
			h++
		}
	}
	return int64(h), l
}

// exactCents bounds the amounts appendMoney writes from the integer: below
// it, a float64 holds cents/100 closely enough that its shortest decimal is
// the exact one, so both ways give the same text.
const exactCents = 1e12

// appendMoney appends an amount exactly as catalog.Money.AppendJSON does
// ("12.5", "0.03", "5", null), from the integer cents rather than through
// float formatting: the bodies hold millions of amounts.
func appendMoney(b []byte, m catalog.Money) []byte {
	c := m.Cents
	if !m.OK || c >= exactCents || c <= -exactCents {
		return m.AppendJSON(b)
	}
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	switch frac := c % 100; {
	case frac == 0:
	case frac%10 == 0:
		b = append(b, '.', byte('0'+frac/10))
	default:
		b = append(b, '.', byte('0'+frac/10), byte('0'+frac%10))
	}
	return b
}
