package catalog

import (
	"slices"
	"testing"
)

// TestCardWords: a card's words are its fields in the order the binary
// form keeps them, and back; its tag's high word first.
func TestCardWords(t *testing.T) {
	cards := []cardEntry{{chunk: 1, parts: cardParts{off: 2, n: 3, at: 4<<16 | 5, xoff: 6, pn: 7}}}
	cards[0].setTag(8<<32 | 9)
	words := cardWords(cards)
	if !slices.Equal(words, []uint32{1, 2, 3, 4<<16 | 5, 6, 7, 8, 9}) {
		t.Fatalf("words %v", words)
	}
	if tag := cards[0].bodyTag(); tag != 8<<32|9 {
		t.Fatalf("tag %#x", tag)
	}
	back, ok := cardsOfWords(slices.Clone(words))
	if !ok || len(back) != 1 || back[0] != cards[0] {
		t.Fatalf("back: %v, %v", back, ok)
	}
	if _, ok := cardsOfWords(words[:7]); ok {
		t.Error("7 words taken for a card")
	}
}
