package alertmail

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/portal/mail"
)

// priceNames name the price each marketplace's alerts watch.
var priceNames = map[alerts.Source]string{alerts.TCG: "market price", alerts.CM: "trend price"}

// Compose is the email of firing f, queued as e: plain text that says what
// fired (the card, its game, the marketplace and finish, the rule, the old
// and new prices), links to the alert in the portal and to the card in the
// API and its docs, and the unsubscribe link, also in the List-Unsubscribe
// headers (mail.Message.Unsubscribe). e.Capped firings of the account not
// emailed in the hour are said too, with the cap, emailsPerHour. Link, which
// a LogMailer logs, is the alert's page.
func Compose(e alerts.Email, f alerts.Firing, publicURL string, games *game.Registry, emailsPerHour int) mail.Message {
	name := oneLine(e.CardName)
	if name == "" {
		name = f.CardID
	}
	gameName, prefix := f.Game, "/"+f.Game
	if g, ok := games.Get(f.Game); ok {
		gameName, prefix = g.Name, g.PathPrefix()
	}
	cur := f.Source.Currency()
	price := func(m catalog.Money) string {
		if !m.OK {
			return "none"
		}
		return alerts.FormatAmount(m.Cents) + " " + cur
	}
	alertURL := publicURL + "/account/alerts/" + strconv.FormatInt(f.AlertID, 10)
	unsubscribe := alerts.UnsubscribeURL(publicURL, e.Token)

	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	f.Finish = oneLine(f.Finish)
	line("Your price alert %d fired: %s, %s on %s, is now %s.", f.AlertID, name, f.Finish, f.Source.Market(), price(f.New))
	line("")
	line("Card:           %s (%s)", name, f.CardID)
	line("Game:           %s", gameName)
	line("Marketplace:    %s (%s)", f.Source.Market(), priceNames[f.Source])
	line("Finish:         %s", f.Finish)
	line("Rule:           %s", f.Rule.Text(f.Source))
	if f.Old.OK {
		line("Old price:      %s", price(f.Old))
	} else {
		line("Old price:      none (the alert's first check, or no price before)")
	}
	line("New price:      %s", price(f.New))
	if f.Rule.Kind == alerts.Move {
		line("7-day average:  %s", price(f.Average))
	}
	line("Checked:        %s, catalogue version %d", f.Created.UTC().Format("2006-01-02 15:04 UTC"), f.Version)
	line("")
	line("An alert fires once per crossing: it fires again only after the price has gone back.")
	line("")
	line("Your alert in the account portal:")
	line("%s", alertURL)
	line("The card in the API (with your API key, docs at %s/docs#get-gamecardsid):", publicURL)
	line("%s%s/cards/%s", publicURL, prefix, f.CardID)
	if e.Capped > 0 {
		line("")
		plural := "s"
		if e.Capped == 1 {
			plural = ""
		}
		if emailsPerHour > 0 {
			line("In the last hour, %d more firing%s of your alerts went without an email: an account gets at most %d alert emails an hour.",
				e.Capped, plural, emailsPerHour)
		} else {
			line("In the last hour, %d more firing%s of your alerts went without an email, past the alert emails an account gets in an hour.",
				e.Capped, plural)
		}
		line("Your alerts page shows each alert's state; a webhook gets every firing.")
	}
	line("")
	line("-- ")
	line("You get this email because alert %d of your cardcat account emails you when it fires.", f.AlertID)
	line("Stop the emails of this alert, or of all your alerts:")
	line("%s", unsubscribe)

	return mail.Message{
		To:          e.To,
		Subject:     fmt.Sprintf("Price alert: %s is %s on %s (%s)", name, price(f.New), f.Source.Market(), f.Finish),
		Text:        b.String(),
		Link:        alertURL,
		Unsubscribe: unsubscribe,
	}
}

// oneLine is s with its control characters (a line break in an upstream
// card name) as spaces, so that it fits a header and a line of the text.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
