"""The table's request handlers: what each valid request does to one ``Table``.

They are the table's own methods moved beside it to keep ``Table`` one screenful of
plumbing (issue 26), and they reach into it as its methods did: its referee and fusion, the
rulings it holds back (``_deferred``), its undo history (``_undone``) and its publisher.
``Table.request`` screens a request (``Desk``) and calls ``handle``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
from rules import (
    UNKNOWN,
    Answered,
    Call,
    InvalidInput,
    MatchEnded,
    MatchSetup,
    NewMatch,
    Pocket,
    ShotKind,
    Status,
    Undone,
)

if TYPE_CHECKING:
    from controller.pipeline.table import Table


def handle(table: Table, req: ParsedRequest, t: float) -> Any:
    """Carries out one valid request on ``table``; returns its response's data.

    Raises InvalidInput (the referee's, or the table's state refuses it) or BadRequest.
    """
    match req:
        case NewMatchRequest():
            return _new_match(table, req, t)
        case CallRequest():
            return _call(table, req, t)
        case DeclareRequest():
            return _declare(table, req, t)
        case ShotEndRequest():
            if not table.fusion.open_shot:  # nothing reached a sensor: an empty shot
                _ready_for_a_shot(table)
            table._apply(table.fusion.shot_end(t))
            return {"shot": table.referee.state.shot}
        case AnswerRequest():
            decisions = table.referee.feed(Answered(req.question, req.answer))
            table._after(t, decisions)
            table._retry(t)
            return {"questions": [q.id for q in table.referee.questions]}
        case UndoRequest():
            if req.shots > table.referee.shots:
                raise InvalidInput(f"only {table.referee.shots} shot(s) of this match can be undone")
            before = table.referee.fork()
            table.fusion.forget()
            table._deferred.clear()
            table._after(t, table.referee.feed(Undone(req.shots)))
            table._undone.append((before, _redo_mark(table)))
            return {"shot": table.referee.state.shot}
        case RedoRequest():
            return _redo(table, t)
        case EndMatchRequest():
            decisions = table.referee.feed(MatchEnded())
            table.fusion.forget()
            table._deferred.clear()
            table._after(t, decisions)
            table.match_id = table._pub.match_t0 = None
            return None
        case GetRequest():
            table._pub.everything(t, table.referee, table.match_id)
            return None
    raise BadRequest(f"unhandled request {req!r}")


def _redo_mark(table: Table) -> tuple[object, ...]:
    """Returns what says nothing was played, answered or corrected since an undo: the
    referee's state and open questions, which every such input replaces."""
    return (table.referee.state, table.referee.questions, table.match_id)


def _redo(table: Table, t: float) -> Any:
    """Gives back the referee as it was before the last undo; refused once anything else
    has changed the match since (the undone shots are then gone for good)."""
    while table._undone:
        before, mark = table._undone[-1]
        now = _redo_mark(table)
        if all(a is b for a, b in zip(mark, now, strict=True)):
            break
        table._undone.clear()
    if not table._undone:
        raise InvalidInput("nothing to redo: no undo since the last shot, answer or correction")
    table._undone.pop()
    table.referee = before
    table.fusion.forget()
    table._deferred.clear()
    table._event("redo", {"shot": table.referee.state.shot}, t)
    table._pub.state(t, table.referee, table.match_id)
    return {"shot": table.referee.state.shot}


def _new_match(table: Table, req: NewMatchRequest, t: float) -> Any:
    setup = MatchSetup(req.game, tuple(req.players), req.race_to, req.breaker, dict(req.options))
    decisions = table.referee.feed(NewMatch(setup))
    table.fusion.forget()
    table._deferred.clear()
    table._matches += 1
    table.match_id = table._match_id(table._matches)
    table._pub.match_t0 = round(t, 6)
    table._pub.player_ids = None if req.player_ids is None else list(req.player_ids)
    table._after(t, decisions)
    return {"match_id": table.match_id}


def _ready_for_a_shot(table: Table) -> None:
    """Raises InvalidInput when no shot can be played now: no match, the match over, a
    question open."""
    state = table.referee.state
    if state.setup is None:
        raise InvalidInput("no match is in progress: start one with new_match")
    if state.status is Status.MATCH_OVER:
        raise InvalidInput("the match is over: start a new one with new_match")
    if table.referee.questions:
        q = table.referee.questions[0]
        text = prompt(table.referee, q.to_json(), table.language)
        raise InvalidInput(f"question {q.id} is open ({text}): answer it first")


def _call(table: Table, req: CallRequest, t: float) -> Any:
    calls = tuple(Call(c.ball, Pocket(c.pocket)) for c in req.calls)
    kind = ShotKind(req.kind)
    _ready_for_a_shot(table)
    if table.fusion.open_shot and not req.amend:
        # the call ends the shot in progress: the call is judged after its ruling, and a
        # refused call must change nothing, so it is judged on a copy first
        trial = table._trial()
        trial._apply(trial.fusion.shot_end(t))
        if not trial.referee.questions:
            trial.referee.check_call(calls, kind)
        table._apply(table.fusion.shot_end(t))
    table.referee.check_call(calls, kind)
    table._apply(table.fusion.call(t, calls, kind, req.manner, amend=req.amend))
    return {"calls": [c.model_dump() for c in req.calls], "kind": req.kind}


def _declare(table: Table, req: DeclareRequest, t: float) -> Any:
    facts = req.facts()
    if not facts:
        raise BadRequest("declare names no fact")
    for ball in [*facts.off_table, *(b for b, _ in facts.pocketed)]:
        table.referee.check_ball(ball)
    if facts.first_contact is not None and facts.first_contact is not UNKNOWN:
        table.referee.check_ball(facts.first_contact, cue_allowed=False)
    if facts.unsportsmanlike is not None:
        table.referee.check_forfeit(facts.unsportsmanlike.player)
    if table.referee.state.setup is None:
        raise InvalidInput("no match is in progress")
    # with no shot yet, the facts wait for the first (a shot_end rules it if nothing
    # reached a sensor)
    table._apply(table.fusion.declare(t, facts, _shot_named(table, req.shot)))
    return {"facts": sorted(facts.stated)} | ({} if req.shot is None else {"shot": req.shot})


def _shot_named(table: Table, shot: int | None) -> str | None:
    """Returns which shot a declare's ``shot`` names for fusion: ``"next"`` (the shot in
    play, or to come), ``"last"`` (the one just ruled, no shot being in play), or None
    when unnamed. Raises InvalidInput for any other shot."""
    if shot is None:
        return None
    ruled = table.referee.state.shot
    if shot == ruled + 1:
        return "next"
    if shot == ruled and ruled > 0 and not table.fusion.open_shot:
        if table.fusion.shots.last is not None:  # an undo forgets it; a redo gives back only
            return "last"                       # its ruling, not what the sensors told
        raise InvalidInput(f"shot {shot} cannot take facts now (it came back by an undo or a "
                           "redo, which keep its ruling but not what the sensors told of it: "
                           "undo it and play or enter it again); nothing was done")
    now = (f"shot {ruled + 1} is in play" if table.fusion.open_shot
           else f"shot {ruled} was the last ruled, shot {ruled + 1} is to come")
    raise InvalidInput(f"shot {shot} cannot take facts now ({now}); nothing was done")
