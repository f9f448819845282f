package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"net/smtp"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultTimeout bounds one Send when its context has no earlier deadline.
const DefaultTimeout = 30 * time.Second

// ErrNoSTARTTLS is returned when an smtp:// server does not offer STARTTLS and
// is not on a loopback address: the message and the credentials would cross
// the network in clear.
var ErrNoSTARTTLS = errors.New("mail: the SMTP server does not offer STARTTLS")

// SMTPConfig says where and how to send. ParseSMTPURL fills it from
// CARDCAT_SMTP_URL; a caller may then override fields, Password notably (read
// from CARDCAT_SMTP_PASSWORD or its _FILE), From, TLSConfig and Timeout.
// String and LogValue hide the password.
type SMTPConfig struct {
	Host        string // host name or IP, without port
	Port        int
	ImplicitTLS bool // smtps://: TLS from the first byte; otherwise STARTTLS
	Username    string
	Password    string
	// From is the From header and envelope sender, e.g. "cardcat <no-reply@example.com>".
	From string
	// TLSConfig is cloned for each connection; nil means the system roots.
	// ServerName defaults to Host. Tests set RootCAs here.
	TLSConfig *tls.Config
	Timeout   time.Duration // 0: DefaultTimeout
}

// ParseSMTPURL reads CARDCAT_SMTP_URL:
//
//	smtp://user:pass@host:587?from=...   STARTTLS, required unless host is loopback
//	smtps://user:pass@host:465?from=...  implicit TLS
//
// The port defaults to 587 (smtp) or 465 (smtps). Credentials are optional;
// escape reserved characters in them (%40 for @). from= is the From address,
// "cardcat <no-reply@HOST>" when absent. No other query parameter is accepted.
// Errors never repeat the URL, which may hold a password.
func ParseSMTPURL(raw string) (SMTPConfig, error) {
	var cfg SMTPConfig
	u, err := url.Parse(raw)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // url.Error repeats the whole URL, password included
		}
		return cfg, fmt.Errorf("mail: bad SMTP URL: %w", err)
	}
	switch u.Scheme {
	case "smtp":
		cfg.Port = 587
	case "smtps":
		cfg.ImplicitTLS, cfg.Port = true, 465
	default:
		return cfg, fmt.Errorf("mail: SMTP URL scheme is %q, want smtp:// (STARTTLS) or smtps:// (TLS)", u.Scheme)
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return cfg, errors.New("mail: SMTP URL has no host, want smtp://user:pass@host:587")
	}
	cfg.Host = u.Hostname()
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return cfg, fmt.Errorf("mail: SMTP URL port %q is not a port number", p)
		}
		cfg.Port = n
	}
	if u.Path != "" && u.Path != "/" {
		return cfg, fmt.Errorf("mail: SMTP URL has a path (%q); it takes none", u.Path)
	}
	if u.User != nil {
		cfg.Username = u.User.Username()
		cfg.Password, _ = u.User.Password()
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return cfg, fmt.Errorf("mail: SMTP URL query: %w", err)
	}
	for k := range q {
		if k != "from" {
			return cfg, fmt.Errorf("mail: SMTP URL parameter %q is unknown; only from= is accepted", k)
		}
	}
	cfg.From = q.Get("from")
	if cfg.From == "" {
		cfg.From = "cardcat <no-reply@" + cfg.Host + ">"
	}
	if _, err := netmail.ParseAddress(cfg.From); err != nil {
		return cfg, fmt.Errorf("mail: SMTP URL from=%q is not an address (%v); set from=", cfg.From, err)
	}
	return cfg, nil
}

// String shows the configuration as a URL, the password masked.
func (c SMTPConfig) String() string {
	u := url.URL{Scheme: "smtp", Host: net.JoinHostPort(c.Host, strconv.Itoa(c.Port))}
	if c.ImplicitTLS {
		u.Scheme = "smtps"
	}
	if c.Password != "" {
		u.User = url.UserPassword(c.Username, "xxxxx")
	} else if c.Username != "" {
		u.User = url.User(c.Username)
	}
	u.RawQuery = url.Values{"from": {c.From}}.Encode()
	return u.String()
}

// LogValue keeps the password out of any log line that prints the config.
func (c SMTPConfig) LogValue() slog.Value { return slog.StringValue(c.String()) }

// SMTP sends through one SMTP server, one connection per message (the portal
// sends a few emails an hour; a pool would only add failure modes).
type SMTP struct {
	cfg SMTPConfig
	now func() time.Time
	// loopback decides whether a connection may go on in clear; a hook so that
	// tests on 127.0.0.1 can play a remote server.
	loopback func(net.Addr) bool
}

var _ Mailer = (*SMTP)(nil)

// NewSMTP returns a Mailer for cfg. It does not connect; Send reports errors.
func NewSMTP(cfg SMTPConfig) *SMTP {
	return &SMTP{cfg: cfg, now: time.Now, loopback: isLoopback}
}

