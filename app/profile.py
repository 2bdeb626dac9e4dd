"""The Profile: the user's choices as plain data (device, framework, option values).

Every exporter is a pure function of a Profile; the wizard edits one; `--profile FILE` loads
one. On disk it is the JSON format of docs/architecture.md#profile-format:

    {"format": "cann-config-profile", "version": 1, "device": "Ascend910B3" | "atlas-a2" | null,
     "framework": "tf1", "options": {"static_memory_policy": 2, ...}}

`options` holds only what the user chose; an option that is absent takes the catalog's default
for the framework. Unknown keys, unknown option ids and invalid values are refused with a
message naming the file and the key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cann_config.app.catalog import Catalog, Value, load_catalog
from cann_config.app.device.table import DeviceInfo, device_from_choice
from cann_config.app.errors import InputError, Message, explain
from cann_config.app.io.inputfiles import parse_json_bounded, read_input_bytes

PROFILE_FORMAT = "cann-config-profile"
PROFILE_VERSION = 1
PROFILE_KEYS = ("format", "version", "device", "framework", "options")
DEFAULT_FRAMEWORK = "tf1"


@dataclass(frozen=True)
class Profile:
    framework: str = DEFAULT_FRAMEWORK
    device: str | None = None
    options: Mapping[str, Value] = field(default_factory=dict)

    def value(self, option_id: str, catalog: Catalog | None = None) -> Value:
        """The chosen value, or the framework's default when the user chose none."""
        if option_id in self.options:
            return self.options[option_id]
        return (catalog or load_catalog()).default_for(option_id, self.framework)

    def values(self, catalog: Catalog | None = None) -> dict[str, Value]:
        catalog = catalog or load_catalog()
        return {oid: self.value(oid, catalog) for oid in catalog.options}

    def changed(self, catalog: Catalog | None = None) -> dict[str, Value]:
        """Only the choices that differ from the framework's defaults ("show my changes")."""
        catalog = catalog or load_catalog()
        return {oid: v for oid, v in self.options.items() if v != catalog.default_for(oid, self.framework)}

    def with_value(self, option_id: str, value: Value) -> Profile:
        return replace(self, options={**self.options, option_id: value})

    def without_value(self, option_id: str) -> Profile:
        return replace(self, options={k: v for k, v in self.options.items() if k != option_id})

    def device_info(self) -> DeviceInfo | None:
        """The profile's device as a DeviceInfo (source "profile"); None when unset."""
        if not self.device:
            return None
        return device_from_choice(self.device, source="profile")

    def to_json(self) -> dict[str, Any]:
        catalog = load_catalog()
        ordered = {oid: self.options[oid] for oid in catalog.options if oid in self.options}
        return {"format": PROFILE_FORMAT, "version": PROFILE_VERSION, "device": self.device,
                "framework": self.framework, "options": ordered}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, indent=2, allow_nan=False) + "\n"


def profile_from_json(data: object, source: str = "<profile>") -> Profile:
    """Validate parsed JSON as a Profile; raise InputError naming `source` and the bad key."""
    catalog = load_catalog()
    if not isinstance(data, dict):
        raise InputError.from_code("core-profile-not-object", source)
    unknown = [k for k in data if k not in PROFILE_KEYS]
    if unknown:
        raise InputError.from_code("core-profile-unknown-key", source, key=unknown[0], keys=", ".join(PROFILE_KEYS))
    if data.get("format") != PROFILE_FORMAT:
        raise InputError.from_code("core-profile-format", source, expected=PROFILE_FORMAT)
    version = data.get("version")
    if isinstance(version, bool) or version != PROFILE_VERSION:
        raise InputError.from_code("core-profile-version", source, version=version, known=PROFILE_VERSION)
    framework = data.get("framework", DEFAULT_FRAMEWORK)
    if not isinstance(framework, str):
        raise InputError.from_code("core-profile-value-type", source, key="framework", expected="string",
                                   found=json_type(framework))
    if framework not in catalog.frameworks:
        raise InputError.from_code("core-profile-framework", source, framework=framework,
                                   frameworks=", ".join(catalog.frameworks))
    device = data.get("device")
    if device is not None:
        if not isinstance(device, str):
            raise InputError.from_code("core-profile-device-type", source)
        try:
            device_from_choice(device)
        except ValueError as exc:
            raise InputError.from_code("core-profile-device", source, detail=explain(exc)) from None
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise InputError.from_code("core-profile-options-type", source)
    for oid, value in options.items():
        if isinstance(value, (list, dict)):
            raise InputError.from_code("core-profile-value-type", source, key=f"options.{oid}",
                                       expected="string, number or boolean", found=json_type(value))
        if oid not in catalog.options:
            raise InputError.from_code("core-profile-unknown-option", source, option=oid)
        problem = catalog.options[oid].problem(value)
        if problem is not None:
            raise InputError.from_code("core-profile-option-invalid", source, option=oid, detail=problem)
    return Profile(framework=framework, device=device, options=dict(options))


# A profile is a few hundred bytes; anything this big is not one.
MAX_PROFILE_BYTES = 1 << 20


def json_type(value: object) -> str:
    """The JSON name of a parsed value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def load_profile(path: str | Path) -> Profile:
    """Read a profile file through the guarded reader (app.io.inputfiles); InputError naming the
    file (and line) when it is not a usable profile."""
    path = Path(path)
    data, _ = read_input_bytes(path, Message("core-kind-profile"), MAX_PROFILE_BYTES)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError.from_code("core-profile-cannot-read", path, line, detail=explain(exc)) from None
    return profile_from_json(parse_json_bounded(text, path), str(path))
