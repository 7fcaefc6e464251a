"""CRAG-style judgement of a natural-language answer: accurate, missing or hallucinated.

Truthfulness is ``T = accurate% - hallucinated%`` (a don't-know costs nothing, a wrong answer costs one).

The deterministic judge (:func:`judge_answer`) decides in this order:

1. **missing** — the pipeline said so (``status`` ``dont_know``/``error``/``refused``), the answer is
   empty, or it is a don't-know phrasing ("I don't know", "no answer", "cannot answer", ...).
2. **Empty gold** (the right answer is "none"): **accurate** when the answer states emptiness ("no",
   "none", "did not", "0", ...), else **hallucinated**.
3. **Contradictions** make it **hallucinated**: for a yes/no gold, the answer's first polarity word
   disagrees; for a gold with numbers, the answer states a number that matches no gold number (numbers
   in the question, in gold strings, the number of gold rows, and list markers like ``1.`` are ignored);
   a yes/no gold answered with "None"/"nothing"/"no results" is wrong.
4. **Coverage**: every distinct gold value must appear in the answer when there are at most 10, else at
   least 90% of them; otherwise **hallucinated** (an incomplete or wrong answer is not truthful).
5. **Over-answering**: the answer is split into items (at ``, ; and or`` and newlines, gold strings
   masked first); more than ``|gold values| / 10`` items that state no gold value (nor the number of
   gold rows, as in "(4 in all)") make it **hallucinated**: listing every movie covers the four right
   ones but is not an answer, nor is the right four countries plus a wrong fifth. Prose around a value
   is fine ("The Matrix was directed by Lana Wachowski and ..."), a separate unverifiable clause is not
   (", who also made Cloud Atlas,"): that is for the LLM judge to weigh. Otherwise **accurate**. Strings match as whole words after folding case, accents and punctuation; numbers match
   with :func:`kgqa.kg.compare.numbers_equal` tolerance (``28.7`` answers ``28.733``; ``1,000`` is 1000);
   ISO dates also match written forms ("June 19, 1922"); booleans match yes/no.

An optional LLM judge (:class:`LLMJudge`) asks any backend with ``choose(prompt, options) -> int``
(``planner.llm``); :func:`compare_judges` lists where the two judges disagree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from kgqa.kg.compare import numbers_equal
from kgqa.text import fold

LABELS = ("accurate", "missing", "hallucinated")
ALL_VALUES_UP_TO = 10  # gold sets this small need every value
COVERAGE = 0.9  # larger gold sets need this share of values

_DONT_KNOW = re.compile(
    r"\b(i\s+(do\s*not|don'?t|dont)\s+know|i'?m\s+not\s+sure|i\s+am\s+not\s+sure|not\s+sure"
    r"|no\s+answer|(can\s*not|cannot|can'?t|could\s*not|couldn'?t|unable\s+to)\s+(answer|determine|tell|say)"
    r"|(do\s*not|don'?t)\s+have\s+(enough\s+)?(information|data|an?\s+answer)"
    r"|not\s+enough\s+information|insufficient\s+(information|data)|unknown)\b", re.I)
_EMPTY = re.compile(
    r"\b(no|none|nothing|nobody|no\s*one|zero|never|not|neither|empty)\b|n['\u2019]t\b|\b0\b", re.I)
_YES = {"yes", "true", "correct", "indeed", "right"}
_NO = {"no", "false", "not", "never", "incorrect", "neither"}
_AUX = {"did", "does", "do", "is", "was", "are", "were", "has", "have", "had", "can", "could"}
_NUMBER = re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\w)")
_LIST_MARKER = re.compile(r"(?m)^\s*\d+[.)]\s+")
_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty".split())}
_MONTHS = ("january february march april may june july august september october november december").split()
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")
_ITEM_SPLIT = re.compile(r"[;\n]|(?<!\d),|,(?!\d{3}(?!\d))|\band\b|\bor\b|&")  # not 10,000
_CLAIMS_NONE = re.compile(r"\s*(none|nothing|nobody|no\s+(results?|one|match\w*)|there\s+(is|are)\s+no)\b", re.I)
EXTRA_ITEMS = 0  # answer items stating no gold value tolerated; beyond that, a tenth of the gold values


@dataclass
class Verdict:
    label: str  # "accurate" | "missing" | "hallucinated"
    reason: str = ""
    coverage: float | None = None  # share of gold values found in the answer


# -- normalisation ---------------------------------------------------------------------------------
def normalize(text: str) -> str:
    """Returns ``text`` without case, accents or apostrophes ("o'brien" -> "obrien", "don't" -> "dont"),
    punctuation turned into spaces and whitespace collapsed (:func:`kgqa.text.fold`, lower case)."""
    return fold(text, case="lower", apostrophes=False, punctuation=False)


def numbers_in(text: str, *, words: bool = True) -> list[float]:
    """Numbers written in ``text``: digits with optional thousands commas and decimals, and (``words``)
    the number words zero..twenty."""
    out = [float(m.group().replace(",", "")) for m in _NUMBER.finditer(text)]
    if words:
        out += [float(_NUMBER_WORDS[w]) for w in normalize(text).split() if w in _NUMBER_WORDS]
    return out


def _flatten(rows: Iterable) -> list[Any]:
    out: list[Any] = []
    for row in rows:
        cells = row if isinstance(row, (list, tuple)) else [row]
        for v in cells:
            if isinstance(v, (list, tuple)):
                out.extend(_flatten([v]))
            elif isinstance(v, dict):
                out.extend(x for k, x in v.items() if not str(k).startswith("_"))
            elif v is not None:
                out.append(v.isoformat() if hasattr(v, "isoformat") else v)
    return out


def gold_values(gold_rows: Iterable) -> list[Any]:
    """Distinct non-null values of the gold rows (list cells flattened), in first-seen order."""
    seen, out = set(), []
    for v in _flatten(gold_rows):
        key = (type(v).__name__ if isinstance(v, bool) else "num" if isinstance(v, (int, float)) else "str",
               float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _date_forms(value: str) -> list[str]:
    m = _ISO_DATE.match(value)
    if not m:
        return []
    year, month, day = m.groups()
    if month == "00":
        return [year]
    name = _MONTHS[int(month) - 1]
    if day == "00":
        return [f"{name} {year}"]
    d = str(int(day))
    return [f"{name} {d} {year}", f"{d} {name} {year}", f"{name} {d}th {year}", f"{d}th {name} {year}",
            f"{name} {d}st {year}", f"{name} {d}nd {year}", f"{name} {d}rd {year}"]


def value_present(value: Any, answer: str, *, answer_numbers: list[float] | None = None) -> bool:
    """Whether one gold value is stated in the answer."""
    norm = f" {normalize(answer)} "
    if isinstance(value, bool):
        return _polarity(answer) == value
    if _is_num(value):
        nums = numbers_in(answer) if answer_numbers is None else answer_numbers
        return any(numbers_equal(n, float(value)) for n in nums)
    text = normalize(value)
    if not text:
        return True
    if f" {text} " in norm:
        return True
    return any(f" {form} " in norm for form in _date_forms(str(value)))


def _polarity(answer: str) -> bool | None:
    """True for a yes-answer, False for a no-answer: the first yes/no word decides; failing one, an
    auxiliary ("did", "is") is a yes unless a negation follows it."""
    words = re.findall(r"[a-z']+", answer.lower().replace("\u2019", "'"))
    tentative = None
    for i, word in enumerate(words):
        if word in _NO or word.endswith("n't"):
            return False
        if word in _YES:
            return True
        if word in _AUX and tentative is None:
            if i + 1 < len(words) and words[i + 1] in ("not", "never"):
                return False
            tentative = True
    return tentative


def is_dont_know(answer: str, status: str | None = None) -> bool:
    """A don't-know: the pipeline's status says so, the answer is empty, or it is a don't-know phrase."""
    if status in ("dont_know", "error", "refused"):
        return True
    text = (answer or "").strip().replace("\u2019", "'")
    return not text or bool(_DONT_KNOW.search(text))


