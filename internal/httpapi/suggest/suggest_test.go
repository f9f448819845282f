package suggest

import "testing"

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"dbs", "dbs", 0}, {"dsb", "dbs", 1}, {"db", "dbs", 1}, {"mgt", "mtg", 1}, {"serch", "search", 1},
		{"crads", "cards", 1}, {"", "abc", 3}, {"abc", "", 3}, {"kitten", "sitting", 3},
	} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
