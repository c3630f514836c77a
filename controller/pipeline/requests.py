"""The requests of interfaces §3 as pydantic models, and their validation.

``parse_request(name, payload)`` returns the request or raises ``BadRequest`` with a reason
a person can act on; ``transaction_of`` finds the idempotency key even in a payload that is
otherwise wrong, so the error can be answered to the right sender.

Before any field is looked at, the whole payload must be something the table can keep, echo
and write: JSON without ``NaN``/``Infinity``, numbers within ±(2**53 − 1) (what every JSON
reader holds exactly; Python refuses integers of 4,301 digits or more outright), and text
that encodes as UTF-8 (no lone surrogates such as ``"\\ud800"``). A name a person reads (a
player's name, a call's ``manner``) also holds no control characters (NUL, ESC, ...) nor
bidirectional formatting (U+202E and its kin), which would reach LED displays as they are.
Each refusal names the field.
"""

from __future__ import annotations

import json
import math
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from controller.errors import ControllerError
from controller.pipeline.declared import Declared
from rules import DECLARABLE_FOULS, UNKNOWN, Forfeit, Foul, Known, ShotKind, Special
from rules.games import find_spec, specs
from vocabulary import Pocket

MAX_PAYLOAD = 64 * 1024
#: The largest whole number a request may hold (JSON's safe integers).
MAX_INT = 2**53 - 1
#: A request's name is used in its reply topic (``B/response/<name>``): at most this long.
MAX_NAME = 64

BallId = Annotated[int, Field(ge=1, le=15)] | Literal["cue"]


def _declarable(foul: object) -> object:
    if isinstance(foul, str) and foul not in DECLARABLE_FOULS:
        found = " is found by the table, not declared" if foul in set(Foul) else " is no foul"
        raise ValueError(f"{foul[:40]!r}{found}; one of {', '.join(sorted(DECLARABLE_FOULS))}")
    return foul


def _known_game(game: str) -> str:
    if find_spec(game) is None:
        raise ValueError(f"unknown game {game!r}; one of {', '.join(sorted(s.id for s in specs()))}")
    return game


#: A foul a referee may declare: the rules' ``Foul``, one of ``DECLARABLE_FOULS``.
FoulCode = Annotated[Foul, BeforeValidator(_declarable)]
#: A game's id: one of the rules' games (``rules.games``).
GameId = Annotated[str, AfterValidator(_known_game)]
#: Format characters a name may hold: zero-width (non-)joiners, as in emoji sequences.
_JOINERS = frozenset("\u200c\u200d")


def _shown_char(ch: str) -> str:
    return f"U+{ord(ch):04X}"


def plain_text(text: str) -> str:
    """Returns ``text`` if a display can show it as it is. Raises ValueError naming the first
    control (Cc), format (Cf: bidirectional overrides, ...), separator (Zl, Zp) or surrogate
    character it holds."""
    for ch in text:
        category = unicodedata.category(ch)
        if category in ("Cc", "Cs", "Zl", "Zp") or (category == "Cf" and ch not in _JOINERS):
            raise ValueError(f"holds a control or formatting character ({_shown_char(ch)},"
                             f" {unicodedata.name(ch, category)}); only printable text is taken")
    return text


Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40),
                 AfterValidator(plain_text)]


class BadRequest(ControllerError, ValueError):
    """A request that cannot be taken as it is; nothing changed."""


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    v: Literal[1] = 1
    transaction: Annotated[str, StringConstraints(max_length=200)] | None = None
    #: When the request stops being wanted: Unix time in seconds (wall clock). A request
    #: that reaches the table later is refused (an extension of interfaces §3).
    deadline: Annotated[float, Field(gt=0, allow_inf_nan=False)] | None = None


#: A player's id in the venue's roster (``billiards/<venue>/roster``, the venue recorder's).
PlayerId = Annotated[str, StringConstraints(min_length=1, max_length=64,
                                            pattern=r"^[A-Za-z0-9_-]+$")]


#: A tournament's id or one of its matches' ids (``new_match``'s ``tournament``).
TournamentRef = Annotated[str, StringConstraints(min_length=1, max_length=64,
                                                 pattern=r"^[A-Za-z0-9_.-]+$")]


