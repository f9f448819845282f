package sqlite

import (
	"strings"
	"testing"
)

// TestQualify: the SQL cardcat's migrations wrote is made in the catalogue
// schema; SQL of another shape is refused, not run in the store's file.
func TestQualify(t *testing.T) {
	for _, tc := range []struct {
		o    schemaObject
		want string
	}{
		{schemaObject{kind: "table", name: "cards", sql: "CREATE TABLE cards (\n\tgame TEXT)"}, "CREATE TABLE catalogue.cards (\n\tgame TEXT)"},
		{schemaObject{kind: "index", name: "card_changes_by_time", sql: "CREATE INDEX card_changes_by_time ON card_changes (game)"},
			"CREATE INDEX catalogue.card_changes_by_time ON card_changes (game)"},
		{schemaObject{kind: "index", name: "u", sql: "CREATE UNIQUE INDEX u ON cards (id)"}, "CREATE UNIQUE INDEX catalogue.u ON cards (id)"},
	} {
		got, err := qualify(tc.o, catalogueSchema)
		if err != nil || got != tc.want {
			t.Errorf("qualify(%q) = %q, %v; want %q", tc.o.sql, got, err, tc.want)
		}
	}
	for _, sql := range []string{`CREATE TABLE "cards" (game TEXT)`, "CREATE TABLE main.cards (game TEXT)", "CREATE TABLE cardsx (game TEXT)"} {
		if got, err := qualify(schemaObject{kind: "table", name: "cards", sql: sql}, catalogueSchema); err == nil || !strings.Contains(err.Error(), "unexpected SQL") {
			t.Errorf("qualify(%q) = %q, %v; want it refused", sql, got, err)
		}
	}
}
