package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// Card ids are derived from marketplace ids, so they are stable across
// refreshes and across stores:
//
//	TCGplayer product:  "{game}_" + first 8 bytes (16 hex) of sha256("cardcat:{game}:tcgplayer:{productId}")
//	Cardmarket product: 64 hex of sha256("cardcat:{game}:cardmarket:{idGame}:{idProduct}")
//
// A hash (rather than the bare number) keeps ids opaque and of one length, so a
// malformed id is recognised without any lookup.

// TCGLen is the number of hex characters after the game prefix.
const TCGLen = 16

// CMLen is the length of a Cardmarket id.
const CMLen = 64

// TCGCardID is the canonical id of the card of a TCGplayer product.
func TCGCardID(gameCode string, productID int) string {
	sum := sha256.Sum256([]byte("cardcat:" + gameCode + ":tcgplayer:" + strconv.Itoa(productID)))
	return gameCode + "_" + hex.EncodeToString(sum[:TCGLen/2])
}

// CMCardID is the 64-hex id of the card of a Cardmarket product.
func CMCardID(gameCode string, cmGame, idProduct int) string {
	sum := sha256.Sum256([]byte("cardcat:" + gameCode + ":cardmarket:" + strconv.Itoa(cmGame) + ":" + strconv.Itoa(idProduct)))
	return hex.EncodeToString(sum[:])
}

// IsHex reports whether s is non-empty lowercase or uppercase hex.
func IsHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
