package account_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/ratelimit"
)

// memStore is a hand-written account.Store in memory, enough for the
// directory: accounts, keys, a version that changes with every write. The
// portal's methods are not needed here: the embedded nil Store panics if one
// is called.
type memStore struct {
	account.Store

	mu       sync.Mutex
	accounts map[int64]*account.Account
	keys     []account.Key
	version  int64
	nextID   int64
}

var _ account.Store = (*memStore)(nil)

func newMemStore() *memStore { return &memStore{accounts: map[int64]*account.Account{}} }

func (m *memStore) CreateAccount(_ context.Context, a *account.Account) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextID++
	a.ID = m.nextID
	c := *a
	m.accounts[a.ID] = &c
	m.version++
	return nil
}

func (m *memStore) Account(_ context.Context, id int64) (*account.Account, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.accounts[id]
	if !ok {
		return nil, account.ErrNotFound
	}
	c := *a
	return &c, nil
}

func (m *memStore) AccountByEmail(_ context.Context, email string) (*account.Account, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, a := range m.accounts {
		if a.Email == email {
			c := *a
			return &c, nil
		}
	}
	return nil, account.ErrNotFound
}

func (m *memStore) UpdateAccount(_ context.Context, a *account.Account) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.accounts[a.ID]; !ok {
		return account.ErrNotFound
	}
	c := *a
	m.accounts[a.ID] = &c
	m.version++
	return nil
}

func (m *memStore) CreateKey(_ context.Context, k *account.Key) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextID++
	k.ID = m.nextID
	m.keys = append(m.keys, *k)
	m.version++
	return nil
}

func (m *memStore) RevokeKey(_ context.Context, id int64, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.keys {
		if m.keys[i].ID == id {
			m.keys[i].RevokedAt = at
			m.version++
			return nil
		}
	}
	return account.ErrNotFound
}

func (m *memStore) Keys(_ context.Context, accountID int64) ([]account.Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []account.Key
	for _, k := range m.keys {
		if accountID == 0 || k.AccountID == accountID {
			out = append(out, k)
		}
	}
	return out, nil
}

func (m *memStore) AccountsVersion(context.Context) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.version, nil
}

func (m *memStore) ActiveKeys(context.Context) ([]account.KeyAccount, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []account.KeyAccount
	for _, k := range m.keys {
		if k.RevokedAt.IsZero() {
			out = append(out, account.KeyAccount{Key: k, Account: *m.accounts[k.AccountID]})
		}
	}
	return out, nil
}

// mustAccount creates an account with one key and returns both.
func mustAccount(t *testing.T, st *memStore, a account.Account) (*account.Account, string, *account.Key) {
	t.Helper()
	ctx := context.Background()
	if err := st.CreateAccount(ctx, &a); err != nil {
		t.Fatal(err)
	}
	key, k := mustKey(t, st, a.ID)
	return &a, key, k
}

