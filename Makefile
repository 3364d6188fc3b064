# paygate — the two commands a newcomer needs: `make run` and `make test`.
# Everything installs from the package registries (PyPI, npm) into .venv/ and node_modules/.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BUF := node_modules/.bin/buf
export PAYGATE_TEST_PG ?= postgresql://postgres@127.0.0.1:5432/test
# Our modules are compiled once into __pycache__, not at every start of a process: a test run starts a few hundred
# (services, CLI calls), and a machine that sets PYTHONDONTWRITEBYTECODE made each compile the whole code again.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test setup chromium pgbouncer litecoind gen check-gen lint fmt unit bench fuzz mutate clean

LOCALSTRIPE_PORT ?= 8420

run: setup  ## start the dev chain and localstripe, migrate, seed a demo merchant, serve HTTP + gRPC + scheduler on SQLite
	@mkdir -p var/localstripe && rm -f var/devchain.json
	@# The dev chain runs in the background (a block every 2 s) until serve stops; serve reads the networks file
	@# it writes, so wait for its JSON line first. localstripe (provider_a's stand-in, DESIGN §9) runs beside it
	@# with fresh state and its own temp folder (it writes its state file there).
	@$(VENV)/bin/paygate devchain --block-time 2 > var/devchain.json 2> var/devchain.log & chain=$$!; \
	  TMPDIR=$(CURDIR)/var/localstripe $(VENV)/bin/localstripe --port $(LOCALSTRIPE_PORT) --from-scratch \
	    > var/localstripe.log 2>&1 & stripe=$$!; \
	  trap 'kill $$chain $$stripe 2>/dev/null; wait $$chain $$stripe' EXIT INT TERM; \
	  export PAYGATE_PROVIDER_A_API_BASE=http://127.0.0.1:$(LOCALSTRIPE_PORT); \
	  until $(PY) -c "import sys,urllib.request as u; u.urlopen(sys.argv[1], timeout=1)" \
	    $$PAYGATE_PROVIDER_A_API_BASE/js.stripe.com/v3/ 2>/dev/null; do \
	    kill -0 $$stripe 2>/dev/null || { echo "localstripe failed:"; cat var/localstripe.log; exit 1; }; sleep 0.2; \
	  done; \
	  until [ -s var/devchain.json ]; do \
	    kill -0 $$chain 2>/dev/null || { echo "paygate devchain failed:"; cat var/devchain.log; exit 1; }; sleep 0.2; \
	  done; \
	  echo "dev chain: $$(cat var/devchain.json | cut -c1-160)…"; \
	  $(VENV)/bin/paygate migrate && $(VENV)/bin/paygate demo && PAYGATE_WEBHOOK_ALLOW_PRIVATE=true $(VENV)/bin/paygate serve

test: setup check-gen lint  ## the whole suite, HTTP tests against SQLite and PostgreSQL
	$(PY) -m pytest -n 4 --dist loadfile --durations=30  # test files in parallel: most of the time is spent waiting on chains and servers; the slowest tests are listed to keep the run short

setup: $(VENV)/.installed node_modules/.installed chromium pgbouncer litecoind

chromium:  ## Debian's browser for the checkout page's tests (playwright drives /usr/bin/chromium; never a downloaded build)
	@test -x /usr/bin/chromium || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; fi; }

pgbouncer:  ## Debian's PgBouncer, for the tests of PostgreSQL behind a transaction pooler (started by the tests)
	@test -x /usr/sbin/pgbouncer || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer; fi; }

litecoind:  ## Debian's Litecoin node, run -regtest by the dev chain and the UTXO rail's tests (server/rails/utxo/devchain.py)
	@test -x /usr/bin/litecoind || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq litecoind; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq litecoind; fi; }

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

node_modules/.installed: package.json
	npm install --no-audit --no-fund --loglevel=error
	touch $@

gen: setup  ## regenerate the Python stubs from proto/
	PYTHON=$(PY) proto/generate.sh

check-gen: setup  ## fail when the committed stubs differ from what the protos generate
	@tmp=$$(mktemp -d) && PYTHON=$(PY) proto/generate.sh $$tmp && \
	  for f in $$tmp/paygate/v1/*; do \
	    cmp -s $$f proto/paygate/v1/$$(basename $$f) || { echo "stale stub: proto/paygate/v1/$$(basename $$f) (run make gen)"; rm -rf $$tmp; exit 1; }; \
	  done; \
	  for f in proto/paygate/v1/*_pb2*.py*; do \
	    test -e $$tmp/paygate/v1/$$(basename $$f) || { echo "orphan stub: $$f (run make gen)"; rm -rf $$tmp; exit 1; }; \
	  done; rm -rf $$tmp; echo "stubs up to date"

lint: setup  ## buf lint + format, ruff, mypy, the import contracts (pyproject's [tool.importlinter])
	$(BUF) lint
	$(BUF) format -d --exit-code
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache

fmt: setup
	$(BUF) format -w
	$(VENV)/bin/ruff check --fix .

unit: setup
	$(PY) -m pytest tests/unit

fuzz: setup  ## the long schemathesis run (>= 10,000 requests per database) over /openapi.json; prints the count
	PAYGATE_FUZZ_LONG=1 $(PY) -m pytest tests/fuzz/test_schemathesis.py -q -s -p no:cacheprovider

# mutmut's settings ([tool.mutmut] in pyproject.toml) name the modules and the unit tests; MUTANTS narrows a run to
# some mutants (`make mutate MUTANTS='server.products.stock.*'`), and a rerun retests only what changed.
MUTATE_JOBS ?= 2
MUTANTS ?=
define MUTATE_SUMMARY
import json, pathlib
from mutmut.stats import status_by_exit_code
killed_kinds = {"killed", "timeout", "caught by type check"}
all_killed = all_tested = 0
survivors = []
for meta in sorted(pathlib.Path("mutants").rglob("*.py.meta")):
    by_name = json.loads(meta.read_text())["exit_code_by_key"]
    status = {name: status_by_exit_code[code] for name, code in by_name.items() if code is not None}
    tested = [name for name, s in status.items() if s != "skipped"]
    killed = [name for name in tested if status[name] in killed_kinds]
    survivors += sorted(f"{name}: {status[name]}" for name in tested if status[name] not in killed_kinds)
    all_killed, all_tested = all_killed + len(killed), all_tested + len(tested)
    module = str(meta)[len("mutants/"):-len(".meta")]
    if not tested:
        print(f"{module:45} not run yet")
        continue
    print(f"{module:45} killed {len(killed):4} of {len(tested):4} ({100 * len(killed) / len(tested):.1f} %)")
print(f"{'overall':45} killed {all_killed:4} of {all_tested:4} ({100 * all_killed / max(all_tested, 1):.1f} %)")
print("\n".join(["survivors (mutmut show <name> prints the change):", *survivors]) if survivors else "no survivors")
endef
export MUTATE_SUMMARY

mutate: setup  ## mutation testing (mutmut) of the money modules against their unit tests; prints the killed share. Slow, not in `make test`
	$(VENV)/bin/mutmut run --max-children $(MUTATE_JOBS) $(MUTANTS)
	@$(PY) -c "$$MUTATE_SUMMARY"

bench: setup  ## request rates and latencies of the facade, direct gRPC and a bare Starlette handler
	$(PY) bench/facade.py

clean:
	rm -rf $(VENV) node_modules var .pytest_cache .mypy_cache .ruff_cache
