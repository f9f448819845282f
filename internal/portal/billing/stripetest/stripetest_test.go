package stripetest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/portal/billing/stripetest"
)

// The fake refuses a line item as Stripe does, with Stripe's error body, so
// that a client's mistake in building one shows in tests.
func TestCreateSessionLineItems(t *testing.T) {
	fake := stripetest.New(t, stripetest.Options{})
	base := func() url.Values {
		return url.Values{
			"mode":                                           {"subscription"},
			"success_url":                                    {"https://cardcat.test/done"},
			"line_items[0][quantity]":                        {"1"},
			"line_items[0][price_data][currency]":            {"eur"},
			"line_items[0][price_data][unit_amount]":         {"500"},
			"line_items[0][price_data][recurring][interval]": {"month"},
			"line_items[0][price_data][product_data][name]":  {"Coffee plan"},
		}
	}
	for _, tt := range []struct {
		name string
		edit func(url.Values)
		want string // in the error message; "" for a session
	}{
		{"price_data, monthly", func(url.Values) {}, ""},
		{"a price id", func(f url.Values) {
			for k := range f {
				if strings.Contains(k, "price_data") {
					delete(f, k)
				}
			}
			f.Set("line_items[0][price]", "price_pro")
		}, ""},
		{"at Stripe's smallest charge", func(f url.Values) { f.Set("line_items[0][price_data][unit_amount]", "50") }, ""},
		{"below Stripe's smallest charge", func(f url.Values) { f.Set("line_items[0][price_data][unit_amount]", "49") }, "at least 0.50 eur"},
		{"two of them below it", func(f url.Values) {
			f.Set("line_items[0][price_data][unit_amount]", "30")
			f.Set("line_items[0][quantity]", "2")
		}, ""},
		{"a price and price_data", func(f url.Values) { f.Set("line_items[0][price]", "price_pro") }, "only specify one of these parameters: price, price_data"},
		{"no line item", func(f url.Values) {
			for k := range f {
				if strings.HasPrefix(k, "line_items") {
					delete(f, k)
				}
			}
		}, "Missing required param: line_items[0][price]"},
		{"no currency", func(f url.Values) { f.Del("line_items[0][price_data][currency]") }, "[currency]"},
		{"no amount", func(f url.Values) { f.Del("line_items[0][price_data][unit_amount]") }, "[unit_amount]"},
		{"a negative amount", func(f url.Values) { f.Set("line_items[0][price_data][unit_amount]", "-500") }, "[unit_amount]"},
		{"no product", func(f url.Values) { f.Del("line_items[0][price_data][product_data][name]") }, "[product_data][name]"},
		{"not recurring in subscription mode", func(f url.Values) { f.Del("line_items[0][price_data][recurring][interval]") }, "[recurring][interval] in subscription mode"},
		{"recurring in payment mode", func(f url.Values) { f.Set("mode", "payment") }, "`payment` mode but passed a recurring price"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			form := base()
			tt.edit(form)
			resp, err := http.PostForm(fake.URL+"/v1/checkout/sessions", form)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				URL   string `json:"url"`
				Error struct {
					Type, Message string
				} `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == "" && (resp.StatusCode != http.StatusOK || body.URL == ""):
				t.Errorf("%d %+v, want a session", resp.StatusCode, body.Error)
			case tt.want != "" && (resp.StatusCode != http.StatusBadRequest || body.Error.Type != "invalid_request_error" || !strings.Contains(body.Error.Message, tt.want)):
				t.Errorf("%d %+v, want 400 invalid_request_error saying %q", resp.StatusCode, body.Error, tt.want)
			}
		})
	}
}
