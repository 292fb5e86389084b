"""The window's screens for fetching papers: Add a conference (add_venue.py)."""
