"""Convert inline LaTeX math (as found in abstracts) to readable Unicode text."""

from __future__ import annotations

import re
import unicodedata

# --- symbol tables ---------------------------------------------------------------------------

_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
    "eps": "ε", "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι",
    "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "varpi": "ϖ",
    "rho": "ρ", "varrho": "ϱ", "sigma": "σ", "varsigma": "ς", "tau": "τ", "upsilon": "υ",
    "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π",
    "Sigma": "Σ", "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}

# Relations and binary operators: written with spaces around them.
_RELATIONS = {
    "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "leqslant": "⩽", "geqslant": "⩾",
    "neq": "≠", "ne": "≠", "approx": "≈", "sim": "∼", "simeq": "≃", "cong": "≅",
    "equiv": "≡", "propto": "∝", "in": "∈", "notin": "∉", "ni": "∋", "subset": "⊂",
    "subseteq": "⊆", "supset": "⊃", "supseteq": "⊇", "times": "×", "cdot": "·",
    "div": "÷", "pm": "±", "mp": "∓", "to": "→", "rightarrow": "→", "leftarrow": "←",
    "Rightarrow": "⇒", "Leftarrow": "⇐", "leftrightarrow": "↔", "Leftrightarrow": "⇔",
    "longrightarrow": "⟶", "longleftarrow": "⟵", "Longrightarrow": "⟹", "mapsto": "↦",
    "implies": "⟹", "iff": "⟺", "gets": "←", "ll": "≪", "gg": "≫", "lesssim": "≲",
    "gtrsim": "≳", "asymp": "≍", "prec": "≺", "succ": "≻", "preceq": "⪯", "succeq": "⪰",
    "cup": "∪", "cap": "∩", "setminus": "∖", "wedge": "∧", "land": "∧", "vee": "∨",
    "lor": "∨", "oplus": "⊕", "otimes": "⊗", "odot": "⊙", "circ": "∘", "bullet": "•",
    "perp": "⊥", "parallel": "∥", "mid": "∣", "vdash": "⊢", "models": "⊨", "coloneqq": "≔",
    "triangleq": "≜", "doteq": "≐", "uparrow": "↑", "downarrow": "↓", "hookrightarrow": "↪",
    "xrightarrow": "→", "rightharpoonup": "⇀", "lhd": "⊲", "rhd": "⊳", "sqsubseteq": "⊑",
}

_SYMBOLS = {
    "infty": "∞", "sum": "∑", "prod": "∏", "coprod": "∐", "int": "∫", "iint": "∬",
    "oint": "∮", "partial": "∂", "nabla": "∇", "forall": "∀", "exists": "∃", "nexists": "∄",
    "neg": "¬", "lnot": "¬", "emptyset": "∅", "varnothing": "∅", "ell": "ℓ", "hbar": "ℏ",
    "Re": "ℜ", "Im": "ℑ", "aleph": "ℵ", "wp": "℘", "star": "⋆", "ast": "∗", "dagger": "†",
    "ddagger": "‡", "top": "⊤", "bot": "⊥", "prime": "′", "angle": "∠", "triangle": "△",
    "square": "□", "Box": "□", "diamond": "⋄", "checkmark": "✓", "S": "§", "P": "¶",
    "ldots": "…", "cdots": "⋯", "dots": "…", "dotsc": "…", "dotsb": "⋯", "vdots": "⋮",
    "ddots": "⋱", "langle": "⟨", "rangle": "⟩", "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊",
    "rfloor": "⌋", "vert": "|", "Vert": "‖", "lvert": "|", "rvert": "|", "lVert": "‖",
    "rVert": "‖", "backslash": "\\", "colon": ":", "sharp": "♯", "flat": "♭", "natural": "♮",
    "bigcup": "⋃", "bigcap": "⋂", "bigoplus": "⨁", "bigotimes": "⨂", "bigvee": "⋁",
    "bigwedge": "⋀", "surd": "√", "degree": "°", "textdegree": "°", "circledast": "⊛",
    "imath": "ı", "jmath": "ȷ", "mho": "℧", "R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ",
    "C": "ℂ", "E": "𝔼", "lbrace": "{", "rbrace": "}", "lbrack": "[", "rbrack": "]",
    "textbackslash": "\\", "qed": "∎", "copyright": "©", "dag": "†", "euro": "€",
    "textasciitilde": "~", "textasciicircum": "^", "textbar": "|", "textless": "<",
    "textgreater": ">", "textendash": "–", "textemdash": "—", "texttimes": "×",
    "textperiodcentered": "·", "textbullet": "•", "ss": "ß", "ae": "æ", "AE": "Æ",
    "oe": "œ", "OE": "Œ", "o": "ø", "O": "Ø", "aa": "å", "AA": "Å", "l": "ł", "L": "Ł",
    "i": "ı", "j": "ȷ", "ie": "i.e.", "eg": "e.g.", "etal": "et al.", "wrt": "w.r.t.",
    "iid": "i.i.d.", "vs": "vs.", "LaTeX": "LaTeX", "TeX": "TeX",
}

