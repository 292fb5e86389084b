"""Widgets and looks every screen shares: plain-text labels, flow layout, folding rows, the status
bar, fonts and themes. Nothing here knows a screen."""
