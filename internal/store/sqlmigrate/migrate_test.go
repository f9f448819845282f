package sqlmigrate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  []int // versions, nil for an error
	}{
		{"in order", []string{"0002_b.sql", "0001_a.sql", "README.md"}, []int{1, 2}},
		{"none", nil, []int{}},
		{"gap", []string{"0001_a.sql", "0003_c.sql"}, nil},
		{"duplicate", []string{"0001_a.sql", "0001_b.sql"}, nil},
		{"no number", []string{"init.sql"}, nil},
		{"zero", []string{"0000_a.sql"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{"m": &fstest.MapFile{Mode: fs.ModeDir | 0o755}}
			for _, f := range tt.files {
				fsys["m/"+f] = &fstest.MapFile{Data: []byte("-- " + f)}
			}
			ms, err := Load(fsys, "m")
			if tt.want == nil {
				if err == nil {
					t.Errorf("Load = %v, want an error", ms)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []int{}
			for _, m := range ms {
				got = append(got, m.Version)
				if m.SQL != "-- "+m.Name {
					t.Errorf("%s: SQL %q", m.Name, m.SQL)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("versions (-want +got):\n%s", diff)
			}
		})
	}
}

// fakeTarget records what Run applies. Its transactions understand the
// statements of fakeDialect, and run any other as a migration.
type fakeTarget struct {
	applied int
	ran     []string
	fail    string // name of a migration that fails
}

var fakeDialect = Dialect{Create: "create", Count: "count", Record: "record"}

func (f *fakeTarget) Dialect() Dialect { return fakeDialect }

func (f *fakeTarget) InTx(ctx context.Context, fn func(Tx) error) error {
	tx := &fakeTx{target: f, applied: f.applied}
	if err := fn(tx); err != nil {
		return err
	}
	f.applied, f.ran = tx.applied, append(f.ran, tx.ran...)
	return nil
}

type fakeTx struct {
	target  *fakeTarget
	applied int
	ran     []string
	pending string // the name of the migration run, until recorded
}

func (tx *fakeTx) Exec(_ context.Context, query string, args ...any) error {
	switch query {
	case fakeDialect.Create:
	case fakeDialect.Record:
		if args[1] != tx.pending {
			return fmt.Errorf("recorded %v, ran %s", args, tx.pending)
		}
		tx.applied, tx.ran = args[0].(int), append(tx.ran, tx.pending)
	default:
		name := strings.TrimPrefix(query, "-- ")
		if name == tx.target.fail {
			return errors.New("boom")
		}
		tx.pending = name
	}
	return nil
}

func (tx *fakeTx) Int(_ context.Context, query string, args ...any) (int, error) {
	switch query {
	case appliedVersion:
		return tx.applied, nil
	case fakeDialect.Count:
		if args[0].(int) <= tx.applied {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("unexpected query %q", query)
}

func TestRun(t *testing.T) {
	ms := []Migration{{1, "0001_a.sql", "-- 0001_a.sql"}, {2, "0002_b.sql", "-- 0002_b.sql"}, {3, "0003_c.sql", "-- 0003_c.sql"}}
	tests := []struct {
		name    string
		target  fakeTarget
		wantRan []string
		wantErr error
	}{
		{"new database", fakeTarget{}, []string{"0001_a.sql", "0002_b.sql", "0003_c.sql"}, nil},
		{"pending", fakeTarget{applied: 2}, []string{"0003_c.sql"}, nil},
		{"up to date", fakeTarget{applied: 3}, nil, nil},
		{"newer", fakeTarget{applied: 4}, nil, ErrSchemaTooNew},
		{"failing", fakeTarget{fail: "0002_b.sql"}, []string{"0001_a.sql"}, errors.New("any")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Run(context.Background(), &tt.target, ms)
			switch {
			case tt.wantErr == nil && err != nil:
				t.Errorf("Run: %v", err)
			case tt.wantErr != nil && err == nil:
				t.Errorf("Run succeeded, want an error")
			case errors.Is(tt.wantErr, ErrSchemaTooNew) && !errors.Is(err, ErrSchemaTooNew):
				t.Errorf("Run error %v, want ErrSchemaTooNew", err)
			}
			if diff := cmp.Diff(tt.wantRan, tt.target.ran); diff != "" {
				t.Errorf("applied (-want +got):\n%s", diff)
			}
		})
	}
}

// A migration another process applied after Run read the version is not
// applied again.
func TestRunSkipsRecorded(t *testing.T) {
	ms := []Migration{{1, "0001_a.sql", "-- 0001_a.sql"}, {2, "0002_b.sql", "-- 0002_b.sql"}}
	target := &racedTarget{}
	if err := Run(context.Background(), target, ms); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"0002_b.sql"}, target.ran); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
}

// racedTarget is a fakeTarget on which another process applies the first
// migration once the version is read.
type racedTarget struct{ fakeTarget }

func (r *racedTarget) InTx(ctx context.Context, fn func(Tx) error) error {
	err := r.fakeTarget.InTx(ctx, fn)
	if r.applied == 0 {
		r.applied = 1
	}
	return err
}