# Operator names printed upright, followed by a space before a following argument.
_FUNCTIONS = frozenset(
    "log ln exp lg min max sup inf lim liminf limsup sin cos tan cot sec csc arcsin arccos "
    "arctan sinh cosh tanh det dim ker deg gcd arg argmin argmax Pr tr Tr rank diag sgn "
    "sign poly polylog var Var Cov cov mod bmod pmod KL softmax".split()
)

_SPACES = {",": " ", ";": " ", ":": " ", " ": " ", "!": "", "quad": " ", "qquad": " ",
           "enspace": " ", "thinspace": " ", "medspace": " ", "thickspace": " ",
           "hfill": " ", "hspace": "", "vspace": "", "noindent": "", "nonumber": "",
           "displaystyle": "", "textstyle": "", "scriptstyle": "", "limits": "",
           "nolimits": "", "left": "", "right": "", "big": "", "Big": "", "bigg": "",
           "Bigg": "", "bigl": "", "bigr": "", "Bigl": "", "Bigr": "", "biggl": "",
           "biggr": "", "Biggl": "", "Biggr": "", "middle": "", "relax": "", "protect": "",
           "centering": "", "small": "", "footnotesize": "", "normalsize": "", "large": "",
           "Large": "", "tiny": "", "em": "", "it": "", "bf": "", "rm": "", "sf": "",
           "tt": "", "sl": "", "sc": "", "cal": "", "boldmath": "", "unboldmath": "",
           "item": " • ", "newline": " ", "par": " ", "cr": " ", "allowbreak": "",
           "ensuremath": "", "smash": "", "phantom": "", "mathstrut": "", "strut": ""}

# Commands whose (single) argument is shown as is: fonts, text boxes, wrappers.
_WRAPPERS = frozenset(
    "mathbf mathrm mathit mathsf mathtt mathnormal boldsymbol bm pmb textbf textit textrm "
    "textsf texttt textnormal textup textsl textsc emph text mbox hbox fbox operatorname "
    "mathop mathord mathbin mathrel underline underbrace overbrace ensuremath smash "
    "mathscr mathfrak textmd uline displaystyle lowercase uppercase MakeUppercase "
    "operatornamewithlimits boxed".split()
)

_DROP_WITH_ARG = frozenset(
    "label ref eqref cite citep citet hspace vspace phantom hphantom vphantom color "
    "begin end footnotemark tag".split()
)

_DOUBLE_STRUCK = {
    "R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "P": "ℙ", "H": "ℍ", "E": "𝔼",
    "1": "𝟙", "S": "𝕊", "F": "𝔽", "T": "𝕋", "D": "𝔻", "B": "𝔹", "I": "𝕀", "K": "𝕂",
    "X": "𝕏", "Y": "𝕐", "V": "𝕍", "M": "𝕄", "L": "𝕃", "G": "𝔾", "A": "𝔸", "O": "𝕆",
    "U": "𝕌", "W": "𝕎", "J": "𝕁",
}

