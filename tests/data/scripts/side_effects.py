# ruff: noqa - a sample of customer code, kept as customers write it
# If the importer ever ran this file, the test would see the file it creates (read by
# tests/app/test_importers.py; never executed).
import pathlib

pathlib.Path("PWNED").write_text("the importer executed the script")
raise SystemExit(3)
mem_config = MemoryConfig(static_memory_policy=1)
