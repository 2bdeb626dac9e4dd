"""Take the README's screenshots of the four wizard pages.

Run under a real X server with a CJK font installed (Debian: xvfb, libxcb-icccm4,
libxcb-keysyms1, libxcb-cursor0, fonts-wqy-microhei):

    xvfb-run -a -s "-screen 0 1366x768x24" env QT_QPA_PLATFORM=xcb [QT_SCALE_FACTOR=2] \
        .venv/bin/python docs/screenshots/take_screenshots.py [--lang zh_CN] [--out DIR]

The window is not resized: it opens as a user's would on that screen (a 1366x768 laptop), so
the pictures show what fits; at QT_SCALE_FACTOR=2 the screen is 683x384 logical pixels (the
README's scale2/ pictures).

`--lang zh_CN` takes the Chinese ones (into docs/screenshots/zh_CN/ unless --out says where);
tests/ui/test_screenshots_zh.py runs it that way.

The scene: detection found an Atlas A2 (Ascend910B3) but support staff prepare settings for a
customer's Ascend310P3; static memory policy 2 with concurrent graphs; a cache over its limit.
Everything lives in a temporary directory; the real home and settings are not touched.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))


def make_cache(base: Path) -> None:
    old = time.time() - 3 * 86400
    for soc, groups in (("Ascend910B3", 90), ("Ascend310P3", 30)):
        folder = base / "kernel_cache" / soc / "kernel_meta"
        folder.mkdir(parents=True)
        for i in range(groups):
            name = f"te_op_{i:04d}"
            (folder / f"{name}.o").write_bytes(b"\0" * 96 * 1024)
            (folder / f"{name}.json").write_text(json.dumps({"binFileName": name, "binFileSuffix": ".o"}))
            for suffix in (".o", ".json"):
                os.utime(folder / f"{name}{suffix}", (old + i * 600, old + i * 600))
    (base / "kernel_cache" / "op_cache.ini").write_text(
        "#配置文件格式，必须包含，自动生成的文件中默认包括如下信息，手动创建时，需要输入\n"
        "[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n"
        "#限制某个AI处理器下缓存文件的磁盘空间的大小，整数，单位为MB\nmax_op_cache_size=8\n"
        "#当磁盘空间不足时，设置需要保留的缓存文件比例，取值范围：[1,100]，单位为百分比\nremain_cache_size_ratio=60\n",
        encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Take the screenshots of the four wizard pages.")
    parser.add_argument("--lang", choices=("en", "zh_CN"), default="en")
    parser.add_argument("--out", type=Path, help="where the PNG files go (default: docs/screenshots[/zh_CN])")
    args = parser.parse_args(argv)
    out = args.out or (HERE if args.lang == "en" else HERE / args.lang)
    out.mkdir(parents=True, exist_ok=True)

    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox

    import cann_config.ui as ui
    from cann_config.app.device.availability import device_text
    from cann_config.app.device.hostprobe import HostProbe
    from cann_config.app.device.table import device_from_soc
    from cann_config.ui.editors import OptionEditor

    app = QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HOME"] = tmp
        for name in ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO"):
            os.environ.pop(name, None)
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)
        cache = Path(tmp) / "cache"
        make_cache(cache)
        from cann_config.ui.translation import apply_language

        apply_language(args.lang)
        # What the probe says is in the language of the window, as app.device.hostprobe writes it.
        ran = device_text("devices-probe-ran", command="npu-smi info", count=8)
        probe = HostProbe(device=device_from_soc("Ascend910B3", "npu-smi"), toolkit_version="8.5.0",
                          driver_version="25.2.0", tried=[ran])
        wizard = ui.create_wizard(probe=lambda timeout: probe)
        wizard.show()  # where and how large the wizard places itself on this screen (ui/window_geometry.py)

        def settle(condition=lambda: True, limit=20.0) -> None:
            end = time.time() + limit
            while time.time() < end:
                app.processEvents()
                if condition():
                    break
                time.sleep(0.01)
            for _ in range(20):
                app.processEvents()

        def shoot(name: str) -> None:
            settle()
            image = wizard.grab().toImage()
            path = out / f"{name}.png"
            image.save(str(path), "PNG", 9)
            if path.stat().st_size > 190_000:
                image.convertToFormat(QImage.Format.Format_Indexed8).save(str(path), "PNG", 9)
            print(f"{path.name}: {path.stat().st_size // 1024} KiB")

        settle(lambda: wizard.controller.detection_state == "done")
        combo = wizard.findChild(QComboBox, "deviceCombo")
        combo.setCurrentIndex(combo.findData("Ascend310P3"))
        usage = wizard.findChild(QComboBox, "usageCombo")
        usage.setCurrentIndex(usage.findData("tf1"))  # item data: the framework id (Estimator first)
        shoot("device")

        wizard.next()
        wizard.findChild(OptionEditor, "option_static_memory_policy").setProperty("value", 2)
        wizard.findChild(QCheckBox, "concurrentGraphsCheck").setChecked(True)
        wizard.findChild(OptionEditor, "option_atomic_clean_policy").setProperty("value", 1)
        wizard.show_option_doc("variable_use_1g_huge_page")
        shoot("memory")

        wizard.next()
        wizard.findChild(OptionEditor, "option_op_compiler_cache_dir").setProperty("value", str(cache))
        wizard.findChild(OptionEditor, "option_max_op_cache_size").setProperty("value", 6)
        wizard.cache_page.ensure_built()
        page = wizard.cache_page.usage_panel
        page.start_scan()
        settle(lambda: page.usage is not None and page.predictions() is not None)
        wizard.show_option_doc("max_op_cache_size")
        shoot("cache")

        wizard.next()
        shoot("export")
        wizard.controller.mark_saved()
        wizard.shutdown()
        wizard.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
