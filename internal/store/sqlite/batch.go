package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// maxBatchRows bounds the rows of one multi-row INSERT. Past a few hundred rows
// a bigger statement saves nothing per row; the bound keeps it far below
// SQLite's limit of 32766 parameters.
const maxBatchRows = 256

// batch inserts rows into one table with multi-row INSERT statements, prepared
// once per transaction. They are INSERT OR ROLLBACK: a constraint failure ends
// the whole transaction, as a replace wants anyway, which spares SQLite the
// statement journal it would otherwise keep to undo just the failed statement.
type batch struct {
	tx    *sql.Tx
	table string
	cols  []string
	// suffix follows the VALUES (an upsert's ON CONFLICT clause), "" for none.
	suffix string
	rows   int       // rows per full statement
	full   *sql.Stmt // prepared on first use
	args   []any
}

func newBatch(tx *sql.Tx, table string, cols ...string) *batch {
	rows := min(maxBatchRows, 32766/len(cols))
	return &batch{tx: tx, table: table, cols: cols, rows: rows, args: make([]any, 0, rows*len(cols))}
}

// add queues one row, its values in column order, and writes a full batch.
func (b *batch) add(ctx context.Context, values ...any) error {
	if len(values) != len(b.cols) {
		panic(fmt.Sprintf("sqlite: %s: %d values for %d columns", b.table, len(values), len(b.cols)))
	}
	b.args = append(b.args, values...)
	if len(b.args) < b.rows*len(b.cols) {
		return nil
	}
	if b.full == nil {
		stmt, err := b.tx.PrepareContext(ctx, b.query(b.rows))
		if err != nil {
			return fmt.Errorf("insert into %s: %w", b.table, err)
		}
		b.full = stmt
	}
	return b.exec(ctx, b.full)
}

// flush writes the queued rows.
func (b *batch) flush(ctx context.Context) error {
	if len(b.args) == 0 {
		return nil
	}
	stmt, err := b.tx.PrepareContext(ctx, b.query(len(b.args)/len(b.cols)))
	if err != nil {
		return fmt.Errorf("insert into %s: %w", b.table, err)
	}
	defer stmt.Close()
	return b.exec(ctx, stmt)
}

func (b *batch) exec(ctx context.Context, stmt *sql.Stmt) error {
	_, err := stmt.ExecContext(ctx, b.args...)
	clear(b.args) // drop the references to this batch's strings
	b.args = b.args[:0]
	if err != nil {
		return fmt.Errorf("insert into %s: %w", b.table, err)
	}
	return nil
}

func (b *batch) close() {
	if b.full != nil {
		b.full.Close()
	}
}

func (b *batch) query(rows int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "INSERT OR ROLLBACK INTO %s (%s) VALUES ", b.table, strings.Join(b.cols, ", "))
	row := "(" + strings.Repeat("?, ", len(b.cols)-1) + "?)"
	for i := range rows {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(row)
	}
	sb.WriteString(b.suffix)
	return sb.String()
}
