"""Render the app icon's PNG sizes from its SVG with Qt's own SVG renderer.

Desktop menus and the window manager want bitmaps at fixed sizes (the freedesktop icon theme's
hicolor sizes); the SVG stays the one source, and the PNGs are committed so neither the build
nor an install needs this script. Run it after editing `resources/icons/cann-config.svg`:

    .venv/bin/python packaging/render_icons.py            # writes resources/icons/cann-config-<N>.png
    .venv/bin/python packaging/render_icons.py --out DIR  # somewhere else (the tests do this)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

ICON_DIR = Path(__file__).resolve().parent.parent / "resources" / "icons"
SVG_NAME = "cann-config.svg"
# The hicolor theme's common bitmap sizes, 16 to 256 pixels.
SIZES = (16, 22, 24, 32, 48, 64, 128, 256)


def png_name(size: int) -> str:
    """The file name of the icon rendered at `size` x `size` pixels."""
    return f"cann-config-{size}.png"


def render_icons(svg: Path, out_dir: Path, sizes: Sequence[int] = SIZES) -> list[Path]:
    """Render `svg` into one square PNG per size in `out_dir`; return the written paths."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication([])  # noqa: F841 - QPainter needs one
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"render_icons: {svg}: not an SVG Qt can render")
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        path = out_dir / png_name(size)
        if not image.save(str(path), "PNG"):
            raise SystemExit(f"render_icons: could not write {path}")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Render the app icon's PNG sizes from its SVG.")
    parser.add_argument("--svg", type=Path, default=ICON_DIR / SVG_NAME, help="the source SVG")
    parser.add_argument("--out", type=Path, default=ICON_DIR, help="where the PNGs go")
    args = parser.parse_args(argv)
    for path in render_icons(args.svg, args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
