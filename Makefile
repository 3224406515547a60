# floe — see README.md. `make demo` and `make test` are the two entry points.
GO        ?= go
BIN       := bin
FUZZTIME  ?= 10m
FIX       := testdata/fixtures
export CGO_ENABLED := 1

.PHONY: all build cli lib install wheel test-python-package test-dask test-rust test test-go test-race test-c test-install test-python docs docs-check test-benchmarks fuzz fuzz-long demo bench bench-c bench-python test-duckdb clean

all: build

build: cli lib

cli:
	$(GO) build -o $(BIN)/floe ./cmd/floe

test: test-go test-race fuzz test-c test-install test-python test-python-package test-dask test-rust test-benchmarks

# go.mod and go.sum stay as go mod tidy leaves them (both modules): a
# dependency floe imports is never marked indirect, none is left unused.
test-go:
	$(GO) mod tidy -diff
	cd benchmarks && $(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) test -count=1 ./...

# The packages with goroutines of their own (parallel and unordered
# scans, fetches and read-ahead, S3 retries, parallel writers, commits)
# again under the race detector.
test-race:
	$(GO) test -race -count=1 ./reader/... ./iceberg/fileio ./iceberg/table ./writer ./kernels

# libfloe.so: the C ABI (capi/, interface include/floe.h). The version script
# keeps every symbol but floe_* private; the check below proves it.
LIB       := build/libfloe.so
LIB_LDFLAGS := -extldflags=-Wl,--version-script=$(CURDIR)/capi/floe.map,-soname,libfloe.so
CMAKE_DIR := build/cmake

lib:
	$(GO) build -buildmode=c-shared -o $(LIB) -ldflags='$(LIB_LDFLAGS)' ./capi
	@rm -f build/libfloe.h  # cgo's generated header; the real one is include/floe.h
	@nm -D --defined-only $(LIB) | awk '$$3 !~ /^floe_/ { bad = 1; print "libfloe.so exports " $$3 } END { exit bad }'

# make install PREFIX=DIR: lib/libfloe.so.MAJOR.MINOR (SONAME
# libfloe.so.MAJOR) with the libfloe.so.MAJOR and libfloe.so links,
# include/floe.h, lib/pkgconfig/floe.pc and lib/cmake/floe (find_package(floe)
# gives floe::floe). The version is floe.h's; DESTDIR stages as usual.
PREFIX    ?= /usr/local
VERSION   := $(shell sed -n 's/^\#define FLOE_VERSION_STRING "\(.*\)"/\1/p' include/floe.h)
VMAJOR    := $(word 1,$(subst ., ,$(VERSION)))
VMINOR    := $(word 2,$(subst ., ,$(VERSION)))
INSTALL_LIB := build/install/libfloe.so.$(VMAJOR).$(VMINOR)
SUBST     = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' -e 's|@VERSION_MAJOR@|$(VMAJOR)|g' -e 's|@VERSION_MINOR@|$(VMINOR)|g'

