# adpnode build targets. Everything here needs only Go; `make` is a convenience.
GO       ?= go
BIN      ?= bin/adpnode
PKGS     ?= ./...
N        ?= 5

.PHONY: all build test race lint fuzz bench testnet testnet-down clean

all: build

build:
	$(GO) build -trimpath -o $(BIN) ./cmd/adpnode

# The test command the README and CI use: every package under -race, then
# the two testnet tests built only without it.
test:
	$(GO) test -race -count=1 $(PKGS)
	$(GO) test -count=1 -run 'TestChurnAndPartition|TestWANVirtualTime' ./testnet

lint:
	$(GO) vet $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Short runs of every fuzz target (FUZZTIME per target).
FUZZTIME ?= 10s
fuzz:
	bash scripts/fuzz.sh $(FUZZTIME)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

testnet: build
	$(BIN) testnet up -n $(N)

testnet-down:
	$(BIN) testnet down

clean:
	rm -rf bin
