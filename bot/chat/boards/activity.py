"""The messages lately posted in each server channel, from the gateway's message events: a board
with enough messages below it is buried (``bot.chat.boards.live``)."""

from __future__ import annotations

from collections import deque
from collections.abc import Collection


class ChannelActivity:
    """The messages lately posted in each channel, from the gateway's message events (which need
    no privileged intent: only their ids are read)."""

    KEPT = 50

    def __init__(self) -> None:
        self._recent: dict[int, deque[int]] = {}

    def saw(self, channel_id: int, message_id: int) -> None:
        self._recent.setdefault(channel_id, deque(maxlen=self.KEPT)).append(message_id)

    def posted_after(self, channel_id: int, message_id: int) -> int:
        """How many messages seen in the channel came after ``message_id``."""
        return sum(1 for seen in self._recent.get(channel_id, ()) if seen > message_id)

    @property
    def channels(self) -> set[int]:
        """The channels with messages kept."""
        return set(self._recent)

    def forget(self, channel_ids: Collection[int], before: int) -> None:
        """Forget the messages of ``channel_ids`` older than the message id ``before``: no
        board there needs them (later ones are kept: a board may have come meanwhile)."""
        for channel_id in channel_ids:
            kept = [seen for seen in self._recent.get(channel_id, ()) if seen >= before]
            if kept:
                self._recent[channel_id] = deque(kept, maxlen=self.KEPT)
            else:
                self._recent.pop(channel_id, None)
