package apiref

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
)

// Paging is a validated page and limit of a list: the page and limit
// parameters and the Pagination object every paged route documents, read
// and written here once for the catalogue's lists and the surfaces'.
type Paging struct {
	Page, Limit int
}

// ParsePaging reads page and limit: integers >= 1 (else a 400 *Problem
// naming the parameter); a limit above maxLimit is clamped to it, and a
// page too large to count is kept as the largest int (past the end: an
// empty page).
func ParsePaging(q url.Values, defLimit, maxLimit int) (Paging, error) {
	p := Paging{Page: 1, Limit: defLimit}
	var err error
	if p.Page, err = positiveInt(q, "page", 1); err != nil {
		return p, err
	}
	if p.Limit, err = positiveInt(q, "limit", defLimit); err != nil {
		return p, err
	}
	p.Limit = min(p.Limit, maxLimit)
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
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange && AllDigits(v) {
			return int(^uint(0) >> 1), nil
		}
	}
	if err != nil || n < 1 {
		return 0, &Problem{Status: http.StatusBadRequest, Code: ErrInvalidParameter,
			Message: "The parameter " + name + " must be an integer of 1 or more; got " + strconv.Quote(v) + "."}
	}
	return int(n), nil
}

// AllDigits reports whether s is ASCII digits only (and not empty).
func AllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Window returns the slice bounds [from, to) of the page within total items.
func (p Paging) Window(total int) (from, to int) {
	if p.Page-1 >= (total+p.Limit-1)/p.Limit {
		return total, total
	}
	from = (p.Page - 1) * p.Limit
	return from, min(from+p.Limit, total)
}

// AppendJSON appends the Pagination object.
func (p Paging) AppendJSON(b []byte, total int) []byte {
	b = append(b, `{"page":`...)
	b = strconv.AppendInt(b, int64(p.Page), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(p.Limit), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	b = append(b, `,"total_pages":`...)
	b = strconv.AppendInt(b, int64((total+p.Limit-1)/p.Limit), 10)
	return append(b, '}')
}
