# floe — see README.md. `make demo` and `make test` are the two entry points.
GO        ?= go
BIN       := bin
FUZZTIME  ?= 5s
FIX       := testdata/fixtures
export CGO_ENABLED := 1

.PHONY: all build cli test test-go fuzz demo bench clean

all: build

build: cli

cli:
	$(GO) build -o $(BIN)/floe ./cmd/floe

test: test-go fuzz

test-go:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

# Every fuzz target runs for a short, bounded time: corrupt input must give
# errors, never panics.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for t in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/func //'); do \
	    echo "fuzz $$pkg $$t ($(FUZZTIME))"; \
	    $(GO) test -run=NONE -fuzz="^$$t\$$" -fuzztime=$(FUZZTIME) $$pkg >/dev/null || { echo "FAIL: fuzz $$pkg $$t"; exit 1; }; \
	  done; \
	done

demo: cli
	@echo "== floe info: a v1 table in the legacy format (Spark, hour + identity partitions)"
	$(BIN)/floe info $(FIX)/impala_iceberg_partitioned \
	  --map /test-warehouse/iceberg_test/iceberg_partitioned=$(FIX)/impala_iceberg_partitioned
	@echo
	@echo "== floe info: a v3 table with initial defaults of every type"
	$(BIN)/floe info $(FIX)/impala_iceberg_v3_all_types \
	  --map hdfs://localhost:20500/test-warehouse/iceberg_v3_all_types=$(FIX)/impala_iceberg_v3_all_types
	@echo
	@echo "== floe files: TPC-H lineitem written by PySpark, current and first snapshot"
	$(BIN)/floe files $(FIX)/duckdb_lineitem_iceberg --map lineitem_iceberg=$(FIX)/duckdb_lineitem_iceberg
	$(BIN)/floe files $(FIX)/duckdb_lineitem_iceberg --map lineitem_iceberg=$(FIX)/duckdb_lineitem_iceberg --snapshot 7817332053627255703
	@echo
	@echo "== floe scan: defaults of every type, as JSON lines and as a table"
	$(BIN)/floe scan $(FIX)/impala_iceberg_v3_all_types \
	  --map hdfs://localhost:20500/test-warehouse/iceberg_v3_all_types=$(FIX)/impala_iceberg_v3_all_types
	$(BIN)/floe scan $(FIX)/duckdb_lineitem_iceberg --map lineitem_iceberg=$(FIX)/duckdb_lineitem_iceberg \
	  --columns l_orderkey,l_extendedprice,l_shipdate,l_comment --limit 5 --format table
	@echo
	@echo "== floe files: deletion vectors (v3, Spark)"
	$(BIN)/floe files $(FIX)/impala_iceberg_v3_deletion_vectors \
	  --map hdfs://localhost:20500/test-warehouse/iceberg_v3_deletion_vectors=$(FIX)/impala_iceberg_v3_deletion_vectors

bench:
	cd benchmarks && $(GO) run ./cmd/bench

clean:
	rm -rf $(BIN)
