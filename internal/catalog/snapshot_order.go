package catalog

import (
	"cmp"
	"strings"
)

// compareNatural orders card numbers as people read them: runs of digits
// compare by value ("2" < "10", "FB01-2" < "FB01-10"), other runs compare
// case-insensitively; on a tie the plain strings decide ("FB01-001" after
// "FB01-1") so that the order is total.
func compareNatural(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			da := strings.TrimLeft(a[si:i], "0")
			db := strings.TrimLeft(b[sj:j], "0")
			if c := cmp.Compare(len(da), len(db)); c != 0 {
				return c
			}
			if c := strings.Compare(da, db); c != 0 {
				return c
			}
			continue
		}
		la, lb := lower(ca), lower(cb)
		if la != lb {
			return cmp.Compare(la, lb)
		}
		i++
		j++
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// CompareListing is the order of the cards of a set's listing: cards (and
// products of undetermined type) before sealed products; numbered before
// unnumbered, in natural number order; then by name; then by id so the order
// is total. Every answer that lists a set's cards (the free listing, the
// paid endpoints) uses it.
func CompareListing(a, b *Card) int {
	if c := cmp.Compare(sealedRank(a), sealedRank(b)); c != 0 {
		return c
	}
	if (a.CardNumber == "") != (b.CardNumber == "") {
		if a.CardNumber == "" {
			return 1
		}
		return -1
	}
	if c := compareNatural(a.CardNumber, b.CardNumber); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

func sealedRank(c *Card) int {
	if c.ProductType == ProductSealed {
		return 1
	}
	return 0
}

// CompareSetList is the order of the set list: newest release_date first
// (sets without a date last), then name, then set_id. Every answer that
// lists sets uses it.
func CompareSetList(a, b *SetInfo) int {
	if (a.ReleaseDate == "") != (b.ReleaseDate == "") {
		if a.ReleaseDate == "" {
			return 1
		}
		return -1
	}
	if c := strings.Compare(b.ReleaseDate, a.ReleaseDate); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}
