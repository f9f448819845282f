package portal

// Stubs of the logged-in pages, replaced as each is written. DELETE THIS
// FILE when all are.

import (
	"net/http"

	"github.com/cardcat/cardcat/internal/account"
)

func (p *Portal) usagePage(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	p.todo(w, r)
}
func (p *Portal) upgradePage(w http.ResponseWriter, r *http.Request, acc *account.Account) {
	p.todo(w, r)
}
func (p *Portal) checkout(w http.ResponseWriter, r *http.Request, acc *account.Account) { p.todo(w, r) }
