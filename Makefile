# Entry points for developers and CI. The servers that tests and `make run`
# need are plain local processes started by scripts/ (no Docker needed);
# docker-compose.yml runs the same stack in containers.
GO ?= go
# The toolchain that carries the standard library's security fixes (go.mod's
# toolchain line asks for it too; the module proxy serves it). `make
# vulncheck` shows what an older one would leave reachable.
GOTOOLCHAIN ?= go1.27.3
export GOTOOLCHAIN
PKGS ?= ./...

.PHONY: build run test test-short screenshots bench-create bench-listing bench-statements fmt vet vulncheck clean

build:
	$(GO) build -o bin/gateway ./cmd/gateway

# The gateway, its servers and the demo's webhook receiver, to try it by
# hand (scripts/run.sh); installs only what running needs (scripts/deps.sh
# run), the test tools come with make test (scripts/deps.sh test).
run:
	scripts/run.sh

# Real Redis and ClickHouse on free ports, gone afterwards. No -race: on a
# 2-core machine it makes the suite several times slower; -timeout keeps the
# whole run under 10 minutes.
# Before them, vet and vulncheck side by side (each keeps about one core
# busy; together about 30 s once vulncheck's tools and database are in
# .deps/, a few minutes the first time). After the Go tests, the reduced
# fault suite (chaos-quick, under 3 minutes) with fuzz-quick beside it
# (scripts/test-tail.sh).
# The packages with the slowest tests start first (scripts/slowfirst.sh),
# so that the short ones fill in beside them rather than after them.
# Three packages at a time (-p 3, one more than the cores): the tests
# mostly wait on servers, browsers and timers (the CPU was 42 % busy at
# -p 2), and a third package fills those waits (warm cache, this machine:
# 4 min 58 s at -p 2, 4 min 44 s at -p 3).
# Tests build without profile-guided optimisation (cmd/gateway/default.pgo):
# behaviour is the same, and the test run then compiles the dependencies
# once instead of twice. Release builds (make build, run, bench) use it.
test: export GOFLAGS += -pgo=off
test:
	$(MAKE) -j2 vet vulncheck
	scripts/deps.sh test
	pkgs=$$(GO=$(GO) scripts/slowfirst.sh $(PKGS)) && scripts/testenv.sh $(GO) test -p 3 -count=1 -timeout 9m $$pkgs
	GO=$(GO) scripts/test-tail.sh $(FUZZTIME_QUICK)

# Every SDK's own test runner (sdk/*) against the real binary
# (cmd/gateway TestSDKs); `make test` runs it too.
.PHONY: test-sdk
test-sdk: export GOFLAGS += -pgo=off
test-sdk:
	scripts/deps.sh test
	scripts/testenv.sh $(GO) test -count=1 -run '^TestSDKs$$' -v ./cmd/gateway/

# The end-to-end tests, the failover and every *Cluster* test on a 3-master
# Redis Cluster with replicas and a 2-shard ClickHouse cluster
# (scripts/testenv-cluster.sh; the single servers of testenv.sh are there
# too, for tests of one node's database).
# One package at a time (-p 1): a cluster has one database, so tests take
# turns on it (internal/testenv). Under CI=true (.ci/run) a skipped test
# fails the target (scripts/noskip.sh).
CLUSTER_TESTS ?= Cluster|^(TestEndToEnd|TestIdempotencyKeyAndCancelEndToEnd|TestProvidersEndToEnd|TestTwoStepFlowsEndToEnd|TestUSDTReviewsEndToEnd|TestPayerPagesRefuseBadInput|TestOpenAPIDescribesRealResponses|TestRateLimitAcrossProcesses|TestMerchantPrintouts|TestUSDTConfigCLI|TestReportsEndToEnd)$$
.PHONY: test-cluster
test-cluster: export GOFLAGS += -pgo=off
test-cluster:
	scripts/deps.sh test
	scripts/noskip.sh scripts/testenv.sh scripts/testenv-cluster.sh $(GO) test -v -count=1 -p 1 -timeout 20m -run '$(CLUSTER_TESTS)' $(PKGS)

# Every native fuzz target (func FuzzX in *_test.go, found by
# scripts/fuzz.sh) for FUZZTIME each: the parsers of requests, query and
# listing parameters, signatures, webhook answers and provider
# notifications. fuzz-quick is the bounded run `make test` ends with
# (beside chaos-quick); a
# failing input lands in <package>/testdata/fuzz/ and becomes a
# regression seed once committed. fuzz-quick gives each target 2 s (12
# targets; at 4 s `make test` took 10 min 28 s on this machine): the seeds
# and a short mutation run, the long search is `make fuzz`.
FUZZTIME ?= 2m
FUZZTIME_QUICK ?= 2s
.PHONY: fuzz fuzz-quick
fuzz:
	GO=$(GO) scripts/fuzz.sh $(FUZZTIME)

