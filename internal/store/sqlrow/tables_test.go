package sqlrow

import (
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/google/go-cmp/cmp"
)

func TestGameRows(t *testing.T) {
	updated := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	g := catalog.GameCatalog{
		Game: "g",
		Sets: []catalog.Set{{Game: "g", ID: "s1", TCGGroupID: 7}},
		Cards: []catalog.Card{
			{Game: "g", ID: "a", Variants: []string{"Normal"},
				TCGPrices: []catalog.TCGPrice{{SubType: "Normal", Market: catalog.Cents(5), UpdatedAt: updated}, {SubType: "Foil"}}},
			{Game: "g", ID: "b"},
			{Game: "g", ID: "c", CMMatch: catalog.MatchName, CMPrices: []catalog.CMPrice{{Variant: "normal", Avg: catalog.Cents(9)}}},
		},
	}
	timeValue := func(t time.Time) any { return t.Unix() }
	var got [][][]any
	for _, rows := range GameRows(&g, timeValue) {
		var table [][]any
		for rows.Next() {
			values, _ := rows.Values()
			table = append(table, append([]any(nil), values...))
		}
		got = append(got, table)
	}
	want := [][][]any{
		{{"g", "s1", nil, nil, nil, nil, nil, int64(7), nil}},
		{
			{"g", "a", int64(0), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, "[]", `["Normal"]`, int64(0), nil, nil, nil, nil},
			{"g", "b", int64(1), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, "[]", "[]", int64(0), nil, nil, nil, nil},
			{"g", "c", int64(2), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, "[]", "[]", int64(0), nil, nil, nil, "name"},
		},
		{
			{"g", int64(0), "a", "Normal", nil, nil, nil, int64(5), nil, updated.Unix()},
			{"g", int64(1), "a", "Foil", nil, nil, nil, nil, nil, nil},
		},
		{{"g", int64(0), "c", "normal", int64(9), nil, nil, nil, nil, nil, nil}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	for i, table := range got {
		for _, row := range table {
			if len(row) != len(Tables[i].Columns) {
				t.Errorf("%s: %d values for %d columns", Tables[i].Name, len(row), len(Tables[i].Columns))
			}
		}
	}
}
