package mail

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/smtp"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/portal/mail/mailtest"
	"github.com/google/go-cmp/cmp"
)

// mustSMTP returns a Mailer pointed at srv, with a fixed clock.
func mustSMTP(tb testing.TB, srv *mailtest.Server, from string) *SMTP {
	tb.Helper()
	raw := srv.URL()
	if from != "" {
		raw += "?from=" + url.QueryEscape(from)
	}
	cfg, err := ParseSMTPURL(raw)
	if err != nil {
		tb.Fatalf("ParseSMTPURL(%s): %v", raw, err)
	}
	cfg.TLSConfig = srv.TLSConfig()
	cfg.Timeout = 10 * time.Second
	s := NewSMTP(cfg)
	s.now = func() time.Time { return time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC) }
	return s
}

func TestSMTPSend(t *testing.T) {
	link := "https://cards.example.com/account/verify?token=abc=def&x=1"
	tests := []struct {
		name        string
		opts        mailtest.Options
		subject     string
		text        string
		wantSubject string // the header as sent
	}{
		{
			name:        "STARTTLS, ASCII",
			subject:     "Verify your email",
			text:        "Hello,\n\nOpen this link to verify your email:\n" + link + "\n\nIt expires in 24 hours.\n",
			wantSubject: "Verify your email",
		},
		{
			name:        "implicit TLS, non-ASCII and a long line",
			opts:        mailtest.Options{ImplicitTLS: true},
			subject:     "Vérifiez votre adresse — cardcat",
			text:        "Bonjour, voilà le lien : " + link + "\n" + strings.Repeat("é", 120) + "\n",
			wantSubject: "=?utf-8?q?V=C3=A9rifiez_votre_adresse_=E2=80=94_cardcat?=",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mailtest.StartWith(t, tt.opts)
			m := mustSMTP(t, srv, "cardcat <no-reply@cards.example.com>")
			err := m.Send(context.Background(), Message{To: "Ann <ann@example.com>", Subject: tt.subject, Text: tt.text, Link: link})
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			got := srv.WaitFor(t, "ann@example.com", 5*time.Second)

			if !got.TLS || got.AuthUser != mailtest.User {
				t.Errorf("session TLS=%v user=%q, want TLS and %q", got.TLS, got.AuthUser, mailtest.User)
			}
			if diff := cmp.Diff([]string{"ann@example.com"}, got.To); got.From != "no-reply@cards.example.com" || diff != "" {
				t.Errorf("envelope from %q, to (-want +got):\n%s", got.From, diff)
			}
			headers := map[string]string{}
			for _, k := range []string{"From", "To", "Subject", "Date", "MIME-Version", "Content-Type", "Content-Transfer-Encoding"} {
				headers[k] = got.Header.Get(k)
			}
			wantHeaders := map[string]string{
				"From":                      `"cardcat" <no-reply@cards.example.com>`,
				"To":                        `"Ann" <ann@example.com>`,
				"Subject":                   tt.wantSubject,
				"Date":                      "Wed, 25 Nov 2026 18:00:00 +0000",
				"MIME-Version":              "1.0",
				"Content-Type":              "text/plain; charset=utf-8",
				"Content-Transfer-Encoding": "quoted-printable",
			}
			if diff := cmp.Diff(wantHeaders, headers); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
			if id := got.Header.Get("Message-ID"); !strings.HasPrefix(id, "<") || !strings.HasSuffix(id, "@cards.example.com>") {
				t.Errorf("Message-ID %q, want <random@cards.example.com>", id)
			}
			if got.Subject != tt.subject {
				t.Errorf("decoded Subject %q, want %q", got.Subject, tt.subject)
			}
			if got.Text != tt.text {
				t.Errorf("decoded body:\n%q\nwant\n%q", got.Text, tt.text)
			}
			if got.Link != link {
				t.Errorf("link %q, want %q", got.Link, link)
			}
			for i, line := range bytes.SplitAfter(got.Raw, []byte("\n")) {
				if len(line) > 78 {
					t.Errorf("raw line %d is %d bytes long, want at most 78: %q", i, len(line), line)
				}
				if len(line) > 0 && !bytes.HasSuffix(line, []byte("\r\n")) {
					t.Errorf("raw line %d does not end in CRLF: %q", i, line)
				}
			}
		})
	}
}

