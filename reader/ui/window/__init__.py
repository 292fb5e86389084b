"""The main window: it assembles the screens (list, paper, triage, map, vault) and owns the menus,
the splitter, the remembered settings, library switching, imports/exports and index upkeep."""