_ACCENTS = {
    "hat": "\u0302", "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303",
    "bar": "\u0304", "overline": "\u0305", "vec": "\u20d7", "overrightarrow": "\u20d7",
    "dot": "\u0307", "ddot": "\u0308", "breve": "\u0306", "check": "\u030c",
    "acute": "\u0301", "grave": "\u0300", "mathring": "\u030a", "Tilde": "\u0303",
    "Hat": "\u0302", "Bar": "\u0304", "Vec": "\u20d7", "wt": "\u0303", "wh": "\u0302",
}

# Text accents (\"o, \'e ...) as combining marks.
TEXT_ACCENTS = {
    '"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "=": "\u0304",
    ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328",
    "r": "\u030a", "d": "\u0323", "b": "\u0331",
}

_TIGHT = frozenset("pm mp times cdot circ".split())

_FRACS = frozenset("frac dfrac tfrac cfrac nicefrac sfrac flatfrac".split())
_BINOMS = frozenset("binom dbinom tbinom choose".split())

_SUP = dict(zip(
    "0123456789+-=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWαβγδεθιφχ∗′*",
    "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵅᵝᵞᵟᵋᶿᶥᵠᵡ*′*",
    strict=True,
))
_SUP["⊤"] = "ᵀ"
_SUP["−"] = "⁻"
_SUB = dict(zip(
    "0123456789+-=()aehijklmnoprstuvxβγρφχ",
    "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ",
    strict=True,
))
_SUB["−"] = "₋"

_ONE_ARG_PREFIXES = sorted(
    ["sqrt", "mathbb", "mathcal", "mathbf", "mathrm", "mathit", "mathsf", "mathscr",
     "mathfrak", "boldsymbol", "bm", "emph", "textit", "textbf", "texttt", "text",
     "tilde", "widetilde", "hat", "widehat", "bar", "overline", "vec", "operatorname"],
    key=len, reverse=True,
)

_TOKEN = re.compile(r"\\([A-Za-z]+)\*?|\\(.)|([{}^_&~'])|(\s+)|([^\\{}^_&~'\s]+)", re.S)
_DOUBLED = re.compile(r"\\\\(?=[A-Za-z{}])")
_MULTI_SPACE = re.compile(r" {2,}")
_SPACE_BEFORE = re.compile(r" +([,.;:!?)\]}])")
_SIMPLE_ATOM = re.compile(r"^(?:[\w.′]+|[^\w\s]|\w[\u0300-\u036f\u20d7]+)$")

_CMD, _ESC, _CHAR, _SPACE, _TEXT = 1, 2, 3, 4, 5


def _tokenize(src: str) -> list[tuple[int, str]]:
    toks: list[tuple[int, str]] = []
    for m in _TOKEN.finditer(src):
        kind = m.lastindex or _TEXT
        toks.append((kind, m.group(kind)))
    return toks


