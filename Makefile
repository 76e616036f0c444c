# GeoQuery — set-up, build, test, benchmark. Run as root on Debian (or with sudo available).
#   make install  the built geoquery on the PATH (PREFIX=/usr/local)
#   make run    install system packages, build (release), build the default index, example queries,
#               then the service on 127.0.0.1:8080 in the foreground (`make serve` for that alone)
#   make test   install system packages and the Python test tools, run the test suite and schemathesis
#   make bench  1 M synthetic places: load rate, query latencies, library vs raw SQLite; JSON answers;
#               geoquery serve under wrk; imports (against ogr2ogr: it also installs gdal-bin); routes
#   make bench-routes  only the routing rows
#   make docs   DocC for every library target into .build/docs

SHELL := /bin/bash
# What the CLI and the service need (`make run`, `make build`, `make install`): pkg-config and
# the SQLite/SpatiaLite libraries; libcurl (Foundation's networking); zlib1g-dev: OSM PBF blocks
# and the gzip-compressed country boundaries; libbz2-dev: .osm.bz2 dumps; libjs-leaflet: the map
# page's Leaflet, served from where Debian installs it; libvips-dev: photos are decoded and
# encoded again (no metadata kept) and resized by libvips.
APT_PACKAGES := pkg-config libsqlite3-dev libspatialite-dev libsqlite3-mod-spatialite libcurl4-openssl-dev \
                zlib1g-dev libbz2-dev libjs-leaflet libvips-dev
# What only the tests and the bench add (`make test`, `make bench`): libreadosm-dev, the C reader
# behind the baseline row of `make bench` (the test build builds every target, so it too);
# chromium: the browser test of the map page; wrk: the service rows of `make bench`;
# python3-venv: the virtual environment of the Python test tools (and `make fuzz`'s seed
# script); postgresql and postgresql-15-postgis-3: the PostGIS backend's tests and bench rows,
# which start a throwaway cluster of their own in a temporary directory.
TEST_PACKAGES := libreadosm-dev chromium wrk python3 python3-venv postgresql postgresql-15-postgis-3
DB := geodata/places.sqlite
GEOQUERY := .build/release/geoquery
SHIPPED := geodata/cities15000.csv geodata/airports.csv geodata/monaco.osm.pbf geodata/andorra.osm.pbf geodata/countries.geojson.gz geodata/countries.csv

# Python tools the tests use, in a virtual environment of their own (pinned).
VENV := .build/venv
SCHEMATHESIS := $(VENV)/bin/schemathesis
SCHEMATHESIS_VERSION := 4.32.5
# Pillow makes the real JPEG with GPS tags that the photo test uploads.
PILLOW_VERSION := 11.0.0
PYTHON_TOOLS := $(VENV)/installed-schemathesis-$(SCHEMATHESIS_VERSION)-pillow-$(PILLOW_VERSION)

.PHONY: deps test-deps bench-deps build install run serve test lint format docs bench bench-routes fuzz index clean

# gdal-bin: ogr2ogr, the baseline of the import rows of `make bench` (the tests do not need it).
BENCH_PACKAGES := gdal-bin

# Idempotent: installs only what dpkg says is missing; apt-get update only then, and once.
deps: PACKAGES = $(APT_PACKAGES)
test-deps: PACKAGES = $(APT_PACKAGES) $(TEST_PACKAGES)
bench-deps: PACKAGES = $(APT_PACKAGES) $(TEST_PACKAGES) $(BENCH_PACKAGES)
deps test-deps bench-deps:
	@missing=""; \
	for package in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' "$$package" 2>/dev/null | grep -q "install ok installed" \
	    || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:$$missing"; \
	  sudo=""; [ "$$(id -u)" -ne 0 ] && sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(PYTHON_TOOLS):
	[ -x $(VENV)/bin/pip ] || python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check schemathesis==$(SCHEMATHESIS_VERSION) pillow==$(PILLOW_VERSION)
	touch $@

