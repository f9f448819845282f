// Package accounttest is the test suite every account.Store passes.
package accounttest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/account"
)

// Run runs the suite; open returns an empty store.
func Run(t *testing.T, open func(t *testing.T) account.Store) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 22, 10, 30, 0, 123456000, time.UTC)

	t.Run("AccountRoundTrip", func(t *testing.T) {
		st := open(t)
		a := &account.Account{Email: "dev@example.com", Plan: account.Coffee, HourLimit: 2000, DayLimit: 20000, TrialStartedAt: t0, CreatedAt: t0}
		if err := st.CreateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
		if a.ID == 0 {
			t.Fatal("CreateAccount set no id")
		}
		got, err := st.Account(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(a, got); diff != "" {
			t.Errorf("Account (-want +got):\n%s", diff)
		}
		byEmail, err := st.AccountByEmail(ctx, "dev@example.com")
		if err != nil || byEmail.ID != a.ID {
			t.Errorf("AccountByEmail = %+v, %v", byEmail, err)
		}
		// No email and no trial are stored as such.
		b := &account.Account{Plan: account.Free}
		if err := st.CreateAccount(ctx, b); err != nil {
			t.Fatal(err)
		}
		gotB, err := st.Account(ctx, b.ID)
		if err != nil || gotB.Email != "" || !gotB.TrialStartedAt.IsZero() || gotB.CreatedAt.IsZero() {
			t.Errorf("account without email/trial = %+v, %v", gotB, err)
		}
		// A second account without email is fine; a duplicate email is not.
		if err := st.CreateAccount(ctx, &account.Account{Plan: account.Free}); err != nil {
			t.Errorf("second account without email: %v", err)
		}
		if err := st.CreateAccount(ctx, &account.Account{Email: "dev@example.com", Plan: account.Free}); err == nil {
			t.Error("duplicate email accepted")
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		st := open(t)
		if _, err := st.Account(ctx, 999); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("Account(999) error = %v", err)
		}
		if _, err := st.AccountByEmail(ctx, "nobody@example.com"); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("AccountByEmail error = %v", err)
		}
		if err := st.UpdateAccount(ctx, &account.Account{ID: 999, Plan: account.Pro}); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("UpdateAccount error = %v", err)
		}
		if err := st.RevokeKey(ctx, 999, t0); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("RevokeKey error = %v", err)
		}
	})

	t.Run("KeysAndVersion", func(t *testing.T) {
		st := open(t)
		v0 := mustVersion(t, st)
		a := &account.Account{Email: "a@example.com", Plan: account.Free}
		if err := st.CreateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
		v1 := mustVersion(t, st)
		if v1 == v0 {
			t.Error("creating an account did not change the version")
		}
		k1 := &account.Key{AccountID: a.ID, Hash: account.HashKey("pk_live_1"), Prefix: "pk_live_1234", CreatedAt: t0}
		k2 := &account.Key{AccountID: a.ID, Hash: account.HashKey("pk_test_2"), Prefix: "pk_test_5678", Test: true, CreatedAt: t0}
		for _, k := range []*account.Key{k1, k2} {
			if err := st.CreateKey(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		if k1.ID == 0 || k2.ID == k1.ID {
			t.Fatalf("key ids %d %d", k1.ID, k2.ID)
		}
		// Same hash twice is refused.
		if err := st.CreateKey(ctx, &account.Key{AccountID: a.ID, Hash: k1.Hash, Prefix: "x", CreatedAt: t0}); err == nil {
			t.Error("duplicate key hash accepted")
		}
		keys, err := st.Keys(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]account.Key{*k1, *k2}, keys); diff != "" {
			t.Errorf("Keys (-want +got):\n%s", diff)
		}
		active, err := st.ActiveKeys(ctx)
		if err != nil || len(active) != 2 || active[0].Account.Email != "a@example.com" {
			t.Fatalf("ActiveKeys = %+v, %v", active, err)
		}

		v2 := mustVersion(t, st)
		revokedAt := t0.Add(time.Hour)
		if err := st.RevokeKey(ctx, k1.ID, revokedAt); err != nil {
			t.Fatal(err)
		}
		if mustVersion(t, st) == v2 {
			t.Error("revoking did not change the version")
		}
		if err := st.RevokeKey(ctx, k1.ID, revokedAt.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		keys, _ = st.Keys(ctx, 0)
		if len(keys) != 2 || !keys[0].RevokedAt.Equal(revokedAt) {
			t.Errorf("after revoking twice: %+v (want the first revocation time kept)", keys)
		}
		active, _ = st.ActiveKeys(ctx)
		if len(active) != 1 || active[0].Key.ID != k2.ID {
			t.Errorf("ActiveKeys after revoke = %+v", active)
		}

		// A plan change shows in the active keys' account.
		a.Plan, a.TrialStartedAt = account.Ultra, t0
		if err := st.UpdateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
		active, _ = st.ActiveKeys(ctx)
		if active[0].Account.Plan != account.Ultra || !active[0].Account.TrialStartedAt.Equal(t0) {
			t.Errorf("account after update = %+v", active[0].Account)
		}
	})

	t.Run("Directory", func(t *testing.T) {
		st := open(t)
		a := &account.Account{Plan: account.Pro}
		if err := st.CreateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
		key, err := account.NewKey(false)
		if err != nil {
			t.Fatal(err)
		}
		k := &account.Key{AccountID: a.ID, Hash: account.HashKey(key), Prefix: account.DisplayPrefix(key)}
		if err := st.CreateKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		d, err := account.NewDirectory(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := d.Lookup(key)
		if !ok || got.ID != a.ID || got.Plan != account.Pro {
			t.Fatalf("Lookup = %+v, %v", got, ok)
		}
		other := key[:len(key)-1] + "x"
		if other == key {
			other = key[:len(key)-1] + "y"
		}
		if _, ok := d.Lookup(other); ok {
			t.Error("Lookup accepted another key")
		}
		// Another replica changes the plan and revokes the key: a refresh sees both.
		a.Plan = account.Ultra
		if err := st.UpdateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
		if err := d.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := d.Lookup(key); got == nil || got.Plan != account.Ultra {
			t.Errorf("plan change not seen: %+v", got)
		}
		if err := st.RevokeKey(ctx, k.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := d.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if _, ok := d.Lookup(key); ok {
			t.Error("revoked key still works after a refresh")
		}
	})

	runPortal(t, open)
}

func mustVersion(t *testing.T, st account.Store) int64 {
	t.Helper()
	v, err := st.AccountsVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}
