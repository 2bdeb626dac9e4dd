"""Run exported snippets against the stand-in modules and print what the stand-ins recorded.

Usage: PYTHONPATH=<this folder> python run_snippets.py SNIPPET.py ...

Each snippet runs as a script (`runpy.run_path`, as `python SNIPPET.py` would) in a fresh set of
stand-in modules; the output is one JSON list with, per snippet, the error it raised (or null),
the objects it created, the events (npu.open()) it caused and the plain data it defines.
"""

import json
import os
import runpy
import sys

import _stub_record

STUB_PACKAGES = ("tensorflow", "npu_bridge", "npu_device", "torch", "torch_npu")


def _fresh_modules():
    for name in list(sys.modules):
        if name.split(".")[0] in STUB_PACKAGES:
            del sys.modules[name]
    _stub_record.reset()


def run(path):
    _fresh_modules()
    error = None
    names = {}
    environ = dict(os.environ)  # a snippet's os.environ assignments must not reach the next one
    try:
        names = runpy.run_path(path, run_name="__main__")
    except Exception as exc:  # the test wants to see the snippet's error, whatever it is
        error = f"{type(exc).__name__}: {exc}"
    finally:
        os.environ.clear()
        os.environ.update(environ)
    return {
        "file": path,
        "error": error,
        "objects": [_stub_record.to_json(obj) for obj in _stub_record.OBJECTS],
        "events": _stub_record.to_json(_stub_record.EVENTS),
        # Plain data the snippet defines (the ge-options export is a dict and nothing else).
        "data": {k: v for k, v in names.items() if not k.startswith("_") and isinstance(v, (dict, str, int))},
    }


if __name__ == "__main__":
    json.dump([run(path) for path in sys.argv[1:]], sys.stdout, ensure_ascii=True)
