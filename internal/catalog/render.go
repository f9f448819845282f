package catalog

import (
	"fmt"

	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/jsonw"
)

// cardLayout says where, inside one rendered card, the contents of its two
// prices arrays are (between "[" and "]"), relative to the card's first byte.
// appendCard records it as it renders; splitCard reads it to cut the card
// into the parts the snapshot keeps (cardParts).
type cardLayout struct {
	tPrices [2]uint32 // market_t.prices contents; {0, 0} when market_t is null
	cPrices [2]uint32 // market_c.prices contents; {len, len} when market_c is null
}

// cardParts says where one card's parts are in its chunk. The listing form
// of a card is its detail form with both prices arrays emptied. The snapshot
// keeps the listing forms of a set's cards one after the other with a comma
// between, so that a page of a set is one slice of memory sent as it is
// (GameSnapshot.SetRun), and apart from them each card's two arrays'
// contents, followed by its record. A card detail is its listing with the
// two contents put back (appendDetail): five copies of one card, against
// three per card of a page when pages were cut out of the detail forms.
// splitCard and the methods below are the only code that knows the parts.
type cardParts struct {
	off, n uint32 // the listing form: chunk[off:off+n]
	at     uint32 // where in it market_t.prices' and market_c.prices' contents go: market_t's << 16 | market_c's
	xoff   uint32 // chunk[xoff:]: market_t.prices' contents, market_c.prices', then the record
	pn     uint32 // the two contents' lengths: market_t's << 16 | market_c's
}

// maxPricesLen bounds the contents of one prices array (pn keeps 16 bits of
// each): about 200 finishes' worth; a card has one entry per finish.
const maxPricesLen = 1<<16 - 1

// maxPricesAt bounds where the prices arrays are in a listing form (at keeps
// 16 bits of each): a card's text before them 64 KB long, where the longest
// real card's is about 2 KB. Sixteen bits each keep a card's row, its tag
// included, in 32 bytes (cardEntry).
const maxPricesAt = 1<<16 - 1

// splitCard appends the listing form of body (rendered with layout l) to
// listing and its prices arrays' contents to extra; off and xoff of the
// parts it returns are the lengths of listing and extra before it.
func splitCard(listing, extra, body []byte, l cardLayout) ([]byte, []byte, cardParts, error) {
	tn, cn := l.tPrices[1]-l.tPrices[0], l.cPrices[1]-l.cPrices[0]
	if tn > maxPricesLen || cn > maxPricesLen {
		return listing, extra, cardParts{}, fmt.Errorf("%w: a prices array of %d and %d bytes (at most %d)",
			ErrInvalidCatalog, tn, cn, maxPricesLen)
	}
	tAt, cAt := l.tPrices[0], l.cPrices[0]-tn
	if cAt > maxPricesAt {
		return listing, extra, cardParts{}, fmt.Errorf("%w: the prices arrays at bytes %d and %d of the card (at most %d)",
			ErrInvalidCatalog, tAt, cAt, maxPricesAt)
	}
	p := cardParts{off: uint32(len(listing)), xoff: uint32(len(extra)), at: tAt<<16 | cAt, pn: tn<<16 | cn}
	listing = append(listing, body[:l.tPrices[0]]...)
	listing = append(listing, body[l.tPrices[1]:l.cPrices[0]]...)
	listing = append(listing, body[l.cPrices[1]:]...)
	p.n = uint32(len(listing)) - p.off
	extra = append(extra, body[l.tPrices[0]:l.tPrices[1]]...)
	extra = append(extra, body[l.cPrices[0]:l.cPrices[1]]...)
	return listing, extra, p, nil
}

// listing returns the card's listing form in its chunk.
func (p *cardParts) listing(chunk string) string { return chunk[p.off : p.off+p.n] }

// pricesLen returns the lengths of the two arrays' contents.
func (p *cardParts) pricesLen() (t, c uint32) { return p.pn >> 16, p.pn & maxPricesLen }