// isLoopback says whether the peer we actually reached is this machine, the
// one case where a clear-text session leaks nothing to the network. It looks
// at the connected address, not the host name, so a name resolving elsewhere
// gets no exemption.
func isLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// Send delivers m, within ctx's deadline or the configured timeout.
func (s *SMTP) Send(ctx context.Context, m Message) (err error) {
	from, to, body, err := s.compose(m)
	if err != nil {
		return err
	}
	timeout := s.cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	addr := net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.Port))
	tlsConfig := s.tlsConfig()
	var conn net.Conn
	if s.cfg.ImplicitTLS {
		conn, err = (&tls.Dialer{Config: tlsConfig}).DialContext(ctx, "tcp", addr)
	} else {
		conn, err = (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return fmt.Errorf("mail: connect to %s: %w", addr, err)
	}
	defer conn.Close()
	// net/smtp takes no context: the deadline bounds the whole session, and a
	// cancelled ctx expires it at once.
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	defer func() {
		// The conn deadline can fire a moment before ctx reports it.
		if cause := context.Cause(ctx); err != nil && cause != nil {
			err = fmt.Errorf("%w (%w)", err, cause)
		} else if err != nil && !time.Now().Before(deadline) {
			err = fmt.Errorf("%w (%w)", err, context.DeadlineExceeded)
		}
	}()

	c, err := smtp.NewClient(conn, s.cfg.Host)
	if err != nil {
		return fmt.Errorf("mail: %s: greeting: %w", addr, err)
	}
	defer c.Close()
	clearOK := s.loopback(conn.RemoteAddr())
	if !s.cfg.ImplicitTLS {
		if ok, _ := c.Extension("STARTTLS"); ok {
			if err := c.StartTLS(tlsConfig); err != nil {
				return fmt.Errorf("mail: %s: STARTTLS: %w", addr, err)
			}
		} else if !clearOK {
			return fmt.Errorf("%w (%s)", ErrNoSTARTTLS, addr)
		}
	}
	if s.cfg.Username != "" || s.cfg.Password != "" {
		if ok, _ := c.Extension("AUTH"); !ok {
			return fmt.Errorf("mail: %s: the server does not offer AUTH and credentials are configured", addr)
		}
		auth := &plainAuth{username: s.cfg.Username, password: s.cfg.Password, clearOK: clearOK}
		if err := c.Auth(auth); err != nil {
			return fmt.Errorf("mail: %s: AUTH PLAIN as %q: %w", addr, s.cfg.Username, err)
		}
	}
	if err := c.Mail(from); err != nil {
		return fmt.Errorf("mail: %s: MAIL FROM: %w", addr, err)
	}
	if err := c.Rcpt(to); err != nil {
		return fmt.Errorf("mail: %s: RCPT TO: %w", addr, err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("mail: %s: DATA: %w", addr, err)
	}
	if _, err := w.Write(body); err != nil {
		return fmt.Errorf("mail: %s: DATA: %w", addr, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("mail: %s: message refused: %w", addr, err)
	}
	// The message is accepted once DATA ends; a failed QUIT loses nothing.
	_ = c.Quit()
	return nil
}

func (s *SMTP) tlsConfig() *tls.Config {
	var c *tls.Config
	if s.cfg.TLSConfig != nil {
		c = s.cfg.TLSConfig.Clone()
	} else {
		c = &tls.Config{}
	}
	if c.ServerName == "" {
		c.ServerName = s.cfg.Host
	}
	if c.MinVersion == 0 {
		c.MinVersion = tls.VersionTLS12
	}
	return c
}

// compose checks m and returns the envelope addresses and the message in
// wire form: headers, a blank line, a quoted-printable body, CRLF throughout.
func (s *SMTP) compose(m Message) (from, to string, msg []byte, err error) {
	if err := checkHeaders(m); err != nil {
		return "", "", nil, err
	}
	fromAddr, err := netmail.ParseAddress(s.cfg.From)
	if err != nil {
		return "", "", nil, fmt.Errorf("mail: From %q: %w", s.cfg.From, err)
	}
	toAddr, err := netmail.ParseAddress(m.To)
	if err != nil {
		return "", "", nil, fmt.Errorf("mail: To %q: %w", m.To, err)
	}
	id, err := messageID(fromAddr.Address)
	if err != nil {
		return "", "", nil, err
	}

	var b bytes.Buffer
	header := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	header("From", fromAddr.String())
	header("To", toAddr.String())
	header("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	header("Date", s.now().Format(time.RFC1123Z))
	header("Message-ID", id)
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	header("Content-Transfer-Encoding", "quoted-printable")
	if m.Unsubscribe != "" {
		// RFC 8058: a POST of "List-Unsubscribe=One-Click" to the URL
		// unsubscribes, without a page to visit (checkHeaders checked it).
		header("List-Unsubscribe", "<"+m.Unsubscribe+">")
		header("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
	}
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b) // writes CRLF for every line break
	if _, err := qp.Write([]byte(m.Text)); err != nil {
		return "", "", nil, fmt.Errorf("mail: body: %w", err)
	}
	if err := qp.Close(); err != nil {
		return "", "", nil, fmt.Errorf("mail: body: %w", err)
	}
	if !bytes.HasSuffix(b.Bytes(), []byte("\r\n")) {
		b.WriteString("\r\n")
	}
	return fromAddr.Address, toAddr.Address, b.Bytes(), nil
}

// messageID is unique per message and names the sender's domain (RFC 5322 3.6.4).
func messageID(fromAddress string) (string, error) {
	var r [16]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", fmt.Errorf("mail: Message-ID: %w", err)
	}
	domain := fromAddress[strings.LastIndexByte(fromAddress, '@')+1:]
	return "<" + hex.EncodeToString(r[:]) + "@" + domain + ">", nil
}

// plainAuth is AUTH PLAIN that sends the password only over TLS or to a
// loopback peer. net/smtp's PlainAuth decides loopback by host name, which
// would refuse a local relay named otherwise and trusts "localhost" wherever
// it resolves.
type plainAuth struct {
	username, password string
	clearOK            bool
}

func (a *plainAuth) Start(server *smtp.ServerInfo) (string, []byte, error) {
	if !server.TLS && !a.clearOK {
		return "", nil, errors.New("refusing to send credentials over an unencrypted connection")
	}
	return "PLAIN", []byte("\x00" + a.username + "\x00" + a.password), nil
}

func (a *plainAuth) Next(_ []byte, more bool) ([]byte, error) {
	if more {
		return nil, errors.New("unexpected server challenge after AUTH PLAIN")
	}
	return nil, nil
}
