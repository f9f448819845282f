// Package stripetest is a fake Stripe for tests: an httptest server that
// stripe-go can be pointed at (billing.Config.BaseURL) to create Checkout
// Sessions, with a checkout page of its own whose Pay button (id "pay")
// sends the signed checkout.session.completed event to the webhook and
// sends the browser back to the session's success_url, as Stripe does.
//
// A session's one line item is a price id (line_items[0][price]) or a price
// made with the session (line_items[0][price_data]: currency, unit_amount,
// product or product_data[name], and recurring[interval] in subscription
// mode, none in payment mode), refused as Stripe refuses it when a part is
// missing or when an amount in EUR is below Stripe's smallest charge, 0.50.
//
// The fake signs events on its clock (Options.Now, time.Now by default): a
// test that moves the clock of the server under test must give the fake the
// same clock, or the webhook finds the signatures stale.
package stripetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"
)

// Options configure a fake.
type Options struct {
	// SecretKey, when set, is the API key the fake requires (as Stripe
	// does: "Authorization: Bearer sk_..."); any key is accepted when "".
	SecretKey string
	// WebhookSecret signs the events the fake sends.
	WebhookSecret string
	// WebhookURL receives them; it may be set later with SetWebhookURL
	// (the server under test usually starts after the fake).
	WebhookURL string
	// Now is the signing clock; time.Now when nil.
	Now func() time.Time
}

// Session is a Checkout Session the fake created.
type Session struct {
	ID     string
	URL    string     // the fake's checkout page: {Server.URL}/checkout/{ID}
	Params url.Values // the create call's form, as stripe-go encoded it
	// Customer is the params' customer, or one the fake made up;
	// Subscription is the one the payment starts.
	Customer     string
	Subscription string
	Paid         bool
	// For a price_data line item: the amount a time (unit_amount times
	// quantity, in the currency's smallest unit), the currency, and the
	// recurring interval ("" in payment mode). Zero for a price id.
	Amount   int64
	Currency string
	Interval string
}

// Server is a running fake Stripe.
type Server struct {
	URL string // the API base, for billing.Config.BaseURL

	srv  *httptest.Server
	opts Options

	mu       sync.Mutex
	sessions []*Session
	seq      int
}

// New starts a fake, closed when the test ends.
func New(tb testing.TB, opts Options) *Server {
	tb.Helper()
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{opts: opts}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/checkout/sessions", s.createSession)
	mux.HandleFunc("GET /checkout/{id}", s.checkoutPage)
	mux.HandleFunc("POST /checkout/{id}/pay", s.pay)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	tb.Cleanup(s.srv.Close)
	return s
}

// SetWebhookURL sets where events are sent.
func (s *Server) SetWebhookURL(u string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.WebhookURL = u
}

// SetClock sets the signing clock.
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Now = now
}

// Sessions returns copies of the sessions created so far, oldest first.
func (s *Server) Sessions() []Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Session, len(s.sessions))
	for i, ss := range s.sessions {
		out[i] = *ss
		out[i].Params = cloneValues(ss.Params)
	}
	return out
}

// Pay does what the checkout page's Pay button does, without a browser:
// it sends the session's signed checkout.session.completed event to the
// webhook and fails unless the webhook answers 2xx.
func (s *Server) Pay(ctx context.Context, id string) error {
	s.mu.Lock()
	ss := s.session(id)
	if ss == nil {
		s.mu.Unlock()
		return fmt.Errorf("stripetest: no session %q", id)
	}
	obj := completedSession(ss)
	s.mu.Unlock()

	if err := s.send(ctx, string(stripe.EventTypeCheckoutSessionCompleted), obj); err != nil {
		return err
	}
	s.mu.Lock()
	ss.Paid = true
	s.mu.Unlock()
	return nil
}

