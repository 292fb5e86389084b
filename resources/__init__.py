"""Bundled resources: icons, fonts and style sheets."""