// pricesAt returns where in the listing form the two arrays' contents go.
func (p *cardParts) pricesAt() (t, c uint32) { return p.at >> 16, p.at & maxPricesAt }

// detailLen returns the length of the card's detail form.
func (p *cardParts) detailLen() int {
	t, c := p.pricesLen()
	return int(p.n + t + c)
}

// recordOff returns where the card's record starts in its chunk.
func (p *cardParts) recordOff() uint32 {
	t, c := p.pricesLen()
	return p.xoff + t + c
}

// appendDetail appends the card's detail form, read from its chunk.
func (p *cardParts) appendDetail(b []byte, chunk string) []byte {
	l := p.listing(chunk)
	t, c := p.pricesLen()
	x := chunk[p.xoff : p.xoff+t+c]
	tAt, cAt := p.pricesAt()
	b = append(b, l[:tAt]...)
	b = append(b, x[:t]...)
	b = append(b, l[tAt:cAt]...)
	b = append(b, x[t:]...)
	return append(b, l[cAt:]...)
}

// valid tells whether the parts lie inside a chunk of n bytes (what the
// methods above read); the record is checked apart.
func (p *cardParts) valid(n int) bool {
	t, c := p.pricesLen()
	tAt, cAt := p.pricesAt()
	return uint64(p.off)+uint64(p.n) <= uint64(n) && tAt <= cAt && cAt <= p.n &&
		uint64(p.xoff)+uint64(t)+uint64(c) <= uint64(n)
}

// appendCard appends the API's card object (the card detail body) to b and
// says where its price arrays are. Keys come in the spec's order; card_info's
// game fields follow the game's Extra order and appear only when present.
func appendCard(b []byte, g *game.Game, s *Set, c *Card) ([]byte, cardLayout) {
	var layout cardLayout
	start := len(b)
	b = append(b, `{"id":`...)
	b = jsonw.AppendString(b, c.ID)

	b = append(b, `,"card_info":`...)
	b = AppendCardInfo(b, g, s, c)

	b = append(b, `,"images":{"languages":`...)
	if c.OnTCG() && c.ImageCount > 0 {
		b = append(b, `["en"]}`...)
	} else {
		b = append(b, `[]}`...)
	}

	b = append(b, `,"market_t":`...)
	if !c.OnTCG() {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"product_id":`...)
		b = appendInt(b, c.TCGProductID)
		b = appendKey(b, "url", false)
		b = jsonw.AppendString(b, c.TCGURL)
		b = append(b, `,"prices":[`...)
		layout.tPrices[0] = uint32(len(b) - start)
		for i := range c.TCGPrices {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendTCGPrice(b, &c.TCGPrices[i])
		}
		layout.tPrices[1] = uint32(len(b) - start)
		b = append(b, "]}"...)
	}

	b = append(b, `,"market_c":`...)
	if !c.OnCM() {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"id":`...)
		b = jsonw.AppendString(b, c.CMID)
		b = appendKey(b, "product_id", false)
		b = appendInt(b, c.CMProductID)
		b = appendKey(b, "product_name", false)
		b = jsonw.AppendString(b, c.CMProductName)
		if c.CMProductURL != "" {
			b = appendKey(b, "product_url", false)
			b = jsonw.AppendString(b, c.CMProductURL)
		}
		if c.CMMatch != "" {
			b = appendKey(b, "match", false)
			b = jsonw.AppendString(b, c.CMMatch)
		}
		b = append(b, `,"prices":[`...)
		layout.cPrices[0] = uint32(len(b) - start)
		n := 0
		for i := range c.CMPrices {
			if c.CMPrices[i].Empty() {
				continue // an unpriced finish is left out
			}
			if n > 0 {
				b = append(b, ',')
			}
			b = appendCMPrice(b, &c.CMPrices[i])
			n++
		}
		layout.cPrices[1] = uint32(len(b) - start)
		b = append(b, "]}"...)
	}
	b = append(b, '}')
	if !c.OnCM() {
		// Keep 0 <= tPrices <= cPrices <= len: an empty range at the end.
		end := uint32(len(b) - start)
		layout.cPrices = [2]uint32{end, end}
	}
	return b, layout
}