install:
	@test -n "$(VMAJOR)" -a -n "$(VMINOR)" || { echo "no version in include/floe.h" >&2; exit 1; }
	$(GO) build -buildmode=c-shared -o $(INSTALL_LIB) \
	  -ldflags='-extldflags=-Wl,--version-script=$(CURDIR)/capi/floe.map,-soname,libfloe.so.$(VMAJOR)' ./capi
	@rm -f build/install/*.h
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/lib/cmake/floe $(DESTDIR)$(PREFIX)/include
	install -m 755 $(INSTALL_LIB) $(DESTDIR)$(PREFIX)/lib/
	ln -sfn libfloe.so.$(VMAJOR).$(VMINOR) $(DESTDIR)$(PREFIX)/lib/libfloe.so.$(VMAJOR)
	ln -sfn libfloe.so.$(VMAJOR) $(DESTDIR)$(PREFIX)/lib/libfloe.so
	install -m 644 include/floe.h $(DESTDIR)$(PREFIX)/include/
	$(SUBST) bindings/c/pkgconfig/floe.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/floe.pc
	$(SUBST) bindings/c/cmake/floeConfig.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/floe/floeConfig.cmake
	$(SUBST) bindings/c/cmake/floeConfigVersion.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/floe/floeConfigVersion.cmake

# An installed tree used as a C user would: scan.c built with pkg-config
# and with CMake's find_package(floe), both run on a fixture table.
test-install:
	bash bindings/c/tests/installed_tree.sh

# C tests through CMake/ctest: ASan+LeakSanitizer, valgrind, cgocheck2.
test-c:
	cmake -S . -B $(CMAKE_DIR) -DCMAKE_BUILD_TYPE=Debug >/dev/null
	cmake --build $(CMAKE_DIR) -j2
	cd $(CMAKE_DIR) && ctest --output-on-failure

test-python: lib docs-check
	env -u FLOE_REQUIRE_DASK FLOE_LIBRARY=$(CURDIR)/$(LIB) python3 -m unittest discover -s bindings/python/tests

# docs/python.md: the pyiceberg migration guide and the API reference,
# generated from the package's docstrings (bindings/python/tools/
# gen_api_docs.py). docs-check fails when the checked-in file drifts.
docs: lib
	FLOE_LIBRARY=$(CURDIR)/$(LIB) python3 bindings/python/tools/gen_api_docs.py --out docs/python.md

docs-check: lib
	FLOE_LIBRARY=$(CURDIR)/$(LIB) python3 bindings/python/tools/gen_api_docs.py --check docs/python.md

# The Python package as a user installs it: README.md's install command run
# exactly as written (fresh HOME, Debian's python3, no network), then floe
# imported from elsewhere with no FLOE_LIBRARY reads a fixture table.
test-python-package: lib
	bash bindings/python/tests/installed_package.sh

# floe.dask on a distributed.LocalCluster of 2 worker processes, with
# Debian's python3 and python3-distributed (.ci/run installs them); the
# pyiceberg-named API there too, where pandas is (to_pandas without pyarrow),
# and writes of pandas frames without pyarrow (and the write property test);
# the pyiceberg getting-started flow, progress of to_pandas and the bulk
# to_pandas paths, which need pandas.
test-dask: lib
	FLOE_LIBRARY=$(CURDIR)/$(LIB) $(PACKAGE_PYTHON) -m unittest discover -s bindings/python/tests -p test_dask.py
	FLOE_LIBRARY=$(CURDIR)/$(LIB) $(PACKAGE_PYTHON) -m unittest discover -s bindings/python/tests -p test_dask_rewrite.py
	FLOE_LIBRARY=$(CURDIR)/$(LIB) $(PACKAGE_PYTHON) -m unittest discover -s bindings/python/tests -p test_pyiceberg_api.py
	FLOE_LIBRARY=$(CURDIR)/$(LIB) $(PACKAGE_PYTHON) -m unittest discover -s bindings/python/tests -p test_pandas_write.py
	FLOE_LIBRARY=$(CURDIR)/$(LIB) $(PACKAGE_PYTHON) -m unittest discover -s bindings/python/tests -p test_write_property.py
	FLOE_LIBRARY=$(CURDIR)/$(LIB) $(PACKAGE_PYTHON) -m unittest discover -s bindings/python/tests -p test_pyiceberg_flow.py
	FLOE_LIBRARY=$(CURDIR)/$(LIB) $(PACKAGE_PYTHON) -m unittest discover -s bindings/python/tests -p test_progress.py
	FLOE_LIBRARY=$(CURDIR)/$(LIB) $(PACKAGE_PYTHON) -m unittest discover -s bindings/python/tests -p test_frame.py
	FLOE_LIBRARY=$(CURDIR)/$(LIB) $(PACKAGE_PYTHON) -m unittest discover -s bindings/python/tests -p test_inspect.py
	FLOE_LIBRARY=$(CURDIR)/$(LIB) $(PACKAGE_PYTHON) -m unittest discover -s bindings/python/tests -p test_upsert.py

# bindings/rust: floe-sys and floe against build/libfloe.so, offline (no
# dependencies outside std).
test-rust: lib
	cd bindings/rust && PATH="$$HOME/.cargo/bin:$$PATH" cargo test --offline

# dist/floe-VERSION-*.whl with libfloe.so inside (offline: setuptools and
# wheel from Debian's python3).
PACKAGE_PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
wheel: lib
	cd bindings/python && FLOE_PREBUILT_LIBRARY=$(CURDIR)/$(LIB) $(PACKAGE_PYTHON) -m pip wheel -q --no-build-isolation --no-deps --no-index -w $(CURDIR)/dist .

# What a batch costs to leave floe through the Arrow C stream interface.
bench-c: test-c
	$(CMAKE_DIR)/floe_bench_export $(FIX)

# Every fuzz target for FUZZ_EXECS inputs (corrupt input must give errors,
# never panics), minimisation capped, executions printed; a target that
# ran fewer fails (internal/fuzzrun; a count, not seconds: on a fresh CI
# machine some targets spent 5 s gathering their baseline and ran nothing;
# a run the Go coordinator ends with its own "context deadline exceeded"
# and no failing input is repeated once). Failing inputs land in the
# package's testdata/fuzz: check them in, and plain `go test` replays them.
FUZZ_EXECS    ?= 10000
FUZZ_MIN_RATE ?= 200
fuzz:
	$(GO) run ./internal/fuzzrun -fuzztime $(FUZZ_EXECS)x

# A long campaign: `make fuzz-long FUZZTIME=10m` (FUZZTIME a target, 10
# minutes by default), failing a target under FUZZ_MIN_RATE inputs a
# second; its summary kept in build/fuzz-long.txt.
fuzz-long:
	@mkdir -p build
	bash -o pipefail -c '$(GO) run ./internal/fuzzrun -fuzztime $(FUZZTIME) -min-rate $(FUZZ_MIN_RATE) | tee build/fuzz-long.txt'

# make demo writes its tables here (recreated on every run).
DEMO_WAREHOUSE := $(CURDIR)/build/demo-warehouse
DEMO_CATALOG   := $(CURDIR)/build/demo-warehouse/sql-catalog/catalog.db
DEMO_PARQUET   := $(FIX)/duckdb_lineitem_iceberg/data/00000-1-66fee7c2-c97c-4af9-963d-930afd99ace4-00001.parquet

demo: cli lib
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

	@echo
	@echo "== Python (ctypes over libfloe.so): a v3 table with deletion vectors, rows as dicts"
	FLOE_LIBRARY=$(CURDIR)/$(LIB) PYTHONPATH=bindings/python python3 -c "import floe; \
	  t = floe.Table.open('$(FIX)/impala_iceberg_v3_deletion_vectors', location_map={'hdfs://localhost:20500/test-warehouse/iceberg_v3_deletion_vectors': '$(FIX)/impala_iceberg_v3_deletion_vectors'}); \
	  print(t.scan(selected_fields=['i', '_pos']).to_pylist())"
	@echo
	@echo "== floe append: a warehouse table created from a PySpark data file (schema from the file), appended, scanned back"
	rm -rf $(DEMO_WAREHOUSE)
	FLOE_WAREHOUSE=$(DEMO_WAREHOUSE) $(BIN)/floe append tpch.lineitem $(DEMO_PARQUET) \
	  --partition l_returnflag --token demo-load-1 --property source=demo
	@echo "-- the same step retried (same token): nothing is committed twice"
	FLOE_WAREHOUSE=$(DEMO_WAREHOUSE) $(BIN)/floe append tpch.lineitem $(DEMO_PARQUET) --token demo-load-1
	FLOE_WAREHOUSE=$(DEMO_WAREHOUSE) $(BIN)/floe scan tpch.lineitem \
	  --filter "l_returnflag = 'R'" --columns l_orderkey,l_returnflag,l_shipdate --limit 3 --format table
	FLOE_WAREHOUSE=$(DEMO_WAREHOUSE) $(BIN)/floe files tpch.lineitem | head -4
	@echo
	@echo "== a SQLite catalog (the SQL catalog schema iceberg-go, pyiceberg and Java share): append creates the table (and, asked to, its namespace), scan, list"
	mkdir -p $(dir $(DEMO_CATALOG))
	$(BIN)/floe append tpch.lineitem $(DEMO_PARQUET) --catalog sqlite:$(DEMO_CATALOG) --token demo-cat-1 --create-namespace
	$(BIN)/floe append tpch.lineitem $(DEMO_PARQUET) --catalog sqlite:$(DEMO_CATALOG) --token demo-cat-1
	$(BIN)/floe scan tpch.lineitem --catalog sqlite:$(DEMO_CATALOG) \
	  --filter "l_shipmode = 'AIR'" --columns l_orderkey,l_shipmode --limit 3 --format table
	$(BIN)/floe catalog tables tpch --catalog sqlite:$(DEMO_CATALOG)
	@echo
	@echo "== changing a table in one commit (a column, a partition field, a sort order, a property), a tag, and what the metadata tables show"
	FLOE_WAREHOUSE=$(DEMO_WAREHOUSE) $(BIN)/floe alter tpch.lineitem add-column l_note string --doc "free text" \
	  add-partition-field l_shipdate:month set-sort-order l_orderkey:desc set-property owner=demo
	FLOE_WAREHOUSE=$(DEMO_WAREHOUSE) $(BIN)/floe tag create tpch.lineitem loaded
	FLOE_WAREHOUSE=$(DEMO_WAREHOUSE) $(BIN)/floe inspect tpch.lineitem refs --format table
	FLOE_WAREHOUSE=$(DEMO_WAREHOUSE) $(BIN)/floe inspect tpch.lineitem files \
	  --columns file_path,record_count,partition --limit 3 --format table
	@echo
	@echo "== what changed, row by row (a changelog scan), and what the table needs (the maintenance planner's dry run)"
	FLOE_WAREHOUSE=$(DEMO_WAREHOUSE) $(BIN)/floe scan tpch.lineitem --changelog \
	  --columns l_orderkey,l_returnflag,_change_type,_change_ordinal --limit 3 --format table
	FLOE_WAREHOUSE=$(DEMO_WAREHOUSE) $(BIN)/floe maintain tpch.lineitem --dry-run --skip-orphans
	@echo
	@echo "== Python: Table.create, append rows (dicts, no pyarrow) and a floe scan stream, then scan back"
	FLOE_LIBRARY=$(CURDIR)/$(LIB) PYTHONPATH=bindings/python python3 -c "import floe; \
	  schema = {'type': 'struct', 'fields': [{'id': 1, 'name': 'i', 'required': False, 'type': 'int'}, \
	                                         {'id': 2, 'name': 'j', 'required': False, 'type': 'int'}]}; \
	  t = floe.Table.create('demo.ij', schema, partition_by=['j'], warehouse='$(DEMO_WAREHOUSE)'); \
	  t.append([{'i': 100, 'j': 1}, {'i': 101}], token='py-1'); \
	  src = floe.Table.open('$(FIX)/impala_test_default_part', location_map={'hdfs://localhost:20500/test-warehouse/test_default_part': '$(FIX)/impala_test_default_part'}); \
	  print('snapshot', t.append(src.scan(), token='py-2')); \
	  print(sorted(t.scan().to_pylist(), key=lambda r: r['i']))"

# The benchmarks module's own tests (the generator, every peer agreeing on
# the answer) and DuckDB running SQL over floe streams. Its own module keeps
# iceberg-go and DuckDB out of the library's dependencies.
test-benchmarks:
	cd benchmarks && $(GO) vet ./... && $(GO) test -count=1 ./... && $(GO) test -count=1 -tags duckdb_arrow ./duckdb/ && $(GO) test -count=1 -tags duckdb_arrow -run 'SQL' ./cmd/bench/

# One run of every comparison: plain scans, delete scans, then filters.
# The io section's S3 part needs versitygw: the one .ci/run installed, if
# it is not on PATH already.
bench:
	cd benchmarks && bash -o pipefail -c '$(GO) run ./cmd/bench 2>&1 | tee results/latest.txt'
	cd benchmarks && bash -o pipefail -c '$(GO) run ./cmd/bench -filters 2>&1 | tee results/latest-filter.txt'
	cd benchmarks && bash -o pipefail -c '$(GO) run ./cmd/bench -commits 2>&1 | tee results/latest-commits.txt'
	cd benchmarks && PATH="$$(ls -d $$HOME/.cache/floe/versitygw-* 2>/dev/null | tail -1):$$PATH" bash -o pipefail -c '$(GO) run ./cmd/bench -io 2>&1 | tee results/latest-io.txt'
	cd benchmarks && bash -o pipefail -c '$(GO) run -tags duckdb_arrow ./cmd/bench -foreign 2>&1 | tee results/latest-foreign.txt'
	cd benchmarks && bash -o pipefail -c '$(GO) run ./cmd/bench -writes 2>&1 | tee results/latest-writes.txt'
	cd benchmarks && bash -o pipefail -c '$(GO) run ./cmd/bench -planning 2>&1 | tee results/latest-planning.txt'
	$(MAKE) bench-python

# to_pandas without pyarrow against floe's Arrow scan, 1 M lineitem rows
# and DuckDB's lineitem fixture, at 1 thread and at every core
# (benchmarks/python/to_pandas_bench.py; issue 31's ratios).
bench-python: lib
	bash -o pipefail -c '( echo "== 1 thread"; FLOE_LIBRARY=$(CURDIR)/$(LIB) $(PACKAGE_PYTHON) benchmarks/python/to_pandas_bench.py --threads 1 && \
	  echo "== every core"; FLOE_LIBRARY=$(CURDIR)/$(LIB) $(PACKAGE_PYTHON) benchmarks/python/to_pandas_bench.py ) 2>&1 | tee benchmarks/results/latest-pandas.txt'

# DuckDB SQL over floe scans (benchmarks module, cgo; first build ~1-2 min).
test-duckdb:
	cd benchmarks && $(GO) test -count=1 -tags duckdb_arrow ./duckdb/ && $(GO) test -count=1 -tags duckdb_arrow -run 'SQL' ./cmd/bench/

clean:
	rm -rf $(BIN) build
