"""Triage mode's core (no Qt): the queue and its orders, ranking, pace and resume state."""

from reader.triage.pace import Pace, progress_text
from reader.triage.queue import ORDER_LABELS, ORDERS, TriageQueue, order_unread_first
from reader.triage.ranking import rank_like
from reader.triage.state import QueueSpec, ResumeState, resume_ids

__all__ = [
    "ORDERS",
    "ORDER_LABELS",
    "Pace",
    "QueueSpec",
    "ResumeState",
    "TriageQueue",
    "order_unread_first",
    "progress_text",
    "rank_like",
    "resume_ids",
]
