"""The referee console's budgets (issue 29), measured on the demo's hand-played table in Russian:
a called ball potted in at most 2 taps, a miss in 1, a foul in at most 3, an answer in 1; the
same by keyboard alone in at most 5 and 2 key presses; nothing to scroll for a normal shot on a
1024×768 tablet held either way; the focus where the next action is; the pinned line the ruling.

The demo (``--language ru --hand t2``) runs once for the module; each game gets a fresh match on
t2 from the new-match form (not counted). Taps are counted by the test's own ``tap``; whatever
the table asks after a shot is answered with one tap each and counted apart.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 10000
LANDSCAPE, PORTRAIT, PHONE = (1024, 768), (768, 1024), (390, 844)
NAMES = {"siberian-ten": ["Анна", "Борис"], "ten-ball": ["Анна", "Борис"],
         "pyramid": ["Анна", "Борис", "Вера", "Глеб"]}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The Russian demo with t2 left to its console; yields the pages' URL."""
    out = tmp_path_factory.mktemp("demo") / "demo.out"
    with out.open("w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "controller", "demo", "--seconds", "600",
                                 "--speed", "5", "--tables", "2", "--hand", "t2", "--language", "ru"],
                                cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and "by hand:" not in out.read_text():
            assert proc.poll() is None, out.read_text()
            time.sleep(0.05)
        urls = [x.split()[1] for x in out.read_text().splitlines() if x.startswith("dashboard:")]
        assert urls, out.read_text()
        yield urls[0]
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Referee:
    """A console page and the taps and key presses spent on it."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.taps = 0
        self.keys = 0
        self.answers = 0
        self.asked: list[str] = []
        page.on("dialog", lambda d: (self.asked.append(d.message), d.accept()))

    def tap(self, target: str, scroll: bool = False) -> None:
        """One tap on the control ``target`` finds; unless ``scroll``, on one already on the
        screen, at its middle (``_in_sight``)."""
        if scroll:
            self.page.locator(target).click()
        else:
            self.page.mouse.click(*_in_sight(self.page, target))
        self.taps += 1

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)
        self.keys += 1

    def shot(self) -> int:
        text = self.page.locator("#card .meta").inner_text()
        found = re.search(r"удар (\d+)", text)
        assert found, text
        return int(found.group(1))

    def ruled(self, shot: int) -> str:
        """Waits for the pinned ruling of ``shot``; returns it as it is then. The ruling is
        drawn event by event (the shot's ruling, then its fouls, a game's end, the match's:
        separate messages), and the table's answer to the request, on the referee lane's own
        session, can come before them: what comes later in it is waited for with ``expect``."""
        return str(_until(self.page, """(pattern) => {
            const ruling = document.getElementById("ruling");
            return new RegExp(pattern).test(ruling.textContent) && ruling.innerText;
          }""", rf"^Удар {shot}( \(исправлен\))?: ", f"the ruling of shot {shot}"))

    def state_after(self, shot: int) -> str:
        """Waits until the card shows ``shot`` played and no question open; returns the state
        of play then (``in_play``, ``game_over``, ``match_over``…). The ruling is drawn event
        by event (the shot's ruling, then a game's end, then the match's: separate messages),
        and the table publishes its state after a shot's events, so the ruling is whole once
        the card shows this; read before, it can lack its end."""
        return str(_until(self.page, """(shot) => {
            const meta = document.querySelector("#card .meta");
            const status = meta && meta.querySelector("[data-field=status]");
            const n = Number(((meta && meta.textContent) || "").match(/удар (\\d+)/)?.[1]);
            const s = status && [...status.classList].find((c) => c !== "status");
            return n >= shot && s && s !== "awaiting" ? s : null;
          }""", shot, f"shot {shot} played and no question open"))

    def settled(self) -> int:
        """Waits until the table answered every request the console sent, and the console
        heard the table's own session up to that answer; returns how many answers the console
        offers then (``_settled``)."""
        return _settled(self.page)

    def answer_all(self, by_key: bool = False, scroll: bool = False) -> None:
        """Answers whatever the table asks with the first choice: one tap (or key) each."""
        for _ in range(6):
            if not self.settled():  # a question comes in the state its request made, before the answer
                return
            first = self.page.locator("#questions button.answer").first
            expect(first).to_be_focused()  # the question has the focus: one key or tap answers
            asked = self.page.locator("#questions .question").first.inner_text()
            if by_key:
                key = first.get_attribute("aria-keyshortcuts")
                assert key
                self.page.keyboard.press(key)
            elif scroll:
                first.click()
            else:
                self.page.mouse.click(*_in_sight(self.page, "#questions button.answer", first=True))
            self.answers += 1
            _until(self.page, "(asked) => { const q = document.querySelector('#questions .question');"
                   " return !q || q.textContent !== asked; }", asked, f"«{asked}» answered")
        raise AssertionError("the table kept asking")


def _settled(page: Page) -> int:
    """Waits until the table answered every request the console sent, and the console heard
    the table's own session up to that answer; returns how many answers the console offers
    then. The table publishes a request's events and state (its questions) before its
    response, in order, so the console has then drawn whatever the request made the table
    ask. (The referee lane's copy of the answer, on the lane's session, can come first: a
    stressed run answered no question and played on with one open.)"""
    found = _until(page, """() => {
        const result = document.getElementById("result");
        if (/^(sent|waiting)$/.test(result.dataset.state || "")) return null;
        const seq = Number(result.dataset.seq);
        if (seq && !(Number(document.body.dataset.heard) >= seq)) return null;
        return {answers: document.querySelectorAll("#questions button.answer").length};
      }""", None, "every request answered, and heard up to its answer")
    return int(found["answers"])  # type: ignore[index]


def _in_sight(page: Page, selector: str, first: bool = False) -> tuple[float, float]:
    """The control ``selector`` finds (the only one, or the ``first``) is on the screen as it
    is: nothing was scrolled to reach it. Waits until it is drawn, enabled and, its middle on
    the screen, not covered there; returns that point, where a tap lands on it. (Measured in
    the page in one go: during a match the console draws its pool anew each second, a new SVG
    in the old one's place.)"""
    box = _until(page, """([selector, first]) => {
        const found = first ? [document.querySelector(selector)].filter(Boolean)
                            : [...document.querySelectorAll(selector)];
        if (found.length > 1) return {many: found.length};
        const n = found[0];
        if (!n || !n.getClientRects().length || n.disabled) return null;
        const r = n.getBoundingClientRect();
        const x = r.x + r.width / 2, y = r.y + r.height / 2;
        const hit = document.elementFromPoint(x, y);
        if (x >= 0 && y >= 0 && x < innerWidth && y < innerHeight && !(hit && n.contains(hit))) return null;
        return {x: r.x, y: r.y, width: r.width, height: r.height, scrolled: window.scrollY};
      }""", [selector, first], f"{selector} drawn, enabled and not covered")
    assert isinstance(box, dict) and "many" not in box, (selector, box)
    width, height = page.viewport_size["width"], page.viewport_size["height"]  # type: ignore[index]
    assert box["scrolled"] == 0, box
    assert box["y"] >= 0 and box["y"] + box["height"] <= height + 1, box
    assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, box
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def _until(page: Page, condition: str, arg: object, what: str) -> object:
    """Waits until ``condition`` (a JavaScript function of ``arg``) returns a truthy value in
    the page, tried at every frame it draws (Playwright's ``expect`` tries again up to half a
    second apart, and a hand-played shot waits on the table several times); returns that
    value. Raises AssertionError naming ``what``, with what the console shows, if it stays
    falsy for ``TIMEOUT``."""
    try:
        return page.wait_for_function(condition, arg=arg, timeout=TIMEOUT,
                                      polling="raf").json_value()
    except PlaywrightTimeoutError:
        shown = page.evaluate("""() => ["#connection", "#result", "#ruling", "#questions"]
            .map((s) => `${s}: ${document.querySelector(s)?.innerText}`).join("; ")""")
        raise AssertionError(f"{what}: not so in {TIMEOUT} ms; {shown}") from None


def _connected(page: Page) -> None:
    """Waits until the console says it is connected to the table's broker."""
    _until(page, """() => (document.getElementById("connection")?.textContent || "")
        .replace(/\\s+/g, " ").trim() === "на связи" """, None, "«на связи»")


def open_console(browser: Browser, demo: str) -> tuple[Page, list[str]]:
    """Opens t2's console on a landscape tablet, in Russian, connected; returns the page and
    the list its script errors go to."""
    page = browser.new_page(viewport={"width": LANDSCAPE[0], "height": LANDSCAPE[1]})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(demo + "console.html?table=t2&lang=ru")
    _connected(page)
    return page, errors


def _new_match(page: Page, game: str) -> None:
    page.select_option("#game", game)
    for i, name in enumerate(NAMES[game]):
        page.fill(f'[data-player-name="{i}"]', name)
    page.fill("#race-to", "3")
    page.click("#new-match button[type=submit]")
    _settled(page)
    expect(page.locator("#result")).to_have_text(re.compile("^Новый матч: выполнено"), timeout=TIMEOUT)
    expect(page.locator("#card .player .name")).to_have_text(NAMES[game], timeout=TIMEOUT)
    page.evaluate("window.scrollTo(0, 0)")


def _lowest(page: Page) -> int:
    balls = page.eval_on_selector_all("#pool [data-ball]", "ns => ns.map(n => n.dataset.ball)")
    return min(int(b) for b in balls if b != "cue")


def _pot_by_taps(ref: Referee, size: tuple[int, int]) -> None:
    page = ref.page
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.evaluate("window.scrollTo(0, 0)")
    ball, shot = _lowest(page), ref.shot() + 1
    before = ref.taps
    ref.tap(f'#pool [data-ball="{ball}"]')
    ref.tap('#pool [data-pocket="fl"]')
    ref.answer_all()  # a game may ask before it rules (the pyramid: was it the called ball?)
    ruling = ref.ruled(shot)
    assert ref.taps - before <= 2
    assert f"шар {ball} " in ruling + " ", ruling  # «…: шар 3 засчитан…», «…: шар 1 забит…»
    expect(page.locator(f'#pool [data-ball="{ball}"]')).to_have_count(0, timeout=TIMEOUT)
    if "засчитан" in ruling and "бьёт снова" in ruling:  # the card's events say it alike
        expect(page.locator("#card .events li").first).to_contain_text(f"засчитан шар {ball}; бьёт снова")
    # the shot as the table understood it: what fell where, whose turn
    expect(page.locator("#verdict")).to_contain_text(f"Упали: {ball} → дальняя левая")
    expect(page.locator("#verdict")).to_contain_text("Бьёт: ")
    ref.answer_all()


def _play_by_taps(ref: Referee, artifacts: Path, game: str) -> None:
    page = ref.page
    # a pot, landscape then portrait: two taps each, nothing scrolled
    _pot_by_taps(ref, LANDSCAPE)
    page.screenshot(path=str(artifacts / f"console-budget-{game}-pot.png"))
    _pot_by_taps(ref, PORTRAIT)
    page.screenshot(path=str(artifacts / f"console-budget-{game}-portrait.png"))
    page.set_viewport_size({"width": LANDSCAPE[0], "height": LANDSCAPE[1]})
    page.evaluate("window.scrollTo(0, 0)")

    # the ruling is confirmed with one tap, and the focus goes back to the drawing
    expect(page.locator("#v-ok")).to_be_focused()
    ref.tap("#v-ok")
    expect(page.locator("#verdict")).to_be_hidden()
    assert page.evaluate("document.activeElement.closest('#pool') !== null")

    # a miss: one tap
    shot, before = ref.shot() + 1, ref.taps
    ref.tap("#q-miss")
    ref.answer_all()
    ref.ruled(shot)
    assert ref.taps - before == 1
    page.screenshot(path=str(artifacts / f"console-budget-{game}-miss.png"))
    ref.answer_all()

    # «Исправить»: only that shot's facts, one tap away; the shot is ruled again
    before = ref.taps
    ref.tap("#v-fix")
    expect(page.locator("#fix-sheet .fix-title")).to_have_text(
        f"Исправление удара {shot}: как было на самом деле?")
    page.screenshot(path=str(artifacts / f"console-budget-{game}-fix.png"))
    ref.tap('#fix-sheet [data-fix-foul="touched_ball"]')
    ref.settled()
    expect(page.locator("#ruling")).to_have_text(
        re.compile(rf"^Удар {shot} \(исправлен\): Фол: (.*, )?касание шара"), timeout=TIMEOUT)
    assert ref.taps - before == 2
    expect(page.locator("#fix-sheet")).to_be_hidden()
    ref.answer_all()

    # a foul the sensors cannot see: «Фол…», then the foul
    shot, before = ref.shot() + 1, ref.taps
    ref.tap("#q-foul")
    page.screenshot(path=str(artifacts / f"console-budget-{game}-foul-sheet.png"))
    ref.tap('#foul-sheet [data-pick-foul="touched_ball"]')
    ref.answer_all()
    ref.ruled(shot)
    assert ref.taps - before <= 3
    expect(page.locator("#ruling")).to_have_text(re.compile(rf"^Удар {shot}: Фол: касание шара"),
                                                 timeout=TIMEOUT)
    expect(page.locator("#verdict")).to_have_class(re.compile("foul"))
    ref.answer_all()


def _play_by_keys(ref: Referee, game: str) -> None:
    page = ref.page
    # a pot: the ball's number, then the pocket's letter
    ball, shot, before = _lowest(page), ref.shot() + 1, ref.keys
    for digit in str(ball % 10 if ball <= 10 else ball):
        ref.press(f"Digit{digit}")
    expect(page.locator(f'#pool [data-ball="{ball}"]')).to_be_focused()
    ref.press("KeyQ")  # far left, the key at the top left
    ref.answer_all(by_key=True)
    ruling = ref.ruled(shot)
    assert ref.keys - before <= 5
    assert f"шар {ball} " in ruling + " ", ruling
    ref.answer_all(by_key=True)
    # the focus is where the next action is: the ruling's «Верно», which V (or Enter) takes
    expect(page.locator("#v-ok")).to_be_focused()
    ref.press("KeyV")
    expect(page.locator("#verdict")).to_be_hidden()
    # a miss: one key
    shot, before = ref.shot() + 1, ref.keys
    ref.press("KeyM")
    ref.answer_all(by_key=True)
    ref.ruled(shot)
    assert ref.keys - before <= 2
    ref.answer_all(by_key=True)


@pytest.mark.parametrize("game", ["siberian-ten", "ten-ball", "pyramid"])
def test_a_shot_takes_two_taps_a_miss_one_and_a_foul_three_by_hand_and_by_keyboard(
        browser: Browser, demo: str, artifacts: Path, game: str) -> None:
    page, errors = open_console(browser, demo)
    ref = Referee(page)
    _new_match(page, game)  # the match before it on t2 is replaced: asked, and accepted
    ref.asked.clear()
    _play_by_taps(ref, artifacts, game)
    _play_by_keys(ref, game)
    # undo asks first, and a redo gives the shot back
    shot = ref.shot()
    ref.tap("#q-undo")
    assert ref.asked == [f"Отменить последний удар (удар {shot})?"]
    ref.settled()
    expect(page.locator("#ruling")).to_have_text(f"Отмена: назад к удару {shot - 1}", timeout=TIMEOUT)
    ref.tap("#q-redo")
    ref.settled()
    expect(page.locator("#ruling")).to_have_text(f"Возврат: снова удар {shot}", timeout=TIMEOUT)
    expect(page.locator("#card .meta")).to_contain_text(f"удар {shot}")
    ref.tap("#q-redo")  # nothing more to redo: the table's reason, in Russian
    ref.settled()
    expect(page.locator("#result")).to_have_text(
        "Возврат отменённого: отказ — вернуть нечего: после удара, ответа или исправления отмены не было",
        timeout=TIMEOUT)
    # the phone: the shot's actions and the drawing in one column, nothing wider than the screen;
    # the same taps (the drawing may be scrolled to)
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    page.evaluate("window.scrollTo(0, 0)")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE[0]
    page.screenshot(path=str(artifacts / f"console-budget-{game}-phone.png"))
    ball, shot, before = _lowest(page), ref.shot() + 1, ref.taps
    ref.tap(f'#pool [data-ball="{ball}"]', scroll=True)
    ref.tap('#pool [data-pocket="hr"]', scroll=True)
    ref.answer_all(scroll=True)
    assert f"шар {ball} " in ref.ruled(shot) + " "
    assert ref.taps - before == 2
    ref.answer_all(scroll=True)
    shot, before = ref.shot() + 1, ref.taps
    ref.tap("#q-miss", scroll=True)
    ref.answer_all(scroll=True)
    ref.ruled(shot)
    assert ref.taps - before == 1
    assert errors == []
    page.close()


def test_the_russian_demo_plays_russian_names(browser: Browser, demo: str) -> None:
    page = browser.new_page(viewport={"width": LANDSCAPE[0], "height": LANDSCAPE[1]})
    page.goto(demo + "?lang=ru")
    names = page.locator('[data-table="t1"] .player .name')
    expect(names).to_have_text(["Анна", "Борис"], timeout=TIMEOUT)
    page.close()


def test_the_new_match_form_speaks_russian_and_remembers_the_last_match_of_the_table(
        browser: Browser, demo: str) -> None:
    context = browser.new_context(viewport={"width": LANDSCAPE[0], "height": LANDSCAPE[1]})
    try:
        page = context.new_page()
        page.on("dialog", lambda d: d.accept())
        page.goto(demo + "console.html?table=t2&lang=ru")
        _connected(page)
        if page.locator("#end-match").is_visible():  # a match of another test: ended first
            page.click("#end-match")
            expect(page.locator("#new-match-panel")).to_be_in_viewport(timeout=TIMEOUT)
        page.select_option("#game", "siberian-ten")
        page.fill('[data-player-name="0"]', "Евгений")
        page.fill('[data-player-name="1"]', "Мария")
        page.locator("#new-match > details > summary").click()
        # the handicap's giver by name; no code, rule id or configuration line unless asked for
        expect(page.locator('[data-option="handicap_giver"] option')).to_have_text(["Евгений", "Мария"])
        shown = page.locator("#new-match").inner_text()
        assert not re.search(r"_|\b(PP|TB|ST)-\d|\[fusion\]|\.md\b", shown), shown
        page.locator('#options [data-option="handicap_giver"]').locator("xpath=ancestor::div[1]") \
            .locator("details summary").click()
        expect(page.locator('[data-option-doc="handicap_giver"]')).to_be_visible()
        page.fill("#race-to", "2")
        page.select_option("#breaker", "1")
        page.click("#new-match button[type=submit]")
        expect(page.locator("#result")).to_have_text(re.compile("^Новый матч: выполнено"), timeout=TIMEOUT)
        page.click("#end-match")
        expect(page.locator("#card")).to_contain_text("Нет матча", timeout=TIMEOUT)
        # another visit on this tablet: the last settings of t2, and the names offered
        again = context.new_page()
        again.goto(demo + "console.html?table=t2&lang=ru")
        expect(again.locator("#game")).to_have_value("siberian-ten", timeout=TIMEOUT)
        expect(again.locator('[data-player-name="0"]')).to_have_value("Евгений")
        expect(again.locator('[data-player-name="1"]')).to_have_value("Мария")
        expect(again.locator("#race-to")).to_have_value("2")
        expect(again.locator("#breaker")).to_have_value("1")
        offered = again.eval_on_selector_all("#recent-names option", "ns => ns.map(n => n.value)")
        assert offered[:2] == ["Евгений", "Мария"]
        # (the input offers that list until the venue's recorder publishes its roster, which
        # the demo runs: then the roster's entries, as buttons; tests/web/test_roster_console.py)
        # another table starts from the defaults
        other = context.new_page()
        other.goto(demo + "console.html?table=t1&lang=ru")
        _connected(other)
        expect(other.locator('[data-player-name="0"]')).to_have_value("")
    finally:
        context.close()
