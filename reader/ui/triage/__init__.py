"""The triage screen: one card at a time, the decisions, the ranking behind "best first" and the
session summary."""
