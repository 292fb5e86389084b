"""The paper screen: the pane showing one paper (title, tags, citation key, abstract, notes) and
the note editing and merging behind it."""
