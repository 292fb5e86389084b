"""The reading group in the window (issue 29): File → Reading group…, the sync on a timer, after
one's own decisions and when the shared folder changes, and divide on a selection."""
