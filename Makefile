# Mailroom — every target installs what it needs first. `make help` lists them.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NPM ?= npm
STAMP := node_modules/.mailroom-install-stamp
WORKSPACE_MANIFESTS := $(wildcard core/package.json api/package.json worker/package.json operator/package.json smtp/package.json cli/package.json)

.PHONY: help install system-packages run test test-faults fuzz test-upgrade test-kubernetes bench bench-shaping bench-fairness bench-scale schema-dump e2e-kind lint format typecheck check-generated clean image image-smoke chart-package release release-cut release-test release-reproduce

help: ## List the targets
	@# Colour only on a terminal (and not with NO_COLOR): piped or redirected, the list stays plain text.
	@if [ -t 1 ] && [ -z "$${NO_COLOR:-}" ]; then on=$$'\033[36m'; off=$$'\033[0m'; else on=; off=; fi; \
	awk -v on="$$on" -v off="$$off" 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  %s%-16s%s %s\n", on, $$1, off, $$2}' $(MAKEFILE_LIST)

$(STAMP): package.json package-lock.json $(WORKSPACE_MANIFESTS)
	@echo "› installing dependencies (npm install; includes Node 24 and the embedded Postgres binaries) …"
	$(NPM) install --no-audit --no-fund --loglevel=error
	@touch $@

install: $(STAMP) ## Install dependencies (Node 24 toolchain, embedded Postgres) from the lockfile

system-packages: ## Install the Debian packages the tests drive as real peers (as root; else lists them)
	@scripts/install-system-packages.sh

run: $(STAMP) ## Run Mailroom locally: embedded Postgres, HTTPS API, worker, SMTP submission and bounce receiver, SMTP capture (Ctrl-C stops)
	$(NPM) exec --no --progress=false -- mailroom run

test: $(STAMP) system-packages ## Run the whole test suite: lint, type check, generated-file drift, all tests on real servers
	$(NPM) run --silent lint
	$(NPM) run --silent typecheck
	@$(MAKE) --no-print-directory check-generated
	$(NPM) test

test-faults: $(STAMP) system-packages ## Fault suite: kill -9 a worker, the API, Postgres, a Patroni primary (and a switchover); stall SMTP and webhooks; under load (~7 min)
	$(NPM) exec --no -- node test/support/run-vitest.ts -c test/fault/vitest.config.ts

FUZZ_FILES = core/src/emails/send-request.test.ts api/src/routes/v1/fuzz.int.test.ts api/src/routes/v1/send/fuzz.int.test.ts
fuzz: $(STAMP) ## Hunt with fresh seeds (FUZZ_ROUNDS, default 20) beyond the fixed corpus CI runs; keep each failure found as a fixed case
	CI= FUZZ_ROUNDS=$${FUZZ_ROUNDS:-20} $(NPM) exec --no -- vitest run $(FUZZ_FILES)

test-upgrade: $(STAMP) ## Rolling upgrade from the previous release (built once per commit under ~/.cache/mailroom/upgrade/) under load (~3 min warm)
	$(NPM) exec --no -- node scripts/previous-release.ts >/dev/null
	$(NPM) exec --no -- node test/support/run-vitest.ts -c test/upgrade/vitest.config.ts

test-kubernetes: $(STAMP) ## Operator contract suite and chart on a real kube-apiserver, etcd, kube-controller-manager (built once from Go modules)
	@test/kubernetes/build/build.sh >/dev/null
	@test/kubernetes/build/third-party-crds.sh >/dev/null
	@test/kubernetes/kstatus/build.sh >/dev/null
	$(NPM) exec --no -- node test/support/run-vitest.ts -c test/kubernetes/vitest.config.ts

bench: $(STAMP) ## Benchmarks against same-run baselines; writes BENCHMARKS.md (takes a few minutes)
	$(NPM) exec --no -- node bench/send/main.ts
	$(NPM) exec --no -- node bench/delivery/main.ts
	$(NPM) exec --no -- node bench/peer/main.ts
	$(NPM) exec --no -- node bench/webhooks/main.ts
	$(NPM) exec --no -- node bench/smtp-submission/main.ts
	$(NPM) exec --no -- node bench/shaping/main.ts
	$(NPM) exec --no -- node bench/fairness/main.ts
	$(NPM) exec --no -- node bench/stats/main.ts

bench-fairness: $(STAMP) ## One tenant floods at its quota while another sends 10/s: the quiet one's latency vs idle (also in make bench)
	$(NPM) exec --no -- node bench/fairness/main.ts

lint: $(STAMP) ## Lint and format check (Biome)
	$(NPM) run --silent lint

format: $(STAMP) ## Apply formatting and safe lint fixes
	$(NPM) run --silent format

typecheck: $(STAMP) ## Type-check every workspace (tsc, strict)
	$(NPM) run --silent typecheck

check-generated: $(STAMP) ## Fail when generated files (CRDs, the chart's copy, the schema dump, OpenAPI and its client) drift from their sources
	$(NPM) exec --no -- node operator/src/crds/generate.ts --check
	$(NPM) exec --no -- node scripts/schema-dump.ts --check
	$(NPM) exec --no -- node api/src/openapi/generate.ts --check
	@diff -r crds charts/mailroom/files/crds >/dev/null || { echo "charts/mailroom/files/crds differs from crds/: run scripts/sync-chart-crds.sh"; exit 1; }

bench-shaping: $(STAMP) ## Direct delivery's shaping alone: a throttling receiver backed off while another keeps its rate (also in make bench)
	$(NPM) exec --no -- node bench/shaping/main.ts

bench-scale: $(STAMP) ## How cost grows with the data: 1M seeded emails vs empty (BENCH_SCALE_SIZES=0,1000000,10000000 for 10M)
	$(NPM) exec --no -- node bench/scale/main.ts

schema-dump: $(STAMP) ## Regenerate core/sql/schema.sql from the migrations and SQL functions (needs Debian's postgresql)
	$(NPM) exec --no -- node scripts/schema-dump.ts

image: $(STAMP) system-packages ## Build the image without a daemon (buildah; local Debian + Node base) into dist/*.oci.tar
	scripts/image/build.sh

image-smoke: image ## Build the image, then run migrate, api and worker inside it against a real Postgres and SMTP sink
	$(NPM) exec --no -- node scripts/image/smoke.ts

chart-package: $(STAMP) ## Lint and package the Helm chart into dist/mailroom-<version>.tgz
	scripts/chart-package.sh

release: $(STAMP) system-packages ## Build release VERSION=x.y.z from a clean checkout of HEAD into dist/release/x.y.z (COSIGN_KEY=…; docs/releasing.md)
	scripts/release/build.sh $(VERSION)

release-cut: $(STAMP) ## Cut release VERSION=x.y.z: bump every version, date the CHANGELOG, tag, record in releases/index.json
	scripts/release/cut.sh $(VERSION)

release-test: $(STAMP) system-packages ## Build HEAD's release, push it to a loopback registry, verify signatures + SBOM, install it from there
	scripts/release/test.sh

release-reproduce: $(STAMP) system-packages ## Build HEAD's image twice without cache and compare the digests (and each layer)
	scripts/release/reproduce.sh

e2e-kind: $(STAMP) ## End to end on a kind cluster (needs Docker, kind, kubectl): build, install the chart, send one email
	scripts/e2e-kind.sh

clean: ## Remove installed dependencies (keeps .mailroom data)
	rm -rf node_modules */node_modules
