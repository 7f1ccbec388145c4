"""Draw the app's PNG icons from SVG with Chromium, once; the PNGs are committed.

    .venv/bin/python scripts/icons/make_icons.py

"any" icons are the favicon (a die showing three, its corners transparent); the
maskable one and Apple's fill the whole square (the launcher or iOS cuts the shape),
the pips kept inside the middle 80 % that every mask leaves.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
STATIC = HERE.parent.parent / "static"
ICONS = {
    "icon-192.png": (STATIC / "favicon.svg", 192),
    "icon-512.png": (STATIC / "favicon.svg", 512),
    "icon-maskable-512.png": (HERE / "full-bleed.svg", 512),
    "apple-touch-icon.png": (HERE / "full-bleed.svg", 180),
}


def main() -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        for name, (svg, size) in ICONS.items():
            page = browser.new_page(viewport={"width": size, "height": size})
            page.goto(svg.as_uri())
            # The SVG document itself, drawn at the icon's size from its top-left corner.
            page.locator("svg").evaluate(
                "(svg, size) => { svg.setAttribute('width', size);"
                " svg.setAttribute('height', size); }",
                size,
            )
            page.screenshot(path=STATIC / "icons" / name, omit_background=True)
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
