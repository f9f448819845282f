// Package mailtest runs a real SMTP server in the test process (emersion/go-smtp
// on 127.0.0.1:0), with STARTTLS on a self-signed certificate and AUTH PLAIN
// required, and records what it receives, so that tests can read the emails
// the portal sends (issue 14: the verification email of the browser journey).
package mailtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"mime"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// The credentials the server requires; URL carries them.
const (
	User     = "cardcat-test"
	Password = "mailtest-password"
)

// Options change how the server talks; the zero value is Start's server.
type Options struct {
	// NoSTARTTLS: the server does not offer STARTTLS and accepts AUTH in clear,
	// to test a client's refusal.
	NoSTARTTLS bool
	// ImplicitTLS: TLS from the first byte (smtps://) instead of STARTTLS.
	ImplicitTLS bool
}

// Message is one received email, parsed.
type Message struct {
	From     string   // envelope sender (MAIL FROM)
	To       []string // envelope recipients (RCPT TO)
	AuthUser string   // who authenticated; "" if nobody
	TLS      bool     // whether the session was encrypted when DATA was sent
	Raw      []byte   // the message as received, CRLF line endings
	Header   netmail.Header
	Subject  string // decoded from RFC 2047
	Text     string // body decoded from its transfer encoding, LF line endings
	Link     string // the first http:// or https:// link in Text; "" if none
	ParseErr error  // why Header/Subject/Text could not be read, if so
}

// Server is a running test SMTP server, closed by the test's cleanup.
type Server struct {
	opts    Options
	addr    string
	cert    *x509.Certificate
	smtpSrv *smtp.Server

	mu       sync.Mutex
	msgs     []Message
	taken    []bool        // msgs[i] already returned by WaitFor
	arrived  chan struct{} // closed and replaced when a message arrives
	loggable bool          // tb.Logf is still allowed (the test is running)
}

// Start runs a server with STARTTLS and AUTH PLAIN until tb ends.
func Start(tb testing.TB) *Server { return StartWith(tb, Options{}) }

// StartWith runs a server with opts until tb ends.
func StartWith(tb testing.TB, opts Options) *Server {
	tb.Helper()
	leaf, cert, err := selfSigned()
	if err != nil {
		tb.Fatalf("mailtest: certificate: %v", err)
	}
	s := &Server{opts: opts, cert: leaf, arrived: make(chan struct{}), loggable: true}

	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &session{srv: s, conn: c}, nil
	}))
	srv.Domain = "mailtest.localhost"
	srv.ReadTimeout = 30 * time.Second
	srv.WriteTimeout = 30 * time.Second
	srv.MaxMessageBytes = 1 << 20
	srv.MaxRecipients = 10
	srv.ErrorLog = logFunc(s.logf(tb))
	tlsConfig := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if !opts.NoSTARTTLS {
		srv.TLSConfig = tlsConfig
	} else {
		srv.AllowInsecureAuth = true
	}
	s.smtpSrv = srv

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("mailtest: listen: %v", err)
	}
	if opts.ImplicitTLS {
		l = tls.NewListener(l, tlsConfig)
	}
	s.addr = l.Addr().String()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	tb.Cleanup(func() {
		srv.Close()
		l.Close() // Serve may not have registered l when Close ran
		if err := <-served; err != nil {
			tb.Errorf("mailtest: serve: %v", err)
		}
		s.mu.Lock()
		s.loggable = false // sessions may still end after the test
		s.mu.Unlock()
	})
	return s
}

// Addr is the host:port the server listens on.
func (s *Server) Addr() string { return s.addr }

// URL is the CARDCAT_SMTP_URL that reaches this server with its credentials:
// smtp:// (smtps:// with ImplicitTLS). Pair it with TLSConfig.
func (s *Server) URL() string {
	u := url.URL{Scheme: "smtp", User: url.UserPassword(User, Password), Host: s.addr}
	if s.opts.ImplicitTLS {
		u.Scheme = "smtps"
	}
	return u.String()
}

