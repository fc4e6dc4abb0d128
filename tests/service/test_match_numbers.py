"""A match number no match can have is refused as unknown, not sent to the database."""

from __future__ import annotations

import pytest

from bot.service.errors import MatchNotFound, NoMatch
from bot.service.match_parts import MatchParts
from bot.service.match_state import MAX_MATCH_ID
from tests.service.conftest import ALICE


@pytest.mark.parametrize("match_id", [0, -1, MAX_MATCH_ID + 1, 10**20])
async def test_an_impossible_match_number_is_no_match(service: MatchParts, match_id: int) -> None:
    with pytest.raises(MatchNotFound) as refused:
        await service.play.submit(match_id, ALICE, "2 3")
    assert refused.value == NoMatch(match_id)
    with pytest.raises(MatchNotFound):
        await service.lookups.snapshot(match_id)
