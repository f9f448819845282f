package alerts_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store/storetest"
)

func TestParseAmount(t *testing.T) {
	for in, want := range map[string]int64{"12": 1200, "12.5": 1250, "12.50": 1250, "0.01": 1, " 3 ": 300, "1000000": alerts.MaxAmount} {
		if got, err := alerts.ParseAmount(in); err != nil || got != want {
			t.Errorf("ParseAmount(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "0.00", "-1", "1.234", "1,5", "1e3", "abc", "1.", ".5", "1000000.01"} {
		if got, err := alerts.ParseAmount(in); err == nil {
			t.Errorf("ParseAmount(%q) = %d, want an error", in, got)
		}
	}
}

func TestParsePercent(t *testing.T) {
	for in, want := range map[string]int{"1": 1, "20%": 20, "1000": 1000} {
		if got, err := alerts.ParsePercent(in); err != nil || got != want {
			t.Errorf("ParsePercent(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"0", "1001", "-5", "2.5", "x", ""} {
		if _, err := alerts.ParsePercent(in); err == nil {
			t.Errorf("ParsePercent(%q) took it", in)
		}
	}
}

func TestStep(t *testing.T) {
	none := catalog.Money{}
	c := catalog.Cents
	above := alerts.Rule{Kind: alerts.Above, Cents: 1000}
	below := alerts.Rule{Kind: alerts.Below, Cents: 1000}
	move := alerts.Rule{Kind: alerts.Move, Percent: 10}
	tests := []struct {
		name        string
		armed       bool
		rule        alerts.Rule
		price, avg7 catalog.Money
		wantArmed   bool
		wantFire    bool
	}{
		{"above: at the amount fires", true, above, c(1000), none, false, true},
		{"above: under stays armed", true, above, c(999), none, true, false},
		{"above: disarmed does not fire again", false, above, c(2000), none, false, false},
		{"above: back under re-arms", false, above, c(500), none, true, false},
		{"below: at the amount fires", true, below, c(1000), none, false, true},
		{"below: over stays armed", true, below, c(1001), none, true, false},
		{"no price keeps the state", false, above, none, none, false, false},
		{"no price keeps armed", true, above, none, none, true, false},
		{"move: up 10% fires", true, move, c(1100), c(1000), false, true},
		{"move: down 10% fires", true, move, c(900), c(1000), false, true},
		{"move: 9.9% does not", true, move, c(1099), c(1000), true, false},
		{"move: no average keeps the state", false, move, c(5000), none, false, false},
		{"move: back within re-arms", false, move, c(1000), c(1000), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			armed, fire := alerts.Step(tt.armed, tt.rule, tt.price, tt.avg7)
			if armed != tt.wantArmed || fire != tt.wantFire {
				t.Fatalf("Step = armed %v, fire %v; want %v, %v", armed, fire, tt.wantArmed, tt.wantFire)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	g := storetest.Generate("dbs", 2, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	g.Cards[0].CMPrices = []catalog.CMPrice{{Variant: "normal", Trend: catalog.Cents(100)}}
	g.Cards[1].CMPrices = nil
	snap, err := catalog.NewSnapshot(&catalog.Catalog{Version: 1, Games: []catalog.GameCatalog{g}}, game.Default())
	if err != nil {
		t.Fatal(err)
	}
	id, cmID := g.Cards[0].ID, g.Cards[0].CMID
	above := alerts.Rule{Kind: alerts.Above, Cents: 100}
	ok := []alerts.Alert{
		{CardID: id, Source: alerts.TCG, Finish: "Foil", Rule: above},
		{CardID: strings.ToUpper(cmID), Source: alerts.CM, Finish: "normal", Rule: alerts.Rule{Kind: alerts.Move, Percent: 1000}},
	}
	for _, a := range ok {
		if err := alerts.Check(&a, snap); err != nil {
			t.Errorf("Check(%+v) = %v", a, err)
		} else if a.CardID != id || a.Game != "dbs" {
			t.Errorf("Check gave card %s of %s, want the canonical %s of dbs", a.CardID, a.Game, id)
		}
	}
	tests := []struct {
		a    alerts.Alert
		want string
	}{
		{alerts.Alert{CardID: "dbs_0000000000000000", Source: alerts.TCG, Finish: "Foil", Rule: above}, `no card "dbs_0000000000000000" in the current catalogue`},
		{alerts.Alert{CardID: "nonsense", Source: alerts.TCG, Finish: "Foil", Rule: above}, `no card "nonsense"`},
		{alerts.Alert{CardID: id, Source: alerts.TCG, Finish: "Holofoil", Rule: above}, `has no TCGplayer finish "Holofoil": it has Normal, Foil`},
		{alerts.Alert{CardID: id, Source: alerts.CM, Finish: "foil", Rule: above}, `has no Cardmarket finish "foil": it has normal`},
		{alerts.Alert{CardID: g.Cards[1].ID, Source: alerts.CM, Finish: "normal", Rule: above}, `has no Cardmarket prices`},
		{alerts.Alert{CardID: id, Source: "ebay", Finish: "Foil", Rule: above}, `"ebay" is not a marketplace`},
		{alerts.Alert{CardID: id, Source: alerts.TCG, Finish: "Foil", Rule: alerts.Rule{Kind: alerts.Above}}, "not a positive amount"},
		{alerts.Alert{CardID: id, Source: alerts.TCG, Finish: "Foil", Rule: alerts.Rule{Kind: alerts.Move, Percent: 1001}}, "from 1 to 1000"},
		{alerts.Alert{CardID: id, Source: alerts.TCG, Finish: "Foil", Rule: alerts.Rule{Kind: "sideways"}}, "not a rule"},
	}
	for _, tt := range tests {
		err := alerts.Check(&tt.a, snap)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%+v) = %v, want %q", tt.a, err, tt.want)
		}
	}
	if err := alerts.Check(&ok[0], nil); err == nil {
		t.Error("Check without a catalogue took it")
	}
}

func TestParseRule(t *testing.T) {
	for _, tt := range []struct {
		kind, value string
		want        alerts.Rule
	}{
		{"above", "12.50", alerts.Rule{Kind: alerts.Above, Cents: 1250}},
		{"below", "3", alerts.Rule{Kind: alerts.Below, Cents: 300}},
		{" move ", "20%", alerts.Rule{Kind: alerts.Move, Percent: 20}},
	} {
		got, err := alerts.ParseRule(tt.kind, tt.value)
		if err != nil || got != tt.want {
			t.Errorf("ParseRule(%q, %q) = %+v, %v; want %+v", tt.kind, tt.value, got, err, tt.want)
		}
		if again, err := alerts.ParseRule(string(got.Kind), got.Value()); err != nil || again != got {
			t.Errorf("%+v does not read back from its Value %q: %+v, %v", got, got.Value(), again, err)
		}
	}
	for _, tt := range []struct{ kind, value, want string }{
		{"", "1", "not a rule"},
		{"over", "1", "not a rule"},
		{"above", "", "not an amount"},
		{"below", "-2", "not an amount"},
		{"move", "0", "from 1 to 1000"},
		{"move", "12.5", "from 1 to 1000"},
	} {
		if _, err := alerts.ParseRule(tt.kind, tt.value); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseRule(%q, %q) = %v, want an error saying %q", tt.kind, tt.value, err, tt.want)
		}
	}
}

func TestNewTestEvent(t *testing.T) {
	at := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	a := &alerts.Alert{ID: 4, Game: "dbs", CardID: "dbs_0000000000000001", Source: alerts.CM, Finish: "normal",
		Rule: alerts.Rule{Kind: alerts.Move, Percent: 20}, LastPrice: catalog.Cents(100)}
	e := alerts.NewTestEvent(7, 3, a, 12, at)
	e2 := alerts.NewTestEvent(7, 3, a, 12, at)
	if e.ID == e2.ID || !strings.HasPrefix(e.ID, "evt_") || len(e.ID) != 28 {
		t.Fatalf("test event ids %s, %s: want a new evt_ id each time", e.ID, e2.ID)
	}
	if !e.Test || e.AccountID != 7 || e.WebhookID != 3 || e.AlertID != 4 || e.Version != 0 {
		t.Fatalf("test event = %+v", e)
	}
	for _, want := range []string{`"id":"` + e.ID + `"`, `"type":"price.alert"`, `"catalogue_version":12`, `"card_id":"dbs_0000000000000001"`,
		`"old_price":1,`, `"new_price":1.2,`, `"average_7d":1,`, `"alert":{"id":4,"rule":"move","percent":20}`, `"test":true`} {
		if !strings.Contains(string(e.Body), want) {
			t.Errorf("test event %s lacks %s", e.Body, want)
		}
	}
	sample := alerts.NewTestEvent(7, 3, nil, 0, at)
	if !strings.Contains(string(sample.Body), `"card_id":"pkm_0123456789abcdef"`) || !strings.Contains(string(sample.Body), `"new_price":12.5`) {
		t.Errorf("sample test event %s", sample.Body)
	}
}
