// The webhook signature vectors that the three clients' verifiers are tested
// against (testdata/webhook-signatures.json): made here by the server's own
// signing (internal/webhooks.Sign), and each one's outcome checked against
// the server's own Verify, so that a client agrees with the server on every
// one.
package clients_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/webhooks"
)

// webhookVectorsFile is read by clients/go/cardcat's, clients/ts's and
// clients/python's tests.
const webhookVectorsFile = "testdata/webhook-signatures.json"

// webhookVector is one delivery as a receiver gets it, and what a verifier
// must say of it.
type webhookVector struct {
	Name   string `json:"name"`
	Secret string `json:"secret"`
	Header string `json:"header"`
	Body   string `json:"body"` // the bytes as received, UTF-8
	Now    int64  `json:"now"`  // the receiver's clock, Unix seconds
	// Tolerance in seconds; null: the verifier's default (300).
	Tolerance *int64 `json:"tolerance"`
	// Error is null for a delivery to accept, else why it is refused:
	// no_signature, bad_signature or too_old.
	Error *string `json:"error"`
}

type webhookVectors struct {
	Comment string          `json:"comment"`
	Vectors []webhookVector `json:"vectors"`
}

// The secrets of the vectors: the endpoint's, the one it was rotated to,
// and another endpoint's.
const (
	secretOld   = "whsec_5f0c3b1e8d2a4f6b9c7e1a3d5b7f9e2c4a6d8b0f1e3c5a7d9b2f4e6a8c0d2e4f"
	secretNew   = "whsec_9a8b7c6d5e4f30211203f4e5d6c7b8a99a8b7c6d5e4f30211203f4e5d6c7b8a9"
	secretOther = "whsec_0000000000000000000000000000000000000000000000000000000000000001"
)

// vectorNow is the receivers' clock of the vectors.
var vectorNow = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// signed is the Cardcat-Signature of body at t, one v1 per secret in their
// order (a rotation's overlap signs with the new secret and the old), each
// the server's own Sign.
func signed(t time.Time, body string, secrets ...string) string {
	h := ""
	for i, s := range secrets {
		sig := webhooks.Sign(s, t, []byte(body))
		if i == 0 {
			h = sig
			continue
		}
		_, v1, _ := strings.Cut(sig, ",")
		h += "," + v1
	}
	return h
}

