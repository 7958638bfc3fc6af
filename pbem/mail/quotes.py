"""Keep what the player wrote; drop what they quoted and how they signed.

Handles ``>`` quoting (bottom-, top- and inline posting), attribution lines
("On ... wrote:" in several languages, Apple Mail's quoted one, Gmail's wrapped
one), unquoted originals ("-----Original Message-----", a rule, or a header
block of From, Sent or Date, To and Subject lines in any order and language, as
Outlook, GMX and many webmails write it), ``-- `` signatures, "Sent from my
phone" footers, and a greeting or sign-off around the orders.  An attribution
that names no address, time or year ("On Sat, Rank Chain #2 wrote:") is still
one when quoted text follows it.
"""

from __future__ import annotations

import itertools
import re

_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")

_WROTE = (
    r"wrote|writes|schrieb|a\s+écrit|escribió|escreveu|ha\s+scritto|scrisse|schreef|het\s+volgende\s+geschreven|skrev|kirjoitti|"
    r"napisał|pisze|napsal|написал|написала|пишет|έγραψε|yazdı|írta|scrise|a\s+scris|写道|寫道|のメッセージ|님이\s*작성"
)
_ATTRIBUTION_END = re.compile(rf"(?:{_WROTE})[^:：]{{0,60}}[:：]\s*$|>\s*[:：]\s*$|wrote\s*$", re.IGNORECASE)
_ATTRIBUTION_START = re.compile(
    r"^(?:on|am|le|el|il|op|em|den|da|w\s+dniu|dnia|в|dne|στις|\d{1,4}[./\-年]|"
    r"(?:mon|tue|wed|thu|fri|sat|sun|lun|mar|mer|jeu|ven|sam|dim|mo|di|mi|do|fr|sa|so|"
    r"пн|вт|ср|чт|пт|сб|вс)[a-zé.]*,?\s)",
    re.IGNORECASE,
)
#: An attribution names an address, a time or a year; an order that happens to end in "wrote:" does not.
_ATTRIBUTION_FACT = re.compile(r"@|\d{1,2}[:.h]\d{2}|\b(?:19|20)\d{2}\b")
_ORIGINAL_MARKERS = re.compile(
    r"^\s*-{2,}\s*(?:original\s+message|ursprüngliche\s+nachricht|message\s+d'origine|mensaje\s+original|"
    r"messaggio\s+originale|oorspronkelijk\s+bericht|mensagem\s+original|originalmeddelande|"
    r"opprinnelig\s+melding|oprindelig\s+meddelelse|ursprungligt\s+meddelande|oryginalna\s+wiadomość|"
    r"wiadomość\s+oryginalna|původní\s+zpráva|pôvodná\s+správa|alkuperäinen\s+viesti|eredeti\s+üzenet|"
    r"orijinal\s+ileti|исходное\s+сообщение|forwarded\s+message|"
    r"weitergeleitete\s+nachricht|message\s+transféré)\s*-{2,}\s*$",
    re.IGNORECASE,
)
_HEADER_FROM = re.compile(r"^\s*\*?(?:from|von|de|da|van|od|от|från|fra|lähettäjä)\s*\*?\s*[:：]", re.IGNORECASE)
_HEADER_NEXT = re.compile(
    r"^\s*\*?(?:sent|date|to|subject|cc|gesendet|datum|an|betreff|envoyé|date|à|objet|enviado(?:\s+el)?|fecha|para|asunto|"
    r"inviato|data|oggetto|a|verzonden|aan|onderwerp|отправлено|дата|кому|тема|skickat|till|ämne|sendt|til|emne|"
    r"wysłano|do|temat|odesláno|komu|předmět|lähetetty|vastaanottaja|aihe|assunto|kopie|kopia|kopi)"
    r"\s*\*?\s*[:：]",
    re.IGNORECASE,
)
#: A rule: Outlook's line of underscores, and what an HTML ``<hr>`` becomes (:mod:`pbem.mail.text`).
_UNDERSCORES = re.compile(r"^\s*_{8,}\s*$")
_SIGNATURE = re.compile(r"^(?:--|-- |—|__)\s*$")
_PHONE = re.compile(
    r"^\s*(?:sent\s+(?:from|via|with)\s+(?:my\s+)?\S.{0,40}|get\s+outlook\s+for\s+\S+|"
    r"envoyé\s+(?:de|depuis)\s+(?:mon\s+)?\S.{0,30}|obtenir\s+outlook\s+pour\s+\S+|"
    r"von\s+meinem\s+\S.{0,30}\s+gesendet|gesendet\s+von\s+\S.{0,30}|outlook\s+für\s+\S+\s+beziehen|"
    r"enviado\s+desde\s+(?:mi\s+)?\S.{0,30}|obtener\s+outlook\s+para\s+\S+|"
    r"enviado\s+do\s+(?:meu\s+)?\S.{0,30}|obter\s+o\s+outlook\s+para\s+\S+|"
    r"inviato\s+da(?:l\s+mio)?\s+\S.{0,30}|scarica\s+outlook\s+per\s+\S+|"
    r"(?:verzonden|verstuurd)\s+(?:met|vanaf|van|via)\s+\S.{0,30}|outlook\s+voor\s+\S+\s+downloaden|"
    r"skickat\s+från\s+\S.{0,30}|sendt\s+fra\s+\S.{0,30}|"
    r"отправлено\s+(?:с|из)\s+\S.{0,40}|wysłane\s+z\s+\S.{0,30})\.?\s*$",
    re.IGNORECASE,
)
_GREETING = re.compile(
    r"^(?:hi|hello|hey|hiya|dear|greetings|good\s+(?:morning|afternoon|evening)|bonjour|salut|hallo|"
    r"guten\s+tag|moin|hola|buenos\s+días|ciao|buongiorno|olá|hej|hoi|привет|здравствуйте)\b[^\n]{0,40}$",
    re.IGNORECASE,
)
_SIGN_OFF = re.compile(
    r"^(?:thanks|thank\s+you|thx|cheers|regards|best|best\s+regards|kind\s+regards|warm\s+regards|all\s+the\s+best|"
    r"bye|ciao|cordialement|merci|à\s+bientôt|bises|grüße|gruß|viele\s+grüße|liebe\s+grüße|lg|mfg|danke|"
    r"saludos|un\s+saludo|gracias|grazie|saluti|abraços|obrigado|groetjes|mvg|hälsningar|mvh|"
    r"met\s+vriendelijke\s+groet(?:en)?|med\s+venlig\s+hilsen|venlig\s+hilsen|vennlig\s+hilsen|hilsen|"
    r"pozdrawiam|s\s+pozdravem|terveisin|cumprimentos|atenciosamente|"
    r"спасибо|с\s+уважением|пока)[\s,.!]*$",
    re.IGNORECASE,
)


