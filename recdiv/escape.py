"""Escaping rules, one per output format: text from data files (run names, labels, item and user ids, aspect names,
file names, experiment names) goes into every human-facing output through one of these functions.

One rule comes first everywhere: characters that act instead of showing — C0 and C1 control characters (ESC starts
terminal escape sequences), DEL, the bidirectional overrides and isolates that reorder what is displayed
(U+202A–U+202E, U+2066–U+2069, U+200E/F, U+061C), zero-width and line/paragraph separators, the byte-order mark —
are made **visible** as ``\\uXXXX`` (`visible`; the same text as a JSON escape, so JSON stays valid and decodes to
the original). Then each format escapes its own markup:

- terminal (`terminal`): `visible`, keeping newlines and tabs of the text itself; `recdiv.console` applies it to
  everything a command prints;
- Markdown (`markdown`): ``\\ ` * < > | ~ & $`` backslash-escaped, ``_`` where it could start or end emphasis
  and ``]`` where it would close a link (``](``, ``][``), newlines as spaces, block markup at the start (``#``,
  ``-``, ``+``, ``=``, ``1.``) escaped, so a cell stays one cell and no HTML or link gets through;
- CSV (`csv_cell`): a text cell that a spreadsheet would run as a formula (``= + - @``, tab, CR first, and not a
  number) is prefixed with ``'``; quoting is the csv writer's;
- HTML (`html`): ``& < > " '`` as entities;
- LaTeX (`latex`): special characters as macros, Greek letters and symbols as math, other non-ASCII as ``?``;
- Plotly text (`plotly`): ``& < >`` as entities (plotly reads a subset of HTML in titles, legends and hover text);
- matplotlib text (`mathtext`): ``$`` escaped (a single ``$`` would start mathtext, and a malformed formula stops
  the drawing);
- JSON inside ``<script>`` (`script_json`): ``</`` and ``<!--`` broken up so the data cannot end the script.
"""

from __future__ import annotations

import re

# The patterns are compiled on first use (re's cache), not at import: every command imports this module (through
# recdiv.console), most never escape anything but plain text, and compiling them all took ~1.5 ms of `recdiv --help`.
_INVISIBLE = ("\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f"
              "\ufeff\ufff9-\ufffb")
_INVISIBLE_ALL = f"[\t\n{_INVISIBLE}]"
_INVISIBLE_TEXT = f"[{_INVISIBLE}]"  # keeps tab and newline


def _code(m: re.Match) -> str:
    return f"\\u{ord(m.group()):04x}"


def visible(text: object, keep_lines: bool = False) -> str:
    """`text` with every control, bidirectional and invisible formatting character written as ``\\uXXXX``
    (`keep_lines`: newlines and tabs stay)."""
    s = str(text)
    return re.sub(_INVISIBLE_TEXT if keep_lines else _INVISIBLE_ALL, _code, s)


def terminal(text: object) -> str:
    """Text for a terminal: controls and escape sequences visible, newlines and tabs kept."""
    s = str(text)
    return s if s.isascii() and s.isprintable() else re.sub(_INVISIBLE_TEXT, _code, s)


# Markdown ---------------------------------------------------------------------------------------------------------
_MD_SPECIAL = r"([\\`*<>|~&$]|\](?=[(\[]))"  # `]` only where it would close a link: `](`, `][`
_MD_UNDERSCORE = r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])"
_MD_LEADING = r"^(\s*)([#+=-]+(?=\s|$)|\d+(?=[.)](?:\s|$)))"


def markdown(text: object) -> str:
    """Text for a Markdown table cell or line: no markup, HTML, link or line break gets through."""
    s = visible(str(text).replace("\r\n", " ").replace("\n", " ").replace("\r", " "))
    s = re.sub(_MD_SPECIAL, r"\\\1", s)
    s = re.sub(_MD_UNDERSCORE, r"\\_", s)
    m = re.match(_MD_LEADING, s)
    if m:
        lead = m.group(2)
        s = m.group(1) + (lead + "\\" if lead[0].isdigit() else "\\" + lead) + s[m.end():]
    return s


# CSV ----------------------------------------------------------------------------------------------------------------
_NUMBER = r"(?i)[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|nan)"


def csv_cell(value: object) -> object:
    """A value for a CSV cell: text a spreadsheet would evaluate (starting with ``= + - @``, tab or CR and not a
    number) gets a leading ``'``; numbers and other values pass unchanged."""
    if not isinstance(value, str) or not value or value[0] not in "=+-@\t\r":
        return value
    return value if re.fullmatch(_NUMBER, value) else "'" + value


