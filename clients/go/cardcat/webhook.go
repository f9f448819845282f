package cardcat

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// WebhookSignatureHeader carries a webhook delivery's signature:
//
//	Cardcat-Signature: t=1795867190,v1=25a9f6ca...
//
// t is the Unix time of the attempt; v1 the hex HMAC-SHA256, keyed by the
// endpoint's whole signing secret ("whsec_..."), of t, ".", and the body's
// bytes. During a secret's rotation a delivery carries one v1 per secret.
const WebhookSignatureHeader = "Cardcat-Signature"

// DefaultWebhookTolerance is how far a delivery's t may be from the
// receiver's clock: older (or later) deliveries are refused as replays.
const DefaultWebhookTolerance = 5 * time.Minute

// The errors of VerifyWebhook, for errors.Is.
var (
	ErrWebhookNoSignature  = errors.New("cardcat: no webhook signature (t=... and v1=...) in the header")
	ErrWebhookBadSignature = errors.New("cardcat: the webhook signature does not match the body")
	ErrWebhookTooOld       = errors.New("cardcat: the webhook signature's time is outside the tolerance (a replay?)")
)

// VerifyWebhook checks a webhook delivery before its body is read as JSON:
// header is its Cardcat-Signature value, body its bytes exactly as received,
// secret the endpoint's signing secret. It accepts the delivery when one v1
// matches (compared in constant time) and t is within tolerance of now
// (DefaultWebhookTolerance when 0); now is the clock (time.Now when nil).
//
//	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
//	if err != nil { ... }
//	if err := cardcat.VerifyWebhook(secret, r.Header.Get(cardcat.WebhookSignatureHeader), body, 0, nil); err != nil {
//		http.Error(w, "bad signature", http.StatusBadRequest)
//		return
//	}
//
// The same event may come more than once (delivery is at least once): use
// its id to do its work once.
func VerifyWebhook(secret, header string, body []byte, tolerance time.Duration, now func() time.Time) error {
	if secret == "" {
		return errors.New("cardcat: VerifyWebhook without the endpoint's secret")
	}
	if tolerance <= 0 {
		tolerance = DefaultWebhookTolerance
	}
	if now == nil {
		now = time.Now
	}
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			if b, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, b)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrWebhookNoSignature
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	want := m.Sum(nil)
	match := false
	for _, s := range sigs {
		// Every v1 is compared, so that the time taken does not say which.
		if hmac.Equal(s, want) {
			match = true
		}
	}
	if !match {
		return ErrWebhookBadSignature
	}
	if d := now().Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrWebhookTooOld
	}
	return nil
}
