"""Dialogs opened from the menus: export options, shortcuts, preferences, about."""
