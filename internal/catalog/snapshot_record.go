package catalog

import (
	"encoding/binary"
	"strings"
	"time"
)

// A card's record follows its pre-rendered body in its chunk: what the
// answers other than card detail and listing need of the card (the price
// listing: id, name, card_number, product_type and every finish's prices),
// as values in a compact binary encoding rather than as JSON text, so that
// no reader depends on how a body is rendered. In order:
//
//	id            idTCG + 8 bytes (the game prefix and 16 lower-case hex),
//	              idCM + 32 bytes (64 lower-case hex), or idText + text
//	name          text
//	card_number   text ("" = null)
//	product_type  typeNull, typeCard, typeSealed, or typeText + text
//	TCGplayer     uvarint count, then each finish (unpriced ones included)
//	Cardmarket    uvarint count, then each finish that has a value
//
// text is a uvarint length and the bytes. A finish is its name (uvarint
// index in the snapshot's finish names), a byte whose bit i says that
// amount i is present, each present amount (zigzag varint of its cents), and
// updated_at (uvarint index in the snapshot's times). Amounts come in the
// model's order: Low, Mid, High, Market, DirectLow; Avg, Low, Trend, Avg1,
// Avg7, Avg30. Most amounts take 2 or 3 bytes this way, against 16 in the
// model's Money, and a snapshot holds a million cards.

const (
	idTCG byte = iota
	idCM
	idText
)

const (
	typeNull byte = iota
	typeCard
	typeSealed
	typeText
)

// recordBuilder appends records, interning finish names and times.
type recordBuilder struct {
	prefix string // the game's id prefix
	names  []string
	times  []time.Time
	nameAt map[string]uint32
	timeAt map[time.Time]uint32
}

func newRecordBuilder(prefix string) *recordBuilder {
	return &recordBuilder{prefix: prefix, nameAt: map[string]uint32{}, timeAt: map[time.Time]uint32{}}
}

func (rb *recordBuilder) append(b []byte, c *Card) []byte {
	b = rb.appendID(b, c.ID)
	b = appendText(b, c.Name)
	b = appendText(b, c.CardNumber)
	switch c.ProductType {
	case "":
		b = append(b, typeNull)
	case ProductCard:
		b = append(b, typeCard)
	case ProductSealed:
		b = append(b, typeSealed)
	default:
		b = appendText(append(b, typeText), c.ProductType)
	}

	b = binary.AppendUvarint(b, uint64(len(c.TCGPrices)))
	for i := range c.TCGPrices {
		p := &c.TCGPrices[i]
		b = rb.appendFinish(b, p.SubType, p.UpdatedAt, p.Low, p.Mid, p.High, p.Market, p.DirectLow)
	}
	n := 0
	for i := range c.CMPrices {
		if !c.CMPrices[i].Empty() {
			n++
		}
	}
	b = binary.AppendUvarint(b, uint64(n))
	for i := range c.CMPrices {
		if p := &c.CMPrices[i]; !p.Empty() { // as in market_c.prices
			b = rb.appendFinish(b, p.Variant, p.UpdatedAt, p.Avg, p.Low, p.Trend, p.Avg1, p.Avg7, p.Avg30)
		}
	}
	return b
}

func (rb *recordBuilder) appendID(b []byte, id string) []byte {
	if hex, ok := strings.CutPrefix(id, rb.prefix); ok && len(hex) == TCGLen && hex == strings.ToLower(hex) {
		if v, ok := parseHex64(hex); ok {
			return binary.BigEndian.AppendUint64(append(b, idTCG), v)
		}
	}
	if id == strings.ToLower(id) {
		if cm, ok := decodeCMID(id); ok {
			return append(append(b, idCM), cm[:]...)
		}
	}
	return appendText(append(b, idText), id)
}

func (rb *recordBuilder) appendFinish(b []byte, name string, updated time.Time, amounts ...Money) []byte {
	b = binary.AppendUvarint(b, uint64(rb.name(name)))
	var present byte
	for i, m := range amounts {
		if m.OK {
			present |= 1 << i
		}
	}
	b = append(b, present)
	for _, m := range amounts {
		if m.OK {
			b = binary.AppendVarint(b, m.Cents)
		}
	}
	return binary.AppendUvarint(b, uint64(rb.time(updated)))
}

func (rb *recordBuilder) name(s string) uint32 {
	i, ok := rb.nameAt[s]
	if !ok {
		i = uint32(len(rb.names))
		rb.nameAt[s] = i
		rb.names = append(rb.names, s)
	}
	return i
}

func (rb *recordBuilder) time(t time.Time) uint32 {
	i, ok := rb.timeAt[t]
	if !ok {
		i = uint32(len(rb.times))
		rb.timeAt[t] = i
		rb.times = append(rb.times, t)
	}
	return i
}

func appendText(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// recordReader reads a record in order. The records are the snapshot's own,
// so a reader trusts them.
type recordReader struct {
	s  string
	gs *GameSnapshot
}

func (g *GameSnapshot) record(r CardRef) recordReader {
	e := &g.cards[r]
	return recordReader{s: g.chunks[e.chunk][e.parts.recordOff():], gs: g}
}

func (rr *recordReader) byte() byte {
	c := rr.s[0]
	rr.s = rr.s[1:]
	return c
}

func (rr *recordReader) uvarint() uint64 {
	var x uint64
	for shift := uint(0); ; shift += 7 {
		c := rr.byte()
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x
		}
	}
}

func (rr *recordReader) varint() int64 {
	u := rr.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (rr *recordReader) bytes(n int) string {
	s := rr.s[:n]
	rr.s = rr.s[n:]
	return s
}

func (rr *recordReader) text() string { return rr.bytes(int(rr.uvarint())) }

// id returns the card's id; the two compact forms are rendered into buf.
func (rr *recordReader) id(buf []byte) string {
	const hexDigits = "0123456789abcdef"
	switch rr.byte() {
	case idTCG:
		buf = append(buf[:0], rr.gs.game.IDPrefix()...)
		for _, c := range []byte(rr.bytes(8)) {
			buf = append(buf, hexDigits[c>>4], hexDigits[c&15])
		}
		return string(buf)
	case idCM:
		buf = buf[:0]
		for _, c := range []byte(rr.bytes(CMLen / 2)) {
			buf = append(buf, hexDigits[c>>4], hexDigits[c&15])
		}
		return string(buf)
	}
	return rr.text()
}

func (rr *recordReader) productType() string {
	switch rr.byte() {
	case typeCard:
		return ProductCard
	case typeSealed:
		return ProductSealed
	case typeText:
		return rr.text()
	}
	return ""
}

// finish reads one finish into its name, updated_at and amounts.
func (rr *recordReader) finish(amounts ...*Money) (string, time.Time) {
	name := rr.gs.finishNames[rr.uvarint()]
	present := rr.byte()
	for i, m := range amounts {
		*m = Money{}
		if present&(1<<i) != 0 {
			*m = Cents(rr.varint())
		}
	}
	return name, rr.gs.times[rr.uvarint()]
}
