package analytics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
)

func TestDivRound(t *testing.T) {
	tests := []struct{ n, d, want int64 }{
		{0, 3, 0},
		{88, 3, 29},     // 29.33
		{665, 3, 222},   // 221.67
		{1865, 4, 466},  // 466.25
		{191, 2, 96},    // 95.5: half away from zero
		{-191, 2, -96},  // -95.5
		{1375, 10, 138}, // 137.5
		{-1375, 10, -138},
		{-1374, 10, -137},
		{5, 10, 1},
		{-5, 10, -1},
		{4, 10, 0},
		{-4, 10, 0},
		{math.MaxInt64, math.MaxInt64, 1},
		{math.MaxInt64, 2, math.MaxInt64/2 + 1},
	}
	for _, tt := range tests {
		if got := divRound(tt.n, tt.d); got != tt.want {
			t.Errorf("divRound(%d, %d) = %d, want %d", tt.n, tt.d, got, tt.want)
		}
	}
}

func TestChangeAndPercent(t *testing.T) {
	tests := []struct {
		now, before int64
		want        string
	}{
		{1820, 1600, `"+13.8%"`}, // 13.75
		{191, 200, `"-4.5%"`},
		{100, 100, `"+0.0%"`},
		{99999, 100000, `"+0.0%"`},  // -0.001%: rounds to zero, no "-0.0%"
		{99950, 100000, `"-0.1%"`},  // -0.05%: half away from zero
		{100050, 100000, `"+0.1%"`}, // +0.05%
		{300, 100, `"+200.0%"`},
		{0, 100, `"-100.0%"`},
		{1234, 1000, `"+23.4%"`},
	}
	for _, tt := range tests {
		if got := string(appendPercent(nil, changeTenths(tt.now, tt.before))); got != tt.want {
			t.Errorf("change %d against %d = %s, want %s", tt.now, tt.before, got, tt.want)
		}
	}
}

func TestAppendDecimalString(t *testing.T) {
	tests := []struct {
		m    catalog.Money
		want string
	}{
		{catalog.Cents(29), `"0.29"`},
		{catalog.Cents(510), `"5.10"`},
		{catalog.Cents(1000), `"10.00"`},
		{catalog.Cents(3), `"0.03"`},
		{catalog.Cents(0), `"0.00"`},
		{catalog.Cents(-250), `"-2.50"`},
		{catalog.Cents(123456789), `"1234567.89"`},
		{catalog.Money{}, `null`},
	}
	for _, tt := range tests {
		if got := string(appendDecimalString(nil, tt.m)); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.m, got, tt.want)
		}
	}
}

func TestCmpRatio(t *testing.T) {
	big := int64(math.MaxInt64 / 3)
	tests := []struct {
		n1, d1, n2, d2 int64
		want           int
	}{
		{9, 200, 45, 1000, 0}, // 4.5% = 4.5%
		{1, 3, 1, 2, -1},
		{-1, 2, 1, 3, -1},
		{-1, 2, -1, 3, -1},
		{0, 5, 0, 7, 0},
		{big, big - 1, big - 1, big - 2, -1}, // cross products overflow int64
		{-big, big - 1, -(big - 1), big - 2, 1},
		{big, 1, big, 1, 0},
	}
	for _, tt := range tests {
		if got := cmpRatio(tt.n1, tt.d1, tt.n2, tt.d2); got != tt.want {
			t.Errorf("cmpRatio(%d/%d, %d/%d) = %d, want %d", tt.n1, tt.d1, tt.n2, tt.d2, got, tt.want)
		}
	}
}

func TestTrendDirection(t *testing.T) {
	tests := []struct {
		sum7, sum30 int64
		want        string
	}{
		{105, 100, "stable"}, // exactly +5% is not above it
		{106, 100, "up"},
		{95, 100, "stable"}, // exactly -5%
		{94, 100, "down"},
		{2101, 2000, "up"}, // +5.05%
		{1899, 2000, "down"},
		{100, 100, "stable"},
		{0, 0, "stable"}, // no data
	}
	for _, tt := range tests {
		if got := trendDirection(tt.sum7, tt.sum30); got != tt.want {
			t.Errorf("trendDirection(%d, %d) = %q, want %q", tt.sum7, tt.sum30, got, tt.want)
		}
	}
}

// TestAppendMoneyMatchesCatalog: appendMoney writes what
// catalog.Money.AppendJSON writes, so amounts look the same in the paid
// answers and in the card bodies.
func TestAppendMoneyMatchesCatalog(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	check := func(m catalog.Money) {
		if got, want := string(appendMoney(nil, m)), string(m.AppendJSON(nil)); got != want {
			t.Fatalf("%+v: %s, want %s", m, got, want)
		}
	}
	check(catalog.Money{})
	for _, c := range []int64{0, 1, 3, 10, 50, 99, 100, 101, 110, 1999, -1, -10, -105,
		exactCents - 1, exactCents, -exactCents + 1, math.MaxInt64, math.MinInt64 + 1} {
		check(catalog.Cents(c))
	}
	for range 200_000 {
		// every magnitude up to the bound, where float formatting is most likely to differ
		c := r.Int64N(int64(math.Pow(10, float64(1+r.IntN(12)))))
		if r.IntN(2) == 0 {
			c = -c
		}
		check(catalog.Cents(c))
	}
}
