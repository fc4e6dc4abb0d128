"""The interaction routes: the initial response (callback) and the interaction's webhook.

They carry no bot token and Discord leaves them out of the bot's global rate limit; the webhook
routes have per-token buckets like a webhook's. After 15 minutes the token answers 401. They
work in every channel an interaction came from, private channels and servers without the
application included, where the bot's token gets 403.
"""

from __future__ import annotations

from aiohttp import web

from .errors import JSON, UNKNOWN_INTERACTION, UNKNOWN_WEBHOOK, not_found
from .gateway import Gateway
from .interactions import (
    DEFAULT_DEADLINE,
    Answer,
    callback_response,
    check_token_alive,
    edit_webhook_message,
    followup,
    respond,
    webhook_message,
)
from .records import FakeInteraction
from .replies import Route, json_response, no_content, snowflake, truthy
from .state import DiscordState


class InteractionRoutes:
    """Handlers of ``/interactions/{id}/{token}/callback`` and ``/webhooks/{app}/{token}/...``."""

    def __init__(self, state: DiscordState, gateway: Gateway) -> None:
        self.state = state
        self.gateway = gateway
        self.deadline = DEFAULT_DEADLINE
        """Seconds a bot has for the initial response."""

    def routes(self) -> list[Route]:
        webhook = "/webhooks/{application_id}/{token}"
        message = f"{webhook}/messages/{{message_id}}"
        return [
            Route(
                "POST",
                "/interactions/{interaction_id}/{token}/callback",
                self.callback,
                interaction=True,
            ),
            Route("POST", webhook, self.execute_webhook, "followup_message", interaction=True),
            Route("GET", message, self.get_webhook_message, interaction=True),
            Route("PATCH", message, self.edit_webhook_message, "edit_followup", interaction=True),
            Route(
                "DELETE", message, self.delete_webhook_message, "delete_followup", interaction=True
            ),
        ]

    def tell_gateway(self, answer: Answer) -> None:
        """MESSAGE_CREATE/UPDATE for an answer, where the bot is (not in a private channel or a
        server without the application)."""
        for message, event in (
            (answer.created, self.gateway.message_created),
            (answer.updated, self.gateway.message_updated),
        ):
            if message is not None and self.state.bot_reaches(message.channel):
                event(message)

    async def callback(self, request: web.Request, payload: JSON) -> web.Response:
        interaction = self.state.interactions.get(snowflake(request, "interaction_id"))
        if interaction is None or interaction.token != request.match_info["token"]:
            raise not_found(UNKNOWN_INTERACTION, "Unknown interaction")
        check_token_alive(self.state, interaction)
        answer = respond(self.state, interaction, payload, deadline=self.deadline)
        self.tell_gateway(answer)
        if truthy(request.query.get("with_response")):
            return json_response(callback_response(interaction))
        return no_content()

    def _webhook_interaction(self, request: web.Request) -> FakeInteraction:
        interaction = self.state.interaction_by_token(request.match_info["token"])
        application = request.match_info["application_id"]
        if interaction is None or application != str(self.state.application_id):
            raise not_found(UNKNOWN_WEBHOOK, "Unknown Webhook")
        check_token_alive(self.state, interaction)
        return interaction

    async def execute_webhook(self, request: web.Request, payload: JSON) -> web.Response:
        interaction = self._webhook_interaction(request)
        answer = followup(self.state, interaction, payload)
        self.tell_gateway(answer)
        message = answer.created or answer.updated
        if message is not None and truthy(request.query.get("wait")):
            return json_response(message.payload())
        return no_content()

    async def get_webhook_message(self, request: web.Request, payload: JSON) -> web.Response:
        interaction = self._webhook_interaction(request)
        message = webhook_message(interaction, request.match_info["message_id"])
        return json_response(message.payload())

    async def edit_webhook_message(self, request: web.Request, payload: JSON) -> web.Response:
        interaction = self._webhook_interaction(request)
        message = webhook_message(interaction, request.match_info["message_id"])
        answer = edit_webhook_message(self.state, interaction, message, payload)
        self.tell_gateway(answer)
        return json_response(message.payload())

    async def delete_webhook_message(self, request: web.Request, payload: JSON) -> web.Response:
        interaction = self._webhook_interaction(request)
        message = webhook_message(interaction, request.match_info["message_id"])
        self.state.delete_message(message)
        if self.state.bot_reaches(message.channel):
            self.gateway.message_deleted(message)
        return no_content()
