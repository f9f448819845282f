package cardcat_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cardcat/cardcat/clients/go/cardcat"
)

// TestVerifyWebhook runs VerifyWebhook on the vectors the server's own
// signing made (clients/testdata/webhook-signatures.json, kept fresh by
// clients' TestWebhookVectors): each is accepted or refused for the reason
// the server's Verify gives.
func TestVerifyWebhook(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "webhook-signatures.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vectors []struct {
			Name, Secret, Header, Body string
			Now                        int64
			Tolerance                  *int64
			Error                      *string
		}
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Vectors) < 20 {
		t.Fatalf("%d vectors", len(file.Vectors))
	}
	reasons := map[string]error{
		"no_signature": cardcat.ErrWebhookNoSignature, "bad_signature": cardcat.ErrWebhookBadSignature, "too_old": cardcat.ErrWebhookTooOld,
	}
	for _, v := range file.Vectors {
		t.Run(v.Name, func(t *testing.T) {
			var tolerance time.Duration
			if v.Tolerance != nil {
				tolerance = time.Duration(*v.Tolerance) * time.Second
			}
			clock := func() time.Time { return time.Unix(v.Now, 0) }
			err := cardcat.VerifyWebhook(v.Secret, v.Header, []byte(v.Body), tolerance, clock)
			switch {
			case v.Error == nil && err != nil:
				t.Errorf("refused: %v", err)
			case v.Error != nil && !errors.Is(err, reasons[*v.Error]):
				t.Errorf("%v, want %s", err, *v.Error)
			}
		})
	}
	if err := cardcat.VerifyWebhook("", "t=1,v1=00", nil, 0, nil); err == nil {
		t.Error("no secret: accepted")
	}
	// The system clock when none is given: a delivery signed years ago is old.
	v := file.Vectors[0]
	if err := cardcat.VerifyWebhook(v.Secret, v.Header, []byte(v.Body), time.Second, nil); v.Now < time.Now().Unix()-1 && !errors.Is(err, cardcat.ErrWebhookTooOld) {
		t.Errorf("on the system clock: %v, want too old", err)
	}
}
