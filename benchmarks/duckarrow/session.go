//go:build duckdb_arrow

package duckarrow

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
)

// DisableStreamPushdown is the setting that keeps DuckDB from pushing
// column projections (unused_columns) and filters (filter_pushdown) into
// an Arrow stream scan, which a plain stream cannot honour.
const DisableStreamPushdown = "SET disabled_optimizers = 'unused_columns,filter_pushdown'"

// Source opens a fresh record reader over the same data each time it is
// called: an Arrow stream can be read only once.
type Source func(ctx context.Context) (array.RecordReader, error)

// Session is one in-memory DuckDB connection set up for Arrow scans.
type Session struct {
	db    *sql.DB
	conn  *sql.Conn
	arrow *duckdb.Arrow
}

// Open starts an in-memory DuckDB with one connection on which stream
// pushdown is disabled. threads > 0 sets DuckDB's thread count.
func Open(ctx context.Context, threads int) (*Session, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	s := &Session{db: db, conn: conn}
	setup := []string{DisableStreamPushdown}
	if threads > 0 {
		setup = append(setup, fmt.Sprintf("SET threads = %d", threads))
	}
	for _, stmt := range setup {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			s.Close()
			return nil, fmt.Errorf("duckdb: %s: %w", stmt, err)
		}
	}
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return errors.New("duckdb: not a driver connection")
		}
		s.arrow, err = duckdb.NewArrowFromConn(c)
		return err
	})
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the connection and the database.
func (s *Session) Close() error {
	var errs []error
	if s.conn != nil {
		errs = append(errs, s.conn.Close())
	}
	return errors.Join(append(errs, s.db.Close())...)
}

// Query registers a fresh stream of each source as a view named by its
// key, runs query, and returns its rows; the views are dropped again
// afterwards, so a later query cannot meet a spent stream. Values come
// back as database/sql scans them into any.
func (s *Session) Query(ctx context.Context, query string, sources map[string]Source) (rows [][]any, err error) {
	for name, src := range sources {
		if !isIdentifier(name) {
			return nil, fmt.Errorf("duckarrow: view name %q is not a plain identifier", name)
		}
		rdr, err := src(ctx)
		if err != nil {
			return nil, fmt.Errorf("duckarrow: opening %s: %w", name, err)
		}
		release, err := s.arrow.RegisterView(rdr, name)
		rdr.Release() // the exported stream holds its own reference
		if err != nil {
			return nil, fmt.Errorf("duckarrow: registering %s: %w", name, err)
		}
		defer func() {
			if _, dropErr := s.conn.ExecContext(context.WithoutCancel(ctx), `DROP VIEW IF EXISTS "`+name+`"`); dropErr != nil && err == nil {
				err = fmt.Errorf("duckarrow: dropping view %s: %w", name, dropErr)
			}
			release()
		}()
	}
	return s.collect(ctx, query)
}

func (s *Session) collect(ctx context.Context, query string) ([][]any, error) {
	rs, err := s.conn.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return Rows(rs)
}

// isIdentifier keeps view names to letters, digits and underscores, so
// they can be quoted without escaping.
func isIdentifier(name string) bool {
	return name != "" && strings.IndexFunc(name, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0
}