class _Parser:
    """A tiny recursive-descent reader over LaTeX math tokens; never raises on bad input."""

    def __init__(self, src: str) -> None:
        self.toks = _tokenize(src)
        self.i = 0

    def peek(self) -> tuple[int, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def skip_spaces(self) -> None:
        while self.i < len(self.toks) and self.toks[self.i][0] == _SPACE:
            self.i += 1

    def group(self, stop_at_brace: bool) -> str:
        """Convert tokens up to the matching '}' (consumed) or the end."""
        out: list[str] = []
        while self.i < len(self.toks):
            kind, val = self.toks[self.i]
            if kind == _CHAR and val == "}":
                self.i += 1
                if stop_at_brace:
                    break
                continue  # an unbalanced '}' at top level: drop it
            self.i += 1
            out.append(self.token(kind, val, out))
        return "".join(out)

    def argument(self) -> str:
        """One macro argument: a braced group or the next token (a single char of text)."""
        self.skip_spaces()
        tok = self.peek()
        if tok is None:
            return ""
        kind, val = tok
        if kind == _CHAR and val == "{":
            self.i += 1
            return self.group(True)
        if kind == _TEXT:
            # TeX takes one character as the argument; keep the rest for later.
            if len(val) > 1:
                self.toks[self.i] = (_TEXT, val[1:])
            else:
                self.i += 1
            return val[0]
        if kind == _CHAR and val == "}":
            return ""
        self.i += 1
        return self.token(kind, val, [])

    def optional(self) -> str | None:
        """A [..] optional argument, if one follows."""
        tok = self.peek()
        if tok and tok[0] == _TEXT and tok[1].startswith("["):
            rest: list[str] = []
            # Collect raw text up to ']' across tokens; good enough for \sqrt[3]{x}.
            while self.i < len(self.toks):
                kind, val = self.toks[self.i]
                self.i += 1
                if kind == _TEXT and "]" in val:
                    before, _, after = val.partition("]")
                    rest.append(before)
                    if after:
                        self.i -= 1
                        self.toks[self.i] = (_TEXT, after)
                    return "".join(rest)[1:]
                rest.append(self.token(kind, val, rest))
            return "".join(rest)[1:]
        return None

    def script(self, sup: bool) -> str:
        arg = self.argument().strip()
        return to_script(arg, sup)

    def token(self, kind: int, val: str, out: list[str]) -> str:
        if kind == _TEXT:
            return val
        if kind == _SPACE:
            return " "
        if kind == _ESC:
            if val in _SPACES:
                return _SPACES[val]
            if val == "|":
                return "‖"
            if val == "\\":
                return " "
            return val  # \{ \} \% \$ \& \# \_ and friends
        if kind == _CHAR:
            if val == "{":
                return self.group(True)
            if val == "^":
                return self.script(True)
            if val == "_":
                return self.script(False)
            if val == "&":
                return " "
            if val == "~":
                return " "
            if val == "'":
                return "′"
            return ""
        return self.command(val, out)

    # Long by design: one flat branch per kind of LaTeX command (symbols, accents, fonts,
    # fractions, roots, …), read top to bottom like TeX's own table; splitting it would scatter that table.
    def command(self, name: str, out: list[str]) -> str:
        if name in _GREEK or name in _SYMBOLS:
            # Unlike TeX, keep the source's space after a symbol: "\alpha + \beta".
            return _GREEK.get(name) or _SYMBOLS[name]
        if name in _TIGHT:
            return _RELATIONS[name]  # keep the source's own spacing: "2\times3", "a \pm b"
        if name in _RELATIONS:
            self.skip_spaces()
            return f" {_RELATIONS[name]} "
        if name in _FUNCTIONS:
            self.skip_spaces()
            nxt = self.peek()
            if nxt and (nxt[0] == _TEXT and nxt[1][0].isalnum() or nxt[0] == _CMD):
                return name + " "
            return name
        if name in _SPACES:
            if name in ("hspace", "vspace", "phantom"):
                self.argument()
            return _SPACES[name]
        if name in _WRAPPERS:
            return self.argument()
        if name == "mathbb" or name == "Bbb" or name == "mathds":
            arg = self.argument()
            return "".join(_DOUBLE_STRUCK.get(c, c) for c in arg)
        if name == "mathcal":
            return self.argument()
        if name in _FRACS:
            num, den = self.argument().strip(), self.argument().strip()
            return f"{_paren(num)}/{_paren(den)}"
        if name in _BINOMS:
            n, k = self.argument().strip(), self.argument().strip()
            return f"C({n}, {k})"
        if name == "sqrt":
            index = self.optional()
            arg = self.argument().strip()
            root = {"3": "∛", "4": "∜"}.get((index or "").strip(), "√")
            if index and root == "√":
                root = to_script(index.strip(), True) + "√"
            return root + _paren(arg)
        if name in _ACCENTS:
            arg = self.argument()
            if len(arg) == 1:
                return unicodedata.normalize("NFC", arg + _ACCENTS[name])
            return arg
        if name in _DROP_WITH_ARG:
            self.argument()
            return ""
        if name in ("textcolor", "colorbox", "stackrel", "overset", "underset"):
            first = self.argument()
            second = self.argument()
            return second if name in ("textcolor", "colorbox") else second + first
        if name in ("href",):
            self.argument()
            return self.argument()
        if name in ("url", "textsuperscript"):
            arg = self.argument()
            return to_script(arg, True) if name == "textsuperscript" else arg
        if name == "textsubscript":
            return to_script(self.argument(), False)
        if name == "not":
            negated = self.argument().strip()
            return {"=": "≠", "∈": "∉", "<": "≮", ">": "≯", "≤": "≰", "≥": "≱"}.get(
                negated, negated + "\u0338")
        if name == "over":
            # {a \over b}: everything before in this group is the numerator.
            num = "".join(out).strip()
            out.clear()
            den = self.group(True).strip()
            self.i -= 1  # let the caller see the closing brace
            if self.i < 0 or self.toks[self.i] != (_CHAR, "}"):
                self.i += 1
            return f"{_paren(num)}/{_paren(den)}"
        if len(name) == 1 and name in TEXT_ACCENTS:
            arg = self.argument()
            return unicodedata.normalize("NFC", arg[:1] + TEXT_ACCENTS[name] + arg[1:]) if arg \
                else ""
        # Braces lost upstream ("\sqrtT", "\mathbbR"): split off a known one-argument command.
        for prefix in _ONE_ARG_PREFIXES:
            if name.startswith(prefix) and len(name) > len(prefix):
                rest = name[len(prefix):]
                self.toks.insert(self.i, (_TEXT, rest))
                return self.command(prefix, out)
        # Unknown command: drop the backslash and keep its (braced) arguments.
        self.skip_spaces()
        return name


def match_brace(text: str, start: int) -> int:
    """Index of the '}' matching the '{' at text[start], or -1; a backslash escapes the next char.

    The one brace scanner for LaTeX-ish source (abstract rendering, BibTeX values).
    """
    depth = 0
    n = len(text)
    i = start
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _paren(s: str) -> str:
    """Parenthesise a fraction/root operand unless it is a single atom."""
    if not s or _SIMPLE_ATOM.match(s) or (s[0] == "(" and s[-1] == ")" and s.count("(") == 1):
        return s
    return f"({s})"


def to_script(arg: str, sup: bool) -> str:
    """Unicode super/subscript when every char has one, else a readable ^x / _(xy) fallback."""
    if not arg:
        return ""
    if sup and arg in ("*", "∗", "⋆", "′", "′′", "†"):
        return "*" if arg in ("∗", "⋆") else arg
    table = _SUP if sup else _SUB
    if all(c in table for c in arg):
        return "".join(table[c] for c in arg)
    mark = "^" if sup else "_"
    return f"{mark}{arg}" if len(arg) == 1 else f"{mark}({arg})"


def latex_to_unicode(math: str) -> str:
    """Readable Unicode for an inline math string such as ``\\frac{k}{\\varepsilon}\\cdot\\log n``."""
    if not math:
        return ""
    if "\\\\" in math:
        # Doubled backslashes from over-escaped sources: "\\beta", "\\{".
        math = _DOUBLED.sub(r"\\", math)
    try:
        text = _Parser(math).group(False)
    except Exception:  # pragma: no cover - defensive: rendering must never fail
        text = math.replace("\\", "")
    text = _MULTI_SPACE.sub(" ", text.replace("\n", " "))
    text = _SPACE_BEFORE.sub(r"\1", text)
    return text.strip()
