package portal

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/cardcat/cardcat/internal/account"
)

// The webhook's page lists, adds and deletes its card.changed
// subscriptions: each refusal says what to fix and keeps the form; another
// account's webhook or subscription is a 404.
func TestWebhookSubscriptions(t *testing.T) {
	tp := newTestPortalWith(t, portalOptions{alerts: true})
	card, _ := tp.loadCatalogue()
	acc := tp.createAccount("dev@example.com", true)
	tp.setPlan(acc, account.Pro)
	c := tp.session(acc)
	id, _ := tp.addWebhook(c, acc, "https://example.com/hook")
	page := "/account/webhooks/" + strconv.FormatInt(id, 10)

	res := c.get(page)
	mustContain(t, "webhook page", res.body, "<code>card.changed</code> subscriptions", "No subscription to this webhook yet.",
		"Your Pro plan keeps 30 subscriptions; you have 0.", `action="`+page+`/subscriptions"`, `<option value="dbs">`)

	for _, tt := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"game": {"dbs"}, "set": {"9999"}}, "No set &#34;9999&#34; in dbs"},
		{url.Values{"game": {"dbs"}, "cards": {"dbs_00000000000000ff"}}, "No card &#34;dbs_00000000000000ff&#34; in dbs"},
		{url.Values{"game": {"dbs"}}, "Give a set or a list of cards."},
		{url.Values{"game": {"dbs"}, "set": {"1000"}, "cards": {card}}, "not both"},
		{url.Values{"game": {"xyz"}, "set": {"1000"}}, "No game &#34;xyz&#34;"},
	} {
		res := c.post(page+"/subscriptions", tt.form)
		if res.status != http.StatusBadRequest {
			t.Errorf("%v: %d, want 400", tt.form, res.status)
			continue
		}
		mustContain(t, tt.form.Encode(), res.body, tt.want)
	}
	res = c.post(page+"/subscriptions", url.Values{"game": {"dbs"}, "set": {"9999"}})
	mustContain(t, "a refused form", res.body, `name="set" value="9999"`)

	for _, form := range []url.Values{{"game": {"dbs"}, "set": {"1000"}}, {"game": {"dbs"}, "cards": {card + ", " + card}}} {
		if res := c.post(page+"/subscriptions", form); res.status != http.StatusSeeOther {
			t.Fatalf("subscribe %v: %d\n%s", form, res.status, mainOf(res.body))
		}
	}
	res = c.get(page + "?done=subscribed")
	mustContain(t, "webhook page with subscriptions", res.body, "Subscribed: from the next catalogue version on",
		"set 1000 (Set 0)", "card "+card, "you have 2.", `aria-label="Delete subscription 1"`, `aria-label="Delete subscription 2"`)
	subs, err := tp.store.Subscriptions(context.Background(), acc.ID)
	if err != nil || len(subs) != 2 || subs[1].Cards[0] != card || len(subs[1].Cards) != 1 {
		t.Fatalf("Subscriptions = %+v, %v", subs, err)
	}

	// Another account: neither the webhook nor its subscriptions.
	other := tp.createAccount("other@example.com", true)
	tp.setPlan(other, account.Pro)
	oc := tp.session(other)
	otherID, _ := tp.addWebhook(oc, other, "https://example.com/other")
	otherPage := "/account/webhooks/" + strconv.FormatInt(otherID, 10)
	if res := oc.post(page+"/subscriptions", url.Values{"game": {"dbs"}, "set": {"1000"}}); res.status != http.StatusNotFound {
		t.Errorf("subscribing another account's webhook: %d, want 404", res.status)
	}
	if res := oc.post(otherPage+"/subscriptions/1/delete", nil); res.status != http.StatusNotFound {
		t.Errorf("deleting another account's subscription: %d, want 404", res.status)
	}
	// Nor another webhook's, of the same account.
	id2, _ := tp.addWebhook(c, acc, "https://example.com/2")
	if res := c.post("/account/webhooks/"+strconv.FormatInt(id2, 10)+"/subscriptions/1/delete", nil); res.status != http.StatusNotFound {
		t.Errorf("deleting a subscription from another webhook's page: %d, want 404", res.status)
	}

	if res := c.post(page+"/subscriptions/1/delete", nil); res.status != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.status)
	}
	res = c.get(page + "?done=unsubscribed")
	mustContain(t, "after a deletion", res.body, "Subscription deleted", "you have 1.")
	mustNotContain(t, "after a deletion", res.body, "set 1000 (Set 0)")
}