def _is_quoted(line: str) -> bool:
    return line.lstrip().startswith((">", "|>", "»"))


def _next_nonblank(lines: list[str], index: int) -> int | None:
    for j in range(index, len(lines)):
        if lines[j].strip():
            return j
    return None


def _is_header(line: str) -> bool:
    return bool(_HEADER_FROM.match(line) or _HEADER_NEXT.match(line))


def _header_block_at(lines: list[str], index: int) -> bool:
    """A header block of the original, quoted without ``>``: three header lines in a row (From,
    Sent or Date, To, Subject... in any order and several languages), one of them naming the sender."""
    if not _is_header(lines[index]):
        return False
    block = [lines[index], *[line for line in lines[index + 1 : index + 6] if line.strip()][:3]]
    headers = list(itertools.takewhile(_is_header, block))
    return len(headers) >= 3 and any(_HEADER_FROM.match(line) for line in headers)


def _attribution_span(lines: list[str], end: int) -> int | None:
    """If lines ending at ``end`` are an attribution ("On <date>, <who> wrote:"), where it starts.

    It must name an address, a time or a year, unless quoted text follows it: an order that
    happens to end in "wrote:" is followed by more orders, never by a quote."""
    if not _ATTRIBUTION_END.search(lines[end]):
        return None
    after = _next_nonblank(lines, end + 1)
    quote_follows = after is not None and _is_quoted(lines[after])

    def attested(span: str) -> bool:
        return quote_follows or bool(_ATTRIBUTION_FACT.search(span))

    for start in range(end, max(end - 3, -1), -1):
        if not lines[start].strip():
            break
        if _ATTRIBUTION_START.match(lines[start].strip()) and attested(" ".join(lines[start : end + 1])):
            return start
    return end if re.search(_WROTE, lines[end], re.IGNORECASE) and attested(lines[end]) else None


def strip_quotes(text: str) -> str:
    """The reply without quoted text, attributions, originals and signatures."""
    text = _ZERO_WIDTH.sub("", text.replace("\r\n", "\n").replace("\r", "\n")).replace("\xa0", " ")
    lines = [line.rstrip() for line in text.split("\n")]
    kept: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if _ORIGINAL_MARKERS.match(line) or _header_block_at(lines, index):
            break
        if _UNDERSCORES.match(line):
            after = _next_nonblank(lines, index + 1)
            if after is None or _header_block_at(lines, after):
                break
        if _is_quoted(line):
            index += 1
            continue
        start = _attribution_span(lines, index)
        if start is not None and start >= index - 3:
            if index > start:
                del kept[len(kept) - (index - start) :]
            after = _next_nonblank(lines, index + 1)
            if after is None or not _is_quoted(lines[after]):
                break  # top-posted reply above an unquoted original
            index += 1
            continue
        if _SIGNATURE.match(line):
            break
        if _PHONE.match(line):
            index += 1
            continue
        kept.append(line)
        index += 1
    return _trim_courtesies("\n".join(kept))


def _trim_courtesies(text: str) -> str:
    """Drop a greeting line at the top and a short sign-off ("Cheers,\\nAnn") at the bottom."""
    lines = text.strip("\n").split("\n")
    if (
        lines
        and _GREETING.match(lines[0].strip())
        and (len(lines) == 1 or not lines[1].strip() or lines[0].rstrip().endswith((",", "!", ":")))
    ):
        lines = lines[1:]
    nonblank = [i for i, line in enumerate(lines) if line.strip()]
    for position, i in enumerate(nonblank):
        tail = nonblank[position + 1 :]
        if _SIGN_OFF.match(lines[i].strip()) and len(tail) <= 2 and all(len(lines[t].strip()) <= 40 for t in tail):
            lines = lines[:i]
            break
    return "\n".join(lines).strip("\n")


def order_lines(text: str) -> list[str]:
    """Each remaining non-blank line, trimmed: one order or command per line."""
    return [" ".join(line.split()) for line in strip_quotes(text).split("\n") if line.strip()]
