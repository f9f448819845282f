package webhooks

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestSignAndVerify(t *testing.T) {
	secret := NewSecret()
	if !strings.HasPrefix(secret, "whsec_") || len(secret) != 6+64 {
		t.Fatalf("NewSecret = %q", secret)
	}
	body := []byte(`{"id":"evt_1","type":"price.alert"}`)
	at := time.Unix(1_800_000_000, 0)
	h := Sign(secret, at, body)
	if !strings.HasPrefix(h, "t=1800000000,v1=") {
		t.Fatalf("header = %q", h)
	}
	tests := []struct {
		name   string
		secret string
		header string
		body   []byte
		now    time.Time
		want   error
	}{
		{"valid", secret, h, body, at, nil},
		{"within the tolerance", secret, h, body, at.Add(4 * time.Minute), nil},
		{"a second signature (rotation) matches", secret, "t=1800000000,v1=00ff," + strings.TrimPrefix(h, "t=1800000000,"), body, at, nil},
		{"too old: a replay", secret, h, body, at.Add(6 * time.Minute), ErrTooOld},
		{"from the future", secret, h, body, at.Add(-6 * time.Minute), ErrTooOld},
		{"another secret", NewSecret(), h, body, at, ErrBadSignature},
		{"body changed", secret, h, []byte(`{"id":"evt_2","type":"price.alert"}`), at, ErrBadSignature},
		{"time changed", secret, strings.Replace(h, "t=1800000000", "t=1800000001", 1), body, at, ErrBadSignature},
		{"no header", secret, "", body, at, ErrNoSignature},
		{"no time", secret, strings.TrimPrefix(h, "t=1800000000,"), body, at, ErrNoSignature},
		{"garbage", secret, "t=x,v1=zz", body, at, ErrNoSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Verify(tt.secret, tt.header, tt.body, 5*time.Minute, tt.now); !errors.Is(err, tt.want) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestCheckURL(t *testing.T) {
	for _, ok := range []string{"https://example.com/hook", "https://example.com:8443/a?b=c", "https://10.0.0.1/hook"} {
		if err := CheckURL(ok, false); err != nil {
			t.Errorf("CheckURL(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"http://example.com/hook", "ftp://example.com", "example.com/hook", "https://", "https://u:p@example.com/",
		"https://example.com/#x", "https://example.com/" + strings.Repeat("a", MaxURL)} {
		if err := CheckURL(bad, false); err == nil {
			t.Errorf("CheckURL(%q) took it", bad)
		}
	}
	if err := CheckURL("http://example.com/hook", true); err != nil {
		t.Errorf("http with allowHTTP: %v", err)
	}
}

func TestForbidden(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "::1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1",
		"0.0.0.0", "::", "fd00:ec2::254", "fe80::1", "::ffff:127.0.0.1", "224.0.0.1", "255.255.255.255", "64:ff9b::7f00:1"} {
		if !Forbidden(netip.MustParseAddr(s)) {
			t.Errorf("%s is allowed", s)
		}
	}
	for _, s := range []string{"93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"} {
		if Forbidden(netip.MustParseAddr(s)) {
			t.Errorf("%s is forbidden", s)
		}
	}
}

// TestClientRefusesLoopback: a name resolving to 127.0.0.1 ("localhost")
// is refused at dial time, and no redirect is followed.
func TestClientRefusesLoopback(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		}
	}))
	defer srv.Close()
	url := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url, nil)
	_, err := NewClient(ClientOptions{}).Do(req)
	var refused *RefusedError
	if !errors.As(err, &refused) || calls != 0 {
		t.Fatalf("a request to %s: %v (%d calls), want refused", url, err, calls)
	}
	req, _ = http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL+"/redirect", nil)
	resp, err := NewClient(ClientOptions{AllowPrivate: true}).Do(req)
	if err != nil || resp.StatusCode != http.StatusFound || calls != 1 {
		t.Fatalf("redirect: %v, %v, %d calls; want the 302 itself", resp, err, calls)
	}
	resp.Body.Close()
}

func TestDelay(t *testing.T) {
	w := &Worker{Backoff: time.Second, MaxBackoff: 10 * time.Second, Jitter: func() float64 { return 0.999999 }}
	for attempts, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second, 5: 10 * time.Second, 40: 10 * time.Second} {
		if got := w.delay(attempts); got < want*99/100 || got > want {
			t.Errorf("delay(%d) = %v, want about %v", attempts, got, want)
		}
	}
	w.Jitter = func() float64 { return 0 }
	if got := w.delay(3); got != 2*time.Second {
		t.Errorf("delay(3) with no jitter = %v, want half of 4s", got)
	}
}

func TestSignAllDuringAnOverlap(t *testing.T) {
	old, fresh := NewSecret(), NewSecret()
	at := time.Unix(1_800_000_000, 0)
	d := Delivery{Secret: fresh, PreviousSecret: old, PreviousUntil: at.Add(time.Hour), Body: []byte(`{"id":"evt_1"}`)}
	h := SignAll(at, d.Body, d.secrets(at)...)
	if strings.Count(h, ",v1=") != 2 || !strings.HasPrefix(h, Sign(fresh, at, d.Body)+",v1=") {
		t.Fatalf("during the overlap: %q, want the new secret's v1 then the old one's", h)
	}
	for _, s := range []string{old, fresh} {
		if err := Verify(s, h, d.Body, 0, at); err != nil {
			t.Errorf("during the overlap: %v", err)
		}
	}
	after := at.Add(time.Hour)
	if got := d.secrets(after); len(got) != 1 || got[0] != fresh {
		t.Fatalf("at the overlap's end the secrets are %d, want the new one only", len(got))
	}
}

func TestScheduleAfterResend(t *testing.T) {
	created := time.Unix(1_800_000_000, 0)
	d := Delivery{CreatedAt: created, Attempts: 9}
	if start, n := d.schedule(); !start.Equal(created) || n != 9 {
		t.Fatalf("never resent: %v, %d", start, n)
	}
	d.ResentAt, d.ResentAfter, d.Attempts = created.Add(48*time.Hour), 9, 10
	if start, n := d.schedule(); !start.Equal(d.ResentAt) || n != 1 {
		t.Fatalf("resent: %v, %d; want the resend and one attempt", start, n)
	}
}
