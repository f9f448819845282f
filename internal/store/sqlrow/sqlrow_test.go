package sqlrow

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/google/go-cmp/cmp"
)

func TestExtraRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		extra []catalog.ExtraField
	}{
		{"empty", nil},
		{"order kept", extra("z", "1", "a", "2", "m", "")},
		{"escapes", extra("q\"uote", "back\\slash\nnew\tline\r\x00\x1f")},
		{"html and unicode", extra("text", "<b>Süper</b> & 悟空 🐉 \u2028")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := string(AppendExtra(nil, tt.extra))
			if !json.Valid([]byte(s)) {
				t.Fatalf("AppendExtra wrote invalid JSON %s", s)
			}
			got, err := ParseExtra(s)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.extra, got); diff != "" {
				t.Errorf("round trip of %s (-want +got):\n%s", s, diff)
			}
		})
	}
}

// extra builds fields from key, value pairs.
func extra(kv ...string) []catalog.ExtraField {
	var fs []catalog.ExtraField
	for i := 0; i < len(kv); i += 2 {
		fs = append(fs, catalog.ExtraField{Key: kv[i], Value: kv[i+1]})
	}
	return fs
}

func TestStringsRoundTrip(t *testing.T) {
	for _, ss := range [][]string{nil, {"Normal"}, {"Foil", "Normal", "1st \"Edition\""}} {
		s := string(AppendStrings(nil, ss))
		got, err := ParseStrings(s)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(ss, got); diff != "" {
			t.Errorf("round trip of %s (-want +got):\n%s", s, diff)
		}
	}
}

func TestValidate(t *testing.T) {
	card := func(id string) catalog.Card { return catalog.Card{Game: "g", ID: id} }
	tests := []struct {
		name  string
		games []catalog.GameCatalog
		ok    bool
	}{
		{"ok", []catalog.GameCatalog{{Game: "g", Sets: []catalog.Set{{Game: "g", ID: "1"}}, Cards: []catalog.Card{card("a")}}}, true},
		{"empty game", []catalog.GameCatalog{{Game: ""}}, false},
		{"game twice", []catalog.GameCatalog{{Game: "g"}, {Game: "g"}}, false},
		{"set of other game", []catalog.GameCatalog{{Game: "g", Sets: []catalog.Set{{Game: "h", ID: "1"}}}}, false},
		{"card of other game", []catalog.GameCatalog{{Game: "g", Cards: []catalog.Card{{Game: "h", ID: "a"}}}}, false},
		{"card without id", []catalog.GameCatalog{{Game: "g", Cards: []catalog.Card{card("")}}}, false},
		{"tcg finish twice", []catalog.GameCatalog{{Game: "g", Cards: []catalog.Card{{Game: "g", ID: "a",
			TCGPrices: []catalog.TCGPrice{{SubType: "Foil"}, {SubType: "Foil"}}}}}}, false},
		{"cm finish empty", []catalog.GameCatalog{{Game: "g", Cards: []catalog.Card{{Game: "g", ID: "a",
			CMPrices: []catalog.CMPrice{{}}}}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.games)
			if (err == nil) != tt.ok {
				t.Errorf("Validate = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestCursor(t *testing.T) {
	games := []catalog.GameCatalog{
		{Game: "a", Cards: []catalog.Card{{ID: "x"}, {ID: "y"}}},
		{Game: "b", Cards: []catalog.Card{{ID: "x"}}},
	}
	cur := NewCursor(games)
	for _, row := range [][2]string{{"a", "x"}, {"a", "x"}, {"a", "y"}, {"b", "x"}} {
		c, err := cur.Card(row[0], row[1])
		if err != nil || c.ID != row[1] {
			t.Fatalf("Card(%q, %q) = %v, %v", row[0], row[1], c, err)
		}
	}
	if _, err := cur.Card("a", "y"); err == nil {
		t.Error("Card went backwards without an error")
	}
}

func TestTime(t *testing.T) {
	in := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.FixedZone("X", 3600))
	got := Time(in)
	if got.Location() != time.UTC || !got.Equal(in.Truncate(time.Microsecond)) {
		t.Errorf("Time(%v) = %v", in, got)
	}
	if d := Day(in); d != "2024-05-06" {
		t.Errorf("Day = %s", d)
	}
}

// The fast path of ParseStrings and ParseExtra must agree with encoding/json
// on every input, and hand what it does not handle to it.
func TestParseAgreesWithEncodingJSON(t *testing.T) {
	inputs := []string{
		`["a"]`, `["a","b"]`, `[""]`, `[ "a" ]`, `["a\"b"]`, `["\u00e9"]`, `["a",]`, `["a"`, `["a"]x`, `[1]`,
		`[["k","v"]]`, `[["k","v"],["a",""]]`, `[["k","v"]`, `[["k"]]`, `[["k","v","w"]]`, `[["k\n","v"]]`,
		`[ ["k","v"] ]`, `[["k","v"],]`, `{}`, `["ü","日本"]`,
	}
	for _, in := range inputs {
		var ss []string
		wantErr := json.Unmarshal([]byte(in), &ss) != nil
		got, err := ParseStrings(in)
		if (err != nil) != wantErr || err == nil && !cmp.Equal(ss, got) {
			t.Errorf("ParseStrings(%s) = %q, %v; encoding/json: %q, error %v", in, got, err, ss, wantErr)
		}

		var pairs [][2]string
		wantErr = json.Unmarshal([]byte(in), &pairs) != nil
		gotExtra, err := ParseExtra(in)
		var want []catalog.ExtraField
		for _, p := range pairs {
			want = append(want, catalog.ExtraField{Key: p[0], Value: p[1]})
		}
		if (err != nil) != wantErr || err == nil && !cmp.Equal(want, gotExtra) {
			t.Errorf("ParseExtra(%s) = %q, %v; encoding/json: %q, error %v", in, gotExtra, err, want, wantErr)
		}
	}
}