build: deps
	swift build -c release --product geoquery

# Rebuilt when the binary or the shipped data change; written to a temporary file first so an
# interrupted build never leaves a half-made index behind.
$(DB): $(GEOQUERY) $(SHIPPED)
	@rm -f $(DB).tmp $(DB).tmp-wal $(DB).tmp-shm $(DB).tmp-journal
	$(GEOQUERY) import geodata/cities15000.csv --format geonames-csv --data-dir geodata --db $(DB).tmp
	$(GEOQUERY) import geodata/airports.csv --format airports-csv --data-dir geodata --db $(DB).tmp
	$(GEOQUERY) import geodata/monaco.osm.pbf --source osm-monaco --data-dir geodata --db $(DB).tmp
	$(GEOQUERY) import geodata/andorra.osm.pbf --source osm-andorra --data-dir geodata --db $(DB).tmp
	@rm -f $(DB)-wal $(DB)-shm
	@mv $(DB).tmp $(DB)

index: build $(DB)

# `geoquery` on the PATH: the binary and the resource bundles it reads (the map page, the OpenAPI
# description) in PREFIX/lib/geoquery, linked from PREFIX/bin (Foundation finds the bundles
# beside the binary the link resolves to), and its bash, zsh and fish completions. DESTDIR for
# staged installs.
PREFIX ?= /usr/local
install: build
	install -d $(DESTDIR)$(PREFIX)/lib/geoquery $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(GEOQUERY) $(DESTDIR)$(PREFIX)/lib/geoquery/geoquery
	rm -rf $(DESTDIR)$(PREFIX)/lib/geoquery/GeoQuery_GeoQueryServer.resources
	cp -R .build/release/GeoQuery_GeoQueryServer.resources $(DESTDIR)$(PREFIX)/lib/geoquery/
	ln -sf ../lib/geoquery/geoquery $(DESTDIR)$(PREFIX)/bin/geoquery
	@# Shell completions, written by swift-argument-parser from the commands themselves.
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	$(GEOQUERY) --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/geoquery
	$(GEOQUERY) --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_geoquery
	$(GEOQUERY) --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/geoquery.fish
	@echo "installed $(DESTDIR)$(PREFIX)/bin/geoquery; it reads geodata/places.sqlite where it runs (--db or GEOQUERY_DB for another)"

run: build index
	$(GEOQUERY) near --lat 48.8584 --lon 2.2945 --radius 20mi --limit 15 --db $(DB) --format table
	$(GEOQUERY) near --lat 43.7396 --lon 7.4276 --radius 300m --category food --limit 8 --db $(DB) --format table
	$(start-service)

# The service on 127.0.0.1:8080 in the foreground (Ctrl-C stops it); SERVE_HOST and SERVE_PORT override.
SERVE_HOST ?= 127.0.0.1
SERVE_PORT ?= 8080
serve: build index
	$(start-service)

# Shared by run and serve, so that run does not build a second time before serving.
define start-service
@echo "map page:        http://$(SERVE_HOST):$(SERVE_PORT)/"
@echo "API description: http://$(SERVE_HOST):$(SERVE_PORT)/openapi.json"
@echo "try:             curl 'http://$(SERVE_HOST):$(SERVE_PORT)/v1/places/near?lat=48.8584&lon=2.2945&radius=20mi&limit=5'"
$(GEOQUERY) serve --host $(SERVE_HOST) --port $(SERVE_PORT) --db $(DB) --data-dir geodata
endef

# Tests run optimised (with testability): the property tests compare against brute force over
# 20 000 places, and optimised builds also catch optimiser-only bugs.
TEST_FLAGS := -c release -Xswiftc -enable-testing

