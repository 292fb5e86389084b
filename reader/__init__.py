"""Reader: read, triage and annotate research-paper abstracts."""

__version__ = "0.1.0"
APP_NAME = "Reader"
APP_ID = "org.reader.Reader"
