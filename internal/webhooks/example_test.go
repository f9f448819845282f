package webhooks_test

import (
	"io"
	"net/http"
	"time"

	"github.com/cardcat/cardcat/internal/webhooks"
)

// A receiver checks the signature over the body as received before it
// reads it as JSON, and refuses deliveries older than the tolerance.
func ExampleVerify() {
	secret := "whsec_..." // shown once when the endpoint was created
	http.HandleFunc("POST /hooks/cardcat", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "unreadable", http.StatusBadRequest)
			return
		}
		if err := webhooks.Verify(secret, r.Header.Get(webhooks.SignatureHeader), body, 5*time.Minute, time.Now()); err != nil {
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		// The event is authentic: act on it (an event may come twice: key on its id).
		w.WriteHeader(http.StatusNoContent)
	})
}
