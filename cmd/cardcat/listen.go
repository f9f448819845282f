package main

import (
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/cardcat/cardcat/internal/config"
)

// listenAPI takes the API's address (--addr), or says which address could
// not be had and how to choose another.
func listenAPI(c *config.Config) (net.Listener, error) {
	ln, err := net.Listen("tcp", c.Serve.Addr)
	if err != nil {
		return nil, listenError(c, err)
	}
	return ln, nil
}

// tryListen takes the API's address and lets it go at once: serve calls it
// before the slow part of its start (the sample, the catalogue), so that an
// address in use fails in a moment, not after them. The address is taken
// for good only once the catalogue is loaded, so that a listening replica
// always has one to answer from (a load balancer tries another replica
// while this one refuses connections).
func tryListen(c *config.Config) error {
	ln, err := listenAPI(c)
	if err != nil {
		return err
	}
	return ln.Close()
}

// listenError names the address, where it came from, and the way out.
func listenError(c *config.Config, err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err // net's message repeats the address
	}
	from := "the default"
	if o := c.Origin("addr"); o.Source != config.FromDefault {
		from = o.Name
	}
	example := ":8081"
	if host, port, perr := net.SplitHostPort(c.Serve.Addr); perr == nil {
		if p, aerr := strconv.Atoi(port); aerr == nil && p > 0 && p < 65535 {
			example = net.JoinHostPort(host, strconv.Itoa(p+1))
		}
	}
	return fmt.Errorf("cannot listen on %s (%s): %w; another program may hold this port (another cardcat serve?): "+
		"stop it, or choose another address with --addr or CARDCAT_ADDR, for example --addr %s", c.Serve.Addr, from, err, example)
}

// publicURL is the base URL callers are given (the portal's links, redeem_url
// and upgrade_url, the 401's example, the bulk files' URLs, the docs):
// --public-url when it is set, else the address serve listens on, as a
// caller on this machine reaches it. from says which, for the log.
func publicURL(c *config.Config, ln net.Addr) (url, from string) {
	if o := c.Origin("public-url"); o.Source != config.FromDefault && c.Serve.PublicURL != "" {
		return c.Serve.PublicURL, o.Name
	}
	return listenURL(c.Serve.Addr, ln), "the listen address (set --public-url or CARDCAT_PUBLIC_URL to the URL callers use)"
}

// listenURL is http:// and the address addr names, with the port of the
// listener ln (the one the system chose for port 0). No host or an
// unspecified one (":8081", "0.0.0.0:8081", "[::]:8081") is localhost; any
// other host is kept as written.
func listenURL(addr string, ln net.Addr) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host = ""
	}
	if tcp, ok := ln.(*net.TCPAddr); ok {
		port = strconv.Itoa(tcp.Port)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}
