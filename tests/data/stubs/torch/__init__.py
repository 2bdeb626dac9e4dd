"""Stand-in for `torch`: importable, records that it was imported (torch_npu needs it first)."""

import _stub_record

_stub_record.event("import", module="torch")
__version__ = "2.6.0+stand-in"