// EndSubscription sends customer.subscription.deleted for the subscription
// a paid session started, as Stripe does when it is cancelled.
func (s *Server) EndSubscription(ctx context.Context, id string) error {
	s.mu.Lock()
	ss := s.session(id)
	if ss == nil || !ss.Paid {
		s.mu.Unlock()
		return fmt.Errorf("stripetest: no paid session %q", id)
	}
	obj := SubscriptionObject(ss.Subscription, ss.Customer, string(stripe.SubscriptionStatusCanceled))
	s.mu.Unlock()
	return s.send(ctx, string(stripe.EventTypeCustomerSubscriptionDeleted), obj)
}

// SubscriptionObject is a Subscription as customer.subscription.* events
// carry it (the fields a webhook reads).
func SubscriptionObject(id, customer, status string) map[string]any {
	return map[string]any{"id": id, "object": "subscription", "customer": customer, "status": status}
}

// session returns the session of id; s.mu is held.
func (s *Server) session(id string) *Session {
	for _, ss := range s.sessions {
		if ss.ID == id {
			return ss
		}
	}
	return nil
}

func (s *Server) send(ctx context.Context, eventType string, obj any) error {
	s.mu.Lock()
	target, now, secret := s.opts.WebhookURL, s.opts.Now, s.opts.WebhookSecret
	s.mu.Unlock()
	if target == "" {
		return fmt.Errorf("stripetest: no webhook URL to send %s to", eventType)
	}
	body, sig, err := signEvent(secret, eventType, obj, now())
	if err != nil {
		return err
	}
	status, resp, err := post(ctx, target, body, sig)
	if err != nil {
		return err
	}
	if status/100 != 2 {
		return fmt.Errorf("stripetest: webhook answered %d to %s: %s", status, eventType, resp)
	}
	return nil
}

// createSession is POST /v1/checkout/sessions.
func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	if s.opts.SecretKey != "" && r.Header.Get("Authorization") != "Bearer "+s.opts.SecretKey {
		stripeError(w, http.StatusUnauthorized, "Invalid API Key provided")
		return
	}
	if err := r.ParseForm(); err != nil {
		stripeError(w, http.StatusBadRequest, "unparsable form")
		return
	}
	f := r.PostForm
	for _, name := range []string{"mode", "success_url"} {
		if f.Get(name) == "" {
			stripeError(w, http.StatusBadRequest, "Missing required param: "+name)
			return
		}
	}
	item, err := lineItem(f)
	if err != nil {
		stripeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	s.seq++
	id := fmt.Sprintf("cs_test_%d_%s", s.seq, randomHex(8))
	ss := &Session{
		ID:           id,
		URL:          s.URL + "/checkout/" + id,
		Params:       cloneValues(f),
		Customer:     f.Get("customer"),
		Subscription: fmt.Sprintf("sub_test_%d_%s", s.seq, randomHex(6)),
		Amount:       item.amount,
		Currency:     item.currency,
		Interval:     item.interval,
	}
	if ss.Customer == "" {
		ss.Customer = fmt.Sprintf("cus_test_%d_%s", s.seq, randomHex(6))
	}
	s.sessions = append(s.sessions, ss)
	obj := sessionObject(ss)
	s.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(obj)
}

// priceItem is a session's line item made with price_data.
type priceItem struct {
	amount             int64
	currency, interval string
}

// minimumCharge is Stripe's smallest charge per currency, in its smallest
// unit; the fake knows EUR's, the one cardcat charges in.
var minimumCharge = map[string]int64{"eur": 50}