// AppendCardInfo appends the card_info object of card c of set s of game g,
// byte for byte as the card bodies carry it: keys in the spec's order, then
// the game's fields in the registry's order, each only when the card has it.
// The paid endpoints that show a card_info (top cards) render it here so that
// it never differs from the free endpoints'.
func AppendCardInfo(b []byte, g *game.Game, s *Set, c *Card) []byte {
	b = append(b, `{"name":`...)
	b = jsonw.AppendString(b, c.Name)
	b = appendKey(b, "clean_name", false)
	b = jsonw.AppendString(b, c.CleanName)
	b = appendKey(b, "set_name", false)
	b = jsonw.AppendString(b, s.Name)
	b = appendKey(b, "set_code", false)
	b = appendNullableString(b, s.Code)
	b = appendKey(b, "set_id", false)
	b = jsonw.AppendString(b, s.ID)
	b = appendKey(b, "card_number", false)
	b = appendNullableString(b, c.CardNumber)
	b = appendKey(b, "rarity", false)
	b = appendNullableString(b, c.Rarity)
	b = appendKey(b, "card_type", false)
	b = appendNullableString(b, c.CardType)
	b = appendKey(b, "product_type", false)
	b = appendNullableString(b, c.ProductType)
	b = appendKey(b, "variants", false)
	b = append(b, '[')
	for i, v := range c.Variants {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(b, v)
	}
	b = append(b, ']')
	b = appendKey(b, "card_text", false)
	b = appendNullableString(b, c.CardText)
	for _, f := range g.Extra {
		if f.List {
			b = appendExtraList(b, c.Extra, f.Key)
		} else if v, ok := extraValue(c.Extra, f.Key); ok {
			b = appendKey(b, f.Key, false)
			b = jsonw.AppendString(b, v)
		}
	}
	return append(b, '}')
}

// appendExtraList appends a list field: an array of every value under key,
// in order; nothing when there is none.
func appendExtraList(b []byte, extra []ExtraField, key string) []byte {
	n := 0
	for _, f := range extra {
		if f.Key != key || f.Value == "" {
			continue
		}
		if n == 0 {
			b = appendKey(b, key, false)
			b = append(b, '[')
		} else {
			b = append(b, ',')
		}
		b = jsonw.AppendString(b, f.Value)
		n++
	}
	if n > 0 {
		b = append(b, ']')
	}
	return b
}

func extraValue(extra []ExtraField, key string) (string, bool) {
	for _, f := range extra {
		if f.Key == key && f.Value != "" {
			return f.Value, true
		}
	}
	return "", false
}

// appendTCGPrice appends an element of market_t.prices.
func appendTCGPrice(b []byte, p *TCGPrice) []byte {
	b = append(b, `{"sub_type_name":`...)
	b = jsonw.AppendString(b, p.SubType)
	b = append(b, ',')
	b = appendTCGAmounts(b, p)
	return append(b, '}')
}

// AppendTCGPriceBlock appends a TCGplayer price without its finish, as the
// market_t block of a prices-by-set row shows it: the members of the card
// detail's price element after sub_type_name, byte for byte.
func AppendTCGPriceBlock(b []byte, p *TCGPrice) []byte {
	b = append(b, '{')
	b = appendTCGAmounts(b, p)
	return append(b, '}')
}

func appendTCGAmounts(b []byte, p *TCGPrice) []byte {
	b = append(b, `"low_price":`...)
	b = p.Low.AppendJSON(b)
	b = append(b, `,"mid_price":`...)
	b = p.Mid.AppendJSON(b)
	b = append(b, `,"high_price":`...)
	b = p.High.AppendJSON(b)
	b = append(b, `,"market_price":`...)
	b = p.Market.AppendJSON(b)
	b = append(b, `,"direct_low_price":`...)
	b = p.DirectLow.AppendJSON(b)
	b = append(b, `,"updated_at":`...)
	return appendTime(b, p.UpdatedAt)
}

