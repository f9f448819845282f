package catalog

// CardPrices is what a price listing shows of one card, read from the card's
// record (snapshot_record.go), not from its rendered body: the paid
// prices-by-set answers are rendered from it on demand, with
// AppendTCGPriceBlock and AppendCMPriceBlock, so they show each price as the
// card detail does.
type CardPrices struct {
	ID          string
	CardNumber  string // "" = null
	Name        string
	ProductType string // "" = null
	// TCG are the elements of market_t.prices in order, unpriced finishes
	// included; CM those of market_c.prices (a finish without any value is
	// not there).
	TCG []TCGPrice
	CM  []CMPrice
}

// CardPrices fills p with the card's prices, reusing p's slices. The names
// are the snapshot's strings: p keeps it alive until they are cleared.
func (g *GameSnapshot) CardPrices(r CardRef, p *CardPrices) {
	rr := g.record(r)
	var buf [CMLen]byte
	p.ID = rr.id(buf[:0])
	p.Name = rr.text()
	p.CardNumber = rr.text()
	p.ProductType = rr.productType()
	p.TCG = p.TCG[:0]
	for n := rr.uvarint(); n > 0; n-- {
		var t TCGPrice
		t.SubType, t.UpdatedAt = rr.finish(&t.Low, &t.Mid, &t.High, &t.Market, &t.DirectLow)
		p.TCG = append(p.TCG, t)
	}
	p.CM = p.CM[:0]
	for n := rr.uvarint(); n > 0; n-- {
		var c CMPrice
		c.Variant, c.UpdatedAt = rr.finish(&c.Avg, &c.Low, &c.Trend, &c.Avg1, &c.Avg7, &c.Avg30)
		p.CM = append(p.CM, c)
	}
}
