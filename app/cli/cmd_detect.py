"""`cann-config detect`: which Ascend device a host carries, as the rest of the tool will use it.

Without files it runs npu-smi on this host (app/device/hostprobe.py, at most 5 s). With
`--npu-smi-info FILE` (and `--npu-smi-board FILE ...` for Atlas A3 and Ascend 950) it reads a
customer's saved output instead; `--device SOC|SERIES` stands in for a device chosen by hand.
`--json` prints the shape of docs/architecture.md#json-output: {"soc_version", "series", "source", "npus", "notes"}.
A file that is not npu-smi output ends with exit 2 and one line naming it.
"""

from __future__ import annotations

import argparse
import json

from cann_config.app.device.availability import device_text, source_phrase
from cann_config.app.device.hostprobe import HostProbe, probe_host
from cann_config.app.device.npusmi import device_from_npu_smi, read_npu_smi_file
from cann_config.app.device.table import DeviceInfo, device_from_choice
from cann_config.app.errors import UsageError, explain
from cann_config.app.textsafe import json_text, terminal_text

DESCRIPTION = ("Detect the Ascend device: run npu-smi on this host (with a timeout), or read saved "
               "npu-smi output, and print the SoC version, the product series and how it was found.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `cann-config detect` (app/cli/__init__.py creates the parser)."""
    p.add_argument("--npu-smi-info", metavar="FILE",
                   help="saved output of 'npu-smi info' (or 'npu-smi info -m') instead of running npu-smi here")
    p.add_argument("--npu-smi-board", metavar="FILE", nargs="+", action="extend", default=[],
                   help="saved output of 'npu-smi info -t board -i N -c C' (needed for Atlas A3 and Ascend 950); "
                        "several files may follow, and the option may be repeated")
    p.add_argument("--device", metavar="SOC|SERIES",
                   help="a device chosen by hand (an SoC version such as Ascend910B3, or a series id such as "
                        "atlas-a2) instead of detecting one")
    p.add_argument("--json", action="store_true", help="print the device as JSON")


def detect(args: argparse.Namespace) -> tuple[DeviceInfo, HostProbe | None]:
    """The device the arguments describe, and the host probe when one ran."""
    if args.device is not None:
        if args.npu_smi_info or args.npu_smi_board:
            raise UsageError.from_code("core-cli-device-with-npu-smi")
        try:
            return device_from_choice(args.device, source="manual"), None
        except ValueError as exc:
            raise UsageError.from_code("core-cli-device-invalid", detail=explain(exc)) from None
    if args.npu_smi_info or args.npu_smi_board:
        info = read_npu_smi_file(args.npu_smi_info) if args.npu_smi_info else None
        boards = [read_npu_smi_file(path) for path in args.npu_smi_board]
        device = device_from_npu_smi(info, boards, source="npu-smi output file",
                                     info_source=str(args.npu_smi_info or "<npu-smi info>"),
                                     board_sources=[str(path) for path in args.npu_smi_board])
        return device, None
    probe = probe_host()
    return probe.device, probe


def format_device(device: DeviceInfo, probe: HostProbe | None = None, files: list[str] | None = None,
                  lang: str | None = None) -> str:
    """The device for a human: what it is, its series, how it was found, its NPUs, the notes."""
    unknown = device_text("devices-label-unknown", lang)

    def label(code: str) -> str:
        text = device_text(code, lang)
        return text if text.endswith("：") else text + " "

    how = source_phrase(device.source, lang)
    if files:
        how += f" ({', '.join(files)})"
    # the product has its own line above
    shown = device._replace(product=None).label(lang) if (device.series or device.soc_version) else unknown
    lines = [f"{label('devices-label-product')}{device.product}{device_text('devices-label-product-how', lang)}"
             ] if device.product else []
    lines += [
        f"{label('devices-label-device')}{shown}",
        f"{label('devices-label-soc')}{device.soc_version or unknown}",
        f"{label('devices-label-series')}{device.series_name(lang) or unknown}"
        + (f" [{device.series}]" if device.series else ""),
        f"{label('devices-label-how')}{how}",
    ]
    if probe is not None:
        for code, version, path in (("devices-label-toolkit", probe.toolkit_version, probe.versions.get("toolkit_path")),
                                    ("devices-label-driver", probe.driver_version, probe.versions.get("driver_path"))):
            lines.append(f"{label(code)}{version or unknown}" + (f" ({path})" if version and path else ""))
    if device.npus:
        lines.append(label("devices-label-npus").rstrip())
        for chip in device.npus:
            lines.append("  " + device_text("devices-label-npu-row", lang, npu=chip.npu, chip=chip.chip,
                                            soc=chip.soc_version or unknown))
    if device.notes:
        lines.append(label("devices-label-notes").rstrip())
        lines.extend(f"  - {note}" for note in device.notes)
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    device, probe = detect(args)
    if args.json:
        print(json_text(json.dumps(device.to_json(), ensure_ascii=False, indent=2)))
    else:
        files = ([args.npu_smi_info] if args.npu_smi_info else []) + list(args.npu_smi_board)
        # npu-smi's stderr reaches the notes: no control character reaches the terminal.
        print(terminal_text(format_device(device, probe, files), one_line=False))
    return 0
