package sqlrow

import (
	"context"
	"database/sql"
)

// Row is one row of a Reader's query.
type Row interface {
	Scan(dest ...any) error
}

// Reader reads through one store's driver, for the reading code the SQL
// stores share.
//
// The drivers scan a nullable column into types of their own (database/sql's
// sql.NullInt64, pgx's pgtype.Int8). The shared code scans into
// database/sql's and asks the Reader for its driver's destination over the
// same variable: a pointer conversion between types of one layout, or a type
// of the store's own for a column its schema stores differently (SQLite's
// times are integer microseconds). So each driver scans in its own fastest
// way, into destinations that the shared code allocates once per query, not
// once per row.
type Reader interface {
	// Each runs query with args and calls scan for each row, stopping at
	// the first error.
	Each(ctx context.Context, query string, args []any, scan func(Row) error) error
	NullString(*sql.NullString) any
	NullInt64(*sql.NullInt64) any
	// NullTime's time is in UTC, the zero time for NULL.
	NullTime(*sql.NullTime) any
	// RawBytes is a text column read without a copy: the bytes are valid
	// until the next row.
	RawBytes(*[]byte) any
}

// Rows are a driver's rows (*sql.Rows, pgx.Rows).
type Rows interface {
	Row
	Next() bool
	Err() error
}

// ScanRows calls scan for each of rows, stopping at the first error: the
// loop of a Reader's Each, which closes rows.
func ScanRows(rows Rows, scan func(Row) error) error {
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// each runs query with args and, for each row, scans it into dest and calls
// use.
func each(ctx context.Context, r Reader, query string, args []any, dest []any, use func() error) error {
	return r.Each(ctx, query, args, func(row Row) error {
		if err := row.Scan(dest...); err != nil {
			return err
		}
		return use()
	})
}

// scanOne scans the first row of query into dest, and reports whether there
// was one.
func scanOne(ctx context.Context, r Reader, query string, args []any, dest ...any) (found bool, err error) {
	err = r.Each(ctx, query, args, func(row Row) error {
		if found {
			return nil
		}
		found = true
		return row.Scan(dest...)
	})
	return found, err
}
