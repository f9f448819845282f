package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader carries a delivery's signature:
//
//	Cardcat-Signature: t=1732800000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd
//
// t is the Unix time of the attempt; v1 is the hex HMAC-SHA256, keyed by
// the endpoint's whole secret ("whsec_..."), of t, ".", and the body's
// bytes as received. Each attempt is signed anew. A header may carry more
// than one v1 (a secret rotated with an overlap signs with both): any one
// matching is a valid signature.
const SignatureHeader = "Cardcat-Signature"

// DefaultTolerance is how far a signature's time may be from the
// receiver's clock in Verify's callers' usual setting: older deliveries
// are refused as replays.
const DefaultTolerance = 5 * time.Minute

// Sign is the signature of body sent at t, as the header's value.
func Sign(secret string, t time.Time, body []byte) string { return SignAll(t, body, secret) }

// SignAll is Sign with one v1 per secret, in their order: during a
// rotation's overlap a delivery is signed with the new secret and the old.
func SignAll(t time.Time, body []byte, secrets ...string) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=" + ts)
	for _, s := range secrets {
		b.WriteString(",v1=" + hex.EncodeToString(mac(s, ts, body)))
	}
	return b.String()
}

func mac(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// The errors of Verify.
var (
	ErrNoSignature  = errors.New("webhooks: no signature (t=... and v1=...) in the header")
	ErrBadSignature = errors.New("webhooks: the signature does not match the body")
	ErrTooOld       = errors.New("webhooks: the signature's time is outside the tolerance (a replay?)")
)

// Verify checks header (the Cardcat-Signature value) against the body as
// received and the endpoint's secret: a v1 signature over t.body matches,
// and t is within tolerance of now (0: DefaultTolerance). A receiver calls
// it before it reads the body as JSON.
func Verify(secret, header string, body []byte, tolerance time.Duration, now time.Time) error {
	if tolerance <= 0 {
		tolerance = DefaultTolerance
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
		return ErrNoSignature
	}
	want := mac(secret, ts, body)
	ok := false
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			ok = true
		}
	}
	if !ok {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrTooOld
	}
	return nil
}