// lineItem checks the session's one line item as Stripe does, and returns
// its price_data's amount (zero for a price id).
func lineItem(f url.Values) (priceItem, error) {
	const at = "line_items[0]"
	price, hasData := f.Get(at+"[price]"), false
	for k := range f {
		if strings.HasPrefix(k, at+"[price_data]") {
			hasData = true
		}
	}
	switch {
	case price != "" && hasData:
		return priceItem{}, errors.New("You may only specify one of these parameters: price, price_data.")
	case price != "":
		return priceItem{}, nil
	case !hasData:
		return priceItem{}, errors.New("Missing required param: " + at + "[price].")
	}
	pd := at + "[price_data]"
	var it priceItem
	it.currency, it.interval = f.Get(pd+"[currency]"), f.Get(pd+"[recurring][interval]")
	if it.currency == "" {
		return it, errors.New("Missing required param: " + pd + "[currency].")
	}
	unit, err := strconv.ParseInt(f.Get(pd+"[unit_amount]"), 10, 64)
	if err != nil || unit < 0 {
		return it, errors.New("Invalid non-negative integer: " + pd + "[unit_amount].")
	}
	if f.Get(pd+"[product]") == "" && f.Get(pd+"[product_data][name]") == "" {
		return it, errors.New("Missing required param: " + pd + "[product_data][name].")
	}
	switch mode := f.Get("mode"); {
	case mode == "subscription" && !slices.Contains([]string{"day", "week", "month", "year"}, it.interval):
		return it, errors.New("You must specify a valid " + pd + "[recurring][interval] in subscription mode.")
	case mode == "payment" && it.interval != "":
		return it, errors.New("You specified `payment` mode but passed a recurring price.")
	}
	quantity := int64(1)
	if q := f.Get(at + "[quantity]"); q != "" {
		if quantity, err = strconv.ParseInt(q, 10, 64); err != nil || quantity < 1 {
			return it, errors.New("Invalid positive integer: " + at + "[quantity].")
		}
	}
	it.amount = unit * quantity
	if least, ok := minimumCharge[it.currency]; ok && it.amount < least {
		return it, fmt.Errorf("The Checkout Session's total amount due must add up to at least %d.%02d %s.", least/100, least%100, it.currency)
	}
	return it, nil
}

// sessionObject is the session as the create call answers it (open, unpaid,
// without customer when made from customer_email); s.mu is held.
func sessionObject(ss *Session) map[string]any {
	f := ss.Params
	meta := map[string]string{}
	for k, v := range f {
		if name, ok := strings.CutPrefix(k, "metadata["); ok && strings.HasSuffix(name, "]") && len(v) > 0 {
			meta[strings.TrimSuffix(name, "]")] = v[0]
		}
	}
	obj := map[string]any{
		"id":                  ss.ID,
		"object":              "checkout.session",
		"url":                 ss.URL,
		"mode":                f.Get("mode"),
		"status":              "open",
		"payment_status":      "unpaid",
		"client_reference_id": nullable(f.Get("client_reference_id")),
		"customer":            nullable(f.Get("customer")),
		"customer_email":      nullable(f.Get("customer_email")),
		"subscription":        nil,
		"metadata":            meta,
		"success_url":         f.Get("success_url"),
		"cancel_url":          nullable(f.Get("cancel_url")),
		"livemode":            false,
		"amount_total":        nil,
		"currency":            nil,
	}
	if ss.Currency != "" {
		obj["amount_total"], obj["currency"] = ss.Amount, ss.Currency
	}
	return obj
}

// completedSession is the session as checkout.session.completed carries it;
// s.mu is held.
func completedSession(ss *Session) map[string]any {
	obj := sessionObject(ss)
	obj["status"] = "complete"
	obj["payment_status"] = "paid"
	obj["customer"] = ss.Customer
	obj["subscription"] = ss.Subscription
	obj["url"] = nil
	return obj
}

