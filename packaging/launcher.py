"""Frozen-app entry point: runs reader.__main__.main() (a script, so no relative imports)."""

import sys

from reader.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
