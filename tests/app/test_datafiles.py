"""The compiled copy of the data files (app/data_compiled.py, app/datafiles.py) is current and
gives what parsing the files gives; an edited file is parsed instead."""

from __future__ import annotations

from pathlib import Path

from cann_config.app import datafiles
from cann_config.app.catalog import load_catalog, parse_catalog
from cann_config.app.device.table import load_device_table, parse_device_table
from cann_config.app.resources import resource


def test_the_committed_copy_is_make_datafiles_output():
    compiled = Path(datafiles.__file__).with_name("data_compiled.py").read_text(encoding="utf-8")
    assert compiled == datafiles.compile_data_files(), "run `make datafiles`"


def test_the_copy_is_what_the_toml_parser_gives():
    tomllib = datafiles.toml_module()
    for name in datafiles.COMPILED_FILES:
        raw = resource(name).read_bytes()
        assert datafiles.compiled_data(name, raw) == tomllib.loads(raw.decode("utf-8"))


def test_the_loaded_tables_equal_the_parsed_files():
    devices = parse_device_table(resource("devices.toml").read_text(encoding="utf-8"), "resources/devices.toml")
    assert load_device_table() == devices
    catalog = parse_catalog(resource("catalog.toml").read_text(encoding="utf-8"), "resources/catalog.toml",
                            frozenset(devices.series))
    assert load_catalog() == catalog


def test_an_edited_file_is_not_read_from_the_copy():
    raw = resource("catalog.toml").read_bytes()
    assert datafiles.compiled_data("catalog.toml", raw) is not None
    assert datafiles.compiled_data("catalog.toml", raw + b"\n") is None
    assert datafiles.compiled_data("catalog.toml", raw.replace(b"=", b"= ", 1)) is None
    assert datafiles.compiled_data("no-such.toml", raw) is None
