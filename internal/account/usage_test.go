package account_test

import (
	"context"
	"errors"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/account"
)

// usageStore keeps what a Meter flushes, summed as a store adds it up; the
// rest of account.Store is not used by a Meter. failUsage and failKeys make
// the next calls fail; flushed gets a value after every AddUsage.
type usageStore struct {
	account.Store

	mu        sync.Mutex
	usage     map[usageKey]account.Usage
	uses      map[int64]time.Time
	calls     int // AddUsage calls that wrote
	failUsage bool
	failKeys  bool
	flushed   chan struct{}
}

type usageKey struct {
	account int64
	hour    time.Time
}

var errDown = errors.New("store down")

func newUsageStore() *usageStore {
	return &usageStore{usage: map[usageKey]account.Usage{}, uses: map[int64]time.Time{}, flushed: make(chan struct{}, 100)}
}

func (s *usageStore) AddUsage(_ context.Context, us []account.Usage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failUsage {
		return errDown
	}
	for _, u := range us {
		k := usageKey{u.AccountID, u.Hour}
		sum := s.usage[k]
		sum.AccountID, sum.Hour = u.AccountID, u.Hour
		sum.Requests += u.Requests
		sum.Refused += u.Refused
		s.usage[k] = sum
	}
	s.calls++
	select {
	case s.flushed <- struct{}{}:
	default:
	}
	return nil
}

func (s *usageStore) MarkKeysUsed(_ context.Context, uses []account.KeyUse) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failKeys {
		return errDown
	}
	for _, u := range uses {
		if u.At.After(s.uses[u.KeyID]) {
			s.uses[u.KeyID] = u.At
		}
	}
	return nil
}

func (s *usageStore) fail(usage, keys bool) {
	s.mu.Lock()
	s.failUsage, s.failKeys = usage, keys
	s.mu.Unlock()
}

// all returns the summed usage, by account then hour.
func (s *usageStore) all() []account.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []account.Usage
	for _, u := range s.usage {
		out = append(out, u)
	}
	sortUsage(out)
	return out
}

func (s *usageStore) lastUses() map[int64]time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int64]time.Time{}
	for k, v := range s.uses {
		out[k] = v
	}
	return out
}

func sortUsage(us []account.Usage) {
	sort.Slice(us, func(i, j int) bool {
		if us[i].AccountID != us[j].AccountID {
			return us[i].AccountID < us[j].AccountID
		}
		return us[i].Hour.Before(us[j].Hour)
	})
}

