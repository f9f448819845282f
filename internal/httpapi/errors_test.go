package httpapi

import (
	"encoding/json"
	"testing"
)

// TestErrorBodyJSON: the error bodies written by hand are json.Marshal's
// bytes, for every field alone and together, with text that encoding/json
// escapes (HTML, quotes, control and line-separator characters, bad UTF-8).
func TestErrorBodyJSON(t *testing.T) {
	odd := "a <b> & \"c\" \\ \n\t\u2028 é \xff 日本"
	suggestions := []json.RawMessage{json.RawMessage(`{"set_id":"1","name":"A & B"}`), json.RawMessage(`{ "set_id" : "2" }`)}
	bodies := []errorBody{
		{},
		{Error: errCardNotFound, Message: "No card has the id dbs_0123456789abcdef."},
		{Error: odd, Message: odd},
		{Error: errInvalidCardID, Message: "m", DidYouMean: "/dbs/cards/dbs_0123456789abcdef?x=1&y=<2>"},
		{Error: errEndpointNotFound, Message: "m", DidYouMean: json.RawMessage("null"), Docs: "https://cardcat.example/docs?a=1&b=2"},
		{Error: errSetNotFound, Message: "m", Suggestions: suggestions},
		{Error: errSetNotFound, Message: "m", Suggestions: []json.RawMessage{}},
		{Error: errKeyRequired, Message: "m", Example: `curl -H "X-API-Key: pk_live_YOUR_32_CHARACTER_API_KEY" "http://h/dbs/search?q=a&limit=5"`},
		{Error: errPlanRequired, Message: "m", RedeemURL: "http://h/account/trial", UpgradeURL: "http://h/account/upgrade"},
		{Error: "rate_limited", Message: "m", Limits: &limitsBody{Hourly: windowBody{Limit: 1000, Used: 1001, Remaining: 0}, Daily: windowBody{Limit: -1, Used: 9223372036854775807}}},
		{Error: errAmbiguousSetCode, Message: "m", Matches: []map[string]any{{"set_id": "1", "name": odd}}},
		{Error: "e", Message: "m", DidYouMean: 42, Suggestions: map[string]string{"b": "<", "a": ">"}, Matches: "a string"},
		{Error: "e", Message: "m", DidYouMean: json.RawMessage(` [ "a" , "<b>" ] `), Docs: odd, Suggestions: suggestions, Example: odd,
			RedeemURL: odd, UpgradeURL: odd, Limits: &limitsBody{}, Matches: suggestions},
	}
	for i, e := range bodies {
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.appendJSON([]byte("prefix")); string(got) != "prefix"+string(want) {
			t.Errorf("body %d:\n got %s\nwant prefix%s", i, got, want)
		}
	}
}
