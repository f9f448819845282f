package postgres

import (
	"context"
	"database/sql"

	"github.com/cardcat/cardcat/internal/store/sqlrow"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// reader is the sqlrow.Reader of a pool or a transaction.
type reader struct {
	q interface {
		Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	}
}

func (r reader) Each(ctx context.Context, query string, args []any, scan func(sqlrow.Row) error) error {
	rows, err := r.q.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return sqlrow.ScanRows(rows, scan)
}

func (reader) NullString(p *sql.NullString) any { return (*pgtype.Text)(p) }
func (reader) NullInt64(p *sql.NullInt64) any   { return (*pgtype.Int8)(p) }
func (reader) NullTime(p *sql.NullTime) any     { return (*timestamptz)(p) }
func (reader) RawBytes(p *[]byte) any           { return (*pgtype.DriverBytes)(p) }

// timestamptz scans a timestamptz in UTC.
type timestamptz sql.NullTime

func (t *timestamptz) ScanTimestamptz(v pgtype.Timestamptz) error {
	if !v.Valid {
		*t = timestamptz{}
		return nil
	}
	*t = timestamptz{Time: v.Time.UTC(), Valid: true}
	return nil
}