func mustFlush(t *testing.T, m *account.Meter) {
	t.Helper()
	if err := m.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

var (
	h10 = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	h11 = h10.Add(time.Hour)
)

// TestMeterCounts: requests and 429s per account and UTC hour, whatever the
// time zone of the clock; each key's latest use; account 0 is not counted
// and key 0 gives no last use.
func TestMeterCounts(t *testing.T) {
	st := newUsageStore()
	m := account.NewMeter(st, nil)
	paris := time.FixedZone("CET", 3600)
	last := h11.Add(time.Hour - time.Nanosecond)
	records := []struct {
		acc, key int64
		refused  bool
		at       time.Time
	}{
		{1, 11, false, h10},
		{1, 11, true, h10.Add(59*time.Minute + 59*time.Second)},
		{1, 12, false, h10.Add(30 * time.Minute).In(paris)}, // 11:30 in Paris is still 10:30 UTC
		{1, 11, false, h11},
		{1, 11, true, last},
		{1, 11, false, h11.Add(time.Minute)}, // earlier than last: not the key's last use
		{2, 0, false, h11},                   // no key id
		{0, 13, false, h11},                  // no account: not counted at all
	}
	for _, r := range records {
		m.Record(r.acc, r.key, r.refused, r.at)
	}
	mustFlush(t, m)
	want := []account.Usage{
		{AccountID: 1, Hour: h10, Requests: 3, Refused: 1},
		{AccountID: 1, Hour: h11, Requests: 3, Refused: 1},
		{AccountID: 2, Hour: h11, Requests: 1},
	}
	if diff := cmp.Diff(want, st.all()); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	wantUses := map[int64]time.Time{11: last, 12: h10.Add(30 * time.Minute)}
	if diff := cmp.Diff(wantUses, st.lastUses(), cmp.Comparer(time.Time.Equal)); diff != "" {
		t.Errorf("last uses (-want +got):\n%s", diff)
	}

	// A flush writes what came since the last one, once.
	m.Record(1, 11, false, h11)
	mustFlush(t, m)
	mustFlush(t, m)
	want[1].Requests++
	if diff := cmp.Diff(want, st.all()); diff != "" {
		t.Errorf("after a second flush (-want +got):\n%s", diff)
	}
	if st.calls != 2 {
		t.Errorf("%d writes of usage, want 2 (a flush with nothing new writes nothing)", st.calls)
	}
}

// TestMeterFailedFlushKeepsCounts: what a failed flush did not write is
// written by the next one, added to what came meanwhile, and what it wrote is
// not written twice.
func TestMeterFailedFlushKeepsCounts(t *testing.T) {
	st := newUsageStore()
	m := account.NewMeter(st, nil)
	m.Record(1, 11, false, h10)
	m.Record(1, 11, true, h10)

	st.fail(true, true)
	if err := m.Flush(context.Background()); !errors.Is(err, errDown) {
		t.Fatalf("Flush on a failing store: %v, want errDown", err)
	}
	if m.FailingSince().IsZero() {
		t.Error("FailingSince zero after a failed flush")
	}
	m.Record(1, 11, false, h10.Add(time.Minute))

	// The usage is written, the keys' last use fails: only the last use is
	// retried.
	st.fail(false, true)
	if err := m.Flush(context.Background()); !errors.Is(err, errDown) {
		t.Fatalf("Flush with MarkKeysUsed failing: %v, want errDown", err)
	}
	m.Record(1, 11, false, h11)

	st.fail(false, false)
	mustFlush(t, m)
	want := []account.Usage{
		{AccountID: 1, Hour: h10, Requests: 3, Refused: 1},
		{AccountID: 1, Hour: h11, Requests: 1},
	}
	if diff := cmp.Diff(want, st.all()); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if got := st.lastUses()[11]; !got.Equal(h11) {
		t.Errorf("key 11 last used %v, want %v", got, h11)
	}
	if !m.FailingSince().IsZero() || m.LastSuccess().IsZero() {
		t.Errorf("after a good flush: FailingSince %v, LastSuccess %v", m.FailingSince(), m.LastSuccess())
	}
}

// TestMeterRecordAllocatesNothing: in steady state (the account's hour and
// the key already counted since the last flush, or counted before it) a
// request costs no allocation.
func TestMeterRecordAllocatesNothing(t *testing.T) {
	m := account.NewMeter(newUsageStore(), nil)
	at := h10
	m.Record(1, 11, false, at)
	if n := testing.AllocsPerRun(1000, func() { m.Record(1, 11, true, at) }); n != 0 {
		t.Errorf("Record allocates %.1f times, want 0", n)
	}
	// After a flush the maps are the previous ones, cleared: their buckets
	// are reused.
	mustFlush(t, m)
	mustFlush(t, m)
	if n := testing.AllocsPerRun(1000, func() { m.Record(1, 11, false, at) }); n != 0 {
		t.Errorf("Record after flushes allocates %.1f times, want 0", n)
	}
}

// TestMeterConcurrent: requests recorded while flushes run are all counted
// (run with -race).
func TestMeterConcurrent(t *testing.T) {
	st := newUsageStore()
	m := account.NewMeter(st, nil)
	const workers, each = 4, 500
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				m.Record(int64(1+w%2), int64(10+w), i%10 == 0, h10)
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for flushing := true; flushing; {
		select {
		case <-done:
			flushing = false
		default:
			mustFlush(t, m)
		}
	}
	mustFlush(t, m)
	want := []account.Usage{
		{AccountID: 1, Hour: h10, Requests: 2 * each, Refused: 2 * each / 10},
		{AccountID: 2, Hour: h10, Requests: 2 * each, Refused: 2 * each / 10},
	}
	if diff := cmp.Diff(want, st.all()); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}

// TestMeterRun: the loop flushes on its own.
func TestMeterRun(t *testing.T) {
	st := newUsageStore()
	m := account.NewMeter(st, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go m.Run(ctx, 5*time.Millisecond)
	m.Record(1, 11, false, h10)
	select {
	case <-st.flushed:
	case <-time.After(10 * time.Second):
		t.Fatal("no flush within 10 s of a 5 ms loop")
	}
	if diff := cmp.Diff([]account.Usage{{AccountID: 1, Hour: h10, Requests: 1}}, st.all()); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}
