"""Discord's limit of invalid requests: counted over a sliding 10 minutes, and retries stop well
before it."""

from __future__ import annotations

from bot.chat.invalid_requests import BUDGET, LIMIT, WINDOW, InvalidRequests


class _Monotonic:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_budget_is_spent_well_before_discords_limit_and_comes_back_with_time() -> None:
    clock = _Monotonic()
    invalid = InvalidRequests(monotonic=clock)
    assert BUDGET <= LIMIT // 4
    for _unused in range(BUDGET - 1):
        invalid.count()
    assert not invalid.exhausted()
    clock.now += WINDOW / 2
    invalid.count()
    assert invalid.exhausted() and invalid.recent() == BUDGET
    clock.now += WINDOW / 2 + 1  # the first ones are out of the window
    assert invalid.recent() == 1 and not invalid.exhausted()
