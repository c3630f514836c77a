"""The tournament core's guarantees over random tournaments (hypothesis): every player plays
until eliminated, double elimination takes two losses, a walkover advances, no table or player
is double-booked, and a corrected result re-flows only what follows from it (and undoing the
correction gives the bracket back)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournament import (
    BadAssignment,
    Draw,
    Format,
    Progress,
    Status,
    Tournament,
    double_elimination,
    round_robin_groups,
    single_elimination,
)
from tournament.records import GroupPlace, LoserOf, MatchId, WinnerOf

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TABLES = ("table-1", "table-2", "table-3", "table-4")


@st.composite
def tournaments(draw: st.DrawFn) -> Tournament:
    form = draw(st.sampled_from(list(Format)))
    if form is Format.GROUPS:
        groups = draw(st.integers(1, 4))
        count = draw(st.integers(2 * groups, min(16, 5 * groups)))
        players = [f"p{i}" for i in range(1, count + 1)]
        return Tournament(round_robin_groups(players, groups, draw(st.sampled_from([1, 2]))
                                             if groups > 1 else 2))
    players = [f"p{i}" for i in range(1, draw(st.integers(2, 32)) + 1)]
    return Tournament((single_elimination if form is Format.SINGLE else double_elimination)(players))


def play_one(data: st.DataObject, tournament: Tournament) -> Tournament:
    """Plays one ready match: a random winner, a random score or a walkover."""
    pairing = data.draw(st.sampled_from(tournament.ready()))
    winner = data.draw(st.sampled_from(pairing.players))
    if data.draw(st.integers(0, 9)) == 0:
        return tournament.walkover(pairing.match, winner).tournament
    lost = data.draw(st.integers(0, pairing.race - 1))
    score = (pairing.race, lost) if winner == pairing.players[0] else (lost, pairing.race)
    return tournament.record(pairing.match, winner, score).tournament


def downstream(draw_: Draw, match: MatchId) -> set[MatchId]:
    """Every match fed, directly or not, by ``match`` (read off the draw's sources)."""
    groups = {m.id: m.group for m in draw_.matches}
    fed: set[MatchId] = set()
    grew = True
    while grew:
        grew = False
        for m in draw_.matches:
            if m.id in fed:
                continue
            for source in (m.a, m.b):
                feeds = ((isinstance(source, WinnerOf | LoserOf) and source.match in fed | {match})
                         or (isinstance(source, GroupPlace) and source.group in
                             {groups[x] for x in fed | {match}})
                         or (m.reset_of is not None and m.reset_of in fed | {match}))
                if feeds:
                    fed.add(m.id)
                    grew = True
                    break
    return fed


def picture(state: Progress) -> dict[MatchId, object]:
    return {m: (state.seats[m], state.counted.get(m), state.status[m]) for m in state.seats}


@given(st.data())
@SETTINGS
def test_every_player_plays_until_eliminated(data: st.DataObject) -> None:
    tournament = data.draw(tournaments())
    for _ in range(len(tournament.draw.matches)):
        state = tournament.progress()
        if state.finished:
            break
        assert state.ready(), "a tournament not over always has a match to play"
        for match in state.ready():
            players = state.players(match)
            assert players is not None and all(state.alive(p) for p in players)
        tournament = play_one(data, tournament)
    state = tournament.progress()
    assert state.finished and state.champion in tournament.draw.players
    losses = {p: state.losses(p) for p in tournament.draw.players}
    if tournament.draw.format is Format.SINGLE:
        assert sorted(losses.values()) == [0] + [1] * (len(losses) - 1)
    if tournament.draw.format is Format.DOUBLE:
        # double elimination needs two losses: only the champion has fewer
        assert [p for p, n in losses.items() if n < 2] == [state.champion]
        assert losses[state.champion] <= 1
    if tournament.draw.format is Format.GROUPS:
        for name, members in tournament.draw.groups:
            met = {frozenset(r.players) for r in state.counted.values()
                   if tournament.draw.match(r.match).group == name}
            assert len(met) == len(members) * (len(members) - 1) // 2
    assert [p for p in tournament.draw.players if state.alive(p)] == []


@given(st.data())
@SETTINGS
def test_a_walkover_advances_its_winner(data: st.DataObject) -> None:
    tournament = data.draw(tournaments())
    for _ in range(data.draw(st.integers(0, len(tournament.draw.matches) - 1))):
        if tournament.progress().finished:
            return
        tournament = play_one(data, tournament)
    if tournament.progress().finished:
        return
    pairing = data.draw(st.sampled_from(tournament.ready()))
    winner = data.draw(st.sampled_from(pairing.players))
    loser = pairing.players[1 - pairing.players.index(winner)]
    before = tournament.progress()
    after = tournament.walkover(pairing.match, winner).tournament.progress()
    assert after.status[pairing.match] is Status.PLAYED
    assert after.winners[pairing.match] == winner
    assert after.losses(loser) == before.losses(loser) + 1
    assert after.losses(winner) == before.losses(winner)
    for m in tournament.draw.matches:
        if WinnerOf(pairing.match) in (m.a, m.b) and m.reset_of is None:
            assert winner in after.seats[m.id]


@given(st.data())
@SETTINGS
def test_no_table_or_player_is_double_booked(data: st.DataObject) -> None:
    tournament = data.draw(tournaments())
    for _ in range(2 * len(tournament.draw.matches)):
        state = tournament.progress()
        if state.finished:
            break
        action = data.draw(st.sampled_from(["assign", "fill", "play", "correct"]))
        if action == "assign":
            pairing = data.draw(st.sampled_from(tournament.ready()))
            table = data.draw(st.sampled_from(TABLES))
            busy = {t for m, t in tournament.tables.items() if m != pairing.match}
            booked = {p for m in tournament.tables if m != pairing.match
                      for p in (state.players(m) or ())}
            try:
                tournament = tournament.assign(pairing.match, table)
                assert table not in busy and not booked & set(pairing.players)
            except BadAssignment:
                assert table in busy or booked & set(pairing.players)
        elif action == "fill":
            tournament = tournament.fill(TABLES)
        elif action == "play":
            tournament = play_one(data, tournament)
        elif tournament.results:
            match = data.draw(st.sampled_from(sorted(tournament.results)))
            if state.status[match] is Status.PLAYED:
                players = state.players(match)
                assert players is not None
                winner = players[1 - players.index(state.counted[match].winner)]
                tournament = tournament.record(match, winner).tournament
        state = tournament.progress()
        tables = list(tournament.tables.values())
        assert len(tables) == len(set(tables)), "a table has two matches"
        seated = [p for m in tournament.tables for p in (state.players(m) or ())]
        assert len(seated) == len(set(seated)), "a player is on two tables"
        assert all(state.status[m] is Status.READY for m in tournament.tables)


@given(st.data())
@SETTINGS
def test_a_correction_reflows_only_what_follows_and_names_it(data: st.DataObject) -> None:
    tournament = data.draw(tournaments())
    for _ in range(data.draw(st.integers(1, len(tournament.draw.matches)))):
        if tournament.progress().finished:
            break
        tournament = play_one(data, tournament)
    before = tournament.progress()
    played = [m for m in before.counted]
    match = data.draw(st.sampled_from(played))
    old = before.counted[match]
    change = tournament.record(match, old.loser)
    after = change.tournament.progress()
    assert after.winners[match] == old.loser and after.losses(old.winner) >= 1
    follows = downstream(tournament.draw, match)
    differs = {m for m in before.seats if m != match and (
        before.seats[m] != after.seats[m] or before.counted.get(m) != after.counted.get(m))}
    for m, result in after.counted.items():  # a result counts only between its players
        assert result.players == after.seats[m] and after.winners[m] in after.seats[m]
    assert differs <= follows, "a match not fed by the corrected one changed"
    assert differs <= set(change.changed), "a changed match is not named"
    assert set(change.changed) <= follows
    # the correction undone: the bracket (with the later results it set aside) comes back
    back = change.tournament.record(match, old.winner, old.score, old.walkover).tournament
    assert picture(back.progress()) == picture(before)
