package catalog

import "math"

// A marketplace product's card is found through its id, which is derived
// from the product's number (ids.go): the id index is the product index, so
// these lookups cost no memory beyond it, and one hash per request. ingest
// gives each TCGplayer product and each Cardmarket product at most one card
// (it refuses a number listed twice, and links one to one), and the
// snapshot refuses a catalogue where two cards share an id.

// LookupTCGProduct finds the card of a TCGplayer productId.
func (g *GameSnapshot) LookupTCGProduct(productID int64) (CardRef, bool) {
	if productID <= 0 || productID > math.MaxInt {
		return 0, false
	}
	return g.LookupCard(TCGCardID(g.game.Code, int(productID)))
}

// LookupCMProduct finds the card of a Cardmarket idProduct of the game's
// Cardmarket game, linked to a TCGplayer product or not.
func (g *GameSnapshot) LookupCMProduct(idProduct int64) (CardRef, bool) {
	if idProduct <= 0 || idProduct > math.MaxInt || g.game.CardmarketGame == 0 {
		return 0, false
	}
	return g.LookupCard(CMCardID(g.game.Code, g.game.CardmarketGame, int(idProduct)))
}