func TestSMTPSendsOneMessagePerCall(t *testing.T) {
	srv := mailtest.Start(t)
	m := mustSMTP(t, srv, "")
	for _, subject := range []string{"first", "second"} {
		if err := m.Send(context.Background(), Message{To: "bob@example.com", Subject: subject, Text: "x\n"}); err != nil {
			t.Fatalf("Send %s: %v", subject, err)
		}
	}
	var got []string
	for range 2 {
		got = append(got, srv.WaitFor(t, "BOB@example.com", 5*time.Second).Subject)
	}
	if diff := cmp.Diff([]string{"first", "second"}, got); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}
	if from := srv.Messages()[0].Header.Get("From"); from != `"cardcat" <no-reply@127.0.0.1>` {
		t.Errorf("default From %q", from)
	}
}

func TestSMTPWithoutSTARTTLS(t *testing.T) {
	tests := []struct {
		name     string
		loopback bool
		wantErr  error
		wantSent int
	}{
		{name: "remote server: refused before AUTH", loopback: false, wantErr: ErrNoSTARTTLS, wantSent: 0},
		{name: "loopback server: sent in clear", loopback: true, wantErr: nil, wantSent: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mailtest.StartWith(t, mailtest.Options{NoSTARTTLS: true})
			m := mustSMTP(t, srv, "")
			m.loopback = func(net.Addr) bool { return tt.loopback }
			err := m.Send(context.Background(), Message{To: "c@example.com", Subject: "s", Text: "t\n"})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Send: %v, want %v", err, tt.wantErr)
			}
			if n := len(srv.Messages()); n != tt.wantSent {
				t.Errorf("%d messages received, want %d", n, tt.wantSent)
			}
		})
	}
}

func TestPlainAuthRefusesClearTextToRemote(t *testing.T) {
	tests := []struct {
		name    string
		tls     bool
		clearOK bool
		wantErr bool
	}{
		{"TLS", true, false, false},
		{"clear, loopback", false, true, false},
		{"clear, remote", false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &plainAuth{username: "u", password: "p", clearOK: tt.clearOK}
			_, resp, err := a.Start(&smtp.ServerInfo{TLS: tt.tls})
			if (err != nil) != tt.wantErr {
				t.Fatalf("Start: %v, want error %v", err, tt.wantErr)
			}
			if err != nil && resp != nil {
				t.Errorf("credentials returned with the refusal: %q", resp)
			}
		})
	}
}

