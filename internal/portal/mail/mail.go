// Package mail sends the portal's plain-text emails (verification, password
// reset, price alerts): through SMTP when CARDCAT_SMTP_URL is set, to the log
// otherwise.
package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
)

// Message is one plain-text email. Text is the whole body and must already
// contain Link; Link is kept apart so that LogMailer can show it.
type Message struct {
	To      string // one address, "a@example.com" or "Name <a@example.com>"
	Subject string
	Text    string
	Link    string
	// Unsubscribe, when set, is an http(s) URL that unsubscribes the
	// recipient with one POST (RFC 8058): it is sent as
	// "List-Unsubscribe: <URL>" with "List-Unsubscribe-Post:
	// List-Unsubscribe=One-Click", which mailbox providers show as an
	// unsubscribe button. Text should hold it too, for every other reader.
	Unsubscribe string
}

// Mailer sends a Message. Implementations must be safe for concurrent use.
type Mailer interface {
	Send(ctx context.Context, m Message) error
}

// ErrHeaderInjection is returned for a To, Subject or Unsubscribe holding a CR
// or LF, which would let the sender add headers of its choosing.
var ErrHeaderInjection = errors.New("mail: CR or LF in a header value")

// checkHeaders refuses values that would break out of their header line, and
// an Unsubscribe that is not an absolute http(s) URL that fits between the
// angle brackets of List-Unsubscribe.
func checkHeaders(m Message) error {
	for _, v := range []string{m.To, m.Subject, m.Unsubscribe} {
		if strings.ContainsAny(v, "\r\n") {
			return ErrHeaderInjection
		}
	}
	if m.Unsubscribe == "" {
		return nil
	}
	// Its header is not folded (whitespace between the brackets is not
	// read alike by every client): it must fit a line (RFC 5322's 998).
	u, err := url.Parse(m.Unsubscribe)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || len(m.Unsubscribe) > maxUnsubscribe ||
		strings.ContainsFunc(m.Unsubscribe, func(r rune) bool { return r <= ' ' || r >= 0x7f || r == '<' || r == '>' || r == ',' }) {
		return fmt.Errorf("mail: the unsubscribe link %q is not an absolute http(s) URL of at most %d characters of printable ASCII without <, > or ,",
			m.Unsubscribe, maxUnsubscribe)
	}
	return nil
}

// maxUnsubscribe is the longest unsubscribe link: List-Unsubscribe and it on
// one line of at most 998 characters.
const maxUnsubscribe = 900

// LogMailer is for development only: it sends nothing and logs each message
// at INFO with its recipient, subject and link, so that `make run` works on a
// laptop without SMTP. The link carries a single-use token and is logged on
// purpose (issue 14): it is the only way to follow it. Never use LogMailer
// where the logs are read by anyone but the account holder.
type LogMailer struct {
	Logger *slog.Logger // nil: slog.Default()
}

var _ Mailer = LogMailer{}

// NotSent is the message of LogMailer's log line, which the portal names
// so that a visitor knows what to look for in the log.
const NotSent = "email not sent: no SMTP configured"

// LogOnly reports whether m sends nothing and logs each message with its
// link instead (a LogMailer): the link is then in the server's log, not in
// anyone's inbox, and the portal says so.
func LogOnly(m Mailer) bool {
	switch m.(type) {
	case LogMailer, *LogMailer:
		return true
	}
	return false
}

// Send logs m; it fails only for a header that SMTP would refuse, so that
// development sees the same errors as production.
func (l LogMailer) Send(ctx context.Context, m Message) error {
	if err := checkHeaders(m); err != nil {
		return err
	}
	logger := l.Logger
	if logger == nil {
		logger = slog.Default()
	}
	attrs := []slog.Attr{slog.String("to", m.To), slog.String("subject", m.Subject), slog.String("link", m.Link)}
	if m.Unsubscribe != "" {
		attrs = append(attrs, slog.String("unsubscribe", m.Unsubscribe))
	}
	logger.LogAttrs(ctx, slog.LevelInfo, NotSent, attrs...)
	return nil
}
