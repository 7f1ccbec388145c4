# Scorepad. `make run` for a local server, `make test` for the whole suite, `make help` for the rest.

SHELL := /bin/bash
VENV := .venv
# The suite on every core, a test file to a worker (a module's fixtures, such as the coach's
# tables, are built once): `make test XDIST=` runs it in one process.
XDIST ?= -n auto --dist loadfile
BIN := $(VENV)/bin

# The first Python >= 3.12 found: on PATH, then pyenv's installs.
PYTHON ?= $(shell for p in python3.12 python3.13 python3.14 python3 \
	$$HOME/.pyenv/versions/3.1[2-9]*/bin/python /usr/local/bin/python3.1[2-9]; do \
	  command -v "$$p" >/dev/null 2>&1 || continue; \
	  "$$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1 \
	    && { command -v "$$p"; break; }; \
	done)

.PHONY: install run test lint typecheck format migrate messages chromium load bench proxy-check coach mutants

## install: create .venv with the pinned requirements
install: $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-dev.txt
	@if [ ! -x $(BIN)/python ]; then \
	  if [ -z "$(PYTHON)" ]; then echo "Python 3.12+ is needed (none found on PATH or in pyenv)." >&2; exit 1; fi; \
	  echo "Creating $(VENV) with $(PYTHON)"; \
	  "$(PYTHON)" -m venv $(VENV); \
	fi
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

## help: this list (each target's "## target: what it does" line)
.PHONY: help
help:
	@awk '/^## [a-z-]+: / { name = substr($$2, 1, length($$2) - 1); sub(/^## [a-z-]+: /, ""); \
	  printf "  make %-12s %s\n", name, $$0 }' $(MAKEFILE_LIST)

## migrate: apply the database migrations
migrate: install
	$(BIN)/python manage.py migrate --noinput

## run: the site at http://127.0.0.1:8000 under uvicorn (SQLite), reloading on change
# Under ASGI (uvicorn), so that the pages' event streams are held: a change shows on the
# other phones at once. Reloads on a code change like runserver; static files from the
# finders (WhiteNoise, DEBUG).
run: migrate
	$(BIN)/uvicorn scorepad.asgi:application --host 127.0.0.1 --port 8000 --reload

## chromium: check for Debian's chromium (installed with apt-get when root)
# The browser tests need a real Chromium: Debian's, never `playwright install`.
chromium:
	@if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "Installing Debian's chromium for the browser tests"; \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	  fi; \
	fi
	@if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then \
	  echo "Chromium is needed for the browser tests: install it (apt-get install chromium) and rerun." >&2; \
	  exit 1; \
	fi

## test: the whole suite, browser tests included (PYTEST_ARGS="-k models -x")
test: install chromium
	DJANGO_ALLOW_ASYNC_UNSAFE=true $(BIN)/pytest $(XDIST) $(PYTEST_ARGS)

## test-deep: the whole suite with Hypothesis's deep profile (the budgets before the cut)
# The whole suite with Hypothesis's deep profile: every property, the HTTP fuzz and the
# phones' state machine with the budgets they had before `make test` was cut to minutes, or
# more (conftest.py, games/tests/budget.py). Run it once for a change to the rules, the
# writes or the views.
.PHONY: test-deep
test-deep: install chromium
	HYPOTHESIS_PROFILE=deep DJANGO_ALLOW_ASYNC_UNSAFE=true $(BIN)/pytest $(XDIST) $(PYTEST_ARGS)

## lint: ruff check and format --check, lint-imports, then typecheck
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-logo
	$(MAKE) --no-print-directory typecheck

## typecheck: mypy (strict on the rules engine and the coach; the writes, reads and views checked)
# mypy on what pyproject.toml's [tool.mypy] lists: the rules engine and the coach strictly; the
# writes, the reads and the views less strictly.
typecheck: install
	$(BIN)/mypy

## format: ruff's fixes and formatting
format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

## messages: refresh and compile the French catalogue in locale/
messages: install
	$(BIN)/python manage.py makemessages -l fr --ignore=.venv --ignore=staticfiles --ignore=tests
	$(BIN)/python manage.py compilemessages --ignore=.venv

## load: 40 tables under production's server, two faults midway (LOAD_ARGS="--tables 10")
# 40 tables of full games at once under production's server (gunicorn, uvicorn's workers,
# deploy/gunicorn.conf.py) + a PostgreSQL of its own (initdb, on loopback), 3 more phones a
# table holding the game's event stream; one worker holding streams SIGKILLed and the
# database restarted midway; fails if an acknowledged write is lost, a 500 is answered or a
# phone's last sheet is not the database's. LOAD_ARGS="--tables 10".
load: install
	$(BIN)/python scripts/load.py $(LOAD_ARGS)

## coach: build the coach's tables (about 10 minutes, once)
# The coach's tables (games/coach): every one-column configuration and each single column of
# the several-column sheets, solved exactly and saved in COACH_TABLES_DIR (about 10 minutes
# the first time, loaded after), each with its expected score and, for a one-column sheet, the
# distribution of its final scores (200,000 simulated games); then the literature's check,
# Yahtzee without bonus and Joker (245.87), with its distribution. The database migrated first: the finished games
# stored there are analysed after (solve says so in one line when it has no tables).
coach: migrate
	$(BIN)/python manage.py solve --all
	$(BIN)/python manage.py solve yahtzee --option yahtzee_bonus=false --option joker=false --distribution

## bench: performance against its budgets (about 10 minutes; bench/results/latest.json)
# Performance (bench/run.py, about 10 minutes): gunicorn with production settings on SQLite,
# then on PostgreSQL (127.0.0.1:5432, user postgres; a scorepad_bench database is created
# and dropped), each page's requests/s against a trivial view's; fails on a missed budget or
# on any answer a scenario did not expect (a 429 too: the bench's servers run without the
# rate limits). Then, for the record, the capacity in live tables polling (bench/capacity.py)
# and holding event streams under the ASGI server (bench/push.py; bench/run.py asgi_server).
# First the rules engine's own speed (pytest-benchmark), and the coach's review (bench/coach.py:
# one turn ≤ 5 ms, an 8-player review ≤ 200 ms; builds the yahtzee table if missing).
# Results: bench/results/latest.json.
bench: install
	@mkdir -p bench/results
	$(BIN)/pytest bench/test_engine_speed.py -q --benchmark-sort=name \
	  --benchmark-columns=min,median,mean,rounds --benchmark-json=bench/results/engine.json
	$(BIN)/python -W ignore::UserWarning -m bench.coach
	$(BIN)/python -m bench.run

## proxy-check: the shipped nginx under slow clients and floods (about 4 minutes)
# The shipped proxy under attack (scripts/proxy_check.py, about 4 minutes): 20 slow-header
# connections for 30 s against bare gunicorn, then against nginx (deploy/nginx.conf, as
# shipped) in front of it, /healthz latency measured meanwhile; fails if behind nginx its
# p99 reaches 1 s, or a promise of the proxy (X-Forwarded-Proto, body limit, static
# caching, rate limit, no token in the access logs; the event streams: an event within
# 250 ms of its write, a stream idle 61 s, 1,000 held while the pages answer) does not
# hold. Needs Debian's nginx.
proxy-check: install
	$(BIN)/python scripts/proxy_check.py

## mutants: mutation testing of games/rules, deep profile against default (14 to 35 minutes)
# Mutation testing of the rules engine (scripts/mutants.py, mutmut; [tool.mutmut] in
# pyproject.toml): a sample of games/rules' mutants (96 of about 3,100: each function's 13th and
# 17th) against the engine's own tests (games/tests but the coach's), under the deep Hypothesis
# profile, then under the default one, the same examples every run. Prints killed / tested,
# survivors and timeouts for each, and fails if the default profile kills fewer than the deep
# one. 14 to 35 minutes on these 2 cores, as busy as other work keeps them (measured: the deep
# profile 9.4 with mutmut's set-up, the default 4.8; and 8 + 21 + 6 under heavy load).
# MUTANTS_PROFILES=default for one profile only; MUTANTS_SAMPLE='*' for every mutant (hours).
mutants: install
	$(BIN)/python scripts/mutants.py $(MUTANTS_PROFILES)
