"""The vault screen: syncing notes with a folder of Markdown files, its dialogs and reports."""
