"""Every kind of email of every engine, measured against outside references.

* caniemail's data (the npm package ``@jsx-email/doiuse-email``, installed by .ci/run
  beside axe-core): no declaration that Gmail, Outlook on Windows or Apple Mail
  drops may be there, but for the purely decorative ones of :data:`DECORATIVE`.
* Each of those clients simulated in headless Chromium at 390 pixels: the email
  with every declaration the client drops removed (and those it honours only on
  some elements removed elsewhere) scrolls no sideways, shows the same text, and
  every line of text keeps its contrast (WCAG AA) as it stands and when a client's
  dark mode inverts the colours (all of them, or only light backgrounds and dark text).
* SpamAssassin (Debian's, local rules only: ``-L``) scores each under 1.0.

The corpus comes from :mod:`tests.support.email_kinds`.
"""

from __future__ import annotations

import json
import mailbox
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from pbem.db import dispose_all
from pbem.runtime import set_runtime
from tests.conftest import build_runtime
from tests.support import email_kinds
from tests.support.services import required

#: The whole corpus, played out and run through outside tools: long.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts" / "inboxes"
CANIEMAIL_JS = ROOT / "tests" / "support" / "caniemail.js"
#: The clients the emails must read well in (caniemail's names).
CLIENTS = ("gmail.desktop-webmail", "gmail.ios", "gmail.android", "gmail.mobile-webmail", "outlook.windows",
           "apple-mail.macos", "apple-mail.ios")  # fmt: skip
#: Dropped declarations that carry neither layout nor meaning: a pill is coloured text either way.
DECORATIVE = frozenset({"border-radius"})
#: What caniemail's notes say these clients honour only on some elements, as (client prefix,
#: property, tags that keep it; None: no tag keeps the values in ``values``).
PARTIAL = (
    ("outlook.windows", "padding", ("td", "th")),
    ("outlook.windows", "max-width", ("table",)),
    ("outlook.windows", "border", ("td", "th", "table", "span", "a", "code", "strong", "hr")),  # "unreliable on p, div"
    ("outlook.windows", "margin", ("p", "div", "table", "ul", "ol", "li", "hr", "h1", "h2", "h3")),  # not span, body
    ("apple-mail.ios", "max-width", ("td", "th", "div", "p", "span")),  # "doesn't work on tables"
)
_NOT_SUPPORTED = re.compile(r"^`(?P<what>[^`]+)` is not supported by `(?P<client>[^`]+)`$")


def _node_modules() -> Path | None:
    base = Path(os.environ.get("PBEM_AXE_DIR", ROOT / "tests" / "artifacts" / "node")) / "node_modules"
    return base if (base / "@jsx-email" / "doiuse-email" / "package.json").is_file() else None


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[email_kinds.Sample]:
    tmp = tmp_path_factory.mktemp("inboxes")
    runtime = build_runtime(tmp, f"sqlite:///{tmp / 'pbem.sqlite3'}")
    try:
        samples = email_kinds.collect(runtime)
    finally:
        set_runtime(None)
        dispose_all()
    return samples


def test_the_corpus_holds_every_kind_of_every_engine(corpus):
    names = {sample.name for sample in corpus}
    expected = {f"{engine}-{kind}" for engine in email_kinds.ENGINES for kind in email_kinds.GAME_KINDS}
    expected |= {f"server-{kind}" for kind in email_kinds.OTHER_KINDS} | {"kidsprout-announce"}
    assert expected <= names, sorted(expected - names)