func mustKey(t *testing.T, st *memStore, accountID int64) (string, *account.Key) {
	t.Helper()
	key, err := account.NewKey(false)
	if err != nil {
		t.Fatal(err)
	}
	k := &account.Key{AccountID: accountID, Hash: account.HashKey(key), Prefix: account.DisplayPrefix(key)}
	if err := st.CreateKey(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	return key, k
}

func mustDirectory(t *testing.T, st account.Store) *account.Directory {
	t.Helper()
	d, err := account.NewDirectory(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustRefresh(t *testing.T, d *account.Directory) {
	t.Helper()
	if err := d.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// clock is the injected clock; tests move it by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

var now = time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)

func TestCallerOfEveryPlan(t *testing.T) {
	st := newMemStore()
	type want struct {
		plan      account.Plan
		hour, day int64
		paid      account.Access
	}
	cases := []struct {
		acc  account.Account
		want want
	}{
		{account.Account{Plan: account.Free}, want{"free", 100, 1000, account.NeedsTrial}},
		{account.Account{Plan: account.EarlyAccess}, want{"early-access", 1000, 10000, account.NeedsTrial}},
		{account.Account{Plan: account.Coffee}, want{"coffee", 1000, 10000, account.NeedsTrial}},
		{account.Account{Plan: account.Coffee, HourLimit: 2500, DayLimit: 30000}, want{"coffee", 2500, 30000, account.NeedsTrial}},
		{account.Account{Plan: account.Coffee, HourLimit: 10, DayLimit: 20}, want{"coffee", 1000, 10000, account.NeedsTrial}}, // never below the floor
		{account.Account{Plan: account.Pro}, want{"pro", 5000, 50000, account.NeedsTrial}},
		{account.Account{Plan: account.Ultra}, want{"ultra", 7000, 70000, account.Allowed}},
		{account.Account{Plan: account.Business, HourLimit: 20000, DayLimit: 400000}, want{"business", 20000, 400000, account.Allowed}},
	}
	var keys []string
	var ids, keyIDs []int64
	for _, c := range cases {
		acc, key, k := mustAccount(t, st, c.acc)
		keys, ids, keyIDs = append(keys, key), append(ids, acc.ID), append(keyIDs, k.ID)
	}
	auth := account.NewAuthenticator(mustDirectory(t, st), func() time.Time { return now })
	for i, c := range cases {
		got, err := auth.Authenticate(context.Background(), keys[i])
		if err != nil {
			t.Fatalf("%+v: %v", c.acc, err)
		}
		want := account.Caller{
			AccountID:  strconv.FormatInt(ids[i], 10),
			KeyID:      keys[i][:12],
			Plan:       c.want.plan,
			Paid:       c.want.paid,
			Pool:       "acct:" + strconv.FormatInt(ids[i], 10),
			Limits:     ratelimit.Limits{Hour: c.want.hour, Day: c.want.day},
			AccountRef: ids[i],
			KeyRef:     keyIDs[i],
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", c.acc, diff)
		}
	}
}

func TestRefusedKeys(t *testing.T) {
	st := newMemStore()
	_, key, _ := mustAccount(t, st, account.Account{Plan: account.Free})
	auth := account.NewAuthenticator(mustDirectory(t, st), nil)
	other, _ := account.NewKey(true) // well formed, never stored
	for _, k := range []string{"", "pk_live_short", key + "x", "sk" + key[2:], other, key[:len(key)-1] + "!"} {
		if _, err := auth.Authenticate(context.Background(), k); !errors.Is(err, account.ErrInvalidKey) {
			t.Errorf("Authenticate(%q) error = %v, want ErrInvalidKey", k, err)
		}
	}
}

// countingKeys counts lookups, to show a malformed key never reaches one.
type countingKeys struct {
	account.Keys
	n int
}

func (c *countingKeys) Lookup(key string) (*account.Account, bool) {
	c.n++
	return c.Keys.Lookup(key)
}

func TestMalformedKeyIsNeverLookedUp(t *testing.T) {
	st := newMemStore()
	ck := &countingKeys{Keys: mustDirectory(t, st)}
	auth := account.NewAuthenticator(ck, nil)
	for _, k := range []string{"pk_live_short", "pk_live_" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ01234-", "Bearer x"} {
		auth.Authenticate(context.Background(), k)
	}
	if ck.n != 0 {
		t.Errorf("%d lookups for malformed keys, want 0", ck.n)
	}
}

func TestKeysOfOneAccountShareAPool(t *testing.T) {
	st := newMemStore()
	acc, key1, _ := mustAccount(t, st, account.Account{Plan: account.Pro})
	key2, _ := mustKey(t, st, acc.ID)
	_, key3, _ := mustAccount(t, st, account.Account{Plan: account.Pro})
	auth := account.NewAuthenticator(mustDirectory(t, st), nil)
	c1, _ := auth.Authenticate(context.Background(), key1)
	c2, _ := auth.Authenticate(context.Background(), key2)
	c3, _ := auth.Authenticate(context.Background(), key3)
	if c1.Pool != c2.Pool || c1.AccountID != c2.AccountID || c1.KeyID != key1[:12] || c2.KeyID != key2[:12] {
		t.Errorf("two keys of one account: %+v and %+v, want one pool and account", c1, c2)
	}
	if c1.Pool == c3.Pool {
		t.Errorf("keys of two accounts share pool %q", c1.Pool)
	}
	if c1.Pool != "acct:"+strconv.FormatInt(acc.ID, 10) {
		t.Errorf("pool %q, want acct:%d", c1.Pool, acc.ID)
	}
}

// TestTrial: paid access follows the injected clock, to the second; a trial
// started at T gives access before T + 7 days, not at it.
func TestTrial(t *testing.T) {
	st := newMemStore()
	start := now.Add(-3 * 24 * time.Hour)
	_, trial, _ := mustAccount(t, st, account.Account{Plan: account.Free, TrialStartedAt: start})
	_, never, _ := mustAccount(t, st, account.Account{Plan: account.Pro})
	_, expired, _ := mustAccount(t, st, account.Account{Plan: account.Coffee, TrialStartedAt: now.Add(-8 * 24 * time.Hour)})
	for _, mode := range authModes {
		t.Run(mode.name, func(t *testing.T) {
			clk := &clock{t: now}
			auth := mode.of(account.NewAuthenticator(mustDirectory(t, st), clk.Now))
			check := func(key string, want account.Access, when string) {
				t.Helper()
				c, err := auth(context.Background(), key)
				if err != nil || c.Paid != want {
					t.Errorf("%s: Paid = %v (%v), want %v", when, c.Paid, err, want)
				}
			}
			check(trial, account.Allowed, "trial on day 3")
			check(never, account.NeedsTrial, "no trial")
			check(expired, account.TrialExpired, "trial ended yesterday")
			clk.Set(start.Add(account.TrialLength - time.Nanosecond))
			check(trial, account.Allowed, "last instant of the trial")
			clk.Set(start.Add(account.TrialLength))
			check(trial, account.TrialExpired, "end of the trial")
		})
	}
}

// authModes are the two ways a request's key is authenticated: alone
// (Authenticate), and as one of a connection's requests, which share a
// KeyMemo (AuthenticateMemo); every rule holds for both.
var authModes = []struct {
	name string
	of   func(*account.Authenticator) func(context.Context, string) (account.Caller, error)
}{
	{"alone", func(a *account.Authenticator) func(context.Context, string) (account.Caller, error) {
		return a.Authenticate
	}},
	{"connection", func(a *account.Authenticator) func(context.Context, string) (account.Caller, error) {
		var m account.KeyMemo
		return func(ctx context.Context, key string) (account.Caller, error) { return a.AuthenticateMemo(ctx, key, &m) }
	}},
}

// TestChangesAfterRefresh: a revocation, a plan change and a new key take
// effect at the directory's next refresh, without a new Authenticator.
func TestChangesAfterRefresh(t *testing.T) {
	for _, mode := range authModes {
		t.Run(mode.name, func(t *testing.T) { testChangesAfterRefresh(t, mode.of) })
	}
}

func testChangesAfterRefresh(t *testing.T, of func(*account.Authenticator) func(context.Context, string) (account.Caller, error)) {
	st := newMemStore()
	ctx := context.Background()
	acc, key, k := mustAccount(t, st, account.Account{Plan: account.Free})
	dir := mustDirectory(t, st)
	authenticate := of(account.NewAuthenticator(dir, func() time.Time { return now }))

	acc.Plan = account.Ultra
	if err := st.UpdateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	newKey, _ := mustKey(t, st, acc.ID)
	if c, _ := authenticate(ctx, key); c.Plan != "free" {
		t.Errorf("before the refresh: plan %q, want free", c.Plan)
	}
	mustRefresh(t, dir)
	c, err := authenticate(ctx, key)
	if err != nil || c.Plan != "ultra" || c.Limits != (ratelimit.Limits{Hour: 7000, Day: 70000}) || c.Paid != account.Allowed {
		t.Errorf("after the upgrade: %+v, %v", c, err)
	}
	if _, err := authenticate(ctx, newKey); err != nil {
		t.Errorf("new key after the refresh: %v", err)
	}

	if err := st.RevokeKey(ctx, k.ID, now); err != nil {
		t.Fatal(err)
	}
	mustRefresh(t, dir)
	if _, err := authenticate(ctx, key); !errors.Is(err, account.ErrInvalidKey) {
		t.Errorf("revoked key: %v, want ErrInvalidKey", err)
	}
	if _, err := authenticate(ctx, newKey); err != nil {
		t.Errorf("the account's other key after a revocation: %v", err)
	}
}

// TestKeyMemoOfManyKeys: a connection whose requests send other keys (a
// proxy's connection, shared by its clients' keys) gets each key's own
// caller; a malformed or unknown key is refused without forgetting the key
// remembered, and a memo on other Keys than the Directory is not used.
func TestKeyMemoOfManyKeys(t *testing.T) {
	st := newMemStore()
	ctx := context.Background()
	_, free, _ := mustAccount(t, st, account.Account{Plan: account.Free})
	_, ultra, _ := mustAccount(t, st, account.Account{Plan: account.Ultra})
	dir := mustDirectory(t, st)
	auth := account.NewAuthenticator(dir, func() time.Time { return now })
	var m account.KeyMemo
	for i, tc := range []struct{ key, plan string }{
		{free, "free"}, {ultra, "ultra"}, {ultra, "ultra"}, {"pk_live_short", ""}, {ultra, "ultra"},
		{"pk_live_" + strings.Repeat("Z", 32), ""}, {ultra, "ultra"}, {free, "free"},
		{ultra[:len(ultra)-1] + "Q", ""}, // the remembered key but one letter
	} {
		c, err := auth.AuthenticateMemo(ctx, tc.key, &m)
		want, wantErr := auth.Authenticate(ctx, tc.key)
		if tc.plan == "" {
			if !errors.Is(err, account.ErrInvalidKey) || err != wantErr {
				t.Errorf("%d: %q: %v, want Authenticate's %v", i, tc.key, err, wantErr)
			}
			continue
		}
		if err != nil || string(c.Plan) != tc.plan || c != want {
			t.Errorf("%d: %+v, %v; want %+v", i, c, err, want)
		}
	}

	// Keys other than the Directory: looked up every time.
	counting := &countingKeys{Keys: dir}
	other := account.NewAuthenticator(counting, nil)
	var m2 account.KeyMemo
	for range 3 {
		if _, err := other.AuthenticateMemo(ctx, free, &m2); err != nil {
			t.Fatal(err)
		}
	}
	if counting.n != 3 {
		t.Errorf("%d lookups of 3 requests through other Keys", counting.n)
	}
}

// TestWatchSeesRevocation: the directory's Watch loop, as serve runs it,
// picks up a revocation within its interval.
func TestWatchSeesRevocation(t *testing.T) {
	for _, mode := range authModes {
		t.Run(mode.name, func(t *testing.T) { testWatchSeesRevocation(t, mode.of) })
	}
}

func testWatchSeesRevocation(t *testing.T, of func(*account.Authenticator) func(context.Context, string) (account.Caller, error)) {
	st := newMemStore()
	_, key, k := mustAccount(t, st, account.Account{Plan: account.Free})
	dir := mustDirectory(t, st)
	authenticate := of(account.NewAuthenticator(dir, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := authenticate(ctx, key); err != nil { // remembered, on a connection
		t.Fatal(err)
	}
	go dir.Watch(ctx, 5*time.Millisecond)
	if err := st.RevokeKey(ctx, k.ID, now); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := authenticate(ctx, key); errors.Is(err, account.ErrInvalidKey) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("revoked key still accepted after 5 s of 5 ms refreshes")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestAuthenticateAllocations: authentication allocates nothing beyond the
// directory's own lookup (the key's hash); the account's names are made once.
func TestAuthenticateAllocations(t *testing.T) {
	st := newMemStore()
	_, key, _ := mustAccount(t, st, account.Account{Plan: account.Pro})
	dir := mustDirectory(t, st)
	auth := account.NewAuthenticator(dir, func() time.Time { return now })
	ctx := context.Background()
	auth.Authenticate(ctx, key)
	lookup := testing.AllocsPerRun(1000, func() { dir.Lookup(key) })
	if n := testing.AllocsPerRun(1000, func() { auth.Authenticate(ctx, key) }); n > lookup {
		t.Errorf("Authenticate allocates %.1f times, Directory.Lookup alone %.1f", n, lookup)
	}
	if n := testing.AllocsPerRun(1000, func() { auth.Authenticate(ctx, "pk_live_short") }); n != 0 {
		t.Errorf("refusing a malformed key allocates %.1f times, want 0", n)
	}
}

func BenchmarkAuthenticate(b *testing.B) {
	st := newMemStore()
	ctx := context.Background()
	a := &account.Account{Plan: account.Pro}
	st.CreateAccount(ctx, a)
	key, _ := account.NewKey(false)
	st.CreateKey(ctx, &account.Key{AccountID: a.ID, Hash: account.HashKey(key), Prefix: account.DisplayPrefix(key)})
	dir, err := account.NewDirectory(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	auth := account.NewAuthenticator(dir, nil)
	for _, mode := range authModes {
		b.Run(mode.name, func(b *testing.B) {
			authenticate := mode.of(auth)
			b.ReportAllocs()
			for b.Loop() {
				authenticate(ctx, key)
			}
		})
	}
}