fuzz-quick:
	GO=$(GO) scripts/fuzz.sh $(FUZZTIME_QUICK)

# Unit tests only: integration tests skip themselves in -short mode on a
# developer's machine; under CI=true they fail instead (CI runs `make test`).
test-short:
	$(GO) test -short -count=1 $(PKGS)

# The payer pages' screenshots for the README: the browser tests (every test
# whose name contains Browser, e.g. in cmd/gateway and web/) save full-page PNGs at 360
# and 1280 px into screenshots/ (git-ignored); those of the pages named in
# docs/screenshots/LIST are copied into docs/screenshots/ (committed).
screenshots:
	scripts/deps.sh test
	rm -rf screenshots
	SCREENSHOTS_DIR=$(CURDIR)/screenshots scripts/testenv.sh $(GO) test -count=1 -run Browser $(PKGS)
	scripts/screenshots.sh screenshots docs/screenshots

# Allocations and time per create through the whole handler (real Redis).
bench-create:
	scripts/testenv.sh $(GO) test -run '^$$' -bench CreateOrder -benchmem -benchtime 5s ./web/api

# Listing at scale: pages 1 and 1,000 (and page 1 filtered by method and
# currency) of a merchant with 1,000,000 of 5,000,000 orders over 90 days,
# the reports over them (90-day summary, day x method time series, the
# whole export's rows/s and RSS growth), then the create-to-listed delay
# under a steady create load against the real binary. A few minutes; not
# part of `make test`. bench-listing-quick: the reads at a tenth of the size.
bench-listing:
	scripts/testenv.sh sh -c '$(GO) test -run "^$$" -bench "Listing|Reports/(summary|timeseries)|FairShare" -benchtime 100x -timeout 30m ./query && \
		$(GO) test -run "^$$" -bench "Reports/export" -benchtime 3x -timeout 30m ./query && \
		$(GO) test -run "^$$" -bench CreateToListed -benchtime 1x ./cmd/gateway'

.PHONY: bench-listing-quick
bench-listing-quick:
	GATEWAY_BENCH_MERCHANT_ROWS=100000 GATEWAY_BENCH_TOTAL_ROWS=500000 scripts/testenv.sh \
		$(GO) test -run "^$$" -bench "Listing|Reports|FairShare" -benchtime 20x -timeout 10m ./query

# A merchant's month statement over 1,000,000 paid orders' postings (a
# payment with a fee and its settlement each) beside 100 other merchants':
# p50/p99 of the statement read (docs/statements.md). Loads once (~1 min).
.PHONY: bench-statements
bench-statements:
	scripts/testenv.sh $(GO) test -run "^$$" -bench StatementMonth -benchtime 100x -timeout 30m ./query

# Reconciliation of a provider statement of a day of 100,000 payments with
# planted differences (each kind found, none invented): seconds per import
# (target 30). Loads the day once (~2 min). Not part of `make test`.
.PHONY: bench-recon
bench-recon:
	scripts/testenv.sh $(GO) test -run '^$$' -bench ReconcileDay -benchtime 1x -timeout 30m ./recon

# The ledger role catching up on 40,000 paid orders on the real Redis (AOF
# always): postings/s from its start until its group acknowledged them all
# (target 20,000). Not part of `make test`.
.PHONY: bench-ledger
bench-ledger:
	scripts/testenv.sh $(GO) test -run '^$$' -bench LedgerCatchUp -benchtime 40000x ./ledger

# Endpoint events drained per second with 3 endpoints per merchant to a
# loopback receiver (BenchmarkEventsDrain, ./dispatcher; target 10,000/s).
# GATEWAY_WEBHOOK_CONCURRENCY and _PER_HOST apply. Not part of `make test`.
.PHONY: bench-events
bench-events:
	scripts/testenv.sh $(GO) test -run '^$$' -bench EventsDrain -benchtime 20000x -timeout 30m ./dispatcher

# Redis's side of an endpoint delivery alone, no HTTP (BenchmarkEventFinishRedis):
# Redis CPU µs, script µs and commands per acknowledged delivery.
.PHONY: bench-events-redis
bench-events-redis:
	scripts/testenv.sh $(GO) test -run '^$$' -bench EventFinishRedis -benchtime 20000x ./dispatcher

# The floor under a delivery: signed event posts through the dispatcher's
# own HTTP client to a receiver process answering 204, no Redis
# (BenchmarkHTTPFloor): exchanges/s and CPU µs per exchange of each side.
.PHONY: bench-floor
bench-floor:
	$(GO) test -run '^$$' -bench HTTPFloor -benchtime 100000x ./dispatcher

