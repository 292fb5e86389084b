"""Pull a method name, a short title and code links out of an abstract."""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache

from reader.text.not_names import is_not_name
from reader.text.render import abstract_plain

# --- sentences -------------------------------------------------------------------------------

_SENT_END = re.compile(r"[.!?]\s+(?=[A-Z0-9(\[“\"])")
_ABBREVS = frozenset("i.e. e.g. al. etc. vs. cf. fig. eq. no. resp. approx. w.r.t. i.i.d. "
                     "(i.e. (e.g. (cf.".split())


def _is_abbrev(word: str) -> bool:
    return word.lower() in _ABBREVS or (len(word) == 2 and word[0].isupper())


@lru_cache(maxsize=64)
def sentence_spans(plain: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each sentence, not breaking after "e.g.", "et al." or initials."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENT_END.finditer(plain):
        end = m.start() + 1
        space = plain.rfind(" ", start, end)
        if _is_abbrev(plain[space + 1 if space >= 0 else start:end]):
            continue
        spans.append((start, end))
        start = m.end()
    if start < len(plain):
        spans.append((start, len(plain)))
    return tuple(spans)


def sentences(plain: str) -> list[str]:
    """Split plain text into sentences, not breaking after "e.g.", "et al." or initials."""
    return [plain[a:b] for a, b in sentence_spans(plain)]


# --- method names ----------------------------------------------------------------------------

_NAME = r"[^\W_](?:[\w+]|[-./](?=[^\W_]))*"
_PHRASE = (r"[A-Z][\w-]*(?:\s+(?:(?:of|with|a|an|and|for|the|to|in|on|via|from|by|over)\s+)*"
           r"[A-Z0-9][\w-]*){0,8}")
# Cue regexes are only tried (anchored) where a stem was found with str.find: scanning every
# position with a big alternation costs ~100 µs per abstract.
_CUE_VERB = re.compile(
    r"(?:propos(?:e|es|ed)|introduc(?:e|es|ed)|present(?:s|ed)?|develop(?:s|ed)?|"
    r"design(?:s|ed)?|devise(?:s|d)?|build(?:s)?|creat(?:e|es|ed)|releas(?:e|es|ed)|"
    r"contribute(?:s|d)?|offer(?:s|ed)?|describe(?:s|d)?)\s+(?:here\s+|first\s+|also\s+|"
    r"thus\s+|then\s+)?")
_VERB_STEMS = ("propos", "introduc", "present", "develop", "design", "devise", "build",
               "creat", "releas", "contribut", "offer", "describ")
_CUE_NAMED = re.compile(
    r"(?:(?:called|termed|dubbed|named|namely|coined)|"
    r"(?:call|term|name|dub)(?:\s+(?:this|our|the|it|these)(?:\s+[a-z][\w-]*){0,2})?|"
    r"refer(?:red)?\s+to\s+(?:it\s+|this(?:\s+[a-z][\w-]*){0,2}\s+)?as)\s+(?:as\s+)?")
_NAMED_STEMS = ("called", "termed", "dubbed", "named", "namely", "coined", "refer")
_WE_STEMS = ("call ", "term ", "name ", "dub ")


# "the recently proposed KITTI dataset", "has been introduced": someone else's work, cited.
_CITED_BEFORE = ("recently ", "previously ", "originally ", "already ", "widely ",
                 "commonly ", "been ", "earlier ", "formerly ")


# "Recent literature proposes X", "prior work introduced X": the subject is someone else.
_OTHERS_BEFORE = re.compile(r"\b(?:recent|prior|previous|existing|earlier|other|many|several|"
                            r"some)\s+(?:[a-z][\w-]*\s+){0,2}$", re.I)


def _cited(plain: str, i: int) -> bool:
    return plain[max(0, i - 12):i].endswith(_CITED_BEFORE) or \
        bool(_OTHERS_BEFORE.search(plain, max(0, i - 50), i))


def _cues(plain: str) -> list[tuple[int, int, bool]]:
    """(start, end, is-a-naming-cue) for each cue like "we propose" / "called", in order."""
    out: list[tuple[int, int, bool]] = []
    for stems, pattern, named in ((_VERB_STEMS, _CUE_VERB, False),
                                  (_NAMED_STEMS, _CUE_NAMED, True),
                                  (_WE_STEMS, _CUE_NAMED, True)):
        for stem in stems:
            i = plain.find(stem)
            while i >= 0:
                if (i == 0 or not plain[i - 1].isalnum()) and not _cited(plain, i):
                    if stems is not _WE_STEMS or plain[max(0, i - 3):i] in ("we ", "We ") \
                            or plain[max(0, i - 5):i] in ("they ", "They "):
                        m = pattern.match(plain, i)
                        if m:
                            out.append((i, m.end(), named))
                i = plain.find(stem, i + 1)
    out.sort()
    return out


_NAME_AT = re.compile(_NAME)
_BREAK = re.compile(r"[,;:.]|\s[a-z]")  # the end of a run of capitalised words
_PHRASE_ACRO = re.compile(rf"({_PHRASE})\s*\(\s*({_NAME})\s*\)")
_LOWER_ACRO = re.compile(rf"([a-z][\w-]*(?:\s+[a-z][\w-]*){{0,6}})\s*[;,]\s*({_NAME})\s*\)")
_APPOS_TAIL = re.compile(r",\s+an?\s+(?:novel|new|simple|unified|general|efficient|effective|"
                         r"universal|scalable|lightweight|practical|principled|large-scale|"
                         r"training-free|plug-and-play|flexible|framework|method|model)\b")
_NAME_END = re.compile(rf"(?<![\w-])({_NAME})$")
_GENERIC = frozenset(
    "a an the this that these our we it its novel new two three four one first simple "
    "in on of to for with and or by as from which llm llms gnn gnns cnn cnns rnn rnns dnn "
    "dnns rl ml ai nlp mlp mlps gan gans vae vaes sgd mdp mdps gp gps api gpu gpus sota "
    "lstm transformer transformers bert gpt vit vits clip moe nerf cot 2d 3d 4d".split())
_ADJ_SUFFIX = re.compile(r"-(?:based|like|style|aware|free|driven|guided|specific|level|wise|"
                         r"agnostic|conditioned|augmented|inspired|enhanced)$", re.I)
_FOLLOW_OK = re.compile(r"^(?:$|[,:;.()!?]|\s+(?:which|that|to|by|for|as|in|on|with|is|are|"
                        r"was|uses|achieves|can|consists|leverages|builds|employs|enables|"
                        r"combines|learns|and|where|whose|from|via)\b)")


def _has_word(word: str, text: str) -> bool:
    """word occurs in text as a whole word (no dynamic regex: this runs per candidate)."""
    i = text.find(word)
    while i >= 0:
        j = i + len(word)
        if (i == 0 or not text[i - 1].isalnum()) and (j >= len(text) or not text[j].isalnum()):
            return True
        i = text.find(word, i + 1)
    return False


def _strict_name(tok: str) -> bool:
    """Looks like a coined name: CamelCase, ALLCAPS, or letters with digits."""
    if len(tok) < 2 or len(tok) > 40 or tok.lower() in _GENERIC or _ADJ_SUFFIX.search(tok):
        return False
    if not any(c.isalpha() for c in tok) or re.fullmatch(r"\d+[A-Za-z]?", tok):
        return False
    upper = sum(c.isupper() for c in tok)
    return upper >= 2 or any(c.isupper() for c in tok[1:]) or (
        tok[0].isupper() and any(c.isdigit() or c in "²³¹⁰⁴⁵⁶⁷⁸⁹" for c in tok))


def _name_at(text: str, pos: int, loose: bool, seen_before: str) -> str | None:
    """A name starting at text[pos] (after a cue), or None."""
    m = _NAME_AT.match(text, pos)
    if m is None:
        return None
    tok = m.group()
    if tok.lower() in _GENERIC or _ADJ_SUFFIX.search(tok):
        return None
    follow = text[m.end():m.end() + 12]
    if _TITLE_COMPOUND.fullmatch(tok) and follow[:1] == " " and follow[1:2].isupper():
        return None  # "Semi-Supervised Generative …": the first word of a phrase
    if _strict_name(tok):
        if tok.isupper() and len(tok) <= 4 and _has_word(tok, seen_before):
            return None  # an acronym the abstract already used is not what it introduces
        if tok.isupper() and len(tok) <= 3 and not _FOLLOW_OK.match(follow):
            return None  # "called KL annealing": a modifier, not a name
        return tok
    if loose and tok[0].isupper() and tok[1:].islower() and _FOLLOW_OK.match(follow) \
            and len(tok) >= 3:
        return tok
    return None


_TITLE_COMPOUND = re.compile(r"[A-Z][a-z]+(?:-[A-Z][a-z]+)+")  # "Zero-Shot", "Multi-Agent"
_NOT_BEFORE_NAME = frozenset(
    "on of by with using via from as and or to in for such into than between over".split())


def _acronym_after(text: str, pos: int, seen_before: str) -> tuple[str, str] | None:
    """'Capitalised Phrase (ACRO)' soon after pos: (acronym, the phrase it stands for)."""
    window = text[pos:pos + 220]
    for m in _PHRASE_ACRO.finditer(window):
        phrase, acro = m.group(1), m.group(2)
        if not _strict_name(acro) or _has_word(acro, seen_before):
            continue
        start = _long_form_start(window, m.start(), m.end(1), acro)
        if start is None:
            continue  # the words before it don't spell it out: cited in passing, or not a name
        lead = [w for w in window[:start].split()[-3:] if w.lower() not in ("the", "a", "an")]
        if lead and lead[-1].lower() in _NOT_BEFORE_NAME:
            continue  # "based on (the) Singular Value Decomposition (SVD)": used, not introduced
        phrase = window[start:m.end(1)]
        if not phrase.startswith(("In ", "The ", "A ")):
            return acro, phrase
    return None


def _long_form_start(text: str, phrase_start: int, end: int, acro: str) -> int | None:
    """Where the words that `acro` abbreviates begin in text[:end], or None.

    Its first letter must start one of the capitalised phrase's words (text[phrase_start:
    end]); a coined mixed-case name ("MetaDistil") stands beside its description and needs
    no more. An all-capitals acronym must also be spelt
    out (Schwartz & Hearst's test): each of its letters found in the words before it, right
    to left, the first at a word start, within min(n + 5, 2n) words of its n letters. This
    finds "probabilistic relational PCA (PRPCA)" and rejects "multilevel Monte Carlo
    (MLMC)" after "based on"; digits are skipped ("L2E": to; "A3C": three A's)."""
    letters = [c.lower() for c in acro if c.isalpha()]
    words = [w for w in re.split(r"[\s-]+", text[phrase_start:end].lower()) if w]
    if not letters or letters[0] not in {w[0] for w in words}:
        return None
    if sum(c.isupper() for c in acro if c.isalpha()) < len(letters) - 1:
        return phrase_start
    spans = [w.start() for w in re.finditer(r"\S+", text[:end])]
    floor = spans[-min(len(letters) + 5, 2 * len(letters), len(spans))] if spans else 0
    low = text.lower()
    i = end - 1
    for k in range(len(letters) - 1, -1, -1):
        c = letters[k]
        while i >= floor and (low[i] != c or (k == 0 and i > 0 and low[i - 1].isalnum())):
            i -= 1
        if i < floor:
            return None
        i -= 1
    return i + 1


@lru_cache(maxsize=256)
def _find_method(plain: str) -> tuple[str, str, str, int] | None:
    """(name, expansion, sentence, end of the name in sentence) for the first introduced name."""
    cues = _cues(plain)
    if cues:
        spans = sentence_spans(plain)
        starts = [a for a, _ in spans]
        for cue_start, cue_end, named in cues:
            a, b = spans[max(0, bisect_right(starts, cue_start) - 1)]
            sent = plain[a:b]
            m_end = cue_end - a
            before = plain[:cue_start]
            acro = _acronym_after(sent, m_end, before)
            name = _name_at(sent, m_end, True, before)
            # Prefer "Phrase (ACRO)" when the phrase starts right at the cue, unless a coined
            # name stands there ("called Patch-CKN, adapting the Convolutional Kernel
            # Network (CKN)": the CKN is cited).
            at = sent.find(acro[1], m_end) if acro else -1
            cited = bool(name and _strict_name(name) and at > m_end
                         and _BREAK.search(sent, m_end + len(name), at))
            if acro and at <= m_end + 40 and not cited:
                return acro[0], acro[1], sent, sent.find(f"({acro[0]}", m_end) + len(acro[0]) + 2
            if name:
                return name, "", sent, m_end + len(name)
            if named:
                low = _LOWER_ACRO.match(sent, m_end)
                if low and _strict_name(low.group(2)):
                    return low.group(2), low.group(1), sent, low.end()
            # Further on, past another cue ("The proposed family, called X, … (CKN)"): that
            # cue's own name comes first.
            if acro and not any(cue_end < other < a + at for other, _, _ in cues):
                return acro[0], acro[1], sent, sent.find(f"({acro[0]}", m_end) + len(acro[0]) + 2
    # "X, a novel ...": look back from each ", a"/", an" instead of scanning every position.
    i = plain.find(", a")
    while i >= 0:
        if _APPOS_TAIL.match(plain, i):
            m = _NAME_END.search(plain, max(0, i - 40), i)
            prev = plain[max(0, i - 60):m.start()].split()[-1:] if m else []
            if m and _strict_name(m.group(1)) and not _has_word(m.group(1), plain[:m.start()]) \
                    and not (prev and prev[0].lower() in _NOT_BEFORE_NAME):
                name = m.group(1)
                sent = next((s for s in sentences(plain) if name + "," in s), "")
                return name, "", sent, sent.find(name) + len(name)
        i = plain.find(", a", i + 1)
    return None


_PLURAL_ACRONYM = re.compile(r"^[A-Z]{2,}s$")  # "CLMs", "ILRs": a kind of model, not one


def plausible_method(name: str) -> bool:
    """Not an organisation, venue, common abbreviation or word, a plural acronym, nor a
    two-letter acronym ("CE", "BU": too often a generic term's initials)."""
    bare = name.rstrip("+*")
    return bool(bare) and not is_not_name(bare) and not (bare.isupper() and len(bare) <= 2) \
        and not _PLURAL_ACRONYM.match(bare)


def detect_method(abstract: str) -> str | None:
    """The name of the method/system/dataset the abstract introduces, or None."""
    try:
        found = _find_method(abstract_plain(abstract or ""))
    except Exception:  # heuristics must never break an import
        return None
    return found[0] if found and plausible_method(found[0]) else None


_TITLE_HEAD = re.compile(rf"^\s*({_NAME})\s*:\s+\S")


def title_method(title: str) -> str | None:
    """The coined name a "Name: what it is" title opens with ("Flash3D: Feed-Forward ..."),
    or None ("Deep Learning: A Survey", "ACM: ..." and plain titles have none)."""
    m = _TITLE_HEAD.match(title or "")
    if m is None:
        return None
    name = m.group(1)
    return name if _strict_name(name) and plausible_method(name) else None


# --- titles ----------------------------------------------------------------------------------

_MAX_TITLE = 100
_OPENER = re.compile(
    r"^(?:in recent years|recently|nowadays|currently|today|lately|however|moreover|"
    r"(?:over|in) the (?:past|last) [\w ]{1,30}),\s*", re.I)
_LEAD_IN = re.compile(
    r"^(?:(?:in|to address (?:this|these)[\w ]*?|to this end|specifically|here|thus|"
    r"therefore|finally|first|to tackle[\w ]*?|to overcome[\w ]*?|to fill[\w ]*?|"
    r"motivated by[\w ]*?|inspired by[\w ]*?)\b[^,]{0,60},\s*)?"
    r"(?:in this (?:paper|work|study|article)|this (?:paper|work|study|article)|here|we)"
    r"[,]?\s*(?:we\s+)?(?:first\s+|also\s+|further\s+)?(?:(?:study|consider|investigate|"
    r"examine|analy[sz]e|explore|introduce|propose|present|develop|address|revisit|tackle|"
    r"describe|consider|show)"
    r"\s+)?", re.I)
_CONTRIB = re.compile(
    r"\b(?:we|this (?:paper|work|study))\s+(?:first\s+|also\s+|here\s+|further\s+)?"
    r"(?:propose|introduce|present|develop|design|devise|provide|offer)s?\s+(.*)$", re.I)
_ARTICLE = re.compile(r"^(?:a|an|the)\s+(?:(?:novel|new)\s+)?", re.I)
_PARENS = re.compile(r"\s+\([^()]{0,60}\)")
_CLAUSE_END = re.compile(r"[,;:]\s|\s[–—]\s|, which\b|, where\b|\swhich\s|\swhere\s")
_SOFT_CUT = re.compile(r"\s(?:that|which|by|using|through|via|while|whereas|where|to|"
                       r"based on|in order to|with)\s")
_TRAIL_WORDS = frozenset(
    "a an the of for to and or with by in on at from via as that which while whose using "
    "into over under between its their our is are be can due such than like both".split())


def _trim(text: str, limit: int) -> str:
    """Cut at a word boundary within limit; drop dangling function words and punctuation."""
    text = text.strip()
    if len(text) > limit:
        cut = text.rfind(" ", 0, limit + 1)
        text = text[:cut if cut > 0 else limit]
    words = text.split()
    while len(words) > 1 and words[-1].lower().strip(",;:") in _TRAIL_WORDS:
        words.pop()
    text = " ".join(words)
    return text.rstrip(" ,;:.!?-–—(\"'“‘")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _description(sent: str, end: int, name: str) -> str:
    """What the name is: ", a universal sparse attention for ...", "a framework called X"."""
    rest = sent[end:].lstrip()
    m = re.match(r"^[,;:]?\s*(?:which is\s+|is\s+)?(an?\s+|the\s+)(.*)$", rest)
    if m is None:
        before = _description_before(sent, name)
        if before:
            return before
        m = re.match(r"^,?\s*(?:which|by)\s+(.*)$", rest)
        if m is None:
            return ""
        body = m.group(1)
    else:
        body = m.group(2)
    body = _ARTICLE.sub("", body)
    body = re.sub(r"^(?:novel|new)\s+", "", body)
    cut = _CLAUSE_END.search(body)
    if cut:
        body = body[:cut.start()]
    return body.rstrip(". ")


_BEFORE_NAME = re.compile(r"\b(?:an?|the)\s+((?:[\w-]+\s+){0,6}?[\w-]+),?\s+(?:called|termed|"
                          r"dubbed|named|namely)\s+$")


def _description_before(sent: str, name: str) -> str:
    """'a new 3DGS compression framework called HybridGS' → '3DGS compression framework'."""
    i = sent.find(name)
    m = _BEFORE_NAME.search(sent, max(0, i - 120), i) if i > 0 else None
    if not m:
        return ""
    return re.sub(r"^(?:novel|new)\s+", "", m.group(1))


def _shorten(body: str, room: int) -> str:
    if len(body) > room:
        soft = [mm.start() for mm in _SOFT_CUT.finditer(body) if 40 <= mm.start() <= room]
        if soft:
            body = body[:soft[-1]]
    return _trim(body, room)


def _generic_title(plain: str) -> str:
    sents = sentences(plain)
    if not sents:
        return ""
    for sent in sents[:6]:
        m = _CONTRIB.search(sent)
        if m and re.match(r"an?\s", m.group(1), re.I):
            body = _ARTICLE.sub("", m.group(1))
            body = _PARENS.sub("", body)
            cut = _CLAUSE_END.search(body)
            if cut and cut.start() >= 10:
                body = body[:cut.start()]
            if len(body) >= 15:
                return _cap(_shorten(body.rstrip(". "), _MAX_TITLE))
    first = _OPENER.sub("", _PARENS.sub("", sents[0]), count=1)
    first = _LEAD_IN.sub("", first, count=1) if first.lower().startswith(
        ("in this", "this paper", "this work", "here", "we ")) else first
    first = _ARTICLE.sub("", first) if first.lower().startswith(("a ", "an ", "the ")) and \
        len(first) > 60 else first
    cut = _CLAUSE_END.search(first)
    if cut and cut.start() >= 30:
        first = first[:cut.start()]
    return _cap(_shorten(first.rstrip(". "), _MAX_TITLE))


def derive_title(abstract: str, method: str | None = None, *, plain: str | None = None) -> str:
    """A short readable title (≤ 100 chars) for an abstract that came without one; `plain`:
    its plain text when the caller has it (abstract_plain of the same abstract)."""
    try:
        if plain is None:
            plain = abstract_plain(abstract or "")
        if not plain:
            return ""
        found = _find_method(plain)
        if method and (found is None or found[0] != method):
            sent = next((s for s in sentences(plain) if method in s), "")
            found = (method, "", sent, sent.find(method) + len(method)) if sent else None
        if found:
            name, expansion, sent, end = found
            if expansion and expansion.lower() != name.lower():
                body = _PARENS.sub("", expansion)
            else:
                body = _PARENS.sub("", _description(sent, end, name))
            if body and len(body) >= 8:
                room = _MAX_TITLE - len(name) - 2
                return f"{name}: {_shorten(body, room)}"
            rest = _generic_title(plain)
            if name.lower() in rest.lower():
                return _trim(rest, _MAX_TITLE)
            first_word = rest.split()[0] if rest else ""
            rest = rest[:1].lower() + rest[1:] if first_word[1:].islower() else rest
            return _trim(f"{name}: {rest}", _MAX_TITLE)
        return _trim(_generic_title(plain), _MAX_TITLE)
    except Exception:  # a bad title is better than a failed import
        return _trim(abstract_plain(abstract or "")[:_MAX_TITLE], _MAX_TITLE)


# --- links -----------------------------------------------------------------------------------

_URL = re.compile(
    r"(?:https?://|(?<![\w@/.-])(?:www\.|(?:github\.com|gitlab\.com|bitbucket\.org|"
    r"huggingface\.co)/))[^\s<>\"'`{}\[\]|\\^]+", re.I)
_URL_HINTS = ("http", "www.", "github", "gitlab", "bitbucket", "huggingface")
_URL_TRAIL = ".,;:!?)]}*'\"_>"
_CODE_HOST = re.compile(
    r"^https?://(?:www\.)?(?:[\w-]+\.)*(?:github\.com|github\.io|gitlab\.com|gitlab\.io|"
    r"bitbucket\.org|huggingface\.co|hf\.co|sourceforge\.net|codeberg\.org|gitee\.com|"
    r"pypi\.org|colab\.research\.google\.com|zenodo\.org|kaggle\.com|paperswithcode\.com)"
    r"(?:[/:?#]|$)|^https?://(?:[\w-]+\.)*pages\.[\w.-]+|^https?://[\w.-]*\bpages\b", re.I)
_CODE_WORDS = re.compile(
    r"\b(?:code|codes|implementation|software|repository|repo|package|library|toolbox|"
    r"toolkit|source|github|available|released?|open-source|opensource|project page|"
    r"website|demo|data(?:set)?s? (?:is|are) available)\b", re.I)


def _clean_url(url: str) -> str:
    while url and url[-1] in _URL_TRAIL:
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    if not url.lower().startswith(("http://", "https://")):
        url = "https://" + url
    return url


def _links_with_context(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if not text:
        return out
    low = text.lower()
    if not any(hint in low for hint in _URL_HINTS):
        return out
    seen: set[str] = set()
    for m in _URL.finditer(text or ""):
        url = _clean_url(m.group())
        if len(url) <= len("https://") + 3 or url in seen:
            continue
        seen.add(url)
        start = max(text.rfind(". ", 0, m.start()), 0)
        out.append((url, text[max(start, m.start() - 200):m.start()]))
    return out


def extract_links(text: str) -> list[str]:
    """Every http(s) URL (and bare github.com/... or www. link) in text, in order, deduplicated."""
    return [url for url, _ in _links_with_context(text)]


def extract_code_links(text: str) -> list[str]:
    """Links to code: code-hosting URLs, or any URL in a sentence about code/availability."""
    return [url for url, ctx in _links_with_context(text)
            if _CODE_HOST.match(url) or _CODE_WORDS.search(ctx)]
