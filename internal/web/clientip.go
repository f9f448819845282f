package web

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// Clients names the client of a request: its address, read through the
// trusted proxies. The API's guard buckets and the portal's login throttle
// both name clients with it, so that both surfaces agree on who a client is.
type Clients struct {
	trusted []netip.Prefix
}

// NewClients returns the Clients that believe X-Forwarded-For from the
// trusted proxies (ParseTrustedProxies); none: the client is the peer.
func NewClients(trusted []netip.Prefix) Clients { return Clients{trusted: trusted} }

// Group names the request's client: its IPv4 address, or the /64 of its
// IPv6 address (one subscriber's usual allocation, so that rotating
// addresses within it buys no extra guesses); "unknown" when the peer's
// address cannot be read.
func (p Clients) Group(r *http.Request) string {
	var b [64]byte
	return string(p.AppendGroup(b[:0], r))
}

// AppendGroup appends the request's Group to b: a key made of it and a
// prefix is then one allocation, not two (every 401 makes one).
func (p Clients) AppendGroup(b []byte, r *http.Request) []byte {
	a := p.Addr(r)
	switch {
	case !a.IsValid():
		return append(b, "unknown"...)
	case a.Is4():
		return a.AppendTo(b)
	default:
		p, _ := a.Prefix(64)
		return p.AppendTo(b)
	}
}

// Addr is the address the request came from: the peer's, or, when
// the peer is a trusted proxy, the right-most X-Forwarded-For entry that is
// not a trusted proxy itself (entries further left are the client's to
// invent).
func (p Clients) Addr(r *http.Request) netip.Addr {
	peer := parseAddr(r.RemoteAddr)
	if len(p.trusted) == 0 || !p.isTrusted(peer) {
		return peer
	}
	addr := peer
	vals := r.Header.Values("X-Forwarded-For")
	for i := len(vals) - 1; i >= 0; i-- {
		list := vals[i]
		for list != "" {
			var hop string
			if j := strings.LastIndexByte(list, ','); j >= 0 {
				hop, list = list[j+1:], list[:j]
			} else {
				hop, list = list, ""
			}
			hop = strings.TrimSpace(hop)
			if hop == "" {
				continue
			}
			a := parseAddr(hop)
			if !a.IsValid() {
				return addr // garbage: the last proxy we trust saw addr
			}
			addr = a
			if !p.isTrusted(a) {
				return a
			}
		}
	}
	return addr
}

func (p Clients) isTrusted(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	for _, t := range p.trusted {
		if t.Contains(a) {
			return true
		}
	}
	return false
}

// parseAddr reads "ip", "ip:port" or "[ipv6]:port"; an IPv4-mapped IPv6
// address is its IPv4 address. The zero Addr when it is none of these.
func parseAddr(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone("")
	}
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")); err == nil {
		return a.Unmap().WithZone("")
	}
	return netip.Addr{}
}

// ParseTrustedProxies reads a list of CIDRs or single addresses separated
// by commas or spaces ("10.0.0.0/8, 192.0.2.7"), the proxies whose
// X-Forwarded-For the server believes.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		if strings.Contains(f, "/") {
			p, err := netip.ParsePrefix(f)
			if err != nil {
				return nil, fmt.Errorf("trusted proxies: %q is not a CIDR: %w", f, err)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("trusted proxies: %q is not an address or CIDR: %w", f, err)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// ClientGroup is NewClients(trusted).Group.
func ClientGroup(trusted []netip.Prefix) func(*http.Request) string {
	return NewClients(trusted).Group
}