# The floor of a whole delivery with Redis (BenchmarkDeliveryFloor): the
# least any at-least-once engine does (read from a stream in batches, sign,
# post, record the outcome durably and acknowledge), with the CPU each of
# engine, Redis and receiver spends per delivery.
.PHONY: bench-delivery-floor
bench-delivery-floor:
	scripts/testenv.sh $(GO) test -run '^$$' -bench DeliveryFloor -benchtime 60000x -count 3 ./dispatcher

fmt:
	$(GO) fmt $(PKGS)
	cd sdk/go && $(GO) fmt ./...

vet:
	$(GO) vet $(PKGS)
	cd sdk/go && $(GO) vet ./...

# Fails when our code reaches a known vulnerability of a module we use or of
# the standard library of $(GOTOOLCHAIN): govulncheck, offline, against a
# database built from a pinned golang.org/x/vulndb, so the result moves only
# when scripts/vulncheck.sh's versions are bumped (it says how).
# GOTOOLCHAIN=go1.26.8 make vulncheck shows what the old toolchain left open.
vulncheck:
	GO=$(GO) scripts/vulncheck.sh $(PKGS)

# Stops any servers still running from .data (a killed `make run` or test
# run) before removing their data.
clean:
	for d in .data/run .data/test-*; do \
		scripts/redis.sh stop "$$d/redis"; scripts/clickhouse.sh stop "$$d/clickhouse"; \
	done
	rm -rf bin .data

# The gateway measured against this machine's ceiling: release
# binaries, Redis (AOF always) and ClickHouse on free ports, our own load
# generator (bench/loadgen); a Markdown table on stdout, JSON in
# bench-results/. bench-quick is a reduced run of under 3 minutes. Neither is
# part of `make test`. BENCH_FLAGS passes gwbench flags (e.g. --perf).
.PHONY: bench bench-quick bench-profile
bench:
	scripts/bench.sh full $(BENCH_FLAGS)

bench-quick:
	scripts/bench.sh quick $(BENCH_FLAGS)

# A create's CPU accounted (BENCHMARKS.md, "CPU per create, accounted"):
# the ceiling and createorder at quick sizes with Redis's CPU per create by
# command (and which commands the scripts run), the gateway's by component
# from perf, then the pipelined floor of each script a create runs.
.PHONY: bench-breakdown
bench-breakdown:
	scripts/bench.sh quick --scenarios ceiling,create --breakdown $(BENCH_FLAGS)
	PIPELINE=16 scripts/redis-create-floor.sh 100000

# Profile-guided optimisation (an attempt to cut CPU per create): `go build` of ./cmd/gateway uses
# cmd/gateway/default.pgo when it exists. This writes it from the CPU
# profiles of the real gateways of a quick create benchmark
# (GATEWAY_CPU_PROFILE writes one per process as it stops), merged. The
# file is git-ignored: the A/B of 2026-11-26 (BENCHMARKS.md) showed no
# difference beyond the noise, so release builds do not use one yet.
.PHONY: pgo
pgo:
	rm -rf .data/pgo && mkdir -p .data/pgo
	GATEWAY_CPU_PROFILE=$(CURDIR)/.data/pgo/gateway scripts/bench.sh quick --scenarios ceiling,create,status
	$(GO) tool pprof -proto .data/pgo/gateway.* > cmd/gateway/default.pgo.new
	mv cmd/gateway/default.pgo.new cmd/gateway/default.pgo

# CPU profile of one create through the whole handler (real Redis), and
# its top functions: where createorder's CPU goes inside the process. The
# headline create (select in USD with a clientOrderId, as gwbench sends).
bench-profile:
	mkdir -p bench-results
	scripts/testenv.sh $(GO) test -run '^$$' -bench 'CreateOrderSelect$$' -benchtime 10s -benchmem \
		-cpuprofile bench-results/createorder.cpu.prof -o bench-results/api.test ./web/api
	$(GO) tool pprof -top -nodecount 40 bench-results/api.test bench-results/createorder.cpu.prof

# The fault suite: the release binary in six processes with split
# roles under a steady mixed load, every scenario (kill -9 of each role and of
# all, Redis kill -9 and restart from its AOF, ClickHouse stopped, merchant
# endpoint hang/reset/slow, skewed clock, dispatcher-Redis partition, two
# combined storms, kill -9 of a Redis Cluster master, ledger processes killed
# mid-batch with a planted double posting, payout senders killed mid-send), each followed by the audit of Redis, ClickHouse and the
# webhook receiver. `make chaos` (~10 minutes) rewrites RELIABILITY.md's table;
# `make chaos-quick` (< 3 minutes: baseline, kill -9 of all gateways, Redis
# kill -9, ledger processes killed mid-batch, payout senders killed mid-send, hanging endpoint) is part of
# `make test`.
.PHONY: chaos chaos-quick
chaos:
	scripts/chaos.sh full

chaos-quick:
	scripts/chaos.sh quick
