package catalog

import (
	"strconv"
	"strings"
)

// CardPrices is what a price listing shows of one card, cut from the card's
// pre-rendered detail body instead of being kept a second time: every string
// is JSON text, ready to append. The paid prices-by-set answers are rendered
// from it on demand, so a snapshot holds every price once.
type CardPrices struct {
	ID          string // a JSON string
	CardNumber  string // a JSON string or null
	Name        string // a JSON string
	ProductType string // a JSON string or null
	// TCG are the elements of market_t.prices in order, unpriced finishes
	// included; CM those of market_c.prices (a finish without any value is
	// not there).
	TCG, CM []FinishPrice
}

// FinishPrice is one element of a card's prices array.
type FinishPrice struct {
	// Finish is the value of the element's first member (sub_type_name,
	// variant_type): a JSON string.
	Finish string
	// Members are the element's other members, without braces:
	// `"low_price":0.12,...,"updated_at":"2026-01-30T20:00:00Z"`.
	Members string
	// Priced reports whether any amount is present (updated_at is no amount).
	Priced bool
}

// FinishIs reports whether the finish is name, compared case-insensitively.
func (p *FinishPrice) FinishIs(name string) bool {
	f := p.Finish
	if len(f) < 2 {
		return false
	}
	inner := f[1 : len(f)-1]
	if strings.IndexByte(inner, '\\') >= 0 {
		// The escapes AppendJSONString writes are all valid Go escapes.
		u, err := strconv.Unquote(f)
		if err != nil {
			return false
		}
		inner = u
	}
	return strings.EqualFold(inner, name)
}

// CardPrices fills p from the card's body, reusing p's slices.
func (g *GameSnapshot) CardPrices(r CardRef, p *CardPrices) {
	body := g.CardJSON(r)
	sp := &g.cards[r].span
	p.TCG, p.CM = p.TCG[:0], p.CM[:0]

	const idAt = len(`{"id":`)
	end := skipJSONString(body, idAt)
	p.ID = body[idAt:end]
	p.CardNumber, p.Name, p.ProductType = "null", `""`, "null"
	// ,"card_info":{ ... } : walk its members up to product_type, which
	// comes before the long ones (variants, card_text, game fields).
	i := end + len(`,"card_info":{`)
members:
	for i < len(body) && body[i] == '"' {
		kEnd := skipJSONString(body, i)
		vEnd := skipJSONValue(body, kEnd+1)
		switch body[i+1 : kEnd-1] {
		case "name":
			p.Name = body[kEnd+1 : vEnd]
		case "card_number":
			p.CardNumber = body[kEnd+1 : vEnd]
		case "product_type":
			p.ProductType = body[kEnd+1 : vEnd]
			break members
		}
		i = vEnd
		if i < len(body) && body[i] == ',' {
			i++
		}
	}
	p.TCG = appendFinishes(p.TCG, body[sp.tPrices[0]:sp.tPrices[1]], true)
	// The body leaves out a Cardmarket finish without any value.
	p.CM = appendFinishes(p.CM, body[sp.cPrices[0]:sp.cPrices[1]], false)
}

// appendFinishes appends the elements of a prices array's contents: flat
// objects whose first member is the finish. Unless checkAmounts, every
// element is taken as priced.
func appendFinishes(out []FinishPrice, arr string, checkAmounts bool) []FinishPrice {
	for i := 0; i < len(arr) && arr[i] == '{'; {
		end := skipJSONValue(arr, i)
		kEnd := skipJSONString(arr, i+1)
		vEnd := skipJSONValue(arr, kEnd+1)
		f := FinishPrice{Finish: arr[kEnd+1 : vEnd]}
		if vEnd < end-1 {
			f.Members = arr[vEnd+1 : end-1]
			f.Priced = !checkAmounts || anyAmount(f.Members)
		}
		out = append(out, f)
		i = end
		if i < len(arr) && arr[i] == ',' {
			i++
		}
	}
	return out
}

// anyAmount reports whether members hold a non-null value other than updated_at.
func anyAmount(members string) bool {
	for i := 0; i < len(members) && members[i] == '"'; {
		kEnd := skipJSONString(members, i)
		vEnd := skipJSONValue(members, kEnd+1)
		if members[i+1:kEnd-1] != "updated_at" && members[kEnd+1:vEnd] != "null" {
			return true
		}
		i = vEnd + 1
	}
	return false
}

// skipJSONString returns the index just past the JSON string starting at s[i].
func skipJSONString(s string, i int) int {
	for i++; i < len(s); {
		q := strings.IndexByte(s[i:], '"')
		if q < 0 {
			break
		}
		q += i
		// The quote closes the string unless an odd run of backslashes escapes it.
		n := 0
		for b := q - 1; b >= i && s[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
	return len(s)
}

// skipJSONValue returns the index just past the JSON value starting at s[i].
func skipJSONValue(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	switch s[i] {
	case '"':
		return skipJSONString(s, i)
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				i = skipJSONString(s, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(s)
	}
	for i < len(s) && s[i] != ',' && s[i] != '}' && s[i] != ']' {
		i++
	}
	return i
}
