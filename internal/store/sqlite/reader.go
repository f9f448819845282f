package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/store/sqlrow"
)

// reader is the sqlrow.Reader of a pool or a transaction.
type reader struct {
	q interface {
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	}
}

func (r reader) Each(ctx context.Context, query string, args []any, scan func(sqlrow.Row) error) error {
	rows, err := r.q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return sqlrow.ScanRows(rows, scan)
}

func (reader) NullString(p *sql.NullString) any { return p }
func (reader) NullInt64(p *sql.NullInt64) any   { return p }
func (reader) NullTime(p *sql.NullTime) any     { return (*microsTime)(p) }
func (reader) RawBytes(p *[]byte) any           { return (*sql.RawBytes)(p) }

// microsTime scans a time stored as integer microseconds since the Unix
// epoch.
type microsTime sql.NullTime

func (t *microsTime) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*t = microsTime{}
	case int64:
		*t = microsTime{Time: fromMicros(v), Valid: true}
	default:
		return fmt.Errorf("time in microseconds: cannot scan %T", src)
	}
	return nil
}

func micros(t time.Time) int64 { return sqlrow.Time(t).UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }
