"""Default-if-unset in the shapes launch helpers use (written for this test suite; nothing but os).

Each line keeps what the launching environment already holds, like bash's ${X:-d}: the
twin of tests/data/scripts/twins/defaults.sh.
"""
import os

os.environ.setdefault("A", "expandable_segments:True")
os.environ["B"] = os.environ.get("B", "1000")
os.environ["C"] = os.getenv("C") or "80"