def caniemail(corpus) -> dict[str, dict[str, list[str]]]:
    """``{sample: {"errors": [...], "warnings": [...]}}`` from doiuse-email, for :data:`CLIENTS`."""
    modules = _node_modules()
    if modules is None or shutil.which("node") is None:
        if required():
            pytest.fail(
                "node and @jsx-email/doiuse-email are required (PBEM_REQUIRE_SERVICES=1): .ci/run installs them"
            )
        pytest.skip("doiuse-email not installed (npm install --prefix tests/artifacts/node @jsx-email/doiuse-email@1)")
    items = [{"name": sample.name, "html": sample.html} for sample in corpus]
    done = subprocess.run(
        ["node", str(CANIEMAIL_JS), json.dumps(list(CLIENTS))],
        input=json.dumps(items),
        capture_output=True,
        text=True,
        env={**os.environ, "NODE_PATH": str(modules)},
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def dropped(corpus) -> dict[str, dict[str, set[str]]]:
    """``{sample: {client: what the client drops}}`` (properties, ``<tag> element``, ``name attribute``)."""
    found: dict[str, dict[str, set[str]]] = {}
    for name, result in caniemail(corpus).items():
        per_client = found.setdefault(name, {client: set() for client in CLIENTS})
        for error in result["errors"]:
            match = _NOT_SUPPORTED.match(error)
            assert match, f"an answer of doiuse-email this test cannot read: {error}"
            per_client[match["client"]].add(match["what"])
    return found


def test_no_declaration_the_major_clients_drop_carries_layout_or_meaning(corpus, dropped):
    assert len(dropped) == len(corpus)
    carrying = {
        f"{name} in {client}": sorted(what - DECORATIVE)
        for name, clients in dropped.items()
        for client, what in clients.items()
        if what - DECORATIVE
    }
    assert carrying == {}
    assert any("border-radius" in what for clients in dropped.values() for what in clients.values()), (
        "the check reads caniemail's answers (Outlook on Windows draws no rounded corners)"
    )


# -- the clients, simulated in Chromium ---------------------------------------------------------

#: Removes what one client drops: ``{properties, elements, attributes, partial: [[prop, [tags]]]}``.
SIMULATE = """(drop) => {
  for (const el of Array.from(document.querySelectorAll('*'))) {
    const tag = el.tagName.toLowerCase();
    if (drop.elements.includes(tag)) { el.replaceWith(...el.childNodes); continue; }
    for (const name of drop.attributes) el.removeAttribute(name);
    if (!el.style) continue;
    for (const prop of drop.properties) el.style.removeProperty(prop);
    for (const [prop, tags] of drop.partial) {
      if (!tags.includes(tag)) el.style.removeProperty(prop);
    }
    for (const prop of ['margin', 'margin-left', 'margin-right']) {
      if (drop.partial.length && el.style.getPropertyValue(prop).includes('auto')) el.style.removeProperty(prop);
    }
  }
}"""

#: Every element with text of its own: its colours, the background it is drawn on, and whether it is large.
COLOURS = """() => {
  const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(',').map(Number); return p.length > 3 && p[3] === 0 ? null : p.slice(0, 3); };
  const out = [];
  for (const el of Array.from(document.body.querySelectorAll('*'))) {
    const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const style = getComputedStyle(el), box = el.getBoundingClientRect();
    if (!box.width || style.visibility === 'hidden') continue;
    let bg = null;
    for (let up = el; up && !bg; up = up.parentElement) bg = parse(getComputedStyle(up).backgroundColor);
    const size = parseFloat(style.fontSize), bold = parseInt(style.fontWeight) >= 700;
    out.push({text: el.innerText.trim().slice(0, 40), fg: parse(style.color), bg: bg || [255, 255, 255],
              large: size >= 24 || (bold && size >= 18.66)});
  }
  return out;
}"""


def _luminance(rgb: list[float]) -> float:
    channels = [c / 255 for c in rgb]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(fg: list[float], bg: list[float]) -> float:
    light, dark = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _lightness(rgb: list[float]) -> float:
    return (max(rgb) + min(rgb)) / 2 / 255


def invert(rgb: list[float]) -> list[float]:
    """The colour with its HSL lightness inverted (hue and saturation kept), as dark modes do."""
    import colorsys

    h, lightness, s = colorsys.rgb_to_hls(*(c / 255 for c in rgb))
    return [round(c * 255) for c in colorsys.hls_to_rgb(h, 1 - lightness, s)]


#: How clients' dark modes change colours: none, all of them, or light backgrounds and dark text only.
DARK_MODES = {
    "as sent": lambda fg, bg: (fg, bg),
    "full inversion": lambda fg, bg: (invert(fg), invert(bg)),
    "partial inversion": lambda fg, bg: (
        invert(fg) if _lightness(fg) < 0.5 else fg,
        invert(bg) if _lightness(bg) > 0.5 else bg,
    ),
}


def illegible(colours: list[dict]) -> list[str]:
    """Texts under WCAG AA contrast (4.5, or 3 when large) in any of :data:`DARK_MODES`."""
    found = []
    for item in colours:
        wanted = 3.0 if item["large"] else 4.5
        for mode, change in DARK_MODES.items():
            ratio = contrast(*change(item["fg"], item["bg"]))
            if ratio < wanted:
                found.append(f"{item['text']!r} {mode}: {ratio:.2f}")
    return found


def client_drops(client: str, what: set[str]) -> dict:
    """The :data:`SIMULATE` argument for ``client``, from caniemail's answers and :data:`PARTIAL`."""
    return {
        "properties": sorted(w for w in what if not w.endswith((" element", " attribute"))),
        "elements": sorted(w.strip("<>").split(">")[0] for w in what if w.endswith(" element")),
        "attributes": sorted(w.split()[0] for w in what if w.endswith(" attribute")),
        "partial": [[prop, list(tags)] for prefix, prop, tags in PARTIAL if client.startswith(prefix)],
    }


@pytest.mark.browser
def test_each_client_shows_each_email_on_a_phone_without_sideways_scroll_or_lost_contrast(
    corpus,
    dropped,
    chromium,
):
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    problems: dict[str, list[str]] = {}
    try:
        for sample in corpus:
            page.set_content(sample.html)
            shown = page.evaluate("document.body.innerText")
            seen: set[str] = set()
            for client in CLIENTS:
                drop = client_drops(client, dropped[sample.name][client])
                key = json.dumps(drop, sort_keys=True)
                if key in seen:
                    continue
                seen.add(key)
                page.set_content(sample.html)
                page.evaluate(SIMULATE, drop)
                where = f"{sample.name} in {client}"
                wider = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
                found = [f"{wider} px wider than the screen"] if wider > 0 else []
                if page.evaluate("document.body.innerText") != shown:
                    found.append("shows other text than as sent")
                found += illegible(page.evaluate(COLOURS))
                if found:
                    problems[where] = found
                if found or (client == "outlook.windows" and sample.kind in ("turn", "welcome")):
                    ARTIFACTS.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(ARTIFACTS / f"{sample.name}-{client}-390.png"), full_page=True)
    finally:
        context.close()
    assert problems == {}