// TLSConfig is a client configuration that trusts this server's certificate.
func (s *Server) TLSConfig() *tls.Config {
	return &tls.Config{RootCAs: s.RootCAs(), MinVersion: tls.VersionTLS12}
}

// RootCAs holds this server's self-signed certificate.
func (s *Server) RootCAs() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(s.cert)
	return pool
}

// Messages returns every message received so far, in order.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// WaitFor returns the oldest message to the address to (compared without
// regard to case) that no earlier WaitFor returned, waiting up to timeout.
// It fails tb if none arrives or the message cannot be parsed.
func (s *Server) WaitFor(tb testing.TB, to string, timeout time.Duration) Message {
	tb.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		for i, m := range s.msgs {
			if s.taken[i] || !hasRecipient(m, to) {
				continue
			}
			s.taken[i] = true
			s.mu.Unlock()
			if m.ParseErr != nil {
				tb.Fatalf("mailtest: message to %s cannot be read: %v\n%s", to, m.ParseErr, m.Raw)
			}
			return m
		}
		arrived, n := s.arrived, len(s.msgs)
		s.mu.Unlock()
		select {
		case <-arrived:
		case <-timer.C:
			tb.Fatalf("mailtest: no new message to %s within %v (%d received in all)", to, timeout, n)
			return Message{}
		}
	}
}

func hasRecipient(m Message, to string) bool {
	for _, r := range m.To {
		if strings.EqualFold(r, to) {
			return true
		}
	}
	return false
}

func (s *Server) record(m Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, m)
	s.taken = append(s.taken, false)
	close(s.arrived)
	s.arrived = make(chan struct{})
}

func (s *Server) logf(tb testing.TB) func(format string, v ...any) {
	return func(format string, v ...any) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.loggable {
			tb.Logf("mailtest: "+format, v...)
		}
	}
}

type logFunc func(format string, v ...any)

func (f logFunc) Printf(format string, v ...any) { f(format, v...) }
func (f logFunc) Println(v ...any)               { f("%s", fmt.Sprintln(v...)) }

// session is one SMTP connection; it refuses mail until AUTH PLAIN succeeds.
type session struct {
	srv      *Server
	conn     *smtp.Conn
	authUser string
	from     string
	to       []string
}

var _ smtp.AuthSession = (*session)(nil)

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *session) Auth(mech string) (sasl.Server, error) {
	if mech != sasl.Plain {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if identity != "" && identity != username {
			return smtp.ErrAuthFailed
		}
		if username != User || password != Password {
			return smtp.ErrAuthFailed
		}
		s.authUser = username
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if s.authUser == "" {
		return smtp.ErrAuthRequired
	}
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, isTLS := s.conn.TLSConnectionState()
	m := Message{From: s.from, To: s.to, AuthUser: s.authUser, TLS: isTLS, Raw: raw}
	m.Header, m.Subject, m.Text, m.ParseErr = parse(raw)
	m.Link = linkPattern.FindString(m.Text)
	s.srv.record(m)
	return nil
}

func (s *session) Reset() { s.from, s.to = "", nil }

func (s *session) Logout() error { return nil }

var linkPattern = regexp.MustCompile(`https?://[^\s<>"]+`)

// parse reads the headers and the plain-text body of a single-part message.
func parse(raw []byte) (netmail.Header, string, string, error) {
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, "", "", fmt.Errorf("headers: %w", err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		return msg.Header, "", "", fmt.Errorf("Subject: %w", err)
	}
	body := msg.Body
	switch enc := strings.ToLower(msg.Header.Get("Content-Transfer-Encoding")); enc {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "", "7bit", "8bit":
	default:
		return msg.Header, subject, "", fmt.Errorf("Content-Transfer-Encoding %q not supported", enc)
	}
	text, err := io.ReadAll(body)
	if err != nil {
		return msg.Header, subject, "", fmt.Errorf("body: %w", err)
	}
	return msg.Header, subject, strings.ReplaceAll(string(text), "\r\n", "\n"), nil
}

// selfSigned makes a certificate for 127.0.0.1, ::1 and localhost, valid for a day.
func selfSigned() (*x509.Certificate, tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "mailtest"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	return cert, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, nil
}