test: test-deps $(PYTHON_TOOLS) lint
	@[ -n "$$GEOQUERY_SHARED_DATA" ] || [ -f ../shared/data/README.md ] || \
	  echo "note: no ../shared/data beside the repository and no GEOQUERY_SHARED_DATA: the tests of its samples are skipped"
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
	  echo "WARNING: PostgreSQL is not installed: the PostGIS suites will be SKIPPED"
	swift build --build-tests $(TEST_FLAGS)
	@# The whole log stays in .build/test.log; CI shows the end of the output, so the failures
	@# are repeated there.
	@set -o pipefail; swift test $(TEST_FLAGS) --skip-build 2>&1 | tee .build/test.log || { \
	  echo "=== failures (from .build/test.log) ==="; \
	  grep -E "recorded an issue|✘|error:|Fatal error|Crash" .build/test.log | grep -v "passed after" | cut -c1-400 | tail -n 60; \
	  exit 1; }
	@# The account, gem, photo, moderation, itinerary, trip, discovery, creation-budget and stranger route suites again, with their user store on PostgreSQL/PostGIS.
	@set -o pipefail; GEOQUERY_TEST_USER_STORE=postgres swift test $(TEST_FLAGS) --skip-build \
	  --filter "GeoQueryServerTests.(AccountRouteTests|GemRouteTests|PhotoRouteTests|ModerationRouteTests|PlanRouteTests|TripRouteTests|WebhookTests|DiscoveryRouteTests|CreationBudgetTests|StrangerTests)" 2>&1 | tee .build/test-postgres.log || { \
	  echo "=== failures on PostgreSQL (from .build/test-postgres.log) ==="; \
	  grep -E "recorded an issue|✘|error:|Fatal error|Crash" .build/test-postgres.log | grep -v "passed after" | cut -c1-400 | tail -n 60; \
	  exit 1; }
	scripts/schemathesis.sh $$(swift build $(TEST_FLAGS) --show-bin-path)/geoquery $(SCHEMATHESIS)

# The whole tree as `.swift-format` says (swift-format comes with the toolchain); `make format`
# applies it. `make test`, and so CI, runs this first.
lint:
	swift format lint --strict --recursive --parallel Sources Tests Package.swift

format:
	swift format format --in-place --recursive --parallel Sources Tests Package.swift

# DocC for every library target (swift-docc-plugin, docc from the toolchain), combined into one
# archive under .build/docs; `make docs DOCS_TARGETS=GeoCore` for one. (Not yet warnings-as-errors:
# links written ``Place/region`` across modules need their module's name first to resolve.)
DOCS_TARGETS ?= GeoQuery GeoCore PlaceModel PlaceQuery PlaceStore PlaceImport Regions Routing Trips Discovery Providers \
                GeoQueryWire GeoQueryServer Accounts PostGISStore Social
docs: deps
	swift package --allow-writing-to-directory .build/docs generate-documentation \
	  $(foreach target,$(DOCS_TARGETS),--target $(target)) --enable-experimental-combined-documentation \
	  --output-path .build/docs
	@echo "documentation in .build/docs (open index.html through a web server, e.g. python3 -m http.server -d .build/docs)"

bench: bench-deps
	swift build -c release --product geoquery
	swift build -c release --product GeoQueryBench
	.build/release/GeoQueryBench $(BENCH_ARGS)

# Only the routing rows of `make bench` (a few minutes, no index needed).
bench-routes: test-deps
	swift build -c release --product GeoQueryBench
	.build/release/GeoQueryBench --routes-only $(BENCH_ARGS)

# Coverage-guided fuzzing of every reader of untrusted bytes (not part of `make test`):
# FUZZ_SECONDS per target (default 600), FUZZ_TARGETS to pick some. Findings are kept under
# Tests/Regressions/fuzz/, which `make test` replays.
FUZZ_SECONDS ?= 600
fuzz: test-deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

clean:
	rm -rf .build .build-fuzz $(DB) $(DB)-wal $(DB)-shm $(DB)-journal
