package tcgcatalog

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
)

// TestShape: group sizes, extendedData names per category, names with
// accents, apostrophes, quotes and HTML. Presale groups and empty and shared
// codes are checked in whole mirrors (synth's TestCasesPresent).
func TestShape(t *testing.T) {
	const total = 10000                                   // synth.DefaultCards
	base := time.Date(2026, 1, 31, 2, 41, 7, 0, time.UTC) // synth's day 0
	cards := 0
	pokemon := []string{"Number", "Rarity", "Card Type", "HP", "Stage", "CardText", "Attack 1", "Attack 2", "Weakness", "Resistance", "RetreatCost"}
	want := map[int][]string{
		1:  {"Rarity", "Number", "SubType", "P", "T", "OracleText", "FlavorText", "UPC"},
		80: {"Rarity", "Number", "Description", "CardType", "Color", "Cost", "Power", "Combo Power", "Character Traits"},
		27: {"Rarity", "Number", "Description", "CardType", "Color", "Power", "EnergyColorCost", "SpecialTrait", "Era", "Character", "ComboEnergy", "ZEnergyCost"},
		3:  pokemon,
		85: pokemon,
		68: {"Rarity", "Number", "Description", "Color", "CardType", "Life", "Cost", "Power", "Subtypes", "Counterplus", "Attribute"},
	}
	seen := map[int]map[string]bool{}
	var accented, apostrophe, curly, html, quoted bool
	for _, plan := range PlanCatalogue(1, total, game.Default().All(), base) {
		g := plan.Group
		cat := g.CategoryID
		if seen[cat] == nil {
			seen[cat] = map[string]bool{}
		}
		ps := plan.Products(1)
		if len(ps) > 420 {
			t.Errorf("group %d has %d products", g.GroupID, len(ps))
		}
		for _, p := range ps {
			if isCard(p) {
				cards++
			}
			if p.CategoryID != cat || p.GroupID != g.GroupID || p.CleanName != fold.Clean(p.Name) {
				t.Errorf("product %d: inconsistent %+v", p.ProductID, p)
			}
			for _, e := range p.ExtendedData {
				seen[cat][e.Name] = true
				html = html || strings.Contains(e.Value, "<br>") && strings.Contains(e.Value, "<em>") || strings.Contains(e.Value, "<strong>")
			}
			accented = accented || strings.ContainsAny(p.Name, "éóÉöüûëï")
			apostrophe = apostrophe || strings.Contains(p.Name, "'")
			curly = curly || strings.Contains(p.Name, "’")
			quoted = quoted || strings.Contains(p.Name, "\"")
		}
	}
	// Code cards count as cards (they have a Rarity), sealed products do not.
	if cards < total*98/100 || cards > total*102/100 {
		t.Errorf("%d cards, want about %d", cards, total)
	}
	for cat, names := range want {
		for _, n := range names {
			if !seen[cat][n] {
				t.Errorf("category %d: no extendedData %q", cat, n)
			}
		}
		for n := range seen[cat] {
			if !slices.Contains(names, n) {
				t.Errorf("category %d: unexpected extendedData %q", cat, n)
			}
		}
	}
	if !accented || !apostrophe || !curly || !html || !quoted {
		t.Errorf("names: accented %v, apostrophe %v, curly %v, quoted %v; html %v", accented, apostrophe, curly, quoted, html)
	}
}

// isCard: a product with a Rarity or a Number (code cards are cards, sealed
// products are not).
func isCard(p tcgplayer.Product) bool {
	for _, e := range p.ExtendedData {
		if e.Name == "Rarity" || e.Name == "Number" {
			return true
		}
	}
	return false
}
