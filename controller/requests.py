"""The requests of interfaces §3 as pydantic models, and their validation.

``parse_request(name, payload)`` returns the request or raises ``BadRequest`` with a reason
a person can act on; ``transaction_of`` finds the idempotency key even in a payload that is
otherwise wrong, so the error can be answered to the right sender.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from vocabulary import Pocket

MAX_PAYLOAD = 64 * 1024

BallId = Annotated[int, Field(ge=1, le=15)] | Literal["cue"]
FoulCode = Literal[
    "miss", "touched_ball", "butt_or_side", "moving_balls", "feet_off_floor", "push",
    "double_hit", "wrong_ball_first", "wrong_cue_ball", "direct_hit_in_kitchen", "cue_on_table",
    "out_of_turn", "slow_play", "bad_placement", "game_over_touch", "bad_break",
]
SpecialCode = Literal["interference", "on_rail", "returned_from_floor", "hanging_ball", "stalemate"]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]


class ControllerError(Exception):
    """Root of the controller's errors."""


class BadRequest(ControllerError, ValueError):
    """A request that cannot be taken as it is; nothing changed."""


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    v: Literal[1] = 1
    transaction: Annotated[str, StringConstraints(max_length=200)] | None = None


class NewMatchRequest(_Request):
    game: Literal["siberian-ten", "ten-ball", "pyramid"]
    players: Annotated[list[Name], Field(min_length=2, max_length=4)]
    race_to: Annotated[int, Field(ge=1, le=99)] = 1
    breaker: Annotated[int, Field(ge=0, le=3)] = 0
    options: dict[str, bool | int | str | list[int]] = Field(default_factory=dict)


class CalledBall(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ball: BallId
    pocket: Pocket


class CallRequest(_Request):
    calls: Annotated[list[CalledBall], Field(max_length=2)] = Field(default_factory=list)
    kind: Literal["normal", "safety", "push_out", "igra"] = "normal"
    manner: Annotated[str, StringConstraints(max_length=200)] | None = None
    #: Replaces the open shot's call while nothing has happened on the table yet (an
    #: extension of interfaces §3: without it, a second call closes the open shot).
    amend: bool = False


class PocketedBall(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ball: BallId
    pocket: Pocket


class DeclareRequest(_Request):
    fouls: list[FoulCode] = Field(default_factory=list)
    off_table: list[BallId] = Field(default_factory=list)
    #: The first ball the cue ball touched; null: it touched none.
    first_contact: Annotated[int, Field(ge=1, le=15)] | None = None
    centre_line: bool | None = None
    pocketed: list[PocketedBall] = Field(default_factory=list)
    special: SpecialCode | None = None

    def facts(self) -> dict[str, Any]:
        """Returns only the facts the request states (a key left out is no fact)."""
        given = self.model_fields_set - {"v", "transaction"}
        out: dict[str, Any] = {}
        for key in given:
            value = getattr(self, key)
            if key == "pocketed":
                out[key] = [(p.ball, p.pocket) for p in value]
            elif key in ("fouls", "off_table"):
                out[key] = tuple(value)
            elif key == "centre_line" and value is None:
                continue
            else:
                out[key] = value
        return out


class ShotEndRequest(_Request):
    pass


Answer = bool | int | str | list[int | str]


class AnswerRequest(_Request):
    question: Annotated[str, StringConstraints(max_length=40)] | None = None
    answer: Answer


class UndoRequest(_Request):
    shots: Annotated[int, Field(ge=1, le=100)] = 1


class EndMatchRequest(_Request):
    pass


class GetRequest(_Request):
    pass


REQUESTS: dict[str, type[_Request]] = {
    "new_match": NewMatchRequest,
    "call": CallRequest,
    "declare": DeclareRequest,
    "shot_end": ShotEndRequest,
    "answer": AnswerRequest,
    "undo": UndoRequest,
    "end_match": EndMatchRequest,
    "get": GetRequest,
}

Request = (NewMatchRequest | CallRequest | DeclareRequest | ShotEndRequest | AnswerRequest
           | UndoRequest | EndMatchRequest | GetRequest)


def _decode(payload: bytes | str | dict[str, Any]) -> dict[str, Any]:
    if isinstance(payload, dict):
        return payload
    if len(payload) > MAX_PAYLOAD:
        raise BadRequest(f"payload too large ({len(payload)} bytes; at most {MAX_PAYLOAD})")
    if isinstance(payload, bytes):
        try:
            payload = payload.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadRequest("payload is not UTF-8 text") from exc
    if not payload.strip():
        return {}
    try:
        data = json.loads(payload)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise BadRequest(f"payload is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise BadRequest("payload must be a JSON object")
    return data


def transaction_of(payload: bytes | str | dict[str, Any]) -> str | None:
    """Returns the payload's ``transaction`` if it has a readable one, else None."""
    try:
        data = _decode(payload)
    except BadRequest:
        return None
    tx = data.get("transaction")
    return tx if isinstance(tx, str) and len(tx) <= 200 else None


def parse_request(name: str, payload: bytes | str | dict[str, Any]) -> Request:
    """Returns the validated request. Raises BadRequest saying what is wrong."""
    model = REQUESTS.get(name)
    if model is None:
        raise BadRequest(f"unknown request {name!r}; one of {', '.join(REQUESTS)}")
    data = _decode(payload)
    try:
        return model.model_validate(data)  # type: ignore[return-value]
    except ValidationError as exc:
        raise BadRequest(_reason(exc)) from exc


def _reason(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(x) for x in err["loc"]) or "payload"
        if err["type"] == "extra_forbidden":
            parts.append(f"unknown field {where!r}")
        elif err["type"] == "missing":
            parts.append(f"{where} is required")
        else:
            value = err.get("input")
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            parts.append(f"{where}: {err['msg']} (got {shown})")
    more = len(exc.errors()) - 3
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")
