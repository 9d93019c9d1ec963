# The course's verbs. Every target creates .venv on first use (.venv313 with PYTHON=python3.13).
#   make lab                        open your working copy (work/, made from notebooks/ on
#                                   first use, kept) in JupyterLab
#   make reset NB=NN_topic [CELL=grade_id]  one notebook (or one exercise) of work/ back to
#                                   its released state; the rest of your work is kept
#   make test                       run the whole test suite
#   make test-py313                 every notebook graded on Python 3.13 with NumPy 2 and no MXNet
#                                   (.venv313, several GB once; PY313=/path/to/python3.13)
#   make release                    regenerate notebooks/ from solutions/
#   make validate NB=NN_topic       check your answers in one notebook of work/ (or
#                                   NB=path/to/notebook.ipynb)
#   make bench                      print the figures the course promises
#   make soak [NB=NN_topic SCALE=10 SEEDS=2]  grade the solutions with many more generated
#                                   test inputs: a correct answer must lose nothing
#   make mutants [NB=NN_topic ONLY=grade_id]  mutants of each reference answer graded by the
#                                   hidden tests: each must lose (tests/mutants.py)
#   make catch-rate [NB=NN_topic SEEDS=20]  each wrong answer in tests/variants graded under
#                                   SEEDS seeds: it must lose under all of them
#   make autograde ASSIGNMENT=NN_topic SUBMISSIONS=folder-or.zip [JOBS=n HIDDEN=show PATTERN=regex
#                                   SANDBOX=off DB_URL=postgresql://user@host/course
#                                   SCHEDULER=tcp://host:8786 REGRADE=all|ada,ben]
#                                   grade a whole class: gradebook, feedback, CSV, item report
#                                   (on a local Dask cluster, or the one SCHEDULER names)
#   make grade-demo                 grade a synthetic class of 00_getting_started
#   make hub [HUB_PORT=8000]        the course on a local JupyterHub (as root): Unix accounts
#                                   ada, ben, cy and instructor, nbgrader's exchange in
#                                   /srv/nbgrader/fast-dl (grading/hub/); make hub-stop stops it
#   make system                     install what the course needs from the OS (Debian):
#                                   chromium (browser tests), bubblewrap (grading sandbox),
#                                   postgresql (a class server's gradebook), nodejs and npm
#                                   (the hub's proxy)

