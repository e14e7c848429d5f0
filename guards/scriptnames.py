"""People written in scripts other than Latin: `أحمد وصل إلى دبي`, `שרה לוי נולדה`, `Δημήτρης είναι`, `김민준 님`,
`佐藤さん`, `山本 美咲さん`.

The lexicon people.txt holds given names and surnames in other scripts
(names-dataset: a country's first 3,000). What counts:

- in a script written with spaces (Arabic, Hebrew, Greek, Cyrillic, ...), a
  word of three letters or more that is a given name among a country's first
  1,000 (in Greek and Cyrillic: capitalised, with a case ending of up to two
  letters: `Игорю`), with the next word when it is a surname (`שרה לוי`,
  `محمد العلي`);
- in Armenian, a surname by its ending (`-յան`, `-եան`), with the given name
  before it (`Անի Հակոբյան`): no lexicon here holds Armenian names;
- in Hangul, a word that starts with one of the common one-syllable surnames
  and a given name of two syllables (`김민준`, `박지훈에게`), or a given name
  before `님` or `씨` (`지훈님`);
- in Japanese, a surname before an honorific (`佐藤さん`, `小林様`), or a
  surname and a given name together before one or on their own after a space
  (`田中美咲さん`, `山本 美咲`, one kanji on its own too: `渡辺 翔`);
- in Chinese, a common surname and a given name of one or two characters that
  given names are written with, where the text sets it apart: at a run's start
  or after a field's, a role's or a relation's word (`持卡人=`, `负责人`, `给`),
  and before the run's end or a word that follows a person (`说`, `在`, `先生`).
  Without a segmenter, a name anywhere would take words (`周末`, weekend;
  `高峰`, peak), so a name between other words is not read;
- in the scripts of South Asia, one or two words before an honorific that
  follows a name (`सुनीता शर्मा जी`, `వెంకట రమణ గారికి`, `நிமல் அவர்களுக்கு`) or after
  a title before it (`डॉ. मीना वर्मा`): no lexicon here holds their names;
- in Greek and Cyrillic, a capitalised word after a title (`η κυρία
  Παπαδοπούλου`, `Пані Коваленко`), with the capitalised word after it;
- in Thai, a given name and a surname after `คุณ` (Khun), which is `you` too;
- in Hebrew, a given name with a preposition's letter written onto it and a
  surname after it (`לרונית לוי`).
"""

from __future__ import annotations

import functools
import importlib
import re

from . import languages
from .findings import Overlaps
from .lexicons import Lexicons, fold
from .lexicons import words as _words
from .scriptplaces import declined, words_by_script

Span = tuple[str, int, int]
GIVEN_RANK = 1_000  # a word alone: a given name this common
NAME_RANK = 3_000  # after a surname, or as the surname after a given name
# the twenty most common Korean surnames (Statistics Korea, 2015 census), one syllable each
KOREAN_SURNAMES = frozenset("김이박최정강조윤장임한오서신권황안송류홍")
_KOREAN_TITLES = ("님", "씨")
_JAPANESE_TITLES = re.compile(r"さん|様|さま|氏|先生|くん|君|ちゃん|殿")