# -- SpamAssassin ------------------------------------------------------------------------------

#: Local rules only, one mbox of every email, nothing learnt.
SPAMASSASSIN = ("spamassassin", "-L", "--mbox", "-t", "--cf=use_bayes 0", "--cf=bayes_auto_learn 0")
_STATUS = re.compile(r"^X-Spam-Status: \w+, score=(-?[\d.]+) required=[\d.]+ tests=(.*?)(?:\n(?=\S)|\Z)", re.M | re.S)


@pytest.mark.slow
def test_spamassassin_scores_every_kind_under_one(corpus, tmp_path):
    if shutil.which("spamassassin") is None:
        if required():
            pytest.fail("spamassassin is required (PBEM_REQUIRE_SERVICES=1): .ci/run installs Debian's")
        pytest.skip("spamassassin not installed (apt-get install spamassassin)")
    box = mailbox.mbox(str(tmp_path / "corpus.mbox"))
    for sample in corpus:
        message = mailbox.mboxMessage(sample.raw)
        message.set_from("pbem@pbem.test", time.gmtime(0))
        box.add(message)
    box.flush()
    box.close()
    home = tmp_path / "home"  # nothing learnt or written in anyone's home folder
    home.mkdir()
    done = subprocess.run(
        [*SPAMASSASSIN, f"--prefspath={home / 'user_prefs'}"],
        stdin=(tmp_path / "corpus.mbox").open("rb"),
        capture_output=True,
        env={**os.environ, "HOME": str(home)},
        timeout=600,
        check=True,
    )
    statuses = _STATUS.findall(done.stdout.decode("utf-8", "replace"))
    assert len(statuses) == len(corpus)
    scores = {
        sample.name: (float(score), " ".join(tests.split()))
        for sample, (score, tests) in zip(corpus, statuses, strict=True)
    }
    assert {name: found for name, found in scores.items() if found[0] >= 1.0} == {}
