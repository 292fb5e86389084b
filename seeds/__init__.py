"""Bundled sample library: ICML 2025 abstracts imported on first start."""