// appendCMPrice appends an element of market_c.prices.
func appendCMPrice(b []byte, p *CMPrice) []byte {
	b = append(b, `{"variant_type":`...)
	b = jsonw.AppendString(b, p.Variant)
	b = append(b, ',')
	b = appendCMAmounts(b, p)
	return append(b, '}')
}

// AppendCMPriceBlock appends a Cardmarket price without its finish, as the
// market_c block of a prices-by-set row shows it: the members of the card
// detail's price element after variant_type, byte for byte.
func AppendCMPriceBlock(b []byte, p *CMPrice) []byte {
	b = append(b, '{')
	b = appendCMAmounts(b, p)
	return append(b, '}')
}

func appendCMAmounts(b []byte, p *CMPrice) []byte {
	b = append(b, `"avg":`...)
	b = p.Avg.AppendJSON(b)
	b = append(b, `,"low":`...)
	b = p.Low.AppendJSON(b)
	b = append(b, `,"trend":`...)
	b = p.Trend.AppendJSON(b)
	b = append(b, `,"avg1":`...)
	b = p.Avg1.AppendJSON(b)
	b = append(b, `,"avg7":`...)
	b = p.Avg7.AppendJSON(b)
	b = append(b, `,"avg30":`...)
	b = p.Avg30.AppendJSON(b)
	b = append(b, `,"updated_at":`...)
	return appendTime(b, p.UpdatedAt)
}

// appendSetSummary appends an item of the set list. card_count and
// sealed_count are left out when zero: the spec never shows them as 0.
func appendSetSummary(b []byte, s *SetInfo) []byte {
	b = append(b, `{"name":`...)
	b = jsonw.AppendString(b, s.Name)
	b = appendKey(b, "set_code", false)
	b = appendNullableString(b, s.Code)
	b = appendKey(b, "set_id", false)
	b = jsonw.AppendString(b, s.ID)
	if s.CardCount > 0 {
		b = appendKey(b, "card_count", false)
		b = appendInt(b, s.CardCount)
	}
	if s.SealedCount > 0 {
		b = appendKey(b, "sealed_count", false)
		b = appendInt(b, s.SealedCount)
	}
	b = appendKey(b, "language", false)
	b = appendNullableString(b, s.Language)
	b = appendKey(b, "release_date", false)
	b = appendNullableString(b, s.ReleaseDate)
	return append(b, '}')
}

// appendSetHeader appends the set object of a set's card listing.
func appendSetHeader(b []byte, s *SetInfo) []byte {
	b = append(b, `{"name":`...)
	b = jsonw.AppendString(b, s.Name)
	b = appendKey(b, "set_code", false)
	b = appendNullableString(b, s.Code)
	b = appendKey(b, "set_id", false)
	b = jsonw.AppendString(b, s.ID)
	b = appendKey(b, "total_cards", false)
	b = appendInt(b, s.Total)
	b = appendKey(b, "language", false)
	b = appendNullableString(b, s.Language)
	b = appendKey(b, "release_date", false)
	b = appendNullableString(b, s.ReleaseDate)
	return append(b, '}')
}

// AppendSetCandidate appends a set candidate of a disambiguation answer (also
// the shape of a "Set not found" suggestion).
func AppendSetCandidate(b []byte, s *SetInfo) []byte {
	b = append(b, `{"set_id":`...)
	b = jsonw.AppendString(b, s.ID)
	b = appendKey(b, "set_code", false)
	b = appendNullableString(b, s.Code)
	b = appendKey(b, "name", false)
	b = jsonw.AppendString(b, s.Name)
	b = appendKey(b, "language", false)
	b = appendNullableString(b, s.Language)
	b = appendKey(b, "release_date", false)
	b = appendNullableString(b, s.ReleaseDate)
	return append(b, '}')
}