class TournamentMatch(BaseModel):
    """The tournament match a new match is (issue 42): the table carries it, the venue
    recorder takes the match's result for it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: TournamentRef
    match: TournamentRef


class NewMatchRequest(_Request):
    game: GameId
    players: Annotated[list[Name], Field(min_length=2, max_length=4)]
    race_to: Annotated[int, Field(ge=1, le=99)] = 1
    breaker: Annotated[int, Field(ge=0, le=3)] = 0
    options: dict[str, bool | int | str | list[int]] = Field(default_factory=dict)
    #: Each player's roster id, as picked at the console (None: a name typed, a new player).
    player_ids: list[PlayerId | None] | None = None
    #: The tournament match this match is (None: a match of no tournament).
    tournament: TournamentMatch | None = None

    @model_validator(mode="after")
    def _one_id_a_player(self) -> NewMatchRequest:
        if self.player_ids is not None and len(self.player_ids) != len(self.players):
            raise ValueError(f"player_ids has {len(self.player_ids)} entries for"
                             f" {len(self.players)} players: one each (null for a name typed)")
        return self


class CalledBall(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ball: BallId
    pocket: Pocket


class CallRequest(_Request):
    calls: Annotated[list[CalledBall], Field(max_length=2)] = Field(default_factory=list)
    kind: ShotKind = ShotKind.NORMAL
    manner: Annotated[str, StringConstraints(max_length=200), AfterValidator(plain_text)] | None = None
    #: Replaces the open shot's call while nothing has happened on the table yet (an
    #: extension of interfaces §3: without it, a second call closes the open shot).
    amend: bool = False


class PocketedBall(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ball: BallId
    pocket: Pocket


class Unsportsmanlike(BaseModel):
    """A referee's penalty for unsportsmanlike conduct (Ten-ball, TB-14)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: The offender, by index in the match's players.
    player: Annotated[int, Field(ge=0, le=3)]
    loses: Literal["game", "match"] = "game"
    reason: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200),
                      AfterValidator(plain_text)]


class DeclareRequest(_Request):
    fouls: list[FoulCode] = Field(default_factory=list)
    off_table: list[BallId] = Field(default_factory=list)
    #: The first ball the cue ball touched; null: it touched none.
    first_contact: Annotated[int, Field(ge=1, le=15)] | None = None
    centre_line: bool | None = None
    #: How many different cushions (a long rail's halves are one) the balls touched after the
    #: first contact: it stands over what the cushion sensors reported.
    cushions_after_contact: Annotated[int, Field(ge=0, le=4)] | None = None
    #: How many object balls reached a cushion on a break (Ten-ball's four, TB-5): it stands
    #: over the cushion hits the sensors counted.
    balls_to_cushion: Annotated[int, Field(ge=0, le=15)] | None = None
    pocketed: list[PocketedBall] = Field(default_factory=list)
    special: Special | None = None
    unsportsmanlike: Unsportsmanlike | None = None
    #: The shot the facts are about (``shot_result``'s and ``ball_pocketed``'s ``shot``): the
    #: shot in play or to come, or the one just ruled (a correction). Without it, see
    #: docs/interfaces.md.
    shot: Annotated[int, Field(ge=1)] | None = None

    def facts(self) -> Declared:
        """Returns the facts the request states (a key left out is no fact; a null
        ``centre_line``, ``cushions_after_contact``, ``balls_to_cushion`` or
        ``unsportsmanlike`` neither)."""
        given = self.model_fields_set - {"v", "transaction", "deadline", "shot"}
        stated = {key for key in given if key not in _NULL_IS_NO_FACT or getattr(self, key) is not None}
        forfeit = self.unsportsmanlike
        return Declared(
            stated=frozenset(stated),
            fouls=tuple(self.fouls), off_table=tuple(self.off_table),
            pocketed=tuple((p.ball, p.pocket) for p in self.pocketed),
            first_contact=self.first_contact if "first_contact" in stated else UNKNOWN,
            centre_line=UNKNOWN if self.centre_line is None else self.centre_line,
            cushions_after_contact=_known(self.cushions_after_contact),
            balls_to_cushion=_known(self.balls_to_cushion),
            special=self.special,
            unsportsmanlike=None if forfeit is None else Forfeit(
                forfeit.player, forfeit.loses == "match", forfeit.reason))


#: Declared facts for which null states nothing (``first_contact`` null: the cue ball touched
#: no ball; ``special`` null: no special position).
_NULL_IS_NO_FACT = frozenset({"centre_line", "cushions_after_contact", "balls_to_cushion",
                              "unsportsmanlike"})


def _known(value: int | None) -> Known[int]:
    return UNKNOWN if value is None else value


class ShotEndRequest(_Request):
    pass


Answer = bool | int | str | list[int | str]


class AnswerRequest(_Request):
    question: Annotated[str, StringConstraints(max_length=40)] | None = None
    answer: Answer


class UndoRequest(_Request):
    shots: Annotated[int, Field(ge=1, le=100)] = 1


class RedoRequest(_Request):
    """Takes back the last undo (issue 29): only while nothing has been played or answered since."""


class EndMatchRequest(_Request):
    pass


class GetRequest(_Request):
    pass


class CancelRequest(_Request):
    """Cancels the request under transaction ``cancels`` if the table has not had it yet
    (interfaces §3): answered with what became of it, and that request, if it comes after
    all, refused. The one way a client learns for certain that a request it gave up on was
    not done, whatever the clocks and the brokers between did."""

    cancels: Annotated[str, StringConstraints(min_length=1, max_length=200)]

    @model_validator(mode="after")
    def _not_itself(self) -> CancelRequest:
        if self.cancels == self.transaction:
            raise ValueError("cancels names this cancel's own transaction: name the request's")
        return self


class HistorySinceRequest(_Request):
    """What a venue recorder asks for to fill a gap: the kept messages after ``seq``, of the
    journal's ``epoch`` (refused for another; any when None)."""

    seq: Annotated[int, Field(ge=0, le=2**53 - 1)]
    limit: Annotated[int, Field(ge=1, le=1000)] = 200
    epoch: Annotated[str, StringConstraints(max_length=64)] | None = None


