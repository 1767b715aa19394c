# irrepro: `make book` builds the executed book, `make test` runs the tests (`make test-full`: at full size).
# Both create the pinned environment in .venv first if it is missing or out of date.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.irrepro-installed
BUILD  := _build

# Paths given relative to the repository must stay valid inside notebooks (run from notebooks/).
ifdef IRREPRO_MIRROR
export IRREPRO_MIRROR := $(abspath $(IRREPRO_MIRROR))
endif
ifdef IRREPRO_CACHE
export IRREPRO_CACHE := $(abspath $(IRREPRO_CACHE))
endif
export IRREPRO_RESULTS := $(abspath $(BUILD))/results
# The book's pages show the labelled simulated stand-in of a collection that cannot be had
# (IRREPRO_REQUIRE_REAL=1 forbids it); outside the book, the loaders give real data or an error.
book student: export IRREPRO_ALLOW_SIMULATED ?= 1
# The book's heavy computations on all cores unless IRREPRO_JOBS says otherwise (speed only: the
# numbers do not depend on the number of workers).
book student: export IRREPRO_JOBS ?= -1

.PHONY: book book-offline student student-config test test-full e2e venv lock clean data-status bench

venv: $(STAMP)

# Bytecode for the installed modules, compiled on all cores (pip compiles them one by one: --no-compile,
# then compileall -j 0; test suites of the installed packages left out). Not left to each module's
# first import: where PYTHONDONTWRITEBYTECODE is set (CI containers, this project's CI), nothing is
# ever written then, and every process - each test's interpreter, each notebook's kernel - compiles
# numpy, pandas, scipy ... from source again (issue 30).
$(STAMP): pyproject.toml requirements.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=23"
	$(BIN)/python -m pip install --quiet --no-compile -c requirements.lock -e ".[book,test]"
	@$(BIN)/python -m compileall -q -j 0 -x 'site-packages/.*/tests?/' "$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" >/dev/null \
	  || echo "make venv: compileall could not compile some installed modules (they compile, or fail, at import)"
	@touch $(STAMP)

# The execution cache (_build/.jupyter_cache) is keyed on notebook text only, so it is dropped, with
# the results the pages recorded (_build/results), whenever the package, the papers' numbers
# (book/papers/*.yml), the pins, the scale or the data status change.
book: $(STAMP)
	@fp=$$( { cat $$(find irrepro book/_ext book/papers book/margins.yml -name '*.py' -o -name '*.tsv' -o -name '*.yml' | sort) requirements.lock; \
	          echo "$${IRREPRO_SCALE:-paper}"; $(BIN)/irrepro data status --brief; } | sha256sum | cut -c1-16 ); \
	 if [ "$$(cat $(BUILD)/.inputs 2>/dev/null)" != "$$fp" ]; then \
	   rm -rf $(BUILD)/.jupyter_cache $(BUILD)/jupyter_execute $(BUILD)/html $(BUILD)/.doctrees $(BUILD)/results; fi; \
	 mkdir -p $(BUILD) && echo "$$fp" > $(BUILD)/.inputs.new
	@$(MAKE) --no-print-directory student-config
	$(BIN)/python book/_ext/editions.py --build $(BUILD)
	@mv $(BUILD)/.inputs.new $(BUILD)/.inputs
	@echo "book: $(BUILD)/html/index.html"

# The book without network and without a mirror (README: it still builds, on the labelled simulated
# stand-in): the data page and a chapter that thins and pools (book/_toc_offline.yml) at quick scale,
# from an empty data cache, every cell executed, warnings as errors, into _build/offline. CI runs it
# (.ci/run, in a network namespace of its own where the system allows one).
OFFLINE := $(abspath $(BUILD))/offline
book-offline: $(STAMP)
	rm -rf $(OFFLINE) && mkdir -p $(OFFLINE)/cache
	env -u IRREPRO_MIRROR -u IRREPRO_REQUIRE_REAL IRREPRO_OFFLINE=1 IRREPRO_ALLOW_SIMULATED=1 IRREPRO_SCALE=quick \
	  IRREPRO_CACHE=$(OFFLINE)/cache IRREPRO_RESULTS=$(OFFLINE)/results \
	  $(BIN)/jupyter-book build . --toc book/_toc_offline.yml --path-output $(OFFLINE) --builder html -W -n --keep-going
	@echo "offline book: $(OFFLINE)/_build/html/index.html"

# The same book without the exercises' solutions (sphinx-exercise's hide_solutions), for students:
# _build/student/_build/html, copied into the book's site as student/ (the coursework page links
# it). `make book` builds it (book/_ext/editions.py, issue 24 and 30): its Sphinx run starts beside
# the book's once the book's notebooks are in the execution cache, which it reuses (nothing is
# executed twice; its output in _build/student.log); it is skipped when nothing it is built from
# changed since it was last built. Its download links and launch buttons serve its own sources,
# without the solutions (book/_ext/irrepro_sphinx.py; the launch notebooks in student/, issue 44).
# `make student` is the same as `make book`.
student: book

# The student edition's configuration: the book's, with the solutions hidden and the book's cache.
student-config:
	@$(BIN)/python -c "import yaml; c = yaml.safe_load(open('_config.yml')); \
	  c['sphinx']['config']['hide_solutions'] = True; c['sphinx']['config']['irrepro_edition'] = 'student'; c['execute']['cache'] = '$(abspath $(BUILD))/.jupyter_cache'; \
	  c['bibtex_bibfiles'] = ['$(abspath book/references.bib)']; c['html']['favicon'] = '$(abspath book/_static/favicon.png)'; \
	  c['sphinx']['local_extensions'] = {'irrepro_sphinx': '$(abspath book/_ext)'}; \
	  c['title'] += ' (student edition)'; yaml.safe_dump(c, open('$(BUILD)/_config.student.yml', 'w'))"

# -ra (pyproject's addopts) lists every skipped test; tests/conftest.py counts them by reason. The
# checks against trec_eval's own binaries and test files run where TREC_EVAL, TREC_EVAL_9 and
# TREC_EVAL_TEST name them (see README, CI). On all the machine's cores (pytest-xdist -n auto; issue 30),
# the tests marked slow started first and the idle worker taking tests from the busy one's queue
# (--dist worksteal). `make test` runs the slow tests that have two sizes at their quick size (fewer
# random cases, a spread of the runs: the same checks, every code path); `make test-full` (CI) at
# their full size (pytest --full; tests/conftest.py, the `size` fixture).
test: $(STAMP)
	$(BIN)/python -m pytest -n auto --dist worksteal

test-full: $(STAMP)
	$(BIN)/python -m pytest -n auto --dist worksteal --full

# The built site in headless Chromium (Debian's chromium + chromium-driver; no browser download),
# and the student edition's links and one of its notebooks run from a clean environment
# (tests/e2e/test_student_edition.py; with IRREPRO_MIRROR, else that run is skipped).
e2e: $(STAMP)
	$(BIN)/python -m pytest -m e2e tests/e2e -p no:xdist

data-status: $(STAMP)
	$(BIN)/irrepro data status

bench: $(STAMP)
	@for f in benchmarks/*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

# Refresh the pins from what is installed in .venv (run after changing dependencies).
lock: $(STAMP)
	$(BIN)/python -m pip freeze --exclude-editable | grep -v '^irrepro' > requirements.lock

clean:
	rm -rf $(BUILD)
