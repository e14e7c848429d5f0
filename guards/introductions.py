"""People naming themselves in scripts without capitals: `मेरा नाम राहुल वर्मा है`, `ስሜ ሰላም ተስፋዬ ነው`,
`私は伊藤と申します`, `저는 최유진이고`, `我叫王芳`.

guards/names.py reads capitalised words, and guards/scriptnames.py names in
other scripts by their lexicons and honorifics; a request to an assistant in
Hindi, Tamil or Amharic often names its writer in neither way, but by saying
who they are. Here:

- `my name is` (`मेरा नाम`, `আমার নাম`, `என் பெயர்`, `నా పేరు`, `എന്റെ പേര്`,
  `මගේ නම`, `ስሜ`, `میرا نام`, `اسم من`, `اسمي`): the one or two words of its
  script after it, then the copula or a comma (not `મારું નામ અપડેટ થતું
  નથી`, my name does not update), none a function word;
- in Japanese, `私は` or `私の名前は` and a name before `と申します`, `です` or
  `といいます`; in Korean, `저는` or `제 이름은` and a name before the copula
  (`이고`, `입니다`, `이에요`); in Chinese, `我叫` or `我的名字是`, in Cantonese
  `我係`, and a name: a name whose surname the lexicons hold, so that no
  one's job is read (`私は学生です`, `저는 개발자입니다`, `我係工程師`).

`I am ... am` without `name` (`मैं ... हूँ`, `ഞാൻ ...,`) is not read: what
follows is a job or a state as often (`मैं नया डेवलपर हूँ`, I am a new
developer). What is found is a name by what its writer says: the vetter
does not second-guess it.
"""

from __future__ import annotations

import re

from .lexicons import Lexicons
from .scriptnames import CHINESE_SURNAMES, KOREAN_SURNAMES, function_words

Span = tuple[str, int, int]

_WORD = r"[^\s\d,.;:!?।॥،,。、()\"'«»“”፣።\-]+"
# `my name is`, then the name's words, then what ends it: the copula, a comma, the sentence's end
_MY_NAME = (
    "मेरा नाम", "मेरो नाम", "माझे नाव", "माझं नाव", "আমার নাম", "ਮੇਰਾ ਨਾਮ", "મારું નામ", "என் பெயர்", "என்னுடைய பெயர்",
    "నా పేరు", "ನನ್ನ ಹೆಸರು", "എന്റെ പേര്", "මගේ නම", "ስሜ", "میرا نام", "اسم من", "اسمم", "اسمي",
)  # fmt: skip
_COPULA = (
    "है", "हैं", "हो", "आहे", "ਹੈ", "છે", "ነው", "ہے", "است", "هست", "হল", "হলো", "ஆகும்", "ఉంది",
)  # fmt: skip
_END = r"(?=[ \t]*(?:[,.;:!?।॥،,。፣።]|\Z|\n))"
_AFTER = r"(?=[\s,.;:!?।॥،,。፣።]|\Z)"  # a copula's end: a space, punctuation (`है,`, `ነው፣`)


def _alternatives(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_MY_NAME_IS = re.compile(
    rf"(?<!\S)(?:{_alternatives(_MY_NAME)})[ \t]*[:：]?[ \t]+(?P<name>{_WORD}(?:[ \t]{_WORD})?)"
    rf"(?:[ \t]+(?:{_alternatives(_COPULA)}){_AFTER}|[ \t]*[,،፣])"
)
_JAPANESE = re.compile(
    r"私(?:は|の名前は)(?P<name>[\u4e00-\u9fff\u3040-\u309f\u30a0-\u30ff]{2,6}?)(?:と申します|といいます|と言います|です)"
)
_KOREAN = re.compile(
    r"(?:저는|제 이름은)[ \t]*(?P<name>[\uac00-\ud7af]{2,4}?)(?:이고|이며|입니다|이에요|예요|라고|이라고)"
)
_CHINESE = re.compile(r"(?:我叫|我的名字是|我的名字叫)(?P<name>[\u4e00-\u9fff]{2,3})(?=[，,。.！!、\s]|\Z|是|在|，)")
# Cantonese's `I am` before a name and a comma (`我係陳志明，`), not before a place's business (`我係旺角...嘅`)
_CANTONESE = re.compile(r"(?:我係|我叫)(?:[\u4e00-\u9fff]{2,12}嘅)?(?P<name>[\u4e00-\u9fff]{2,3})(?=[，,。！!])")
_THAI = re.compile(r"(?:ฉัน|ผม|ดิฉัน)ชื่อ[ \t]?(?P<name>[\u0e01-\u0e4e]{2,12})(?=[ \t,.]|\Z)")


def introductions(lex: Lexicons, text: str) -> list[Span]:
    """The names people give as their own in `text`, in scripts without capitals."""
    if text.isascii():
        return []
    out: list[Span] = []
    for m in _MY_NAME_IS.finditer(text):
        a, b = m.span("name")
        words = text[a:b].split()
        if words and not any(w in function_words() or w.isascii() for w in words):
            out.append(("PERSON", a, b))  # (a Latin word is no name in these scripts' prose)
    for pattern in (_JAPANESE, _KOREAN, _CHINESE, _CANTONESE, _THAI):
        for m in pattern.finditer(text):
            a, b = m.span("name")
            if pattern is _THAI or _surnamed(lex, text[a:b]):
                out.append(("PERSON", a, b))
    return out


def _surnamed(lex: Lexicons, name: str) -> bool:
    """The name is one the lexicons hold, or opens with a surname they hold (`伊藤`, `최유진`, `陳志明`)."""
    if name in lex.people or (len(name) == 3 and name[0] in KOREAN_SURNAMES):
        return True
    if 2 <= len(name) <= 3 and name[0] in CHINESE_SURNAMES:
        return True
    return any(lex.people.get(name[:n], (0, 0))[1] > 0 for n in (1, 2) if len(name) > n)
