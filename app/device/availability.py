"""What an option can do on a device, and how the assistant names a device when it says so.

The wizard greys out an option a device or framework cannot take and shows why; the exporters
refuse such a choice with the same words. The reason names the device in the reader's language
and where the knowledge came from ("Not supported on Atlas 推理系列产品 (Ascend310P3, detected
by npu-smi)"), because support staff often reason about a machine they cannot touch, and a
manual choice must not read like a detection. When no device is known, everything is available,
with a note saying so.

The facts are data: which series support an option is `Option.series` in the catalog, which
options a framework takes is `catalog.frameworks[fid].options`, and every text comes from
`resources/messages/devices.toml` (read alone: naming a device parses no other message file).

Public API:
    availability(option, device, framework=None, catalog=None) -> Availability
    availability_map(device, framework=None, catalog=None) -> dict[option id, Availability]
    device_phrase(device, lang=None) -> str          "Atlas A2 ... (Ascend910B3, detected by npu-smi)"
    source_phrase(source, lang=None) -> str          "detected by npu-smi"
    device_texts(code, **params) -> dict[en, zh]     a message of the devices table, both languages
    device_text(code, lang=None, **params) -> str    the same, in one language
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

from collections.abc import Mapping
from typing import Any, NamedTuple

from cann_config.app.catalog import Catalog, Option, load_catalog
from cann_config.app.device.table import DeviceInfo, load_device_table
from cann_config.app.findings import Finding
from cann_config.app.i18n import pick
from cann_config.app.messages import message_file


def device_texts(code: str, **params: Any) -> dict[str, str]:
    """The message `code` of resources/messages/devices.toml in both languages, filled in."""
    template = message_file("devices")[code]
    return {lang: text.format_map(params) for lang, text in template.text.items()}


def device_text(code: str, lang: str | None = None, **params: Any) -> str:
    """The message `code` in `lang` (default: the current language)."""
    return pick(device_texts(code, **params), lang)


def _source_code(source: str) -> str:
    code = "devices-source-" + "-".join(source.lower().split())
    return code if code in message_file("devices") else "devices-source-other"


def source_phrase(source: str, lang: str | None = None) -> str:
    """How a device became known, as a phrase: "detected by npu-smi", "chosen by hand", ..."""
    return device_text(_source_code(source), lang, source=source)


def _device_phrases(device: DeviceInfo) -> dict[str, str]:
    out = {}
    for key, lang in (("en", "en"), ("zh", "zh_CN")):
        how = source_phrase(device.source, lang)
        series = device.series_name(lang)
        if series and device.soc_version:
            code = "devices-phrase-soc-inferred" if device.inferred else "devices-phrase-soc"
        elif series:
            code = "devices-phrase-series"
        elif device.soc_version:
            code = "devices-phrase-unknown"
        else:
            code = "devices-phrase-none"
        out[key] = device_text(code, lang, series=series, soc=device.soc_version, how=how)
    return out


def device_phrase(device: DeviceInfo, lang: str | None = None) -> str:
    """The device as a reason names it: its label (series and SoC) plus where it came from."""
    return pick(_device_phrases(device), lang)


def _series_list(series_ids: tuple[str, ...]) -> dict[str, str]:
    table = load_device_table()
    names = [table.series[sid].name for sid in series_ids if sid in table.series]
    return {"en": "; ".join(n["en"] for n in names), "zh": "；".join(n["zh"] for n in names)}


class Availability(NamedTuple):
    """Whether an option can be chosen for a device and framework, and why not.

    `reason` (both languages) and `code` are set when `enabled` is False; `note` carries what
    the user should know although the option is enabled (no device known, series assumed).
    """

    enabled: bool
    reason: Mapping[str, str] | None = None
    code: str | None = None
    note: Mapping[str, str] | None = None

    def reason_text(self, lang: str | None = None) -> str | None:
        return pick(self.reason, lang) if self.reason else None

    def note_text(self, lang: str | None = None) -> str | None:
        return pick(self.note, lang) if self.note else None

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        return {"enabled": self.enabled, "code": self.code, "reason": self.reason_text(lang),
                "note": self.note_text(lang)}

    def to_finding(self, severity: str = "error", file: str | None = None, line: int | None = None) -> Finding | None:
        """The refusal as a Finding (for exporters and diagnose); None when the option is enabled."""
        if self.enabled or self.reason is None or self.code is None:
            return None
        return Finding(severity=severity, code=self.code, text=dict(self.reason), file=file, line=line)


def _bilingual(code: str, **params: Mapping[str, str] | str) -> dict[str, str]:
    """Fill `code` in each language with params that may themselves be {en, zh} tables."""
    out = {}
    for key, lang in (("en", "en"), ("zh", "zh_CN")):
        filled = {name: (value[key] if isinstance(value, Mapping) else value) for name, value in params.items()}
        out[key] = device_text(code, lang, **filled)
    return out


def _framework_reason(option: Option, framework: str, catalog: Catalog) -> tuple[str, dict[str, str]]:
    table = message_file("devices")
    # torch_npu's allocator options are read by torch_npu only, whatever the page they sit on.
    alloc = ("devices-framework-alloc-conf",) if option.targets.alloc_conf else ()
    for code in (f"devices-framework-{framework}-{option.id}", *alloc, f"devices-framework-{framework}-{option.page}",
                 "devices-framework-unsupported"):
        if code in table:
            title = {key: f"{option.title[key]} ({option.id})" for key in ("en", "zh")}
            return code, _bilingual(code, framework=catalog.frameworks[framework].name, option=title)
    raise KeyError("devices-framework-unsupported")  # the message table always has the fallback


def availability(option: Option, device: DeviceInfo | None, framework: str | None = None,
                 catalog: Catalog | None = None) -> Availability:
    """Whether `option` can be chosen for `device` (None: unknown) and `framework` (None: any).

    Raises ValueError for a framework id the catalog does not know.
    """
    catalog = catalog or load_catalog()
    if framework is not None:
        if framework not in catalog.frameworks:
            raise ValueError(f"unknown framework {framework!r}; use one of {', '.join(catalog.frameworks)}")
        # A framework that cannot carry the option makes the device question moot.
        if option.id not in catalog.frameworks[framework].options:
            code, reason = _framework_reason(option, framework, catalog)
            return Availability(False, reason, code)
    if option.series is None:
        return Availability(True)
    supported = _series_list(option.series)
    if device is None or (device.series is None and device.soc_version is None):
        return Availability(True, note=_bilingual("devices-availability-no-device", supported=supported))
    if device.series is None:
        return Availability(True, note=_bilingual("devices-availability-unknown-soc", soc=device.soc_version or "",
                                                  supported=supported))
    phrase = _device_phrases(device)
    if device.series in option.series:
        note = _bilingual("devices-supported-inferred", device=phrase) if device.inferred else None
        return Availability(True, note=note)
    return Availability(False, _bilingual("devices-unsupported-series", device=phrase, supported=supported),
                        "devices-unsupported-series")


def availability_map(device: DeviceInfo | None, framework: str | None = None,
                     catalog: Catalog | None = None) -> dict[str, Availability]:
    """Availability of every catalog option, by option id (for the wizard's pages)."""
    catalog = catalog or load_catalog()
    return {oid: availability(option, device, framework, catalog) for oid, option in catalog.options.items()}