# The interpreter: Python 3.11 (with MXNet, the reference for its cells) or 3.12-3.13 (NumPy 2
# and PyTorch alone), e.g. make lab PYTHON=python3.13. Each minor version has its own venv:
# .venv for 3.11, .venv312 and .venv313 for the others.
PYTHON ?= python3.11
PYVER := $(shell $(PYTHON) -c 'import sys; print("%d%d" % sys.version_info[:2])' 2>/dev/null)
VENV ?= $(if $(filter-out 311,$(PYVER)),.venv$(PYVER),.venv)
# what make installs besides the course: the tests, and MXNet where its marker allows (3.11)
EXTRAS ?= test,mxnet
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export JUPYTER_CONFIG_PATH := $(CURDIR)/grading
LAB_ROOT ?= work
LAB_ARGS ?=
PYTEST_ARGS ?=
JOBS ?= 2
# make test's pytest workers: twice the cores (at most 8). Most of a grading run waits (the
# learner's kernel and the judge take turns, the async notebook's tests sleep, the browser
# waits on JupyterLab): grading one notebook alone kept this 2-core machine's CPUs 15-60%
# busy, mostly about 40% (/proc/stat every 10 s, 2026-11-24); the whole suite at 4 workers, 97-100%
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); echo $$(( 2 * n < 8 ? 2 * n : 8 )))
HIDDEN ?= hide
SANDBOX ?= on
# Debian packages the course needs: the browser tests drive chromium, the grader's
# sandbox is bubblewrap (prlimit and setpriv come with util-linux, always installed),
# a class server's gradebook is PostgreSQL (its tests start a server of their own), and
# the course hub's proxy is an npm package (nodejs, npm). Each entry is program:packages;
# only the packages of missing programs are installed (a machine with another Node.js,
# e.g. NodeSource's, keeps it: Debian's npm would conflict with it).
SYSTEM_NEEDS := /usr/bin/chromium:chromium /usr/bin/bwrap:bubblewrap \
  /usr/lib/postgresql/*/bin/initdb:postgresql /usr/bin/npm:nodejs,npm
HUB_PORT ?= 8000

.PHONY: lab test test-py313 lint release validate bench soak mutants catch-rate autograde grade-demo check-python system hub \
  hub-stop reset

# Installs the missing Debian packages as root or with non-interactive sudo; otherwise
# stops, before anything runs, with the one command that installs them.
system:
	@missing=""; packages=""; for need in $(SYSTEM_NEEDS); do found=""; \
	  for p in $${need%%:*}; do [ -x "$$p" ] && found=1; done; \
	  [ -n "$$found" ] || { missing="$$missing $${need%%:*}"; packages="$$packages $$(echo $${need#*:} | tr , ' ')"; }; done; \
	[ -z "$$missing" ] && exit 0; \
	if [ "$$(id -u)" -eq 0 ]; then SUDO=""; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	else echo "error: missing$$missing; install them with: sudo apt-get update && sudo apt-get install -y$$packages" >&2; exit 1; fi; \
	echo "installing$$packages (missing:$$missing)"; \
	$$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$packages >/dev/null \
	  || { echo "error: could not install$$packages; run: sudo apt-get update && sudo apt-get install -y$$packages" >&2; exit 1; }

check-python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] <= (3, 13) else 1)' 2>/dev/null || { \
	  found=$$($(PYTHON) --version 2>/dev/null) || found="not found"; \
	  echo "error: the course needs Python 3.11, 3.12 or 3.13 (3.11 adds MXNet, whose numpy<1.24 has no wheels for newer Pythons); '$(PYTHON)' is $${found:-not Python 3.11-3.13}. Install one, or run: make $(or $(GOAL),$(MAKECMDGOALS)) $(or $(PYVAR),PYTHON)=/path/to/python3.13" >&2; \
	  exit 1; }

$(STAMP): pyproject.toml
	@$(MAKE) --no-print-directory check-python GOAL="$(or $(GOAL),$(MAKECMDGOALS))"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" >/dev/null
	$(BIN)/jupyter labextension enable @jupyter/nbgrader >/dev/null 2>&1 || true
	$(BIN)/jupyter server extension enable --sys-prefix nbgrader.server_extensions.formgrader nbgrader.server_extensions.assignment_list nbgrader.server_extensions.course_list >/dev/null
	$(BIN)/jupyter server extension disable --sys-prefix nbgrader.server_extensions.validate_assignment >/dev/null
	printf '{"ServerApp": {"jpserver_extensions": {"labkit.server": true}}}\n' > $(VENV)/etc/jupyter/jupyter_server_config.d/labkit.server.json  # the Validate button's server side: nbgrader's, reporting each test cell (labkit/server.py)
	touch $(STAMP)

# work/ is the learner's working copy (git-ignored): made from notebooks/ (the release) on
# first use and then only completed with new assignments. No "Jupyter news?" pop-up
# (grading/lab/overrides.json), as on the hub.
lab: $(STAMP)
	$(if $(filter work,$(LAB_ROOT)),@$(BIN)/python grading/tools/workcopy.py ensure --work work)
	$(BIN)/jupyter lab --ServerApp.root_dir=$(LAB_ROOT) --LabApp.app_settings_dir=$(CURDIR)/grading/lab $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

reset: $(STAMP)
	@$(BIN)/python grading/tools/workcopy.py reset "$(NB)" $(if $(CELL),--cell '$(CELL)')

lint: $(STAMP)
	$(BIN)/ruff check labkit grading tests benchmarks

test: system $(STAMP) lint
	$(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadgroup --durations=15 $(PYTEST_ARGS)

# Python 3.13 with NumPy 2 and PyTorch alone, in its own .venv313 (the torch PyPI has for it
# brings CUDA's libraries: several GB, installed once): every notebook run top to bottom by
# nbgrader, solutions full marks and blanks zero, and the course graded without MXNet. Not part
# of make test. PY313=/path/to/python3.13 picks the interpreter.
PY313 ?= python3.13
test-py313: system
	@$(MAKE) --no-print-directory .venv313/.installed PYTHON=$(PY313) VENV=.venv313 GOAL=test-py313 PYVAR=PY313
	@.venv313/bin/python -c 'import sys, numpy, torch; from jupyter_client.kernelspec import KernelSpecManager; \
	  kernel = KernelSpecManager().get_kernel_spec("python3").argv[0]; \
	  print("Python", sys.version.split()[0], "NumPy", numpy.__version__, "torch", torch.__version__, "kernel", kernel); \
	  assert sys.version_info[:2] == (3, 13) and int(numpy.__version__.split(".")[0]) >= 2 and ".venv313/" in kernel'
	.venv313/bin/python -m pytest -n $(TEST_JOBS) --dist loadgroup -p no:cacheprovider $(PYTEST_ARGS) \
	  tests/notebooks/test_notebooks.py tests/notebooks/test_without_mxnet.py \
	  -k 'test_without_mxnet or ((solution or blank) and not trimmed)'

release: $(STAMP)
	$(BIN)/python grading/tools/release.py $(NB)

# failing tests are validate's report, not make's error: only a notebook it cannot check
# (status 2) fails the target
validate: $(STAMP)
	@$(BIN)/python grading/tools/validate.py $(NB); status=$$?; [ $$status -ne 2 ]

# the solutions graded with SCALE times the generated examples under SEEDS seeds (tests/soak.py)
soak: system $(STAMP)
	@$(BIN)/python tests/soak.py $(NB) $(if $(SCALE),--scale $(SCALE)) $(if $(SEEDS),--seeds $(SEEDS)) --jobs $(JOBS)

# each reference answer's mutants graded by the hidden tests; equivalents: tests/mutants/equivalent.txt
mutants: system $(STAMP)
	@$(BIN)/python tests/mutants.py $(NB) $(if $(ONLY),--only $(ONLY))

# each variant in tests/variants graded under SEEDS fresh seeds (tests/catch_rate.py)
catch-rate: system $(STAMP)
	@$(BIN)/python tests/catch_rate.py $(NB) $(if $(SEEDS),--seeds $(SEEDS))

bench: $(STAMP)
	@for script in benchmarks/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

# JOBS here defaults to one local Dask worker per core (the JOBS ?= 2 above is for make soak);
# SCHEDULER=tcp://host:8786 grades on an existing Dask cluster instead.
autograde: system $(STAMP)
	@$(BIN)/python grading/batch/autograde.py "$(ASSIGNMENT)" "$(SUBMISSIONS)" --hidden "$(HIDDEN)" --sandbox "$(SANDBOX)" \
	  $(if $(filter command line environment,$(origin JOBS)),--jobs $(JOBS)) \
	  $(if $(PATTERN),--pattern '$(PATTERN)') $(if $(DB_URL),--db-url '$(DB_URL)') \
	  $(if $(SCHEDULER),--scheduler '$(SCHEDULER)') $(if $(REGRADE),--regrade '$(REGRADE)')

grade-demo: system $(STAMP)
	@$(BIN)/python grading/batch/demo.py

# The course on a local JupyterHub, run as root: a Unix account per person, each server
# run as its own account, the course closed to students, nbgrader's exchange outside it;
# grading/hub/run.py sets all of that up (idempotent) and installs the pinned proxy first.
hub: system $(STAMP)
	$(BIN)/python grading/hub/run.py --port $(HUB_PORT)

hub-stop: $(STAMP)
	@$(BIN)/python grading/hub/run.py --stop
