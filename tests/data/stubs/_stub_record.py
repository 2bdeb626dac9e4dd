"""What the stand-in CANN modules were given, for the export tests to compare with the Profile.

The stand-ins (tensorflow, npu_bridge, npu_device, torch, torch_npu in this folder) register every object a
snippet creates here; `run_snippets.py` turns them into JSON once the snippet has finished, so
the record shows the objects' final state (a ConfigProto is filled in after it is created).
"""

OBJECTS: list = []
EVENTS: list = []


def register(obj):
    OBJECTS.append(obj)
    return obj


def event(kind, **data):
    EVENTS.append({"kind": kind, **data})


def reset():
    OBJECTS.clear()
    EVENTS.clear()


def to_json(value):
    """JSON for a recorded value: stand-in objects describe themselves, bytes become hex."""
    if hasattr(value, "_record"):
        return value._record()
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    return value
