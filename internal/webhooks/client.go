package webhooks

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// Timeout is how long a delivery waits for its answer, connection
// included: an endpoint that has not answered 2xx by then is tried again
// later.
const Timeout = 10 * time.Second

// forbidden are the networks no delivery is sent to (beside what netip
// calls loopback, private, link-local, multicast or unspecified): carrier
// NAT, "this network", IETF protocol assignments, benchmarking, reserved and
// broadcast, NAT64 (which may embed any of them), and the cloud metadata
// addresses (169.254.169.254 is link-local; AWS's IPv6 one is in fc00::/7).
var forbidden = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2002::/16"),
}

// Forbidden reports whether a delivery may not be sent to ip: loopback,
// private, link-local (the metadata address included), carrier NAT,
// multicast, unspecified or reserved.
func Forbidden(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return true
	}
	for _, p := range forbidden {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// RefusedError is a delivery's connection refused before it was made: the
// name resolved to an address Forbidden forbids.
type RefusedError struct{ Addr string }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused to connect to %s: a loopback, private, link-local, carrier-NAT or reserved address", e.Addr)
}

// ClientOptions are the delivery client's settings.
type ClientOptions struct {
	// AllowPrivate lets deliveries reach any address
	// (CARDCAT_WEBHOOK_ALLOW_PRIVATE: tests and private deployments).
	AllowPrivate bool
	// TLS, when set, is the client's TLS configuration (tests: a test
	// server's roots).
	TLS *tls.Config
	// Timeout bounds a delivery (default Timeout).
	Timeout time.Duration
}

// NewClient is the client deliveries are sent with. The address is checked
// where it is dialled, after resolution (the dialer's Control sees the IP
// each connection goes to), so that a name that resolves to a public
// address when saved and to a private one later (DNS rebinding) is caught;
// no proxy is used (it would dial for us); redirects are not followed.
func NewClient(o ClientOptions) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if !o.AllowPrivate {
		d.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || Forbidden(ap.Addr()) {
				return &RefusedError{Addr: address}
			}
			return nil
		}
	}
	if o.Timeout <= 0 {
		o.Timeout = Timeout
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		TLSClientConfig:       o.TLS,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
