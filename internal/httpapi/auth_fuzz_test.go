package httpapi

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// wellFormedKey is the key format of the spec, written independently of
// account.WellFormed.
var wellFormedKey = regexp.MustCompile(`^pk_(live|test)_[A-Za-z0-9]{32}$`)

// FuzzRequestKey sends any X-API-Key and Authorization to a keyed route
// (the default Authenticator accepts every well-formed key): never a 5xx,
// errors JSON; the key is X-API-Key when it is set, else an Authorization
// of "Bearer " (any case) and the key, surrounding space trimmed; the
// answer is 200 for a well-formed key, 401 "API key required" without one,
// 401 "Invalid API key" otherwise.
func FuzzRequestKey(f *testing.F) {
	for _, s := range [][2]string{{testKey, ""}, {"", "Bearer " + testKey}, {"", "bearer " + testKey}, {"", "BEARER  " + testKey + " "},
		{"", "Basic " + testKey}, {"", "Bearer"}, {"", "Bearer "}, {" ", "Bearer " + testKey}, {"pk_live_short", ""},
		{testKey + "x", ""}, {"pk_test_" + strings.Repeat("é", 16), ""}, {strings.Repeat("k", 8192), ""},
		{"\x00", ""}, {"pk_test_abcdefghijklmnopqrstuvwxyz01234\x00", ""}, {"' OR 1=1--", "Bearer <script>"},
		{"", "Bearer " + testKey + "\r\nX-Injected: 1"}, {"\t" + testKey + "\t", ""}, {"PK_TEST_abcdefghijklmnopqrstuvwxyz012345", ""}} {
		f.Add(s[0], s[1])
	}
	h := fixtureHandler(f)
	f.Fuzz(func(t *testing.T, apiKey, authorization string) {
		r, _ := newRawRequest(http.MethodGet, "/dbs/sets")
		if apiKey != "" {
			r.Header["X-Api-Key"] = []string{apiKey}
		}
		if authorization != "" {
			r.Header["Authorization"] = []string{authorization}
		}
		key := strings.TrimSpace(apiKey)
		if apiKey == "" && len(authorization) > 7 && strings.EqualFold(authorization[:7], "bearer ") {
			key = strings.TrimSpace(authorization[7:])
		}
		if got := requestKey(r); got != key {
			t.Fatalf("requestKey(X-API-Key %q, Authorization %q) = %q, want %q", apiKey, authorization, got, key)
		}
		w, e := serveChecked(t, h, r)
		want, wantErr := http.StatusOK, ""
		switch {
		case key == "":
			want, wantErr = http.StatusUnauthorized, errKeyRequired
		case !wellFormedKey.MatchString(key):
			want, wantErr = http.StatusUnauthorized, errKeyInvalid
		}
		if w.Code != want || (wantErr != "" && *e.Error != wantErr) {
			t.Fatalf("X-API-Key %q, Authorization %q: %d %v, want %d %q", apiKey, authorization, w.Code, e.Error, want, wantErr)
		}
	})
}
