"""The table's request handlers: what each valid request asks of the match in play.

Each checks what the request may do now and calls ``Play``, which says what it does to the
referee and fusion (an undo, a redo, a new match...). ``Table.request`` screens a request
(``Desk``) and calls ``handle``.
"""

from __future__ import annotations

from typing import Any

from controller.pipeline.play import Play
from controller.pipeline.publisher import prompt
from controller.pipeline.requests import (
    AnswerRequest,
    BadRequest,
    CallRequest,
    DeclareRequest,
    EndMatchRequest,
    GetRequest,
    NewMatchRequest,
    ParsedRequest,
    RedoRequest,
    ShotEndRequest,
    UndoRequest,
)
from rules import UNKNOWN, Call, InvalidInput, MatchSetup, Pocket, ShotKind, Status


def handle(play: Play, req: ParsedRequest, t: float) -> Any:
    """Carries out one valid request on ``play``; returns its response's data.

    Raises InvalidInput (the referee's, or the table's state refuses it) or BadRequest.
    """
    match req:
        case NewMatchRequest():
            setup = MatchSetup(req.game, tuple(req.players), req.race_to, req.breaker,
                               dict(req.options))
            ids = None if req.player_ids is None else list(req.player_ids)
            cup = None if req.tournament is None else req.tournament.model_dump()
            return {"match_id": play.new_match(setup, ids, t, cup)}
        case CallRequest():
            return _call(play, req, t)
        case DeclareRequest():
            return _declare(play, req, t)
        case ShotEndRequest():
            if not play.fusion.open_shot:  # nothing reached a sensor: an empty shot
                _ready_for_a_shot(play)
            play.apply(play.fusion.shot_end(t))
            return {"shot": play.referee.state.shot}
        case AnswerRequest():
            play.answer(req.question, req.answer, t)
            return {"questions": [q.id for q in play.referee.questions]}
        case UndoRequest():
            play.undo(req.shots, t)
            return {"shot": play.referee.state.shot}
        case RedoRequest():
            play.redo(t)
            return {"shot": play.referee.state.shot}
        case EndMatchRequest():
            play.end_match(t)
            return None
        case GetRequest():
            play.republish(t)
            return None
    raise BadRequest(f"unhandled request {req!r}")


def _ready_for_a_shot(play: Play) -> None:
    """Raises InvalidInput when no shot can be played now: no match, the match over, a
    question open."""
    state = play.referee.state
    if state.setup is None:
        raise InvalidInput("no match is in progress: start one with new_match")
    if state.status is Status.MATCH_OVER:
        raise InvalidInput("the match is over: start a new one with new_match")
    if play.referee.questions:
        q = play.referee.questions[0]
        text = prompt(play.referee, q.to_json(), play.language)
        raise InvalidInput(f"question {q.id} is open ({text}): answer it first")


def _call(play: Play, req: CallRequest, t: float) -> Any:
    calls = tuple(Call(c.ball, Pocket(c.pocket)) for c in req.calls)
    kind = ShotKind(req.kind)
    _ready_for_a_shot(play)
    if play.fusion.open_shot and not req.amend:
        # the call ends the shot in progress: the call is judged after its ruling, and a
        # refused call must change nothing, so it is judged on a copy first
        trial = play.fork()
        trial.apply(trial.fusion.shot_end(t))
        if not trial.referee.questions:
            trial.referee.check_call(calls, kind)
        play.apply(play.fusion.shot_end(t))
    play.referee.check_call(calls, kind)
    play.apply(play.fusion.call(t, calls, kind, req.manner, amend=req.amend))
    return {"calls": [c.model_dump() for c in req.calls], "kind": req.kind}


def _declare(play: Play, req: DeclareRequest, t: float) -> Any:
    facts = req.facts()
    if not facts:
        raise BadRequest("declare names no fact")
    for ball in [*facts.off_table, *(b for b, _ in facts.pocketed)]:
        play.referee.check_ball(ball)
    if facts.first_contact is not None and facts.first_contact is not UNKNOWN:
        play.referee.check_ball(facts.first_contact, cue_allowed=False)
    if facts.unsportsmanlike is not None:
        play.referee.check_forfeit(facts.unsportsmanlike.player)
    if play.referee.state.setup is None:
        raise InvalidInput("no match is in progress")
    # with no shot yet, the facts wait for the first (a shot_end rules it if nothing
    # reached a sensor)
    play.apply(play.fusion.declare(t, facts, _shot_named(play, req.shot)))
    return {"facts": sorted(facts.stated)} | ({} if req.shot is None else {"shot": req.shot})


def _shot_named(play: Play, shot: int | None) -> str | None:
    """Returns which shot a declare's ``shot`` names for fusion: ``"next"`` (the shot in
    play, or to come), ``"last"`` (the one just ruled, no shot being in play), or None
    when unnamed. Raises InvalidInput for any other shot."""
    if shot is None:
        return None
    ruled = play.referee.state.shot
    if shot == ruled + 1:
        return "next"
    if shot == ruled and ruled > 0 and not play.fusion.open_shot:
        if play.fusion.shots.last is not None:  # an undo forgets it; a redo gives back only
            return "last"                       # its ruling, not what the sensors told
        raise InvalidInput(f"shot {shot} cannot take facts now (it came back by an undo or a "
                           "redo, which keep its ruling but not what the sensors told of it: "
                           "undo it and play or enter it again); nothing was done")
    now = (f"shot {ruled + 1} is in play" if play.fusion.open_shot
           else f"shot {ruled} was the last ruled, shot {ruled + 1} is to come")
    raise InvalidInput(f"shot {shot} cannot take facts now ({now}); nothing was done")
