# The README's two commands: `make run` and `make test`. Both create .venv on first use and
# reuse it afterwards (the stamp is redone only when pyproject.toml changes).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The window's translations: .ts sources (committed) compiled to .qm (build products).
TS := $(wildcard resources/translations/*.ts)
QM := $(TS:.ts=.qm)

.PHONY: run test typecheck lint bench dist clean translations ts messages datafiles ansible-venvs

# app/opcache/_native.c is compiled by the install (an optional C extension, pyproject.toml): a
# change to it reinstalls, which rebuilds it in place.
$(STAMP): pyproject.toml app/opcache/_native.c
	@$(PYTHON) -c 'import sys; sys.exit("Python >= 3.10 is needed (found %s)" % sys.version.split()[0]) if sys.version_info < (3, 10) else None'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $(STAMP)

$(QM): %.qm: %.ts | $(STAMP)
	$(VENV)/bin/pyside6-lrelease -silent $< -qm $@

translations: $(QM)

# After changing a text in ui/: bring the .ts up to date, then translate its new entries
# (tests/ui/test_translations.py fails while one is missing or unfinished).
ts: $(STAMP)
	$(VENV)/bin/pyside6-lupdate -extensions py -no-obsolete -locations none -source-language en \
		-target-language zh_CN ui -ts resources/translations/cann_config_zh_CN.ts

# The compiled copy of resources/messages/*.toml the commands read at start-up (app/messages.py
# says why); remade by `make test` whenever its content would change - commit it with the change
# (tests/app/test_findings.py fails while the committed copy is out of date). Compared by content,
# not by time stamps: a checkout or rebase gives files arbitrary times.
MESSAGES := app/message_data.py

messages: $(STAMP)
	@$(PY) -c 'import sys; from pathlib import Path; from cann_config.app.messages import compile_messages; \
		p = Path("$(MESSAGES)"); new = compile_messages(); \
		(p.read_text(encoding="utf-8") if p.exists() else None) == new or (p.write_text(new, encoding="utf-8"), print("remade", p))'

# The compiled copy of resources/catalog.toml and devices.toml the commands read at start-up
# (app/datafiles.py says why); remade by `make test` whenever its content would change - commit it
# with the change (tests/app/test_datafiles.py fails while the committed copy is out of date).
# Compared by content, as the message tables are.
DATAFILES := app/data_compiled.py

datafiles: $(STAMP)
	@$(PY) -c 'import sys; from pathlib import Path; from cann_config.app.datafiles import compile_data_files; \
		p = Path("$(DATAFILES)"); new = compile_data_files(); \
		(p.read_text(encoding="utf-8") if p.exists() else None) == new or (p.write_text(new, encoding="utf-8"), print("remade", p))'

run: $(STAMP) $(QM)
	$(VENV)/bin/cann-config $(ARGS)

# The type check (tools/typecheck.py): mypy over the packages named here, each file under its import
# name (cann_config.app.x for app/x.py) taken from pyproject.toml's package-dir - no link farm
# (docs/architecture.md#static-tools). Its cache lives in .venv: a re-run checks only what changed
# (a few seconds). Settings: [tool.mypy] in pyproject.toml.
TYPECHECK_PACKAGES := cann_config.app cann_config.ui

typecheck: $(STAMP)
	$(PY) tools/typecheck.py --cache-dir $(VENV)/mypy_cache $(TYPECHECK_PACKAGES)

# The older ansible-core releases the exported playbooks are run on (tests/app/io/test_fleet_ansible.py),
# each in a venv of its own; the newest comes with the test extra into .venv itself. 2.13.0 is the
# one ascend-deployer 26.0.0 pins for Python 3.8-3.12 (with Jinja2 3.1.2); 2.16 the middle of the range;
# 2.11.9 deployer's pin for Python 2.7-3.7 controllers (it runs on this Python too; its tests are `slow`).
ANSIBLE_CORE_OLDER := 2.11.9 2.13.0 2.16.19
ANSIBLE_VENVS := $(foreach v,$(ANSIBLE_CORE_OLDER),$(VENV)/ansible-core-$(v)/.installed)

$(VENV)/ansible-core-%/.installed: | $(STAMP)
	$(PYTHON) -m venv $(VENV)/ansible-core-$*
	$(VENV)/ansible-core-$*/bin/python -m pip install --quiet --disable-pip-version-check 'ansible-core==$*' \
		$(if $(filter 2.13.0,$*),'jinja2==3.1.2')
	@touch $@

ansible-venvs: $(ANSIBLE_VENVS)

test: $(STAMP) $(QM) messages datafiles typecheck $(ANSIBLE_VENVS)
	QT_QPA_PLATFORM=$${QT_QPA_PLATFORM:-offscreen} $(PY) -m ruff check .
	QT_QPA_PLATFORM=$${QT_QPA_PLATFORM:-offscreen} $(PY) -m pytest $(PYTEST_ARGS)

# Every benchmark (tests/bench/), then one table: measure, ratio, spread, goal, met?
bench: $(STAMP) $(QM)
	QT_QPA_PLATFORM=offscreen $(PY) tests/bench/run_all.py $(BENCH)

# The desktop bundle: dist/cann-config/ and dist/cann-config-<version>-linux-<arch>.tar.gz
# (PyInstaller from the `dist` extra, installed into .venv; see packaging/build.sh).
$(VENV)/.installed-dist: $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dist]'
	@touch $@

dist: $(VENV)/.installed-dist
	PYTHON=$(PY) packaging/build.sh

clean:
	rm -rf $(VENV) build dist *.egg-info
	rm -f $(QM)
