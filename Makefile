# soakd — make test is what CI runs; make bench is the benchmark script.
GO ?= go
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)

.PHONY: build test test-short bench fuzz release
build:
	$(GO) build -ldflags "-X main.version=$(VERSION) -X github.com/soakd/soakd/rundir.stampedVersion=$(VERSION)" -o soakd ./cmd/soakd

# release: static binaries for people who do not build from source,
# version stamped, one per OS and architecture, with their SHA-256 sums.
RELEASE_DIR ?= dist
RELEASE_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
release:
	@mkdir -p $(RELEASE_DIR)
	@for t in $(RELEASE_TARGETS); do \
		os=$${t%/*}; arch=$${t#*/}; out=$(RELEASE_DIR)/soakd-$(VERSION)-$$os-$$arch; \
		echo "== $$out"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath \
			-ldflags "-s -w -X main.version=$(VERSION) -X github.com/soakd/soakd/rundir.stampedVersion=$(VERSION)" \
			-o $$out ./cmd/soakd || exit 1; \
	done
	@cd $(RELEASE_DIR) && sha256sum soakd-$(VERSION)-* > SHA256SUMS-$(VERSION) && cat SHA256SUMS-$(VERSION)

# Tests that skip for a property of the host CI cannot install (host
# swap, root) append to $(SKIP_LOG) (testutil.HostSkip); the end of the
# run prints them, so CI's output says what this host did not test.
SKIP_LOG := $(CURDIR)/.test-skips
export SOAKD_SKIP_LOG := $(SKIP_LOG)

# -p 4: four packages at once. Most of the slow packages wait on real
# servers and fixed-rate runs more than they use the CPU: at -p 3 a
# quiet 2-core machine was busy 1.6 cores on average, and the suite
# beside stress-ng --cpu 2 took only 1.3x as long as without it
# (docs/testing.md has the times).
BENCH_PKGS = $(shell grep -rl --include='*_test.go' '^func Benchmark' . | grep -v '^./targets/mongo/mongotest/' | xargs -n1 dirname | sort -u)

test:
	@rm -f $(SKIP_LOG)
	$(GO) test -race -count=1 -p 4 -timeout 15m ./...
	# every benchmark once, so a broken one fails here rather than in make bench:
	# only the packages that have benchmarks (compiling every package's tests
	# again without -race cost about a minute of CPU)
	$(GO) test -run XXX -bench . -benchtime 1x -count=1 -timeout 3m $(BENCH_PKGS)
	@for m in $$(find . -mindepth 2 -name go.mod -not -path './.git/*' -exec dirname {} \;); do \
		echo "== $$m"; (cd $$m && $(GO) test -mod=mod -race -count=1 -timeout 5m ./...) || exit 1; done
	@if [ -s $(SKIP_LOG) ]; then echo "== skipped for the host (testutil.HostSkip):"; sort -u $(SKIP_LOG); fi

# test-short: the quick loop while working (no race detector, no tests
# that build the binary, start Prometheus or Chromium, or run for
# minutes: the ones that check testing.Short). CI runs make test, all of
# them.
test-short:
	$(GO) test -short -count=1 -timeout 8m ./...

# -fuzzminimizetime 50x: minimizing each new input for the default 60 s
# starved the fuzzing itself (1,332 executions in 120 s).
fuzz:
	$(GO) test -run XXX -fuzz 'FuzzParse$$' -fuzztime 60s -fuzzminimizetime 50x ./scenarios/
	$(GO) test -run XXX -fuzz FuzzParseValues -fuzztime 60s -fuzzminimizetime 50x ./scenarios/

bench:
	bash bench/run.sh
