package web

import "testing"

// aKey is a well-formed API key.
const aKey = "pk_live_AbCdEfGhIjKlMnOpQrStUvWxYz012345"

func TestRedactTarget(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Nothing to hide.
		{"/dbs/sets", "/dbs/sets"},
		{"/dbs/search?q=goku&page=2", "/dbs/search?q=goku&page=2"},
		{"/dbs/search?q=key&monkey=1&keyword=pk&key=", "/dbs/search?q=key&monkey=1&keyword=pk&key="},
		{"/dbs/search?q=pk_live_&sort=pk_test", "/dbs/search?q=pk_live_&sort=pk_test"},
		{"*", "*"},
		{"", ""},
		// Key-like parameter names, in any case and spelling.
		{"/dbs/sets?api_key=" + aKey, "/dbs/sets?api_key=REDACTED"},
		{"/dbs/sets?API_KEY=x&apikey=y&ApiKey=z", "/dbs/sets?API_KEY=REDACTED&apikey=REDACTED&ApiKey=REDACTED"},
		{"/?key=1&token=2&access_token=3&password=4&secret=5", "/?key=REDACTED&token=REDACTED&access_token=REDACTED&password=REDACTED&secret=REDACTED"},
		{"/?X-API-Key=1&api-key=2&client_secret=3&Access-Token=4&api%5Fkey=5", "/?X-API-Key=REDACTED&api-key=REDACTED&client_secret=REDACTED&Access-Token=REDACTED&api%5Fkey=REDACTED"},
		{"/?a=1;token=2;b=3", "/?a=1;token=REDACTED;b=3"},
		{"/?token=a&token=b", "/?token=REDACTED&token=REDACTED"},
		{"/?password=a=b&q=1", "/?password=REDACTED&q=1"},
		// Key-shaped values anywhere: path, other parameters, names; any case, %5F for _.
		{"/dbs/cards/" + aKey, "/dbs/cards/REDACTED"},
		{"/dbs/cards/" + aKey + "/x", "/dbs/cards/REDACTED/x"},
		{"/dbs/search?q=pk_test_abc123", "/dbs/search?q=REDACTED"},
		{"/dbs/search?q=see+PK_LIVE_abc+and+pk_test_XY", "/dbs/search?q=see+REDACTED+and+REDACTED"},
		{"/dbs/search?q=pk%5Flive%5Fabc&limit=1", "/dbs/search?q=REDACTED&limit=1"},
		{"/?pk_live_abc=1", "/?REDACTED=1"},
		{"/dbs/sets?x=" + aKey + "&api_key=" + aKey, "/dbs/sets?x=REDACTED&api_key=REDACTED"},
	} {
		if got := RedactTarget(tc.in); got != tc.want {
			t.Errorf("RedactTarget(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRedactTargetAllocatesNothing: the access log checks every target; one
// with nothing to hide costs no allocation.
func TestRedactTargetAllocatesNothing(t *testing.T) {
	for _, target := range []string{"/dbs/cards/dbs_b8900e61064a48cb", "/dbs/search?q=goku+pk&page=2&limit=50", "/mtg/analytics/top-cards?metric=growth&source=cm&pk=1"} {
		if n := testing.AllocsPerRun(100, func() { RedactTarget(target) }); n != 0 {
			t.Errorf("RedactTarget(%q): %v allocations, want 0", target, n)
		}
	}
}

func BenchmarkRedactTarget(b *testing.B) {
	for _, target := range []string{"/dbs/cards/dbs_b8900e61064a48cb", "/dbs/search?q=goku&page=2&limit=50", "/dbs/sets?api_key=" + aKey} {
		b.Run(target, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				RedactTarget(target)
			}
		})
	}
}