func makeWebhookVectors() webhookVectors {
	const body = `{"id":"evt_4f1c2b9a0d3e5f6a7b8c9d0e","type":"price.alert","created":"2026-11-28T11:59:50Z","catalogue_version":42,"game":"dbs","card_id":"dbs_3ef29751ae2b88a4","source":"tcg","variant":"Holofoil","old_price":11.9,"new_price":12.75,"average_7d":11.4,"alert":{"id":1,"rule":"above","threshold":12.5}}`
	const unicodeBody = `{"note":"Pokémon – ☃ 価格","cents":1250}` + "\n"
	sec := func(d time.Duration) time.Time { return vectorNow.Add(d) }
	tol := func(s int64) *int64 { return &s }
	errOf := func(s string) *string { return &s }
	const (
		noSignature  = "no_signature"
		badSignature = "bad_signature"
		tooOld       = "too_old"
	)
	t10 := sec(-10 * time.Second)
	good := signed(t10, body, secretOld)
	ts, v1, _ := strings.Cut(good, ",")
	v := []webhookVector{
		{Name: "a delivery signed 10 s ago", Secret: secretOld, Header: good, Body: body, Tolerance: tol(300)},
		{Name: "the default tolerance (null: 5 minutes)", Secret: secretOld, Header: good, Body: body},
		{Name: "exactly the tolerance old", Secret: secretOld, Header: signed(sec(-300*time.Second), body, secretOld), Body: body, Tolerance: tol(300)},
		{Name: "rotated secret, two v1: checked with the new secret", Secret: secretNew, Header: signed(t10, body, secretNew, secretOld), Body: body, Tolerance: tol(300)},
		{Name: "rotated secret, two v1: checked with the old secret", Secret: secretOld, Header: signed(t10, body, secretNew, secretOld), Body: body, Tolerance: tol(300)},
		{Name: "rotated secret, two v1: another endpoint's secret", Secret: secretOther, Header: signed(t10, body, secretNew, secretOld), Body: body, Tolerance: tol(300), Error: errOf(badSignature)},
		{Name: "tampered body (a price changed)", Secret: secretOld, Header: good, Body: strings.Replace(body, `"new_price":12.75`, `"new_price":1.75`, 1), Tolerance: tol(300), Error: errOf(badSignature)},
		{Name: "body with a trailing newline added", Secret: secretOld, Header: good, Body: body + "\n", Tolerance: tol(300), Error: errOf(badSignature)},
		{Name: "the wrong secret", Secret: secretOther, Header: good, Body: body, Tolerance: tol(300), Error: errOf(badSignature)},
		{Name: "old timestamp: one second past the tolerance", Secret: secretOld, Header: signed(sec(-301*time.Second), body, secretOld), Body: body, Tolerance: tol(300), Error: errOf(tooOld)},
		{Name: "old timestamp: an hour ago, the default tolerance", Secret: secretOld, Header: signed(sec(-time.Hour), body, secretOld), Body: body, Error: errOf(tooOld)},
		{Name: "an hour ago within a tolerance of two hours", Secret: secretOld, Header: signed(sec(-time.Hour), body, secretOld), Body: body, Tolerance: tol(7200)},
		{Name: "a timestamp in the future past the tolerance", Secret: secretOld, Header: signed(sec(301*time.Second), body, secretOld), Body: body, Tolerance: tol(300), Error: errOf(tooOld)},
		{Name: "a replay with its timestamp moved to now", Secret: secretOld, Header: "t=" + itoa64(vectorNow.Unix()) + "," + v1, Body: body, Tolerance: tol(300), Error: errOf(badSignature)},
		{Name: "spaces after the commas", Secret: secretOld, Header: ts + ", " + v1, Body: body, Tolerance: tol(300)},
		{Name: "upper-case hex", Secret: secretOld, Header: ts + ",v1=" + strings.ToUpper(strings.TrimPrefix(v1, "v1=")), Body: body, Tolerance: tol(300)},
		{Name: "an unknown scheme and a malformed v1 are skipped", Secret: secretOld, Header: ts + ",v0=deadbeef,v1=zz," + v1, Body: body, Tolerance: tol(300)},
		{Name: "an empty v1 is a signature that does not match", Secret: secretOld, Header: ts + ",v1=", Body: body, Tolerance: tol(300), Error: errOf(badSignature)},
		{Name: "an empty body", Secret: secretOld, Header: signed(t10, "", secretOld), Body: "", Tolerance: tol(300)},
		{Name: "a body beyond ASCII, signed as its UTF-8 bytes", Secret: secretOld, Header: signed(t10, unicodeBody, secretOld), Body: unicodeBody, Tolerance: tol(300)},
		{Name: "no v1", Secret: secretOld, Header: ts, Body: body, Tolerance: tol(300), Error: errOf(noSignature)},
		{Name: "no t", Secret: secretOld, Header: v1, Body: body, Tolerance: tol(300), Error: errOf(noSignature)},
		{Name: "a t that is not a number", Secret: secretOld, Header: "t=yesterday," + v1, Body: body, Tolerance: tol(300), Error: errOf(noSignature)},
		{Name: "an empty header", Secret: secretOld, Header: "", Body: body, Tolerance: tol(300), Error: errOf(noSignature)},
		{Name: "a header of another scheme", Secret: secretOld, Header: "sha256=" + strings.TrimPrefix(v1, "v1="), Body: body, Tolerance: tol(300), Error: errOf(noSignature)},
	}
	for i := range v {
		v[i].Now = vectorNow.Unix()
	}
	return webhookVectors{
		Comment: "Written by go test ./clients -run TestWebhookVectors -update from internal/webhooks.Sign; each outcome is internal/webhooks.Verify's. " +
			"Read by the verifiers' tests of clients/go/cardcat, clients/ts and clients/python. " +
			"body is the delivery's bytes as UTF-8; now and t are Unix seconds; tolerance is in seconds (null: the verifier's default, 300); " +
			"error is null for a delivery to accept, else no_signature, bad_signature or too_old.",
		Vectors: v,
	}
}

func itoa64(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestWebhookVectors: testdata/webhook-signatures.json is what
// makeWebhookVectors writes now (-update rewrites it), and every vector's
// outcome is the server's Verify's.
func TestWebhookVectors(t *testing.T) {
	vectors := makeWebhookVectors()
	for _, v := range vectors.Vectors {
		tolerance := time.Duration(0)
		if v.Tolerance != nil {
			tolerance = time.Duration(*v.Tolerance) * time.Second
		}
		err := webhooks.Verify(v.Secret, v.Header, []byte(v.Body), tolerance, time.Unix(v.Now, 0))
		want := map[string]error{"no_signature": webhooks.ErrNoSignature, "bad_signature": webhooks.ErrBadSignature, "too_old": webhooks.ErrTooOld}
		switch {
		case v.Error == nil && err != nil:
			t.Errorf("%s: the server's Verify refuses it: %v", v.Name, err)
		case v.Error != nil && !errors.Is(err, want[*v.Error]):
			t.Errorf("%s: the server's Verify says %v, the vector %s", v.Name, err, *v.Error)
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(vectors); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(webhookVectorsFile, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	committed, err := os.ReadFile(webhookVectorsFile)
	if err != nil || !bytes.Equal(committed, b.Bytes()) {
		t.Errorf("%s is stale or missing (%v): run go test ./clients -run TestWebhookVectors -update and review the diff", webhookVectorsFile, err)
	}
}