var checkoutPage = template.Must(template.New("checkout").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<link rel="icon" href="data:,"><title>Fake Stripe Checkout</title></head>
<body>
<main>
<h1>Fake Stripe Checkout</h1>
<p>Session <code id="session">{{.ID}}</code>: {{if .Price}}price <code id="price">{{.Price}}</code>{{else}}<span id="amount">{{.Amount}}</span>{{end}}{{with .Email}}, for <span id="email">{{.}}</span>{{end}}.</p>
{{if .Paid}}<p id="paid">Paid.</p>{{end}}
<form method="post" action="/checkout/{{.ID}}/pay">
<button type="submit" id="pay">Pay</button>
</form>
{{with .CancelURL}}<p><a id="cancel" href="{{.}}">Cancel</a></p>{{end}}
</main>
</body></html>
`))

// checkoutPage is GET /checkout/{id}, the page a Checkout Session's URL
// opens.
func (s *Server) checkoutPage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	ss := s.session(r.PathValue("id"))
	var data struct {
		ID, Price, Amount, Email, CancelURL string
		Paid                                bool
	}
	if ss != nil {
		data.ID, data.Paid = ss.ID, ss.Paid
		data.Price = ss.Params.Get("line_items[0][price]")
		if ss.Currency != "" {
			data.Amount = fmt.Sprintf("%d.%02d %s", ss.Amount/100, ss.Amount%100, strings.ToUpper(ss.Currency))
			if ss.Interval != "" {
				data.Amount += " a " + ss.Interval
			}
		}
		data.Email = ss.Params.Get("customer_email")
		data.CancelURL = ss.Params.Get("cancel_url")
	}
	s.mu.Unlock()
	if ss == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = checkoutPage.Execute(w, data)
}

// pay is the Pay button: the event to the webhook, then back to the
// success_url, with Stripe's {CHECKOUT_SESSION_ID} template filled in.
func (s *Server) pay(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := s.Pay(r.Context(), id); err != nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, "payment not delivered: %v\n", err)
		return
	}
	s.mu.Lock()
	success := s.session(id).Params.Get("success_url")
	s.mu.Unlock()
	http.Redirect(w, r, strings.ReplaceAll(success, "{CHECKOUT_SESSION_ID}", id), http.StatusSeeOther)
}

// SignedEvent returns an event of eventType carrying object, as Stripe
// would send it now, and its Stripe-Signature header for secret.
func SignedEvent(tb testing.TB, secret, eventType string, object any) (body []byte, sigHeader string) {
	tb.Helper()
	return SignedEventAt(tb, secret, eventType, object, time.Now())
}

// SignedEventAt is SignedEvent signed at the time at.
func SignedEventAt(tb testing.TB, secret, eventType string, object any, at time.Time) (body []byte, sigHeader string) {
	tb.Helper()
	body, sigHeader, err := signEvent(secret, eventType, object, at)
	if err != nil {
		tb.Fatalf("stripetest: %v", err)
	}
	return body, sigHeader
}

func signEvent(secret, eventType string, object any, at time.Time) ([]byte, string, error) {
	raw, err := json.Marshal(object)
	if err != nil {
		return nil, "", fmt.Errorf("stripetest: event object: %w", err)
	}
	ev := map[string]any{
		"id":               "evt_test_" + randomHex(12),
		"object":           "event",
		"api_version":      stripe.APIVersion,
		"created":          at.Unix(),
		"type":             eventType,
		"livemode":         false,
		"pending_webhooks": 1,
		"data":             map[string]json.RawMessage{"object": raw},
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return nil, "", fmt.Errorf("stripetest: event: %w", err)
	}
	return body, Signature(secret, body, at), nil
}

// Signature is the Stripe-Signature header of body signed with secret at
// the time at ("t=...,v1=..."), for bodies a test makes or tampers with.
func Signature(secret string, body []byte, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: secret, Timestamp: at}).Header
}

// SendEvent posts an event to a webhook as Stripe does and returns the
// answer's status and body. sigHeader "" sends no Stripe-Signature.
func SendEvent(tb testing.TB, webhookURL string, body []byte, sigHeader string) (status int, respBody string) {
	tb.Helper()
	status, respBody, err := post(context.Background(), webhookURL, body, sigHeader)
	if err != nil {
		tb.Fatalf("stripetest: %v", err)
	}
	return status, respBody
}

func post(ctx context.Context, target string, body []byte, sigHeader string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0, "", fmt.Errorf("stripetest: webhook request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)")
	if sigHeader != "" {
		req.Header.Set("Stripe-Signature", sigHeader)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("stripetest: webhook: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return 0, "", fmt.Errorf("stripetest: webhook answer: %w", err)
	}
	return resp.StatusCode, string(b), nil
}

// stripeError answers as Stripe's API does on an error, which stripe-go
// turns into a *stripe.Error.
func stripeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]string{"type": "invalid_request_error", "message": msg},
	})
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