REQUESTS: dict[str, type[_Request]] = {
    "new_match": NewMatchRequest,
    "call": CallRequest,
    "declare": DeclareRequest,
    "shot_end": ShotEndRequest,
    "answer": AnswerRequest,
    "undo": UndoRequest,
    "redo": RedoRequest,
    "end_match": EndMatchRequest,
    "get": GetRequest,
    "cancel": CancelRequest,
    "history_since": HistorySinceRequest,
}

#: A request as validated: one of the models above.
ParsedRequest = (NewMatchRequest | CallRequest | DeclareRequest | ShotEndRequest | AnswerRequest
                 | UndoRequest | RedoRequest | EndMatchRequest | GetRequest | CancelRequest
                 | HistorySinceRequest)


def _no_constant(name: str) -> Any:
    raise BadRequest(f"payload holds {name}, which is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadRequest(f"payload holds the number {text[:20]}, too large for a float")
    return value


def _where(path: tuple[str | int, ...]) -> str:
    return ".".join(str(p) if isinstance(p, int) or p.isprintable() else ascii(p)
                    for p in path) or "payload"


def _check(value: Any, path: tuple[str | int, ...] = ()) -> None:
    """Raises BadRequest naming the first place in ``value`` (decoded JSON) that holds text
    which does not encode as UTF-8, or a number out of range."""
    if isinstance(value, str):
        if not _encodes(value):
            bad = next(ch for ch in value if unicodedata.category(ch) == "Cs")
            raise BadRequest(f"{_where(path)}: text that is not valid Unicode (a lone surrogate"
                             f" {_shown_char(bad)})")
    elif isinstance(value, bool):
        return
    elif isinstance(value, int):
        if not -MAX_INT <= value <= MAX_INT:
            raise BadRequest(f"{_where(path)}: a number of {len(str(abs(value)))} digits;"
                             f" at most {MAX_INT}")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise BadRequest(f"{_where(path)}: {value} is not a number a request may hold")
    elif isinstance(value, dict):
        for key, item in value.items():
            if not _encodes(key):
                raise BadRequest(f"{_where(path)}: a key that is not valid Unicode")
            _check(item, (*path, key))
    elif isinstance(value, list | tuple):
        for n, item in enumerate(value):
            _check(item, (*path, n))


def _encodes(text: str) -> bool:
    """Returns whether ``text`` encodes as UTF-8 (holds no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _loads(payload: bytes | str) -> Any:
    """Returns the JSON value of a payload. Raises BadRequest if it is too large, not UTF-8,
    not JSON, or holds numbers Python will not read (NaN, Infinity, 4,301 digits or more)."""
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
        return json.loads(payload, parse_constant=_no_constant, parse_float=_finite)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise BadRequest(f"payload is not valid JSON: {exc}") from exc
    except BadRequest:
        raise
    except ValueError as exc:  # an integer of 4,301 digits or more (sys.int_info)
        raise BadRequest(f"payload holds a number too large to read: {str(exc)[:60]}") from exc


def _decode(payload: bytes | str | dict[str, Any]) -> dict[str, Any]:
    data = payload if isinstance(payload, dict) else _loads(payload)
    if not isinstance(data, dict):
        raise BadRequest("payload must be a JSON object")
    try:
        _check(data)
    except RecursionError as exc:
        raise BadRequest("payload is nested too deeply") from exc
    return data


def transaction_of(payload: bytes | str | dict[str, Any]) -> str | None:
    """Returns the payload's ``transaction`` if it has a readable one (text of at most 200
    characters that encodes as UTF-8), else None; whatever else the payload holds."""
    try:
        data = payload if isinstance(payload, dict) else _loads(payload)
    except BadRequest:
        return None
    tx = data.get("transaction") if isinstance(data, dict) else None
    return tx if isinstance(tx, str) and len(tx) <= 200 and _encodes(tx) else None


def name_error(name: str) -> str | None:
    """Returns why a request's name cannot be used in its reply topic, or None if it can."""
    if len(name) > MAX_NAME:
        return f"a request name of {len(name)} characters (at most {MAX_NAME})"
    if not _encodes(name) or any(ch in name for ch in "+#/\0"):
        return "a request name that is not a single topic level"
    return None


def as_received(req: ParsedRequest) -> dict[str, Any]:
    """Returns the request as it was received, validated: the fields it gave, defaults left
    out (``declare {"first_contact": null}`` keeps its null). What the journal and the
    trace keep, so a replay takes exactly the request the table took."""
    return req.model_dump(mode="json", exclude_unset=True)


def body_of(req: ParsedRequest) -> str:
    """Returns what a request asks for, as canonical JSON: the same for a request resent
    under its transaction (whatever its ``deadline``), different for another request."""
    fields = {k: v for k, v in as_received(req).items() if k not in ("transaction", "deadline", "v")}
    return json.dumps(fields, sort_keys=True, separators=(",", ":"))


def parse_request(name: str, payload: bytes | str | dict[str, Any]) -> ParsedRequest:
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
