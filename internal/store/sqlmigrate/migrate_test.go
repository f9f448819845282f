package sqlmigrate

import (
	"context"
	"errors"
	"io/fs"
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

// fakeTarget records what Run applies.
type fakeTarget struct {
	applied int
	ran     []string
	fail    string // name of a migration that fails
}

func (f *fakeTarget) Applied(context.Context) (int, error) { return f.applied, nil }

func (f *fakeTarget) Apply(_ context.Context, m Migration) error {
	if m.Name == f.fail {
		return errors.New("boom")
	}
	f.ran = append(f.ran, m.Name)
	f.applied = m.Version
	return nil
}

func TestRun(t *testing.T) {
	ms := []Migration{{1, "0001_a.sql", ""}, {2, "0002_b.sql", ""}, {3, "0003_c.sql", ""}}
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