# -- the deterministic judge -----------------------------------------------------------------------
def judge_answer(answer: str, gold_rows: Iterable, *, question: str = "", status: str | None = None) -> Verdict:
    """CRAG judgement of one answer against the gold rows (rules in the module docstring)."""
    if is_dont_know(answer, status):
        return Verdict("missing", "don't know")
    gold_rows = list(gold_rows)
    values = gold_values(gold_rows)
    if not values:
        if _EMPTY.search(answer):
            return Verdict("accurate", "states there is none", 1.0)
        return Verdict("hallucinated", "gold is empty but the answer names something", 0.0)
    if len(values) == 1 and isinstance(values[0], bool):
        if _CLAIMS_NONE.match(answer):
            return Verdict("hallucinated", "says there is nothing to compare", 0.0)
        pol = _polarity(answer)
        ok = pol == values[0]
        return Verdict("accurate" if ok else "hallucinated",
                       "yes/no matches" if ok else "yes/no contradiction", float(ok))
    body = _LIST_MARKER.sub(" ", answer)
    nums = numbers_in(body)
    gold_nums = [float(v) for v in values if _is_num(v)]
    if gold_nums and 0.0 in gold_nums and _EMPTY.search(answer):
        nums.append(0.0)  # "none" / "no movies" answers a zero count
    if gold_nums:
        allowed = gold_nums + numbers_in(question) + [float(len(gold_rows))] + [
            n for v in values if isinstance(v, str) for n in numbers_in(v)]
        stray = [n for n in numbers_in(body, words=False) if not any(numbers_equal(n, a) for a in allowed)]
        if stray:
            return Verdict("hallucinated", f"states number {stray[0]:g} not in the gold", None)
    found = sum(value_present(v, answer, answer_numbers=nums) for v in values)
    coverage = found / len(values)
    need = 1.0 if len(values) <= ALL_VALUES_UP_TO else COVERAGE
    if coverage < need - 1e-9:
        return Verdict("hallucinated", f"only {found}/{len(values)} gold values present", coverage)
    extra = unsupported_items(body, values, n_rows=len(gold_rows), question=question)
    if len(extra) > max(EXTRA_ITEMS, len(values) // 10):
        return Verdict("hallucinated", f"names {len(extra)} items not in the gold, e.g. {extra[0]!r}", coverage)
    return Verdict("accurate", f"{found}/{len(values)} gold values present", coverage)


def unsupported_items(answer: str, values: list[Any], *, n_rows: int | None = None,
                      question: str = "") -> list[str]:
    """Items of the answer (split at , ; newlines 'and' 'or') that state no gold value.

    Gold strings are masked first (punctuation-insensitively), so a value containing a comma
    ("Portland, OR") stays one item. An item also counts as stating a value when it holds a gold number,
    the number of gold rows, a number from the question, or (for a gold 0) says "none".
    """
    text = fold(answer, case="lower", apostrophes=False, collapse=False)  # punctuation kept: it splits items
    strings = sorted({normalize(v) for v in values if isinstance(v, str) and normalize(v)}, key=len, reverse=True)
    for v in strings:
        pattern = r"[\W_]*".join(map(re.escape, v.split()))
        text = re.sub(r"(?<![^\W_])" + pattern + r"(?![^\W_])", " \x00 ", text)
    for v in values:
        m = _ISO_DATE.match(v) if isinstance(v, str) else None
        if m and m.group(2) != "00" and m.group(3) != "00":
            month, day, year = _MONTHS[int(m.group(2)) - 1], str(int(m.group(3))), m.group(1)
            text = re.sub(rf"\b({month}\W+{day}(st|nd|rd|th)?|{day}(st|nd|rd|th)?\W+{month})\W+{year}\b",
                          " \x00 ", text)
    gold_nums = [float(v) for v in values if _is_num(v)]
    ok_nums = gold_nums + ([float(n_rows)] if n_rows else []) + numbers_in(question, words=False)
    out = []
    for seg in _ITEM_SPLIT.split(text):
        seg = seg.strip(" .:!?()[]\"'-")
        if not re.search(r"\w", seg) or "\x00" in seg:
            continue
        if any(numbers_equal(n, g) for n in numbers_in(seg) for g in ok_nums):
            continue
        if 0.0 in gold_nums and _EMPTY.search(seg):
            continue
        out.append(seg)
    return out


# -- the LLM judge ---------------------------------------------------------------------------------
class ChoiceBackend(Protocol):
    """What the LLM judge needs: pick one option for a prompt (``planner.llm`` backends do this)."""

    def choose(self, prompt: str, options: list[str]) -> int: ...


JUDGE_PROMPT = """You grade answers to questions about a knowledge graph.
Question: {question}
Correct answer (rows from the database): {gold}
Answer to grade: {answer}

Reply "accurate" if the answer states the correct answer without contradicting it,
"missing" if the answer declines or says it does not know,
"hallucinated" if the answer is wrong, incomplete, or states something the correct answer contradicts.
An empty correct answer means the right reply is that there is none."""


@dataclass
class LLMJudge:
    """CRAG judgement by a language model through any object with ``choose(prompt, options) -> int``."""

    backend: Any
    max_gold_values: int = 40

    def prompt(self, answer: str, gold_rows: Iterable, question: str = "") -> str:
        values = gold_values(gold_rows)
        gold = ", ".join(map(str, values[: self.max_gold_values])) or "(none)"
        if len(values) > self.max_gold_values:
            gold += f", ... ({len(values)} values in all)"
        return JUDGE_PROMPT.format(question=question or "(not given)", gold=gold, answer=answer.strip())

    def __call__(self, answer: str, gold_rows: Iterable, *, question: str = "",
                 status: str | None = None) -> Verdict:
        if status in ("error", "refused") or not (answer or "").strip():
            return Verdict("missing", "no answer")
        idx = self.backend.choose(self.prompt(answer, gold_rows, question), list(LABELS))
        if not isinstance(idx, int) or not 0 <= idx < len(LABELS):
            raise ValueError(f"judge backend chose {idx!r}, not an index into {LABELS}")
        return Verdict(LABELS[idx], "llm")


# -- comparing judges ------------------------------------------------------------------------------
Judge = Callable[..., Verdict]


@dataclass
class Disagreement:
    id: str
    question: str
    answer: str
    first: str  # label from the first judge
    second: str  # label from the second judge
    reason: str = ""  # the first judge's reason


@dataclass
class JudgeComparison:
    n: int = 0
    agree: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def agreement(self) -> float:
        return self.agree / self.n if self.n else 1.0


def compare_judges(preds: list[dict], golds: list[dict], first: Judge = judge_answer,
                   second: Judge | None = None) -> JudgeComparison:
    """Run two judges over prediction lines (joined to gold lines by ``id``) and list where they disagree."""
    if second is None:
        raise ValueError("compare_judges needs a second judge, e.g. LLMJudge(backend)")
    by_id = {p["id"]: p for p in preds}
    out = JudgeComparison()
    for gold in golds:
        pred = by_id.get(gold["id"])
        if pred is None:
            continue
        kw = {"question": gold.get("question", ""), "status": pred.get("status")}
        answer = pred.get("answer") or ""
        a = first(answer, gold["gold_rows"], **kw)
        b = second(answer, gold["gold_rows"], **kw)
        out.n += 1
        if a.label == b.label:
            out.agree += 1
        else:
            out.disagreements.append(Disagreement(gold["id"], gold.get("question", ""), answer,
                                                  a.label, b.label, a.reason))
    return out
