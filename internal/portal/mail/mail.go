// Package mail sends the portal's plain-text emails (verification, password
// reset): through SMTP when CARDCAT_SMTP_URL is set, to the log otherwise.
package mail

import (
	"context"
	"errors"
	"log/slog"
	"strings"
)

// Message is one plain-text email. Text is the whole body and must already
// contain Link; Link is kept apart so that LogMailer can show it.
type Message struct {
	To      string // one address, "a@example.com" or "Name <a@example.com>"
	Subject string
	Text    string
	Link    string
}

// Mailer sends a Message. Implementations must be safe for concurrent use.
type Mailer interface {
	Send(ctx context.Context, m Message) error
}

// ErrHeaderInjection is returned for a To or Subject holding a CR or LF, which
// would let the sender add headers of its choosing.
var ErrHeaderInjection = errors.New("mail: CR or LF in a header value")

// checkHeaders refuses values that would break out of their header line.
func checkHeaders(m Message) error {
	if strings.ContainsAny(m.To, "\r\n") || strings.ContainsAny(m.Subject, "\r\n") {
		return ErrHeaderInjection
	}
	return nil
}

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
	logger.LogAttrs(ctx, slog.LevelInfo, NotSent,
		slog.String("to", m.To), slog.String("subject", m.Subject), slog.String("link", m.Link))
	return nil
}
