"""Fetching papers in the window: Add by identifier (add_by_id.py), Add a conference
(add_venue.py) and the arXiv feeds' actions and update on open (controller.py); the network
runs on the TaskRunner's network thread, never the GUI thread."""

from .controller import SourcesController

__all__ = ["SourcesController"]
