package httpapi

import (
	"net/http"
	"net/url"
	"strconv"
)

// Paging limits of the spec.
const (
	setPageDefault    = 50
	setPageMax        = 200
	searchPageDefault = 20
	searchPageMax     = 100
)

// paging is a validated page and limit.
type paging struct {
	page, limit int
}

// parsePaging reads page and limit: integers >= 1 (else 400 naming the
// parameter); a limit above max is clamped to max, and a page too large to
// count is kept as the largest int (past the end: an empty page).
func parsePaging(q url.Values, defLimit, maxLimit int) (paging, error) {
	p := paging{page: 1, limit: defLimit}
	var err error
	if p.page, err = positiveInt(q, "page", 1); err != nil {
		return p, err
	}
	if p.limit, err = positiveInt(q, "limit", defLimit); err != nil {
		return p, err
	}
	p.limit = min(p.limit, maxLimit)
	return p, nil
}

func positiveInt(q url.Values, name string, def int) (int, error) {
	vs, ok := q[name]
	if !ok {
		return def, nil
	}
	v := vs[0]
	n, err := strconv.ParseUint(v, 10, 63)
	if err != nil {
		// A number too large to count is a page past the end; strconv
		// stops at the overflow, so the rest must still be digits.
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange && allDigits(v) {
			return int(^uint(0) >> 1), nil
		}
		return 0, invalidParameter(name, v)
	}
	if n < 1 {
		return 0, invalidParameter(name, v)
	}
	return int(n), nil
}

func invalidParameter(name, value string) *apiError {
	return newError(http.StatusBadRequest, errInvalidParameter,
		"The parameter "+name+" must be an integer of 1 or more; got "+strconv.Quote(value)+".")
}

// window returns the slice bounds [from, to) of the page within total items.
func (p paging) window(total int) (from, to int) {
	if p.page-1 >= (total+p.limit-1)/p.limit {
		return total, total
	}
	from = (p.page - 1) * p.limit
	return from, min(from+p.limit, total)
}

// appendJSON appends the pagination object.
func (p paging) appendJSON(b []byte, total int) []byte {
	b = append(b, `{"page":`...)
	b = strconv.AppendInt(b, int64(p.page), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(p.limit), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	b = append(b, `,"total_pages":`...)
	b = strconv.AppendInt(b, int64((total+p.limit-1)/p.limit), 10)
	return append(b, '}')
}

// allDigits reports whether s is ASCII digits only.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
