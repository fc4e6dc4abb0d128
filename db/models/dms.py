"""What the bot asked members by DM and still awaits, and the typed DMs it took as answers:
an answer typed while the bot was away is read when it starts, and no DM is taken twice."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Index, Integer
from sqlalchemy.orm import Mapped, mapped_column

from db.models.base import Base, UTCDateTime


class DmPrompt(Base):
    """A question (a secret, a hint, a trap) the bot asked a member by DM for a match: the DM
    channel and the prompt's message, after which the member's answer is typed."""

    __tablename__ = "dm_prompts"

    match_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    message_id: Mapped[int] = mapped_column(BigInteger)
    asked_at: Mapped[datetime] = mapped_column(UTCDateTime)


class DmAnswer(Base):
    """A member's DM the bot took as an answer (or refused as one), by its message id: taken
    once, whether it came live or was read at a start (kept a while: ``db.dm_answers.KEPT``)."""

    __tablename__ = "dm_answers"
    __table_args__ = (Index("ix_dm_answers_taken_at", "taken_at"),)

    message_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    taken_at: Mapped[datetime] = mapped_column(UTCDateTime)