func TestIsLoopback(t *testing.T) {
	tests := []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 25}, true},
		{&net.TCPAddr{IP: net.IPv4(127, 1, 2, 3), Port: 25}, true},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 25}, true},
		{&net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 25}, false},
		{&net.TCPAddr{IP: net.ParseIP("2001:db8::1"), Port: 25}, false},
		{&net.UnixAddr{Name: "/tmp/smtp", Net: "unix"}, false},
	}
	for _, tt := range tests {
		if got := isLoopback(tt.addr); got != tt.want {
			t.Errorf("isLoopback(%v) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

func TestSendRefusesHeaderInjection(t *testing.T) {
	srv := mailtest.Start(t)
	mailers := map[string]Mailer{
		"SMTP": mustSMTP(t, srv, ""),
		"Log":  LogMailer{Logger: slog.New(slog.DiscardHandler)},
	}
	bad := []Message{
		{To: "a@example.com\r\nBcc: victim@example.com", Subject: "s", Text: "t"},
		{To: "a@example.com", Subject: "s\nBcc: victim@example.com", Text: "t"},
		{To: "a@example.com", Subject: "s\rX-Evil: 1", Text: "t"},
		{To: "a@example.com", Subject: "s", Text: "t", Unsubscribe: "https://example.com/u?t=1\r\nBcc: victim@example.com"},
		{To: "a@example.com", Subject: "s", Text: "t", Unsubscribe: "https://example.com/u\n"},
	}
	for name, m := range mailers {
		for _, msg := range bad {
			if err := m.Send(context.Background(), msg); !errors.Is(err, ErrHeaderInjection) {
				t.Errorf("%s.Send(%q, %q): %v, want ErrHeaderInjection", name, msg.To, msg.Subject, err)
			}
		}
	}
	if n := len(srv.Messages()); n != 0 {
		t.Errorf("%d messages reached the server, want 0", n)
	}
}

// An Unsubscribe link is sent as RFC 8058's two headers, on one line each,
// and one that would not fit between List-Unsubscribe's brackets is refused
// before anything is sent.
func TestSMTPListUnsubscribe(t *testing.T) {
	srv := mailtest.Start(t)
	m := mustSMTP(t, srv, "cardcat <no-reply@cards.example.com>")
	unsub := "https://cards.example.com/account/alerts/unsubscribe?token=" + strings.Repeat("0f", 32)
	msg := Message{To: "ann@example.com", Subject: "Price alert", Text: "Stop these emails: " + unsub + "\n", Link: unsub, Unsubscribe: unsub}
	if err := m.Send(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	got := srv.WaitFor(t, "ann@example.com", 5*time.Second)
	if h := got.Header.Get("List-Unsubscribe"); h != "<"+unsub+">" {
		t.Errorf("List-Unsubscribe %q, want <%s>", h, unsub)
	}
	if h := got.Header.Get("List-Unsubscribe-Post"); h != "List-Unsubscribe=One-Click" {
		t.Errorf("List-Unsubscribe-Post %q", h)
	}
	for i, line := range bytes.SplitAfter(got.Raw, []byte("\n")) {
		if len(line) > 1000 {
			t.Errorf("raw line %d is %d bytes long", i, len(line))
		}
	}
	// Without one, neither header.
	if err := m.Send(context.Background(), Message{To: "bob@example.com", Subject: "Verify", Text: "t"}); err != nil {
		t.Fatal(err)
	}
	if got := srv.WaitFor(t, "bob@example.com", 5*time.Second); got.Header.Get("List-Unsubscribe") != "" || got.Header.Get("List-Unsubscribe-Post") != "" {
		t.Errorf("a message without an unsubscribe link has List-Unsubscribe headers: %q", got.Raw)
	}

	for _, bad := range []string{"/account/unsubscribe?token=1", "mailto:u@example.com", "https://example.com/u?a=<b>", "https://example.com/u a",
		"https://example.com/u,https://evil.example/", "https://example.com/é", "https://example.com/" + strings.Repeat("a", 1000)} {
		for name, mailer := range map[string]Mailer{"SMTP": m, "Log": LogMailer{Logger: slog.New(slog.DiscardHandler)}} {
			if err := mailer.Send(context.Background(), Message{To: "c@example.com", Subject: "s", Text: "t", Unsubscribe: bad}); err == nil {
				t.Errorf("%s.Send with the unsubscribe link %q: no error", name, bad)
			}
		}
	}
	if n := len(srv.Messages()); n != 2 {
		t.Errorf("%d messages reached the server, want the 2 good ones", n)
	}
}

func TestSMTPSendBoundedByContext(t *testing.T) {
	// A server that accepts and never greets: Send must give up at the deadline.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	host, port, _ := net.SplitHostPort(l.Addr().String())
	cfg, err := ParseSMTPURL("smtp://" + net.JoinHostPort(host, port))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = NewSMTP(cfg).Send(ctx, Message{To: "a@example.com", Subject: "s", Text: "t"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Send: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Send took %v after a 200ms deadline", d)
	}
}

func TestParseSMTPURL(t *testing.T) {
	tests := []struct {
		raw     string
		want    SMTPConfig
		wantErr string // a substring of the error
	}{
		{
			raw:  "smtp://user:p%40ss@mail.example.com:2525?from=cardcat+%3Cnoreply%40example.com%3E",
			want: SMTPConfig{Host: "mail.example.com", Port: 2525, Username: "user", Password: "p@ss", From: "cardcat <noreply@example.com>"},
		},
		{
			raw:  "smtp://mail.example.com",
			want: SMTPConfig{Host: "mail.example.com", Port: 587, From: "cardcat <no-reply@mail.example.com>"},
		},
		{
			raw:  "smtps://user:pw@mail.example.com/",
			want: SMTPConfig{Host: "mail.example.com", Port: 465, ImplicitTLS: true, Username: "user", Password: "pw", From: "cardcat <no-reply@mail.example.com>"},
		},
		{raw: "", wantErr: `scheme is ""`},
		{raw: "http://mail.example.com", wantErr: `scheme is "http", want smtp:// (STARTTLS) or smtps:// (TLS)`},
		{raw: "mail.example.com:587", wantErr: "scheme"},
		{raw: "smtp://", wantErr: "no host"},
		{raw: "smtp://user:pw@:587", wantErr: "no host"},
		{raw: "smtp:mail.example.com", wantErr: "no host"},
		{raw: "smtp://mail.example.com:99999", wantErr: `port "99999"`},
		{raw: "smtp://mail.example.com/inbox", wantErr: "has a path"},
		{raw: "smtp://mail.example.com?form=a@b.c", wantErr: `parameter "form" is unknown`},
		{raw: "smtp://mail.example.com?from=not-an-address", wantErr: "is not an address"},
		{raw: "smtp://[::1]:25", wantErr: "set from="},
		{raw: "smtp://user:s3cret%zz@mail.example.com", wantErr: "bad SMTP URL"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := ParseSMTPURL(tt.raw)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseSMTPURL: %v, want an error containing %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Errorf("the error repeats the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSMTPURL: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSMTPConfigHidesPassword(t *testing.T) {
	cfg, err := ParseSMTPURL("smtp://user:s3cret@mail.example.com")
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	slog.New(slog.NewTextHandler(&logs, nil)).Info("smtp", "config", cfg)
	for _, s := range []string{cfg.String(), logs.String()} {
		if strings.Contains(s, "s3cret") || !strings.Contains(s, "user:xxxxx@mail.example.com:587") {
			t.Errorf("want the password masked: %s", s)
		}
	}
}

func TestLogMailer(t *testing.T) {
	var logs bytes.Buffer
	m := LogMailer{Logger: slog.New(slog.NewJSONHandler(&logs, nil))}
	link := "http://localhost:8080/account/verify?token=t0k"
	if err := m.Send(context.Background(), Message{To: "dev@example.com", Subject: "Verify", Text: "open " + link, Link: link}); err != nil {
		t.Fatal(err)
	}
	want := `{"level":"INFO","msg":"email not sent: no SMTP configured","to":"dev@example.com","subject":"Verify","link":"` + link + `"}`
	got := logs.String()
	if i := strings.Index(got, `"level"`); i >= 0 {
		got = "{" + got[i:] // drop the time
	}
	if strings.TrimSpace(got) != want {
		t.Errorf("log line:\n%s\nwant\n%s", got, want)
	}

	logs.Reset()
	unsub := "http://localhost:8080/account/alerts/unsubscribe?token=u"
	if err := m.Send(context.Background(), Message{To: "dev@example.com", Subject: "Alert", Text: "t", Link: link, Unsubscribe: unsub}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), `"link":"`+link+`","unsubscribe":"`+unsub+`"`) {
		t.Errorf("log line of a message with an unsubscribe link:\n%s", logs.String())
	}
}

func TestSMTPCredentialsChecked(t *testing.T) {
	tests := []struct {
		name, user, password string
		wantErr              string
	}{
		{name: "no credentials: MAIL refused", wantErr: "MAIL FROM"},
		{name: "wrong password", user: mailtest.User, password: "wrong", wantErr: "AUTH PLAIN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mailtest.Start(t)
			m := mustSMTP(t, srv, "")
			m.cfg.Username, m.cfg.Password = tt.user, tt.password
			err := m.Send(context.Background(), Message{To: "d@example.com", Subject: "s", Text: "t\n"})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Send: %v, want an error about %s", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "wrong") {
				t.Errorf("the error repeats the password: %v", err)
			}
			if n := len(srv.Messages()); n != 0 {
				t.Errorf("%d messages received, want 0", n)
			}
		})
	}
}

// LogOnly tells the log mailer, whose links are in the log under NotSent,
// from a mailer that sends.
func TestLogOnly(t *testing.T) {
	var logs strings.Builder
	lm := LogMailer{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	if err := lm.Send(context.Background(), Message{To: "a@example.com", Subject: "s", Text: "t https://x.test/l", Link: "https://x.test/l"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), `msg="`+NotSent+`"`) || !strings.Contains(logs.String(), "link=https://x.test/l") {
		t.Errorf("the log line lacks %q or the link:\n%s", NotSent, logs.String())
	}
	srv := mailtest.Start(t)
	for _, tt := range []struct {
		m    Mailer
		want bool
	}{{lm, true}, {&lm, true}, {mustSMTP(t, srv, ""), false}, {nil, false}} {
		if got := LogOnly(tt.m); got != tt.want {
			t.Errorf("LogOnly(%T) = %v, want %v", tt.m, got, tt.want)
		}
	}
}