# Chinese names (module docstring): the commonest one-character surnames (the hundred commonest are about 85% of
# people), in simplified and traditional forms, and the commonest two-character ones
CHINESE_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔"
    "钟谭陆汪范金廖贾夏韦付方邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔汤"
    "張劉陳楊黃趙吳孫馬鄭謝許韓馮鄧蕭葉蘇呂盧鍾譚陸賈鄒閆賀顧龔錢嚴湯"
)
_COMPOUND_SURNAMES = ("欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "歐陽", "司馬")
# characters a one-character given name is (`王芳`, `李强`), and each half of a two-character one (`秀英`, `建国`)
_GIVEN_ALONE = frozenset(
    "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉萍红鹏辉玲婷雪琳晶慧颖斌宇浩凯鑫健俊帆帅旭宁欣佳倩蕾薇瑶悦"
    "瑞博航阳昊晨楠梅燕莉兰凤洁琴云亮峰波飞彬毅虎轩豪睿涵怡嘉琪璐露丹妮婉欢伦晖亚蓉菲昕岩琦媛璇茜娇瑾嫣"
    "偉芳娜靜麗強軍濤傑娟萍紅鵬輝玲婷琳晶慧穎斌凱鑫寧俊帥旭欣蕾薇瑤悅瑞航陽昊晨楠梅燕莉蘭鳳潔琴雲亮峰波飛彬毅豪睿涵"
)
_GIVEN_FIRST = _GIVEN_ALONE | frozenset(
    "建晓志小美子秀桂春文海新永德家一梓雨思可梦诗紫若天立振宏光荣卫忠庆淑素彩爱安福祥贵松泽鸿曉誌夢詩榮衛慶愛澤鴻國雅"
)
_GIVEN_SECOND = _GIVEN_ALONE | frozenset(
    "国华英兰东轩涵萱怡彤文成生林龙平安福宁清山梅花霞芬珍琼莲凤云飞杰峰东強國華東远遠"
)
# words right before a name that set it apart: a field's or a role's (`客户`, `持卡人`, `负责人`), a relation's,
# a verb's
_CHINESE_BEFORE = re.compile(
    r"(?:客户|客戶|顾客|联系人|聯絡人|负责人|負責人|作者|审核|提交人|报告人|報告人|申请人|申請人|持卡人|收件人|收货人|寄件人|"
    r"经办人|患者|骑手|司机|老师|同事|丈夫|妻子|女儿|儿子|哥哥|姐姐|弟弟|妹妹|合伙人|朋友|店长|经理|主管|值班的是|换成了|"
    r"转交|用户|会员|家长|学生|员工|订购人|预订人|买家|卖家|姓名|名字|联系|聯繫|通知|感谢|谢谢|謝謝|是|找|让|讓|给|給|由|"
    r"和|与|與|跟|畀|俾|叫|请|請|署名|簽名|签名)\Z"
)
# what follows a person's name: a verb of what people do, a title (`李娜说`, `王师傅`, `陈先生`, `王芳明天`)
_CHINESE_AFTER = frozenset(
    "说先女小老师经同告已刚明今昨会也都写打发让请给把被从住搬负說從會寫讓給"
)  # not `的`, `是`, `在`, `和`: nouns are followed by them as often (`高峰在晚上`, `高明的设计`)
# and after a sentence's first word, which is its subject: `在`, `去年`, `下周`, `和` follow a person there as a
# thing elsewhere (`QPS 高峰在晚上`)
_CHINESE_SUBJECT_AFTER = frozenset("在去下上和与是来回开做前后正将要向于对等")
# the titles a surname alone takes: `陈先生`, `王女士`, `李小姐`, `張太太`
_SURNAME_TITLES = frozenset(["先生", "女士", "小姐", "太太", "老师", "老師", "师傅", "師傅"])
_SENTENCE_OPEN = re.compile(r"[\n。！？；，,.!?;:：\"“「『(（]")
_KANA = re.compile(r"[\u3040-\u30ff]")


def _chinese(lex: Lexicons, text: str, a: int, b: int) -> list[tuple[int, int]]:
    """Chinese names in the Han run text[a:b] (module docstring); each decided by what is around it, so the run is
    read once."""
    if _japanese_near(text, a, b):
        return []  # Japanese: its surnames are read by _japanese()
    out: list[tuple[int, int]] = []
    i = a
    while i < b - 1:
        found = _chinese_at(lex, text, i, b)
        out += [(i, found)] if found else []
        i = found or i + 1
    return out


# a person's field and its `=` or colon before a name that is the whole run: `付款人=黄思远`, `学员：刘子墨`
_CHINESE_FIELD = re.compile(
    r"(?:付款人|收款人|持卡人|收件人|寄件人|联系人|聯絡人|客户|客戶|顾客|顧客|姓名|用户|用戶|申请人|申請人|负责人|負責人|"
    r"报告人|報告人|提交人|作者|经办人|經辦人|患者|司机|司機|骑手|騎手|学员|學員|教练|教練|老师|老師|会员|會員|家长|家長)"
    r"[ \t]*[=:：][ \t]*\Z"
)


def _chinese_at(lex: Lexicons, text: str, i: int, b: int) -> int:
    """The end of a Chinese name at text[i] in a run ending at b, or 0: a surname at the run's start or after a cue
    word, a given name of two characters or one, then the run's end or a word that follows a person; no city's
    name (`沈阳`, `金华`)."""
    size = 2 if text[i : i + 2] in _COMPOUND_SURNAMES else 1 if text[i] in CHINESE_SURNAMES else 0
    if not size:
        return 0
    cued = i > 0 and _CHINESE_BEFORE.search(text, max(0, i - 4), i) is not None
    if not (i == 0 or not _is_han(text[i - 1]) or cued):
        return 0
    g = i + size
    if text[g : g + 2] in _SURNAME_TITLES:
        return g  # `让陈先生用支付链接付款`: a surname and its title, the title not the name's
    whole = 1 <= b - g <= 2 and (i == 0 or not _is_han(text[i - 1])) and _given_chars(text[g:b])
    if whole and _CHINESE_FIELD.search(text, max(0, i - 8), i) is not None:
        return b if text[i:b] not in lex.scripts else 0  # `付款人=黄思远`: a field's whole value
    # `王芳在成都出生`, `她的丈夫李强在重庆`: a sentence's or a clause's subject
    opening = i == 0 or cued or _SENTENCE_OPEN.match(text[i - 1]) is not None
    for end in (g + 2, g + 1):
        if end > min(b, len(text)) or not _given_chars(text[g:end]):
            continue
        if not (end == b or text[end] in _CHINESE_AFTER or (opening and text[end] in _CHINESE_SUBJECT_AFTER)):
            continue
        if text[i:end] in lex.scripts:
            return 0  # a city's name
        return end
    return 0


def _given_chars(given: str) -> bool:
    if len(given) == 2:
        return given[0] in _GIVEN_FIRST and given[1] in _GIVEN_SECOND
    return given in _GIVEN_ALONE


_JAPANESE_REACH = 200  # kana this near, on the same line, makes a Han run Japanese


def _japanese_near(text: str, a: int, b: int) -> bool:
    start = text.rfind("\n", max(0, a - _JAPANESE_REACH), a) + 1 or max(0, a - _JAPANESE_REACH)
    end = text.find("\n", b, b + _JAPANESE_REACH)
    return _KANA.search(text, start, end if end >= 0 else min(len(text), b + _JAPANESE_REACH)) is not None


# an honorific or `and others` after a surname, and the words a place's or a business's name ends in (`石川 県`,
# `中村 区`, `上野 駅`, `藤田 組`): no given name
_NOT_GIVEN = frozenset("様氏君殿他等宛達各県区駅町市村城店組郡都府道島川山寺宮港橋園館社局署課部室棟号線丁通")


def _one_kanji(text: str, i: int) -> bool:
    """A given name of one kanji at text[i], on its own: `翔` of `渡辺 翔`, `誠` of `高橋 誠 様`."""
    c = text[i : i + 1]
    return bool(c) and _is_han(c) and c not in _NOT_GIVEN and not _is_han(text[i + 1 : i + 2] or " ")


# what follows a person's name in the languages of South Asia, as `Mr`/`Ms` precede it in English: `सुनीता शर्मा जी`,
# `వెంకట రమణ గారికి`, `முருகன் செல்வம் அவர்களுக்கு`, `അനിൽ മേനോൻ സാറിന്`, `නිමල් පෙරේරා මහතාට`, with their case endings
# kin said after a name as a title, in Hindi and Bengali (`रमेश भाई`, brother Ramesh; `সুমন ভাই`): no surname
_KIN_AFTER = _words("भाई भैया बहन दीदी ভাই আপা দিদি বোন দাদা")
HONORIFICS_AFTER = _words(
    "जी साहब साहेब साहिबा जीने जीको जीसे "  # Hindi, Marathi, Nepali (not `सर`, `sir`: `गुड मॉर्निंग सर`)
    "সাহেব সাহেবকে সাহেবের বাবু দিদি আপা "  # Bengali
    "ਜੀ ਸਾਹਿਬ "  # Punjabi
    "ભાઈ બેન જી સાહેબ "  # Gujarati
    "அவர்களுக்கு அவர்களை அவர்களிடம் "  # Tamil (not `அவர்கள்`, `அவர்களின்`: they, their)
    "గారు గారికి గారిని గారితో గారి "  # Telugu
    "ಅವರಿಗೆ ಅವರನ್ನು "  # Kannada (not `ಅವರು`, `ಅವರ`: they, their)
    "സാറിന് സാറിനെ സാറിന്റെ "  # Malayalam
    "මහතා මහතාට මහතාගේ මහත්මිය මහත්මියට මහත්මියගේ මෙනවිය"  # Sinhala
)
_HONORIFIC_BEFORE = _words(  # `डॉ`: the dot after it is no letter, so not the word's
    "श्री श्रीमती सुश्री डॉ শ্রী শ্রীমতী জনাব ডা ਸ੍ਰੀ ਸ਼੍ਰੀ ਡਾ શ્રી શ્રીમતી ડૉ திரு திருமதி டாக்டர் శ్రీ శ్రీమతి డా ಶ್ರೀ "
    "ಶ್ರೀಮತಿ ಡಾ ശ്രീ ശ്രീമതി ഡോ ශ්‍රී ආචාර්ය"
)
# roles an honorific follows as it follows a name: `डॉक्टर गारु`, `టీచర్ గారు`, `டீம் லீட்`
_ROLES = _words(
    "डॉक्टर डाक्टर टीचर मैनेजर सरकार मैम ডাক্তার টিচার ম্যানেজার டாக்டர் டீச்சர் மேனேஜர் லீட் டீம் డాక్టర్ టీచర్ "
    "మేనేజర్ ಡಾಕ್ಟರ್ ಟೀಚರ್ ಮ್ಯಾನೇಜರ್ ഡോക്ടർ ടീച്ചർ മാനേജർ ડૉક્ટર ટીચર મેનેજર ਡਾਕਟਰ ਟੀਚਰ ਮੈਨੇਜਰ"
)
# a form's field for a name or a contact, before a colon: Hindi and Marathi, Nepali, Bengali, Punjabi, Gujarati,
# Tamil, Telugu, Kannada, Malayalam, Sinhala
_NAME_FIELDS = _words(
    "नाम नाव संपर्क सम्पर्क নাম যোগাযোগ ਨਾਮ ਸੰਪਰਕ નામ સંપર્ક பெயர் தொடர்பு పేరు సంప్రదించండి ಹೆಸರು ಸಂಪರ್ಕ പേര് ബന്ധപ്പെടുക නම සම්බන්ධතා"
)
_LOANWORD = re.compile("[\u0949\u0911\u0945\u0972]|\u09cd\u09af\u09be")  # Devanagari's `ॉ`, `ऑ`; Bengali's `্যা`
_FIELD_END = re.compile(r"[ \t]*(?:[।.,;!?\n]|\Z)")
_PLEASE = frozenset(["कृपया", "দয়া", "করে", "ਕਿਰਪਾ", "કૃપા", "தயவுசெய்து", "దయచేసి", "ದಯವಿಟ್ಟು", "ദയവായി", "කරුණාකර"])


def _honoured(lex: Lexicons, text: str, words: list[tuple[int, int, str]], i: int) -> tuple[int, int] | None:
    """The one or two words of the word's script before an honorific that follows a name (`सुनीता शर्मा जी`),
    or after one that precedes it (`श्री राजेश कुमार`); no function word, no `please`."""
    a, b, script = words[i]
    if script != "other" or not "\u0900" <= text[a] <= "\u0dff":  # the scripts of South Asia
        return None
    if text[a:b] in HONORIFICS_AFTER and i > 0:
        name = [j for j in (i - 2, i - 1) if j >= 0 and _named_word(text, words, j, i)]
    elif text[a:b] in _HONORIFIC_BEFORE:
        name = [j for j in (i + 1, i + 2) if j < len(words) and _named_word(text, words, j, i)]
    elif text[a:b] in _NAME_FIELDS and text[b : b + 2] == ": " and i + 1 < len(words) and words[i + 1][0] == b + 2:
        # `नाम: अनिता वर्मा`, `যোগাযোগ: রফিকুল ইসলাম`: a name's or a contact's field before two words and the
        # sentence's or the line's end, no English loanword among them (`नाम: लॉगिन पेज`, login page: the lexicons
        # hold no name in these scripts to say more)
        if i + 2 >= len(words) or not _named_word(text, words, i + 2, i + 1):
            return None
        c, d, script = words[i + 1]
        if script != "other" or text[c:d] in function_words() or text[c:d] in _PLEASE:
            return None
        end = words[i + 2][1]
        if _LOANWORD.search(text, words[i + 1][0], end) or not _FIELD_END.match(text, end):
            return None
        name = [i + 1, i + 2]
    else:
        return None
    if not name:
        return None
    return words[name[0]][0], words[name[-1]][1]


def _named_word(text: str, words: list[tuple[int, int, str]], j: int, i: int) -> bool:
    """words[j] may be part of a name read from the honorific words[i]: same script, next to it with only a space
    between (a word between too, for the farther one), no function word, no `please`, no honorific."""
    lo, hi = sorted((i, j))
    between = all(text[words[k][1] : words[k + 1][0]] in (" ", ". ") for k in range(lo, hi))
    word = text[words[j][0] : words[j][1]]
    if not between or words[j][2] != "other" or word in _PLEASE or word in function_words():
        return False
    if word in HONORIFICS_AFTER or word in _HONORIFIC_BEFORE or word in _ROLES:
        return False
    return not (abs(i - j) == 2 and not _named_word(text, words, (i + j) // 2, i))


# Thai: `คุณ` (Khun) before a given name and, after a space, a surname (`คุณวิชัย ศรีสุข`); `คุณ` is `you` too
# (`ของคุณ`, your; `ขอบคุณ`, thanks), a parent's or a doctor's title (`คุณแม่`, `คุณหมอ`), `dear customer` (`คุณลูกค้า`),
# and opens `คุณภาพ` (quality), `คุณสมบัติ` (property), `คุณค่า` (value)
_THAI_KHUN = re.compile(
    r"(?<!ขอบ)(?<!ของ)(?<!ให้)คุณ(?!ภาพ|สมบัติ|ค่า|ประโยชน์|ลักษณะ|ธรรม|ครู|แม่|พ่อ|หมอ|ป้า|ลุง|ยาย|ตา|ย่า|ปู่|ลูกค้า|ผู้)([\u0e01-\u0e4e]{2,10})(?![\u0e01-\u0e4e])"
    r"(?:[ \t]([\u0e01-\u0e4e]{2,12})(?=[ \t,.)\"”']|$))?"
)
_THAI_NOT_NAME = re.compile(r"ช่วย|จะ|สามารถ|ได้|มี|เป็น|ต้อง|ควร|ก็|คง|ไม่|อยาก|ทำ|ชอบ|ใช้|เคย|กำลัง|คือ|ครับ|ค่ะ|คะ")


def _thai(text: str) -> list[tuple[int, int]]:
    out = []
    for m in _THAI_KHUN.finditer(text):
        if _THAI_NOT_NAME.match(m.group(1)):
            continue
        surname = m.group(2) is not None and not _THAI_NOT_NAME.match(m.group(2))
        out.append((m.start(1), m.end(2) if surname else m.end(1)))
    return out


def by_form(lex: Lexicons, text: str, a: int, b: int) -> bool:
    """text[a:b] is a name its form says is one, in a script without capitals or spaces between words: a Korean
    surname and a common given name, the word whole or before a particle (`김지현`, `김지현에게`; not `조정하` of
    `조정하세요`), a Chinese name where _chinese() reads one (`持卡人=周伟`)."""
    word = text[a:b]
    if not word or word.isascii():
        return False
    if len(word) == 3 and word[0] in KOREAN_SURNAMES and 0 < rank(lex, word[1:]) <= GIVEN_RANK:
        rest = b
        while rest < len(text) and "\uac00" <= text[rest] <= "\ud7a3" and rest - b < 4:
            rest += 1
        return rest == b or text[b:rest] in _KOREAN_PARTICLES
    if word[0] not in CHINESE_SURNAMES and word[:2] not in _COMPOUND_SURNAMES:
        return False
    run_end = b if b == len(text) or not _is_han(text[b]) else len(text)  # only `the run ends here` matters
    return not _japanese_near(text, a, b) and _chinese_at(lex, text, a, run_end) == b


# particles after a Korean name: `에게`, `씨`, `님`, `은`, `이`, `의`, `와`, `도`, `에서`, `한테`
# and `I am` after it: `이서연입니다`
_KOREAN_PARTICLES = _words(
    "씨 님 은 는 이 가 을 를 의 와 과 도 에게 한테 께 에서 씨가 씨의 씨에게 님께 님이 님의 "
    "입니다 이에요 예요 이야 이라고 라고 께서 한테서 에게서 이랑 랑 하고 까지 만 부터 보다 처럼 "
    "한테는 에게는 은요 는요 씨한테 님한테 씨께 님에게 씨는 님은"
)


def _is_han(c: str) -> bool:
    return "\u4e00" <= c <= "\u9fff" or "\u3400" <= c <= "\u4dbf" or c == "々"  # `佐々木`: the repeat mark


# Burmese's titles written onto a name at a word's start, `U` and `Daw`, before `to` (`ဦးအောင်ကျော်ထံ`, to U Aung
# Kyaw): not inside a word (`ပထမဦးဆုံး`, first of all) nor a word they start (`ဒေါ်လာ`, dollar; `ဦးနှောက်`, brain),
# which no `to` follows
BURMESE_TITLES = ("\u1026\u1038", "ဒေါ်")  # U, Daw
_BURMESE_TITLED = re.compile(
    "(?<![\u1000-\u109f])(?:\u1026\u1038|ဒေါ်)(?P<name>[\u1000-\u109f]{3,24}?)(?=[ \t]?(?:ထံ|အား))"
)
# Amharic's titles with `to` written onto them (`ለአቶ`, to Mr): the one or two words after
ETHIOPIC_TITLES = ("አቶ", "ወይዘሮ", "ወይዘሪት")  # Mr, Mrs, Miss (not `ዶክተር`: `የዶክተር ዲግሪ`, a doctor's degree)
_ETHIOPIC_PREFIXES = ("ለ",)  # to: `ለአቶ`, the request's addressee (not `የአቶ`, of; nor a title alone, `አቶ እና ወይዘሮ`)


def _ethiopic_titled(lex: Lexicons, text: str, words: list[tuple[int, int, str]], i: int) -> tuple[int, int] | None:
    def nxt_of(j: int) -> str:
        return text[words[j + 1][0] : words[j + 1][1]] if j + 1 < len(words) else ""

    """The given name and the father's name after an Amharic title with `to` on it (`ለአቶ ተስፋዬ በቀለ`), not a city
    the lexicon knows, with a preposition's letter on it or none (`በአዲስ አበባ`, in Addis Ababa)."""
    a, b, _ = words[i]
    if not any(text[a:b] == p + t for p in _ETHIOPIC_PREFIXES for t in ETHIOPIC_TITLES):
        return None
    name: list[tuple[int, int]] = []
    for j in range(i + 1, min(i + 3, len(words))):
        c, d, _ = words[j]
        prev = name[-1][1] if name else b
        word = text[c:d]
        if text[prev:c] != " " or not "\u1200" <= word[0] <= "\u137f" or word in lex.scripts:
            break
        if word in ETHIOPIC_TITLES or word == "እና" or f"{word} {nxt_of(j)}" in lex.scripts:
            break  # `አቶ እና ወይዘሮ`, Mr and Mrs; `ባሕር ዳር`, a city of two words
        nxt = text[words[j + 1][0] : words[j + 1][1]] if j + 1 < len(words) else ""
        if name and word[:1] in "በከለ" and (word[1:] in lex.scripts or f"{word[1:]} {nxt}" in lex.scripts):
            break  # `በአዲስ አበባ`, in Addis Ababa: where, not whose (not `በቀለ`, Bekele)
        name.append((c, d))
    return (name[0][0], name[-1][1]) if name else None


def script_names(lex: Lexicons, text: str, taken: list[Span]) -> list[Span]:
    """The people in `text` named in scripts other than Latin, apart from what `taken` overlaps."""
    if text.isascii() or not lex.people:
        return []
    out: list[Span] = []
    seen = Overlaps(taken)
    words = words_by_script(text)
    # names a title says are names, in scripts written without spaces: Thai's `คุณ`, Burmese's `U`, `Daw`
    titled = _thai(text) if "คุณ" in text else []
    titled += [m.span("name") for m in _BURMESE_TITLED.finditer(text)] if any(t in text for t in BURMESE_TITLES) else []
    for i, (a, b, script) in enumerate(words):
        if script == "latin":
            continue
        if script == "han":
            found = [(s, e) for _, s, e in _japanese(lex, text, a, b)] or _chinese(lex, text, a, b)
        else:
            span = _korean(lex, text, a, b) if script == "hangul" else _spaced(lex, text, words, i)
            span = span or _honoured(lex, text, words, i) or _prefixed(lex, text, words, i)
            span = span or (_armenian(text, words, i) if "\u0531" <= text[a] <= "\u0556" else None)
            span = span or (_titled(lex, text, words, i) if "\u0600" <= text[a] <= "\u06ff" else None)
            span = span or (_cased_titled(lex, text, words, i) if script == "cased" else None)
            span = span or (_ethiopic_titled(lex, text, words, i) if "\u1200" <= text[a] <= "\u137f" else None)
            found = [] if span is None else [span]
        for s, e in found:
            if not seen.over(s, e) and not all(w in _FORMULAE for w in text[s:e].split()):
                out.append(("PERSON", s, e))
                seen.add(("PERSON", s, e))
    for s, e in titled:
        if not seen.over(s, e):
            out.append(("PERSON", s, e))
    return out


# greetings and blessings whose words are names too (`السلام عليكم`, peace be upon you; `إن شاء الله`, God willing;
# `عبدالله`'s `الله`): no one's name alone
_FORMULAE = _words("السلام عليكم وعليكم الله شاء بسم الحمد لله ماشاء مرحبا شكرا")


# languages written with spaces in other scripts, whose commonest words spaCy lists (`мой`, `моя`, `это`)
_STOP_LANGUAGES = ("ru", "uk", "bg", "sr", "mk", "el", "he", "ar", "fa", "ur", "hi", "mr", "ne", "bn", "ta", "te")


_ABUGIDA = re.compile("[\u0900-\u0dff]")  # Devanagari to Sinhala: Hindi, Bengali, Tamil, Telugu, ...
_BENGALI = re.compile("[\u0980-\u09ff]")
_BENGALI_SURNAME_RANK = 400  # ইসলাম 43, আক্তার 107, চৌধুরী 189, উদ্দিন 356; not খবর (news) 2,169, সময় 2,865


@functools.cache
def function_words() -> frozenset[str]:
    """The commonest words of other scripts' languages (spaCy's stop-word lists, in its package): names-dataset
    holds some of them as given names (`Мой`), and capitalised at a sentence's start they are read as people."""
    out: set[str] = set()
    for language in _STOP_LANGUAGES:
        module = importlib.import_module(f"spacy.lang.{language}.stop_words")
        out |= {w for w in module.STOP_WORDS if not w.isascii()}
    return frozenset(out)


# the languages written in Latin letters whose commonest words spaCy lists, by the language identifier's code
_LATIN_STOP_LANGUAGES = {
    "af": "af",
    "ca": "ca",
    "cs": "cs",
    "da": "da",
    "de": "de",
    "es": "es",
    "et": "et",
    "eu": "eu",
    "fi": "fi",
    "fr": "fr",
    "ga": "ga",
    "hr": "hr",
    "hu": "hu",
    "is": "is",
    "it": "it",
    "lb": "lb",
    "lt": "lt",
    "lv": "lv",
    "ms": "ms id",
    "no": "nb",
    "nl": "nl",
    "pl": "pl",
    "pt": "pt",
    "ro": "ro",
    "sk": "sk",
    "sl": "sl",
    "sq": "sq",
    "sv": "sv",
    "tl": "tl",
    "tr": "tr",
    "yo": "yo",
}  # fmt: skip  (not Vietnamese: its commonest words are its commonest names too, `Duy`, `Thanh`, `Anh`)
_OPENS = re.compile(r"(?:\A|[\n.!?:;\"“„«(]|\n>)[ \t]*\Z")  # a sentence's, a line's or a quote's start
MANY_PEOPLE = 10_000  # a function word this many people are called is still read as a name (`Ana`, `Ella`, `Ali`)


@functools.cache
def latin_function_words() -> dict[str, frozenset[str]]:
    """The commonest words of languages written in Latin letters (spaCy's stop-word lists), by language."""
    out: dict[str, frozenset[str]] = {}
    for language, modules in _LATIN_STOP_LANGUAGES.items():
        words: set[str] = set()
        for module in modules.split():
            words |= importlib.import_module(f"spacy.lang.{module}.stop_words").STOP_WORDS
        out[language] = frozenset(w.lower() for w in words)
    return out


@functools.cache
def any_latin_function_word() -> frozenset[str]:
    """The commonest words of all the languages written in Latin letters that spaCy lists, as one set."""
    return frozenset().union(*latin_function_words().values())


def said_in_its_language(lex: Lexicons, text: str, a: int, b: int) -> bool:
    """text[a:b] is one of the commonest words of the language its line is in, other than English, capitalised at
    a sentence's, a line's or a quote's start (`Jag har betalat`, `Dobrý den`, `Von: Katharina`), and no name many
    people carry."""
    word = text[a:b].lower()
    if word not in any_latin_function_word() or not _OPENS.search(text, max(0, a - 4), a):
        return False  # mid-sentence, a capitalised word is a name's more than a sentence's (`mamá de Mía`)
    language = languages.language_at(text, a)
    if language in (None, "en") or word not in latin_function_words().get(language, ()):
        return False
    return lex.given.get(fold(word), 0) < MANY_PEOPLE


def common_word(lex: Lexicons, word: str) -> bool:
    """One of another script's language's commonest words, and no common given name (`Аман` is both); in an
    abugida, whatever names-dataset ranks it (`আমার`, my, is among its Bengali given names)."""
    if word.isascii() or word.lower() not in function_words():
        return False
    return not 0 < rank(lex, word) <= GIVEN_RANK or _ABUGIDA.match(word) is not None


def rank(lex: Lexicons, word: str, surname: bool = False) -> int:
    """A word's best rank among a country's first given names (`surname`: surnames) in people.txt; 0: none."""
    ranks = lex.people.get(word)
    return (ranks[1] if surname else ranks[0]) if ranks else 0


# titles around a name in Urdu and Persian, given names too in the lexicon: `محمد عمران صاحب` (Mr Muhammad Imran)
# titles before a name in Arabic and Persian: `الأستاذ حسن`, `خانم احمدی`, `آقای رضایی`
ARABIC_TITLES_BEFORE = _words("السيد السيدة الأستاذ الأستاذة الاستاذ الاستاذة الدكتور الدكتورة آقای خانم جناب")
_ARABIC_SCRIPT_TITLES = ARABIC_TITLES_BEFORE | _words("صاحب صاحبہ صاحبه بیگم محترم محترمہ محترمه")


def _titled(lex: Lexicons, text: str, words: list[tuple[int, int, str]], i: int) -> tuple[int, int] | None:
    """The name after an Arabic or Persian title (`الأستاذ حسن`, `خانم احمدی`), and the next word too where the
    lexicon holds it as a name (`السيد خالد العتيبي`); no function word."""
    a, b, _ = words[i]
    if text[a:b] not in ARABIC_TITLES_BEFORE or i + 1 >= len(words):
        return None
    c, d, script = words[i + 1]
    if script != "other" or text[b:c] != " " or text[c:d] not in lex.people or common_word(lex, text[c:d]):
        return None  # a name the lexicon holds: not `السيد الرئيس`, `خانم دکتر` (the president, a doctor)
    if i + 2 < len(words) and words[i + 2][2] == script and text[d : words[i + 2][0]] == " ":
        e, f, _ = words[i + 2]
        if text[e:f] in lex.people and not common_word(lex, text[e:f]):
            return c, f
    return c, d


# titles before a name in Greek, Ukrainian and Russian: `η κυρία Παπαδοπούλου`, `κύριε Παπαδάκη`, `Пані Коваленко`,
# `Шановна Олено`, `господин Петров`
CASED_TITLES = _words(
    "κύριε κύριος κυρία κυρίου κυρίας κύριο κ κα пані пан пане панові шановна шановний господин госпожа "
    "господина госпожи господину госпоже г-н г-жа г-ну г-же"
)
# offices and roles a title goes before as it goes before a name: `господин Президент`, `Пане Голово`, `κύριε
# Διευθυντά`, `Шановний Користувачу`, `Κύριε Ελέησον` (a prayer)
_TITLED_ROLES = re.compile(
    r"(?:президент|директор|министр|міністр|голов|керівник|начальник|менеджер|користувач|клієнт|пасажир|колег|"
    r"друз|батьк|учасник|покупц|покупател|пользовател|клиент|посетител|відвідувач|абонент|"
    r"πρόεδρ|διευθυντ|υπουργ|πελάτ|συνάδελφ|ελέησον|δήμαρχ)",
    re.IGNORECASE,
)


def _cased_titled(lex: Lexicons, text: str, words: list[tuple[int, int, str]], i: int) -> tuple[int, int] | None:
    """The capitalised name after a Greek or Cyrillic title (`η κυρία Παπαδοπούλου`, `Пані Коваленко`), with the
    capitalised word after it (`κύριε Νίκο Παπαδάκη`); no function word."""
    a, b, _ = words[i]
    if text[a:b].lower() not in CASED_TITLES or i + 1 >= len(words):
        return None
    c, d, script = words[i + 1]
    if script != "cased" or text[b:c].strip(". ") or not text[c].isupper() or common_word(lex, text[c:d]):
        return None
    if d - c < 3 or text[c:d].isupper() or _TITLED_ROLES.match(text, c):
        return None  # `κ. ΦΠΑ`: an abbreviation; `господин Президент`: an office
    if i + 2 < len(words) and words[i + 2][2] == script and text[d : words[i + 2][0]] == " ":
        e, f, _ = words[i + 2]
        if text[e].isupper() and not common_word(lex, text[e:f]) and f - e >= 3 and not _TITLED_ROLES.match(text, e):
            return c, f
    return c, d


# what a chat says, given names too in the lexicon: Arabic `تمام` (fine), `طيب` (ok), `شكرا` (thanks); Hebrew
# `אליה` (to her), `אליו` (to him), `בסדר` (fine), `תודה` (thanks)
_SAID = _words("تمام طيب شكرا شكراً ماشي يلا אליה אליו אליהם בסדר תודה סגור")


def _spaced(lex: Lexicons, text: str, words: list[tuple[int, int, str]], i: int) -> tuple[int, int] | None:
    a, b, script = words[i]
    word = text[a:b]
    if len(word) < 3 or (script == "cased" and not word[0].isupper()) or common_word(lex, word):
        return None
    if word in _ARABIC_SCRIPT_TITLES or word in _SAID:
        return None
    given = _given(lex, word, script)
    # in an abugida names-dataset ranks names low (most of its people there write them in Latin letters): a
    # given name as far down as a surname is read before a surname (`राजेश कुमार`, `ਗੁਰਪ੍ਰੀਤ ਸਿੰਘ`)
    paired_only = _ABUGIDA.match(word) is not None and GIVEN_RANK < given <= NAME_RANK
    if not 0 < given <= GIVEN_RANK and not paired_only:
        return None
    if script == "cased" and word not in lex.people and declined(lex, word, most=1):
        return None  # `из Перми`: Пермь less its soft sign, not Пери with two letters cut
    if i + 1 < len(words):
        c, d, other = words[i + 1]
        nxt = text[c:d]
        # not `सुनील जी`, `रमेश भाई`, `राम राम`
        surname = nxt not in HONORIFICS_AFTER and nxt not in _KIN_AFTER and nxt != word
        # Bengali's table holds common words as names (`ভালো খবর`, good news): a surname of its first ranks only
        most = _BENGALI_SURNAME_RANK if _BENGALI.match(word) else NAME_RANK
        if (
            surname
            and other == script
            and text[b:c] == " "
            and 0 < rank(lex, _base(lex, nxt, script, True), True) <= most
        ):
            return a, d
    return None if paired_only else (a, b)


_HEBREW_PREFIXES = "למו"  # to, from, and (`מייל לרונית`, `ודנה כהן`); not in, the: `בחיים שלום`, `השני דוד`


def _prefixed(lex: Lexicons, text: str, words: list[tuple[int, int, str]], i: int) -> tuple[int, int] | None:
    """A Hebrew given name with a preposition's letter written onto it, and a surname after it: `לרונית לוי`
    (to Ronit Levi), `מיוסי מזרחי`; the letter is not the name's."""
    a, b, _ = words[i]
    word = text[a:b]
    if len(word) < 4 or word[0] not in _HEBREW_PREFIXES or not "\u05d0" <= word[1] <= "\u05ea":
        return None
    if not 0 < rank(lex, word[1:]) <= GIVEN_RANK or i + 1 >= len(words):
        return None
    c, d, _ = words[i + 1]
    if text[b:c] == " " and text[c:d] != word[1:] and 0 < rank(lex, text[c:d], True) <= NAME_RANK:
        return a + 1, d  # not `לדור דור` (for generations)
    return None


def _given(lex: Lexicons, word: str, script: str) -> int:
    return rank(lex, _base(lex, word, script, False))


_UKRAINIAN_DATIVE = ("ові", "еві", "єві")


def _base(lex: Lexicons, word: str, script: str, surname: bool) -> str:
    """The word as the lexicon holds it: in Cyrillic and Greek, less a case ending (`Игорю` -> `Игорь`)."""
    if word in lex.people or script != "cased":
        return word
    if word.endswith(_UKRAINIAN_DATIVE) and len(word) > 5 and rank(lex, word[:-3], surname):
        return word[:-3]  # `Тарасові` (to Taras)
    for cut in (1, 2):
        stem = word[:-cut]
        for form in (stem, *(stem + v for v in "ьйаяоеиыΑαοςη")):
            if len(stem) >= 3 and rank(lex, form, surname):
                return form
    return word


# an Armenian surname's ending (`Հակոբյան`, `Պետրոսյան`, Western `Սարգսեան`), with a case ending or none
_ARMENIAN_SURNAME = re.compile(r"[\u0531-\u0556][\u0561-\u0587]{2,}(?:յան|եան)(?:ը|ի|ին|ից|ով|ն)?")


def _armenian(text: str, words: list[tuple[int, int, str]], i: int) -> tuple[int, int] | None:
    """An Armenian surname, with the capitalised given name before it: `Անի Հակոբյան` (no lexicon holds
    Armenian names; the surname's ending says)."""
    a, b, _ = words[i]
    if i + 1 < len(words) and text[b : words[i + 1][0]] == " ":
        c, d, _ = words[i + 1]
        if _ARMENIAN_SURNAME.fullmatch(text, c, d) and len(text[a:b]) >= 2:
            return a, d  # the given name and the surname
    if _ARMENIAN_SURNAME.fullmatch(text, a, b):
        return a, b
    return None


def _korean(lex: Lexicons, text: str, a: int, b: int) -> tuple[int, int] | None:
    word = text[a:b]
    whole = len(word) == 3 or word[3:] in _KOREAN_PARTICLES  # not `조정하` of `조정하세요`, a verb
    if whole and word[0] in KOREAN_SURNAMES and 0 < rank(lex, word[1:3]) <= NAME_RANK:
        return a, a + 3  # `김민준`, `박지훈에게`: the particle after it is not the name's
    if word[2:3] in _KOREAN_TITLES and 0 < rank(lex, word[:2]) <= NAME_RANK:
        return a, a + 2  # `지훈님`
    return None


def _japanese(lex: Lexicons, text: str, a: int, b: int) -> list[Span]:
    """A surname before an honorific, or a surname and a given name; each surname of two or three characters."""
    out: list[Span] = []
    i = a
    while i < b - 1:
        found = None
        for size in (3, 2):
            surname = text[i : i + size]
            if i + size > b or not 0 < rank(lex, surname, True) <= GIVEN_RANK:
                continue
            end = i + size
            given = next(
                (k for k in (3, 2) if end + k <= len(text) and 0 < rank(lex, text[end : end + k]) <= NAME_RANK), 0
            )
            if given and _JAPANESE_TITLES.match(text, end + given):
                found = (i, end + given)
            elif _JAPANESE_TITLES.match(text, end):
                found = (i, end)
            elif end == b and text[end : end + 1] == " ":  # `山本 美咲`: the given name after a space
                # (a given name of k characters, all of them in the text: not past its end)
                after = next(
                    (
                        k
                        for k in (3, 2)
                        if end + 1 + k <= len(text) and 0 < rank(lex, text[end + 1 : end + 1 + k]) <= NAME_RANK
                    ),
                    0,
                )
                after = after or (1 if _one_kanji(text, end + 1) else 0)  # `渡辺 翔`, `高橋 誠 様`
                if after:
                    found = (i, end + 1 + after)
            if found:
                break
        if found:
            out.append(("PERSON", *found))
            i = found[1]
        else:
            i += 1
    return out
