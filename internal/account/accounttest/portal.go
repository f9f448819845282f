package accounttest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/account"
)

// runPortal runs the subtests of the portal's part of the store (issue 14).
func runPortal(t *testing.T, open func(t *testing.T) account.Store) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 22, 10, 30, 0, 123456000, time.UTC)

	t.Run("PortalFieldsRoundTrip", func(t *testing.T) {
		st := open(t)
		a := &account.Account{
			Email: "dev@example.com", Plan: account.Pro, CreatedAt: t0,
			PasswordHash:         "$argon2id$v=19$m=65536,t=3,p=2$c2FsdA$aGFzaA",
			VerifiedAt:           t0.Add(time.Minute),
			StripeCustomerID:     "cus_1",
			StripeSubscriptionID: "sub_1",
			StripeSubscriptionAt: t0.Add(2 * time.Minute),
		}
		mustCreateAccount(t, st, a)
		for name, get := range map[string]func() (*account.Account, error){
			"Account":                 func() (*account.Account, error) { return st.Account(ctx, a.ID) },
			"AccountByEmail":          func() (*account.Account, error) { return st.AccountByEmail(ctx, a.Email) },
			"AccountByStripeCustomer": func() (*account.Account, error) { return st.AccountByStripeCustomer(ctx, "cus_1") },
		} {
			got, err := get()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if diff := cmp.Diff(a, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", name, diff)
			}
		}

		// Every portal field is saved by an update, clearing ones included.
		a.PasswordHash, a.VerifiedAt, a.StripeCustomerID, a.StripeSubscriptionID, a.StripeSubscriptionAt = "$argon2id$new", time.Time{}, "", "", time.Time{}
		if err := st.UpdateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
		got, err := st.Account(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(a, got); diff != "" {
			t.Errorf("after update (-want +got):\n%s", diff)
		}
		if _, err := st.AccountByStripeCustomer(ctx, "cus_1"); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("AccountByStripeCustomer of a cleared id: %v, want ErrNotFound", err)
		}
		a.StripeCustomerID, a.StripeSubscriptionID, a.StripeSubscriptionAt, a.VerifiedAt = "cus_2", "sub_2", t0.Add(time.Hour), t0
		if err := st.UpdateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
		if got, err := st.AccountByStripeCustomer(ctx, "cus_2"); err != nil || got.ID != a.ID || got.StripeSubscriptionID != "sub_2" ||
			!got.StripeSubscriptionAt.Equal(t0.Add(time.Hour)) || !got.VerifiedAt.Equal(t0) {
			t.Errorf("AccountByStripeCustomer(cus_2) = %+v, %v", got, err)
		}

		// Many accounts have no Stripe customer; two cannot share one.
		mustCreateAccount(t, st, &account.Account{Plan: account.Free})
		mustCreateAccount(t, st, &account.Account{Plan: account.Free})
		if err := st.CreateAccount(ctx, &account.Account{Plan: account.Free, StripeCustomerID: "cus_2"}); err == nil {
			t.Error("a second account with Stripe customer cus_2 was accepted")
		}

		// Key names and last use come back from Keys and ActiveKeys.
		k := &account.Key{AccountID: a.ID, Hash: account.HashKey("pk_live_named"), Prefix: "pk_live_name", Name: "laptop <script>", CreatedAt: t0}
		if err := st.CreateKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		if err := st.MarkKeysUsed(ctx, []account.KeyUse{{KeyID: k.ID, At: t0.Add(time.Hour)}}); err != nil {
			t.Fatal(err)
		}
		k.LastUsedAt = t0.Add(time.Hour)
		keys, err := st.Keys(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]account.Key{*k}, keys); diff != "" {
			t.Errorf("Keys (-want +got):\n%s", diff)
		}
		active, err := st.ActiveKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]account.KeyAccount{{Key: *k, Account: *a}}, active); diff != "" {
			t.Errorf("ActiveKeys (-want +got):\n%s", diff)
		}
	})

	t.Run("Accounts", func(t *testing.T) {
		st := open(t)
		if got, err := st.Accounts(ctx); err != nil || len(got) != 0 {
			t.Fatalf("Accounts of an empty store = %+v, %v", got, err)
		}
		used := &account.Account{Email: "used@example.com", Plan: account.Pro, CreatedAt: t0, VerifiedAt: t0}
		unused := &account.Account{Email: "unused@example.com", Plan: account.Free, CreatedAt: t0}
		gone := &account.Account{Email: "gone@example.com", Plan: account.Free, CreatedAt: t0}
		for _, a := range []*account.Account{used, unused, gone} {
			mustCreateAccount(t, st, a)
		}
		k1 := mustCreateKey(t, st, used.ID, "1")
		k2 := mustCreateKey(t, st, used.ID, "2")
		mustCreateKey(t, st, unused.ID, "3") // never used
		if err := st.MarkKeysUsed(ctx, []account.KeyUse{{KeyID: k1.ID, At: t0.Add(2 * time.Hour)}, {KeyID: k2.ID, At: t0.Add(time.Hour)}}); err != nil {
			t.Fatal(err)
		}
		if err := st.DeleteAccount(ctx, gone.ID, t0); err != nil {
			t.Fatal(err)
		}
		got, err := st.Accounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantUsed := *used
		wantUsed.LastUsedAt = t0.Add(2 * time.Hour) // the latest of its keys
		if diff := cmp.Diff([]account.Account{wantUsed, *unused}, got); diff != "" {
			t.Errorf("Accounts (-want +got):\n%s", diff)
		}
	})

	t.Run("DeleteAccount", func(t *testing.T) {
		st := open(t)
		a := &account.Account{Email: "leaving@example.com", Plan: account.Pro, PasswordHash: "$argon2id$x", StripeCustomerID: "cus_leaving", CreatedAt: t0}
		other := &account.Account{Email: "staying@example.com", Plan: account.Free, CreatedAt: t0}
		mustCreateAccount(t, st, a)
		mustCreateAccount(t, st, other)
		early := mustCreateKey(t, st, a.ID, "early")
		late := mustCreateKey(t, st, a.ID, "late")
		otherKey := mustCreateKey(t, st, other.ID, "other")
		revokedAt := t0.Add(time.Minute)
		if err := st.RevokeKey(ctx, early.ID, revokedAt); err != nil {
			t.Fatal(err)
		}
		for _, s := range []account.Session{
			{IDHash: "s-leaving", AccountID: a.ID, CreatedAt: t0, LastSeenAt: t0},
			{IDHash: "s-staying", AccountID: other.ID, CreatedAt: t0, LastSeenAt: t0},
		} {
			if err := st.CreateSession(ctx, &s); err != nil {
				t.Fatal(err)
			}
		}
		for _, tok := range []account.Token{
			{Hash: "t-leaving", AccountID: a.ID, Purpose: account.TokenReset, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)},
			{Hash: "t-staying", AccountID: other.ID, Purpose: account.TokenReset, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)},
		} {
			if err := st.CreateToken(ctx, &tok); err != nil {
				t.Fatal(err)
			}
		}
		usage := []account.Usage{{AccountID: a.ID, Hour: t0, Requests: 5, Refused: 1}}
		if err := st.AddUsage(ctx, usage); err != nil {
			t.Fatal(err)
		}

		v := mustVersion(t, st)
		deletedAt := t0.Add(time.Hour)
		if err := st.DeleteAccount(ctx, a.ID, deletedAt); err != nil {
			t.Fatal(err)
		}
		if mustVersion(t, st) == v {
			t.Error("deleting an account did not change the version (the directory would keep its keys)")
		}

		notFound := map[string]error{}
		_, notFound["Account"] = st.Account(ctx, a.ID)
		_, notFound["AccountByEmail"] = st.AccountByEmail(ctx, a.Email)
		_, notFound["AccountByStripeCustomer"] = st.AccountByStripeCustomer(ctx, "cus_leaving")
		_, notFound["Session"] = st.Session(ctx, "s-leaving")
		_, notFound["UseToken"] = st.UseToken(ctx, "t-leaving", account.TokenReset)
		notFound["UpdateAccount"] = st.UpdateAccount(ctx, a)
		notFound["DeleteAccount again"] = st.DeleteAccount(ctx, a.ID, deletedAt)
		notFound["CreateKey"] = st.CreateKey(ctx, &account.Key{AccountID: a.ID, Hash: account.HashKey("after"), Prefix: "pk_live_aftr"})
		for name, err := range notFound {
			if !errors.Is(err, account.ErrNotFound) {
				t.Errorf("%s of a deleted account: %v, want ErrNotFound", name, err)
			}
		}

		// Its keys are revoked at the deletion, an earlier revocation kept.
		keys, err := st.Keys(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		early.RevokedAt, late.RevokedAt = revokedAt, deletedAt
		if diff := cmp.Diff([]account.Key{*early, *late}, keys); diff != "" {
			t.Errorf("keys of the deleted account (-want +got):\n%s", diff)
		}
		active, err := st.ActiveKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(active) != 1 || active[0].Key.ID != otherKey.ID {
			t.Errorf("ActiveKeys after the deletion = %+v, want only the other account's key", active)
		}
		if got, err := st.Accounts(ctx); err != nil || len(got) != 1 || got[0].ID != other.ID {
			t.Errorf("Accounts after the deletion = %+v, %v", got, err)
		}

		// Its usage stays; the other account's session and token too.
		if got, err := st.UsageBetween(ctx, a.ID, t0.Add(-time.Hour), t0.Add(time.Hour)); err != nil || len(got) != 1 || got[0].Requests != 5 {
			t.Errorf("usage of the deleted account = %+v, %v", got, err)
		}
		if _, err := st.Session(ctx, "s-staying"); err != nil {
			t.Errorf("the other account's session: %v", err)
		}
		if _, err := st.UseToken(ctx, "t-staying", account.TokenReset); err != nil {
			t.Errorf("the other account's token: %v", err)
		}

		// The email is free for a new sign-up, which is another account.
		again := &account.Account{Email: a.Email, Plan: account.Free}
		mustCreateAccount(t, st, again)
		if got, err := st.AccountByEmail(ctx, a.Email); err != nil || got.ID != again.ID || got.ID == a.ID {
			t.Errorf("AccountByEmail after sign-up again = %+v, %v (deleted id %d)", got, err, a.ID)
		}
	})

	t.Run("KeyLimit", func(t *testing.T) {
		st := open(t)
		a := &account.Account{Plan: account.Pro}
		b := &account.Account{Plan: account.Pro}
		mustCreateAccount(t, st, a)
		mustCreateAccount(t, st, b)
		var keys []*account.Key
		for i := range account.MaxActiveKeys {
			keys = append(keys, mustCreateKey(t, st, a.ID, "a"+string(rune('a'+i))))
		}
		over := &account.Key{AccountID: a.ID, Hash: account.HashKey("a-over"), Prefix: "pk_live_over"}
		if err := st.CreateKey(ctx, over); !errors.Is(err, account.ErrTooManyKeys) {
			t.Fatalf("key %d: %v, want ErrTooManyKeys", account.MaxActiveKeys+1, err)
		}
		if got, _ := st.Keys(ctx, a.ID); len(got) != account.MaxActiveKeys {
			t.Errorf("%d keys after a refused create, want %d", len(got), account.MaxActiveKeys)
		}
		// The limit is per account, and a revoked key frees a place.
		mustCreateKey(t, st, b.ID, "b")
		if err := st.RevokeKey(ctx, keys[0].ID, t0); err != nil {
			t.Fatal(err)
		}
		if err := st.CreateKey(ctx, over); err != nil {
			t.Errorf("create after a revoke: %v", err)
		}
	})

	t.Run("KeyLimitConcurrent", func(t *testing.T) {
		st := open(t)
		a := &account.Account{Plan: account.Pro}
		mustCreateAccount(t, st, a)
		for i := range account.MaxActiveKeys - 1 {
			mustCreateKey(t, st, a.ID, "k"+string(rune('a'+i)))
		}
		// Concurrent reads first, so that a store with a connection pool has
		// its connections open and the creates below overlap.
		for _, err := range concurrently(8, func(int) error { _, err := st.Keys(ctx, a.ID); return err }) {
			if err != nil {
				t.Fatal(err)
			}
		}
		// Several requests at 9 keys, let go at once: exactly one gets the
		// tenth.
		errs := concurrently(8, func(i int) error {
			return st.CreateKey(ctx, &account.Key{AccountID: a.ID, Hash: account.HashKey("race" + string(rune('a'+i))), Prefix: "pk_live_race"})
		})
		var ok int
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, account.ErrTooManyKeys):
				t.Errorf("concurrent create: %v", err)
			}
		}
		if ok != 1 {
			t.Errorf("%d of %d concurrent creates at %d keys succeeded, want 1", ok, len(errs), account.MaxActiveKeys-1)
		}
		if got, _ := st.Keys(ctx, a.ID); len(got) != account.MaxActiveKeys {
			t.Errorf("%d keys, want %d", len(got), account.MaxActiveKeys)
		}
	})

	t.Run("PortalWritesKeepVersion", func(t *testing.T) {
		st := open(t)
		a := &account.Account{Plan: account.Free}
		mustCreateAccount(t, st, a)
		k := mustCreateKey(t, st, a.ID, "k")
		v := mustVersion(t, st)
		// In order: each write needs the one before.
		writes := []struct {
			name  string
			write func() error
		}{
			{"CreateSession", func() error {
				return st.CreateSession(ctx, &account.Session{IDHash: "s", AccountID: a.ID, CreatedAt: t0, LastSeenAt: t0})
			}},
			{"TouchSession", func() error { return st.TouchSession(ctx, "s", t0.Add(time.Minute)) }},
			{"DeleteSession", func() error { return st.DeleteSession(ctx, "s") }},
			{"DeleteSessions", func() error { return st.DeleteSessions(ctx, a.ID) }},
			{"Tokens", func() error {
				if err := st.CreateToken(ctx, &account.Token{Hash: "t", AccountID: a.ID, Purpose: account.TokenVerify, CreatedAt: t0, ExpiresAt: t0}); err != nil {
					return err
				}
				_, err := st.UseToken(ctx, "t", account.TokenVerify)
				return err
			}},
			{"DeleteTokens", func() error { return st.DeleteTokens(ctx, a.ID, account.TokenReset) }},
			{"AddUsage", func() error { return st.AddUsage(ctx, []account.Usage{{AccountID: a.ID, Hour: t0, Requests: 1}}) }},
			{"MarkKeysUsed", func() error { return st.MarkKeysUsed(ctx, []account.KeyUse{{KeyID: k.ID, At: t0}}) }},
		}
		for _, w := range writes {
			if err := w.write(); err != nil {
				t.Fatalf("%s: %v", w.name, err)
			}
			if got := mustVersion(t, st); got != v {
				t.Errorf("%s changed the accounts version %d -> %d", w.name, v, got)
			}
		}
	})

	t.Run("Sessions", func(t *testing.T) {
		st := open(t)
		a := &account.Account{Plan: account.Free}
		b := &account.Account{Plan: account.Free}
		mustCreateAccount(t, st, a)
		mustCreateAccount(t, st, b)
		sessions := []account.Session{
			{IDHash: "a1", AccountID: a.ID, CreatedAt: t0, LastSeenAt: t0.Add(time.Second)},
			{IDHash: "a2", AccountID: a.ID, CreatedAt: t0, LastSeenAt: t0},
			{IDHash: "b1", AccountID: b.ID, CreatedAt: t0, LastSeenAt: t0},
		}
		for _, s := range sessions {
			if err := st.CreateSession(ctx, &s); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.CreateSession(ctx, &sessions[0]); err == nil {
			t.Error("a second session with the same id hash was accepted")
		}
		got, err := st.Session(ctx, "a1")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&sessions[0], got); diff != "" {
			t.Errorf("Session (-want +got):\n%s", diff)
		}

		seen := t0.Add(20 * time.Minute)
		if err := st.TouchSession(ctx, "a1", seen); err != nil {
			t.Fatal(err)
		}
		if got, err := st.Session(ctx, "a1"); err != nil || !got.LastSeenAt.Equal(seen) || !got.CreatedAt.Equal(t0) {
			t.Errorf("after TouchSession: %+v, %v", got, err)
		}
		if err := st.TouchSession(ctx, "none", seen); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("TouchSession of no session: %v, want ErrNotFound", err)
		}

		if err := st.DeleteSession(ctx, "a1"); err != nil {
			t.Fatal(err)
		}
		if err := st.DeleteSession(ctx, "a1"); err != nil {
			t.Errorf("deleting a session twice: %v", err)
		}
		if _, err := st.Session(ctx, "a1"); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("deleted session: %v, want ErrNotFound", err)
		}
		if _, err := st.Session(ctx, "a2"); err != nil {
			t.Errorf("DeleteSession deleted another session: %v", err)
		}

		// A password change ends every session of its account only.
		if err := st.DeleteSessions(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Session(ctx, "a2"); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("session after DeleteSessions: %v, want ErrNotFound", err)
		}
		if _, err := st.Session(ctx, "b1"); err != nil {
			t.Errorf("DeleteSessions deleted another account's session: %v", err)
		}
	})

	t.Run("Tokens", func(t *testing.T) {
		st := open(t)
		a := &account.Account{Plan: account.Free}
		mustCreateAccount(t, st, a)
		verify := account.Token{Hash: "verify-hash", AccountID: a.ID, Purpose: account.TokenVerify, CreatedAt: t0, ExpiresAt: t0.Add(24 * time.Hour)}
		expired := account.Token{Hash: "expired-hash", AccountID: a.ID, Purpose: account.TokenReset, CreatedAt: t0.Add(-2 * time.Hour), ExpiresAt: t0.Add(-time.Hour)}
		for _, tok := range []account.Token{verify, expired} {
			if err := st.CreateToken(ctx, &tok); err != nil {
				t.Fatal(err)
			}
		}
		// Another purpose's token does not work, and is not spent by trying.
		if _, err := st.UseToken(ctx, verify.Hash, account.TokenReset); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("verify token used as a reset token: %v, want ErrNotFound", err)
		}
		got, err := st.UseToken(ctx, verify.Hash, account.TokenVerify)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&verify, got); diff != "" {
			t.Errorf("UseToken (-want +got):\n%s", diff)
		}
		if _, err := st.UseToken(ctx, verify.Hash, account.TokenVerify); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("second use: %v, want ErrNotFound", err)
		}
		// An expired token comes back, for the caller to refuse, and is spent.
		got, err = st.UseToken(ctx, expired.Hash, account.TokenReset)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&expired, got); diff != "" {
			t.Errorf("UseToken of an expired token (-want +got):\n%s", diff)
		}
		if _, err := st.UseToken(ctx, expired.Hash, account.TokenReset); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("second use of the expired token: %v, want ErrNotFound", err)
		}
	})

	t.Run("DeleteTokens", func(t *testing.T) {
		st := open(t)
		a := &account.Account{Plan: account.Free}
		b := &account.Account{Plan: account.Free}
		mustCreateAccount(t, st, a)
		mustCreateAccount(t, st, b)
		for _, tok := range []account.Token{
			{Hash: "a-reset-1", AccountID: a.ID, Purpose: account.TokenReset},
			{Hash: "a-reset-2", AccountID: a.ID, Purpose: account.TokenReset},
			{Hash: "a-verify", AccountID: a.ID, Purpose: account.TokenVerify},
			{Hash: "b-reset", AccountID: b.ID, Purpose: account.TokenReset},
		} {
			tok.CreatedAt, tok.ExpiresAt = t0, t0.Add(time.Hour)
			if err := st.CreateToken(ctx, &tok); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.DeleteTokens(ctx, a.ID, account.TokenReset); err != nil {
			t.Fatal(err)
		}
		for _, hash := range []string{"a-reset-1", "a-reset-2"} {
			if _, err := st.UseToken(ctx, hash, account.TokenReset); !errors.Is(err, account.ErrNotFound) {
				t.Errorf("%s after DeleteTokens: %v, want ErrNotFound", hash, err)
			}
		}
		if _, err := st.UseToken(ctx, "a-verify", account.TokenVerify); err != nil {
			t.Errorf("DeleteTokens of reset tokens deleted a verification token: %v", err)
		}
		if _, err := st.UseToken(ctx, "b-reset", account.TokenReset); err != nil {
			t.Errorf("DeleteTokens deleted another account's token: %v", err)
		}
		if err := st.DeleteTokens(ctx, a.ID, account.TokenReset); err != nil {
			t.Errorf("DeleteTokens with none left: %v", err)
		}
	})

	t.Run("TokenConcurrentUse", func(t *testing.T) {
		st := open(t)
		a := &account.Account{Plan: account.Free}
		mustCreateAccount(t, st, a)
		if err := st.CreateToken(ctx, &account.Token{Hash: "once", AccountID: a.ID, Purpose: account.TokenReset, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		errs := concurrently(8, func(int) error {
			_, err := st.UseToken(ctx, "once", account.TokenReset)
			return err
		})
		var ok int
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, account.ErrNotFound):
				t.Errorf("concurrent use: %v", err)
			}
		}
		if ok != 1 {
			t.Errorf("%d of %d concurrent uses succeeded, want 1", ok, len(errs))
		}
	})

	t.Run("Usage", func(t *testing.T) {
		st := open(t)
		a := &account.Account{Plan: account.Free}
		b := &account.Account{Plan: account.Free}
		mustCreateAccount(t, st, a)
		mustCreateAccount(t, st, b)
		h := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
		paris := time.FixedZone("UTC+1", 3600)
		if err := st.AddUsage(ctx, nil); err != nil {
			t.Errorf("AddUsage(nil): %v", err)
		}
		// Two replicas flush the same hours; times inside the hour and in
		// another zone count for the UTC hour they fall in.
		replica1 := []account.Usage{
			{AccountID: a.ID, Hour: h.Add(30 * time.Minute), Requests: 10, Refused: 2},
			{AccountID: a.ID, Hour: h.Add(time.Hour), Requests: 1},
			{AccountID: b.ID, Hour: h, Requests: 100},
		}
		replica2 := []account.Usage{
			{AccountID: a.ID, Hour: h.Add(59 * time.Minute).In(paris), Requests: 5, Refused: 1},
			{AccountID: a.ID, Hour: h.Add(-2 * time.Hour), Requests: 7},
			{AccountID: a.ID, Hour: h.Add(-time.Hour)}, // nothing to count
		}
		for _, u := range [][]account.Usage{replica1, replica2} {
			if err := st.AddUsage(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			name     string
			from, to time.Time
			want     []account.Usage
		}{
			{"all", h.Add(-24 * time.Hour), h.Add(24 * time.Hour), []account.Usage{
				{AccountID: a.ID, Hour: h.Add(-2 * time.Hour), Requests: 7},
				{AccountID: a.ID, Hour: h, Requests: 15, Refused: 3},
				{AccountID: a.ID, Hour: h.Add(time.Hour), Requests: 1},
			}},
			{"from inclusive, to exclusive", h, h.Add(time.Hour), []account.Usage{
				{AccountID: a.ID, Hour: h, Requests: 15, Refused: 3},
			}},
			{"empty", h.Add(2 * time.Hour), h.Add(24 * time.Hour), nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := st.UsageBetween(ctx, a.ID, tt.from, tt.to)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("UsageBetween (-want +got):\n%s", diff)
				}
			})
		}
	})

	t.Run("MarkKeysUsed", func(t *testing.T) {
		st := open(t)
		a := &account.Account{Plan: account.Free}
		mustCreateAccount(t, st, a)
		k1 := mustCreateKey(t, st, a.ID, "1")
		k2 := mustCreateKey(t, st, a.ID, "2")
		steps := []struct {
			name   string
			uses   []account.KeyUse
			k1, k2 time.Time
		}{
			{"first use", []account.KeyUse{{KeyID: k1.ID, At: t0}}, t0, time.Time{}},
			{"never back", []account.KeyUse{{KeyID: k1.ID, At: t0.Add(-time.Hour)}, {KeyID: k2.ID, At: t0}}, t0, t0},
			{"forward", []account.KeyUse{{KeyID: k1.ID, At: t0.Add(time.Hour)}}, t0.Add(time.Hour), t0},
			{"one key twice in a flush", []account.KeyUse{{KeyID: k2.ID, At: t0.Add(2 * time.Hour)}, {KeyID: k2.ID, At: t0.Add(time.Hour)}}, t0.Add(time.Hour), t0.Add(2 * time.Hour)},
			{"unknown key and zero time", []account.KeyUse{{KeyID: 9999, At: t0}, {KeyID: k1.ID}}, t0.Add(time.Hour), t0.Add(2 * time.Hour)},
		}
		for _, step := range steps {
			if err := st.MarkKeysUsed(ctx, step.uses); err != nil {
				t.Fatalf("%s: %v", step.name, err)
			}
			keys, err := st.Keys(ctx, a.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(keys) != 2 || !keys[0].LastUsedAt.Equal(step.k1) || !keys[1].LastUsedAt.Equal(step.k2) {
				t.Errorf("%s: last used %v, %v; want %v, %v", step.name, keys[0].LastUsedAt, keys[1].LastUsedAt, step.k1, step.k2)
			}
		}
	})
}

func mustCreateAccount(t *testing.T, st account.Store, a *account.Account) {
	t.Helper()
	if err := st.CreateAccount(context.Background(), a); err != nil {
		t.Fatal(err)
	}
}

// mustCreateKey creates a key of the account; name makes its hash unique.
func mustCreateKey(t *testing.T, st account.Store, accountID int64, name string) *account.Key {
	t.Helper()
	k := &account.Key{AccountID: accountID, Hash: account.HashKey("pk_live_" + name), Prefix: "pk_live_test", Name: name, CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	if err := st.CreateKey(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	return k
}

// concurrently runs f(0) ... f(n-1) in goroutines released together, and
// returns their errors.
func concurrently(n int, f func(i int) error) []error {
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = f(i)
		})
	}
	close(start)
	wg.Wait()
	return errs
}