# HTML and Plotly ------------------------------------------------------------------------------------------------------
def html(text: object) -> str:
    """Text for HTML content or a quoted attribute."""
    s = visible(text, keep_lines=True)  # what html.escape(quote=True) does, without importing html.entities
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").replace(
        "'", "&#x27;")


def plotly(text: object) -> str:
    """Text for a plotly title, legend entry, label or hover line (plotly reads ``<br>``, ``<b>``, ``<a>``...)."""
    return visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def script_json(payload: str) -> str:
    """JSON text embedded in an HTML ``<script>`` element: ``</`` and ``<!--`` cannot end or confuse the script (in
    JavaScript ``<\\/`` is ``</`` and ``\\u003c!`` is ``<!``)."""
    return payload.replace("</", "<\\/").replace("<!", "\\u003c!")


def mathtext(text: object) -> str:
    """Text for a matplotlib label: ``$`` escaped, so it never starts mathtext."""
    return visible(text).replace("$", r"\$")


# LaTeX --------------------------------------------------------------------------------------------------------------
UP, DOWN = "▲", "▼"
_MATH = {"α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "ε": r"\varepsilon", "θ": r"\theta",
         "λ": r"\lambda", "μ": r"\mu", "π": r"\pi", "ρ": r"\rho", "σ": r"\sigma", "τ": r"\tau", "φ": r"\phi",
         "Δ": r"\Delta", "±": r"\pm", "×": r"\times", "−": "-", "≤": r"\leq", "≥": r"\geq", "→": r"\rightarrow",
         "≈": r"\approx", "∞": r"\infty", "↑": r"\uparrow", "↓": r"\downarrow", "←": r"\leftarrow", "·": r"\cdot",
         "∪": r"\cup", UP: r"\blacktriangle",
         DOWN: r"\blacktriangledown", "₀": "_0", "₁": "_1", "₂": "_2", "²": "^2", "√": r"\surd"}
_TEXT = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
         "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "–": "--", "—": "---", "…": r"\ldots{}",
         "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "“": "``", "”": "''", "’": "'",
         "\u00a0": "~", "\n": " ", "\r": " ", "\t": " "}


#: combining accents → LaTeX accent commands (é = e + U+0301 → \\'{e}); letters without a decomposition below
_ACCENTS = {"\u0300": "`", "\u0301": "'", "\u0302": "^", "\u0303": "~", "\u0304": "=", "\u0306": "u", "\u0307": ".",
            "\u0308": '"', "\u030a": "r", "\u030b": "H", "\u030c": "v", "\u0327": "c", "\u0323": "d"}
_LETTERS = {"ß": r"\ss{}", "ø": r"\o{}", "Ø": r"\O{}", "æ": r"\ae{}", "Æ": r"\AE{}", "œ": r"\oe{}", "Œ": r"\OE{}",
            "ł": r"\l{}", "Ł": r"\L{}", "ı": r"\i{}", "¡": r"\textexclamdown{}", "¿": r"\textquestiondown{}",
            "‘": "`", "′": "'"}


def _accented(ch: str) -> str | None:
    """An accented letter as LaTeX accent commands (``ñ`` → ``\\~{n}``), None if pdflatex cannot typeset it so."""
    import unicodedata  # deferred: only LaTeX output of accented letters needs it

    parts = unicodedata.normalize("NFD", ch)
    base, marks = parts[0], parts[1:]
    if not marks or not " " < base < "\x7f" or any(m not in _ACCENTS for m in marks):
        return None
    out = {"i": r"\i", "j": r"\j"}.get(base, base) if marks[0] in "\u0300\u0301\u0302\u0303\u0304\u0306\u0308" \
        else base
    for m in marks:
        out = rf"\{_ACCENTS[m]}{{{out}}}"
    return out


def latex(text: object) -> str:
    """Text for LaTeX: special characters escaped, Greek letters, arrows and symbols as math (``\\ensuremath``),
    accented letters as LaTeX accents (``é`` → ``\\'{e}``; ß, ø, æ, ł as their macros); control characters and any
    other non-ASCII character as '?' so that pdflatex never stops on them."""
    out = []
    for ch in str(text):
        if ch in _MATH:
            out.append(rf"\ensuremath{{{_MATH[ch]}}}")
        elif ch in _TEXT:
            out.append(_TEXT[ch])
        elif " " <= ch < "\x7f":
            out.append(ch)
        elif ch in _LETTERS:
            out.append(_LETTERS[ch])
        else:
            out.append(_accented(ch) or "?")
    return "".join(out)
