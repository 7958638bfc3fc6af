"""The text a person wrote: the best body part, decoded, HTML turned into lines.

``text/plain`` is preferred; an HTML-only message is converted.  Attachments
and forwarded messages are ignored.  Any charset and transfer encoding is
accepted, and an unknown charset degrades to replacement characters rather
than an error.  So do lone surrogates (UTF-7 and the escape codecs can make
them; no database or encoder takes them), wherever the text came from.
"""

from __future__ import annotations

import codecs
import contextlib
import re
from email.message import Message
from html.parser import HTMLParser

MAX_PARTS = 200

_BLOCK = {
    "p", "div", "br", "li", "ul", "ol", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6",
    "pre", "hr", "section", "article", "header", "footer", "dd", "dt", "dl", "center",
}  # fmt: skip
_SKIP = {"script", "style", "head", "title", "template", "noscript", "svg"}
#: HTML wrappers that hold the quoted original in common clients.
_QUOTE_CLASSES = ("gmail_quote", "moz-cite-prefix", "yahoo_quoted", "protonmail_quote", "zmail_extra")
#: Outlook (desktop, web and Mac) marks where the reply ends with these ids; all after is the original.
_CUT_IDS = ("appendonsend", "divrplyfwdmsg", "mail-editor-reference-message-container", "olk_src_body_section")
#: ``name`` attributes of the element holding the original (GMX and web.de).
_QUOTE_NAMES = ("quote",)
#: What a horizontal rule becomes: a line of underscores, which :mod:`pbem.mail.quotes` reads as
#: the start of the original when a header block follows it.
RULE = "_" * 32
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def readable(text: str) -> str:
    """``text`` with any lone surrogate replaced by U+FFFD, so it can be stored and sent."""
    return _SURROGATE.sub("\ufffd", text)


def _decode(part: Message) -> str:
    """A leaf part's payload as text, whatever its transfer encoding and charset."""
    try:
        payload = part.get_payload(decode=True)
    except Exception:
        return ""
    if not isinstance(payload, bytes):
        return ""
    charset = "utf-8"
    try:
        charset = part.get_content_charset() or "utf-8"
        codecs.lookup(charset)
    except (LookupError, ValueError, TypeError):
        charset = "utf-8"
    if charset in ("us-ascii", "ascii"):
        charset = "utf-8"  # mislabelled 8-bit text is common; utf-8 is a superset
    try:
        return readable(payload.decode(charset, errors="replace"))
    except Exception:
        return payload.decode("utf-8", errors="replace")


def _unflow(text: str, delsp: bool) -> str:
    """Join RFC 3676 ``format=flowed`` soft line breaks (a line ending in a space continues)."""
    out: list[str] = []
    buffer = ""
    for line in text.split("\n"):
        if line.startswith(" ") and not line.startswith("  "):
            line = line[1:]  # space-stuffing
        if line.endswith(" ") and line != "-- ":
            buffer += line[:-1] if delsp else line
            continue
        out.append(buffer + line)
        buffer = ""
    if buffer:
        out.append(buffer)
    return "\n".join(out)


def _is_attachment(part: Message) -> bool:
    try:
        disposition = (part.get("Content-Disposition") or "").split(";")[0].strip().lower()
        return disposition == "attachment" or (disposition != "inline" and bool(part.get_filename()))
    except Exception:
        return True


def _leaves(message: Message) -> list[Message]:
    """Body parts in order, not descending into attachments or forwarded messages."""
    found: list[Message] = []
    stack = [message]
    while stack and len(found) < MAX_PARTS:
        part = stack.pop(0)
        try:
            maintype = part.get_content_maintype()
        except Exception:
            continue
        if maintype == "multipart":
            payload = part.get_payload()
            if isinstance(payload, list):
                stack[0:0] = payload[:MAX_PARTS]
            continue
        if maintype == "message" or _is_attachment(part):
            continue
        found.append(part)
    return found


def body_text(message: Message) -> str:
    """The text to read orders from: the first plain part, else the first HTML part converted."""
    leaves = _leaves(message)
    for part in leaves:
        if part.get_content_type() == "text/plain":
            text = _decode(part).replace("\r\n", "\n").replace("\r", "\n")
            params = {k.lower(): (v or "").lower() for k, v in (part.get_params() or [])[1:]}
            if params.get("format") == "flowed":
                text = _unflow(text, params.get("delsp") == "yes")
            return text
    for part in leaves:
        if part.get_content_type() == "text/html":
            return html_to_text(_decode(part))
    return ""


class _HtmlText(HTMLParser):
    """HTML to lines: blocks become line breaks (and so do those inside ``<pre>``), quoted originals are left out."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.stack: list[tuple[str, bool]] = []
        self.hidden = 0
        self.stopped = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.stopped:
            return
        values = {name: (value or "").lower() for name, value in attrs}
        if values.get("id", "") in _CUT_IDS:
            self.stopped = True
            return
        hide = (
            tag in _SKIP
            or tag == "blockquote"
            or any(c in values.get("class", "") for c in _QUOTE_CLASSES)
            or values.get("name", "") in _QUOTE_NAMES
        )
        if tag == "hr" and not self.hidden:
            self.parts.append(f"\n{RULE}\n")
        if tag not in ("br", "hr", "img", "meta", "link", "input", "wbr"):
            self.stack.append((tag, hide))
            if hide:
                self.hidden += 1
        if tag in _BLOCK and not self.hidden:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if self.stopped:
            return
        while self.stack:
            name, hide = self.stack.pop()
            if hide:
                self.hidden -= 1
            if name == tag:
                break
        if tag in _BLOCK and not self.hidden:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.hidden or self.stopped:
            return
        if any(name == "pre" for name, _ in self.stack):  # preformatted: its line breaks are lines
            self.parts.append(re.sub(r"[ \t]+", " ", data.replace("\r\n", "\n").replace("\r", "\n")))
        else:
            self.parts.append(re.sub(r"[ \t\r\n]+", " ", data))


def html_to_text(html: str) -> str:
    parser = _HtmlText()
    with contextlib.suppress(Exception):  # html.parser is lenient; this is a last resort
        parser.feed(html)
        parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.parts).split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
