"""``spacy_lal.scoring.ud`` against the pinned official CoNLL 2018 scorer
(``tests/data/conll18/conll18_ud_eval.py``, see the README there).

Both score the same gold/system CoNLL-U pairs: every metric's raw counts (correct,
gold, system, aligned) must be equal, so are precision, recall, F1 and aligned
accuracy, and :func:`conll18_table` must print what the reference prints with
``-v`` and ``-c``. The pairs differ in tokens (split, merged, multi-word tokens on
one side only), sentence boundaries and every annotated column, and one pair is a
retokenized and resegmented piece of the EWT dev set.
"""
import importlib.util
import io
import random
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from spacy_lal.scoring.ud import UDError, UDResult, conll18_table, parse_conllu, score_ud

REFERENCE = Path(__file__).parents[1] / "data" / "conll18" / "conll18_ud_eval.py"
ASSETS = Path(__file__).parents[2] / ".." / "shared" / "assets"
EWT_DEV = ASSETS / "UD_English-EWT" / "en_ewt-ud-dev.conllu"


def _load_reference():
    spec = importlib.util.spec_from_file_location("conll18_ud_eval_reference", REFERENCE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


conll18 = _load_reference()


def conllu(text: str) -> str:
    """CoNLL-U from lines of whitespace-separated columns (the missing last ones are ``_``)."""
    lines = []
    for line in text.strip("\n").split("\n"):
        line = line.strip()
        if line and not line.startswith("#"):
            columns = line.split()
            line = "\t".join(columns + ["_"] * (10 - len(columns)))
        lines.append(line)
    return "\n".join(lines) + "\n\n"


def compare(gold: str, system: str) -> UDResult:
    """Score with both scorers and assert every metric equal; returns ours."""
    reference = conll18.evaluate(
        conll18.load_conllu(io.StringIO(gold)), conll18.load_conllu(io.StringIO(system))
    )
    result = score_ud(parse_conllu(gold), parse_conllu(system))
    ours = result.metrics()
    assert list(ours) == list(reference)
    for name, prf in ours.items():
        ref = reference[name]
        assert (name, prf.correct, prf.gold, prf.system, prf.aligned) == (
            name,
            ref.correct,
            ref.gold_total,
            ref.system_total,
            ref.aligned_total,
        )
        # The same divisions of the same counts: equal floats, not only close ones.
        assert (prf.precision, prf.recall, prf.f1, prf.aligned_accuracy) == (
            ref.precision,
            ref.recall,
            ref.f1,
            ref.aligned_accuracy,
        )
    return result


def reference_prints(gold: str, system: str, tmp_path: Path, option: str) -> str:
    gold_path, system_path = tmp_path / "gold.conllu", tmp_path / "system.conllu"
    gold_path.write_text(gold, encoding="utf8")
    system_path.write_text(system, encoding="utf8")
    run = subprocess.run(
        [sys.executable, str(REFERENCE), option, str(gold_path), str(system_path)],
        capture_output=True,
        text=True,
        encoding="utf8",
        check=True,
    )
    return run.stdout.rstrip("\n")


def assert_tables_equal(gold: str, system: str, result: UDResult, tmp_path: Path) -> None:
    assert conll18_table(result) == reference_prints(gold, system, tmp_path, "-v")
    assert conll18_table(result, counts=True) == reference_prints(gold, system, tmp_path, "-c")


# --- hand-made pairs ------------------------------------------------------------------------

GOLD = conllu(
    """
# sent_id = 1
# text = I don't like ice-cream, Mr. Smith.
1     I          I          PRON   PRP  Case=Nom|Number=Sing|Person=1|PronType=Prs  4  nsubj
2-3   don't      _          _      _    _                                           _  _
2     do         do         AUX    VBP  Mood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin  4  aux
3     n't        not        PART   RB   Polarity=Neg                                4  advmod
4     like       like       VERB   VB   VerbForm=Inf                                0  root
5     ice-cream  ice-cream  NOUN   NN   Number=Sing                                 4  obj
6     ,          ,          PUNCT  ,    _                                           7  punct
7     Mr.        Mr.        PROPN  NNP  Abbr=Yes|Number=Sing                        4  vocative
8     Smith      Smith      PROPN  NNP  Number=Sing|Typo=No                         7  flat
9     .          .          PUNCT  .    _                                           4  punct

# sent_id = 2
# text = It works, and we go to the park.
1     It     it     PRON   PRP  Case=Nom|Gender=Neut|Number=Sing|Person=3|PronType=Prs  2  nsubj
2     works  work   VERB   VBZ  Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin   0  root
3     ,      ,      PUNCT  ,    _                                                       6  punct
4     and    and    CCONJ  CC   _                                                       6  cc
5     we     we     PRON   PRP  Case=Nom|Number=Plur|Person=1|PronType=Prs              6  nsubj
6     go     go     VERB   VBP  Mood=Ind|Tense=Pres|VerbForm=Fin                        2  conj
7     to     to     ADP    IN   _                                                       9  case
8     the    the    DET    DT   Definite=Def|PronType=Art                               9  det
9     park   park   NOUN   NN   Number=Sing                                             6  obl:to
10    .      .      PUNCT  .    _                                                       2  punct

# sent_id = 3
# text = Go!
1     Go     go     VERB   VB   Mood=Imp|VerbForm=Fin  0  root
2     !      !      PUNCT  .    _                      1  punct

# sent_id = 4
# text = Really.
1     Really  _     ADV    RB   _                      0  root
2     .       _     PUNCT  .    _                      1  punct
"""
)

# Sentences 3 and 4 of GOLD, unchanged, for the systems that only change sentences 1 and 2.
GOLD_TAIL = GOLD.split("# sent_id = 3")[1]

SPLIT_AND_MERGED_TOKENS = conllu(
    """
# "do" "n't" without the multi-word token; "ice-cream" split in three; "Smith." merged
1     I       I          PRON   PRP  Case=Nom|Number=Sing|Person=1|PronType=Prs  4  nsubj
2     do      do         AUX    VBP  Mood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin  4  aux
3     n't     not        PART   RB   Polarity=Neg                                4  advmod
4     like    like       VERB   VB   VerbForm=Inf                                0  root
5     ice     ice        NOUN   NN   Number=Sing                                 7  compound
6     -       -          PUNCT  HYPH _                                           7  punct
7     cream   cream      NOUN   NN   Number=Sing                                 4  obj
8     ,       ,          PUNCT  ,    _                                           9  punct
9     Mr.     Mr.        PROPN  NNP  Abbr=Yes|Number=Sing                        4  vocative
10    Smith.  Smith.     PROPN  NNP  Number=Sing                                 9  flat

# "park." is a multi-word token of the system only; "works," one word
1     It      it     PRON   PRP  Case=Nom|Gender=Neut|Number=Sing|Person=3|PronType=Prs  2  nsubj
2     works,  work   VERB   VBZ  Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin   0  root
3     and     and    CCONJ  CC   _                                                       5  cc
4     we      we     PRON   PRP  Case=Nom|Number=Plur|Person=1|PronType=Prs              5  nsubj
5     go      go     VERB   VBP  Mood=Ind|Tense=Pres|VerbForm=Fin                        2  conj
6     to      to     ADP    IN   _                                                       8  case
7     the     the    DET    DT   Definite=Def|PronType=Art                               8  det
8-9   park.   _      _      _    _                                                       _  _
8     park    park   NOUN   NN   Number=Sing                                             5  obl
9     .       .      PUNCT  .    _                                                       2  punct

# sent_id = 3"""
    + GOLD_TAIL
)

MULTIWORD_TOKENS_DIFFER = conllu(
    """
# "don't" as one word; "like" + "ice-cream" as one multi-word token of three words
1     I          I          PRON   PRP  Case=Nom|Number=Sing|Person=1|PronType=Prs  2  nsubj
2     don't      do         AUX    VBP  Polarity=Neg                               3  aux
3-5   likeice-cream  _      _      _    _                                           _  _
3     like       like       VERB   VB   VerbForm=Inf                                0  root
4     ICE        ice        NOUN   NN   Number=Sing                                 5  compound
5     -cream     cream      NOUN   NN   Number=Sing                                 3  obj
6     ,          ,          PUNCT  ,    _                                           7  punct
7     Mr.        Mr.        PROPN  NNP  Abbr=Yes|Number=Sing                        3  vocative
8     Smith      Smith      PROPN  NNP  Number=Sing                                 7  flat
9     .          .          PUNCT  .    _                                           3  punct

# "It works" one multi-word token with the words "it" "work" "s"; "we go" with "we" "went"
1-3   Itworks  _      _      _    _                                                   _  _
1     it       it     PRON   PRP  Case=Nom|Gender=Neut|Number=Sing|Person=3|PronType=Prs  2  nsubj
2     work     work   VERB   VBZ  Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin   0  root
3     s        s      PART   POS  _                                                       2  aux
4     ,        ,      PUNCT  ,    _                                                       7  punct
5     and      and    CCONJ  CC   _                                                       7  cc
6-7   wego     _      _      _    _                                                       _  _
6     we       we     PRON   PRP  Case=Nom|Number=Plur|Person=1|PronType=Prs              7  nsubj
7     went     go     VERB   VBD  Mood=Ind|Tense=Past|VerbForm=Fin                        2  conj
8     to       to     ADP    IN   _                                                       10 case
9     the      the    DET    DT   Definite=Def|PronType=Art                               10 det
10    park     park   NOUN   NN   Number=Sing                                             7  obl:to
11    .        .      PUNCT  .    _                                                       2  punct

# sent_id = 3"""
    + GOLD_TAIL
)

SENTENCES_DIFFER = conllu(
    """
# sentence 1 unchanged (it has a multi-word token)
1     I          I          PRON   PRP  Case=Nom|Number=Sing|Person=1|PronType=Prs  4  nsubj
2-3   don't      _          _      _    _                                           _  _
2     do         do         AUX    VBP  Mood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin  4  aux
3     n't        not        PART   RB   Polarity=Neg                                4  advmod
4     like       like       VERB   VB   VerbForm=Inf                                0  root
5     ice-cream  ice-cream  NOUN   NN   Number=Sing                                 4  obj
6     ,          ,          PUNCT  ,    _                                           7  punct
7     Mr.        Mr.        PROPN  NNP  Abbr=Yes|Number=Sing                        4  vocative
8     Smith      Smith      PROPN  NNP  Number=Sing|Typo=No                         7  flat
9     .          .          PUNCT  .    _                                           4  punct

# sentence 2 split after the comma
1     It     it     PRON   PRP  Case=Nom|Gender=Neut|Number=Sing|Person=3|PronType=Prs  2  nsubj
2     works  work   VERB   VBZ  Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin   0  root
3     ,      ,      PUNCT  ,    _                                                       2  punct

1     and    and    CCONJ  CC   _                                                       3  cc
2     we     we     PRON   PRP  Case=Nom|Number=Plur|Person=1|PronType=Prs              3  nsubj
3     go     go     VERB   VBP  Mood=Ind|Tense=Pres|VerbForm=Fin                        0  root
4     to     to     ADP    IN   _                                                       6  case
5     the    the    DET    DT   Definite=Def|PronType=Art                               6  det
6     park   park   NOUN   NN   Number=Sing                                             3  obl:to
7     .      .      PUNCT  .    _                                                       3  punct

# sentences 3 and 4 joined
1     Go      go    VERB   VB   Mood=Imp|VerbForm=Fin  0  root
2     !       !     PUNCT  .    _                      1  punct
3     Really  _     ADV    RB   _                      1  advmod
4     .       _     PUNCT  .    _                      1  punct
"""
)

ANNOTATIONS_DIFFER = conllu(
    """
# UPOS of "I", XPOS of "like", a universal feature of "do", the lemma of "n't";
# features of "Mr." reordered and of "Smith" without the non-universal Typo (both right);
# head of ","; DEPREL of "Smith" (compound, content), of "ice-cream" subtyped (right)
1     I          I          PRON_  PRP  Case=Nom|Number=Sing|Person=1|PronType=Prs  4  nsubj
2-3   don't      _          _      _    _                                           _  _
2     do         do         AUX    VBP  Mood=Ind|Number=Sing|Person=1|Tense=Past|VerbForm=Fin  4  aux
3     n't        n't        PART   RB   Polarity=Neg                                4  advmod
4     like       like       VERB   VBP  VerbForm=Inf                                0  root
5     ice-cream  ice-cream  NOUN   NN   Number=Sing                                 4  obj:x
6     ,          ,          PUNCT  ,    _                                           4  punct
7     Mr.        Mr.        PROPN  NNP  Number=Sing|Abbr=Yes                        4  vocative
8     Smith      Smith      PROPN  NNP  Number=Sing                                 7  compound
9     .          .          PUNCT  .    _                                           4  punct

# "the" det -> DET with other features (MLAS of "park" wrong, its LAS right);
# "and" cc -> advmod (a content relation: CLAS counts one more system word);
# "we" attached to "park"; "to" lemma "To"
1     It     it     PRON   PRP  Case=Nom|Gender=Neut|Number=Sing|Person=3|PronType=Prs  2  nsubj
2     works  work   VERB   VBZ  Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin   0  root
3     ,      ,      PUNCT  ,    _                                                       6  punct
4     and    and    CCONJ  CC   _                                                       6  advmod
5     we     we     PRON   PRP  Case=Nom|Number=Plur|Person=1|PronType=Prs              9  nsubj
6     go     go     VERB   VBP  Mood=Ind|Tense=Pres|VerbForm=Fin                        2  conj
7     to     To     ADP    IN   _                                                       9  case
8     the    the    DET    DT   Definite=Ind|PronType=Art                               9  det
9     park   park   NOUN   NN   Number=Sing                                             6  obl
10    .      .      PUNCT  .    _                                                       2  punct

# sentence 3: "Go" gets the lemma "Go" (wrong); sentence 4: any lemma is right for gold "_"
1     Go     Go     VERB   VB   Mood=Imp|VerbForm=Fin  0  root
2     !      !      PUNCT  .    _                      1  punct

1     Really  really  ADV  RB   _                      0  root
2     .       x       PUNCT  .  _                      1  punct
"""
)

ALL_AT_ONCE = conllu(
    """
# tokens, sentences and annotations differ together
1     I          I          PRON   PRP  Case=Nom|Number=Sing|Person=1|PronType=Prs  2  nsubj
2     don't      do         AUX    VBP  Polarity=Neg                               0  root

1     like       like       VERB   VB   VerbForm=Inf                                0  root
2-3   ice-cream  _          _      _    _                                           _  _
2     ice        ice        NOUN   NN   Number=Sing                                 3  compound
3     cream      cream      NOUN   NN   Number=Sing                                 1  obj
4     ,          ,          PUNCT  ,    _                                           5  punct
5     Mr.Smith.  Mr.Smith.  PROPN  NNP  Number=Sing                                 1  vocative
6     It         it         PRON   PRP  Case=Nom|Gender=Neut|Number=Sing|Person=3|PronType=Prs  7  nsubj
7     works      work       VERB   VBZ  Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin   1  parataxis
8     ,          ,          PUNCT  ,    _                                                       1  punct

1     and    and    CCONJ  CC   _                                                       3  cc
2     we     we     PRON   PRP  Case=Nom|Number=Plur|Person=1|PronType=Prs              3  nsubj
3     go     go     VERB   VBP  Mood=Ind|Tense=Pres|VerbForm=Fin                        0  root
4-5   tothe  _      _      _    _                                                       _  _
4     to     to     ADP    IN   _                                                       6  case
5     the    the    DET    DT   Definite=Def|PronType=Art                               6  case
6     park   park   NOUN   NN   Number=Sing                                             3  obl:to
7     .      .      PUNCT  .    _                                                       3  punct
8     Go     go     VERB   VB   Mood=Imp|VerbForm=Fin                                   3  parataxis
9     !      !      PUNCT  .    _                                                       8  punct
10    Really  _     ADV    RB   _                                                       8  advmod
11    .       .     PUNCT  .    _                                                       8  punct
"""
)

CASES = {
    "identical": GOLD,
    "split and merged tokens": SPLIT_AND_MERGED_TOKENS,
    "multi-word tokens differ": MULTIWORD_TOKENS_DIFFER,
    "sentences differ": SENTENCES_DIFFER,
    "annotations differ": ANNOTATIONS_DIFFER,
    "all at once": ALL_AT_ONCE,
}


@pytest.mark.parametrize("name", list(CASES))
def test_hand_made_pairs_equal_the_reference(name, tmp_path):
    result = compare(GOLD, CASES[name])
    assert_tables_equal(GOLD, CASES[name], result, tmp_path)


def test_the_hand_made_pairs_differ_where_they_say():
    # Guards against cases that would pass trivially.
    def f1(name: str) -> Dict[str, float]:
        return {key: prf.f1 for key, prf in compare(GOLD, CASES[name]).metrics().items()}

    assert set(f1("identical").values()) == {1.0}
    for name in ("split and merged tokens", "multi-word tokens differ", "all at once"):
        assert f1(name)["Tokens"] < 1 and f1(name)["Words"] < 1
    sentences = compare(GOLD, SENTENCES_DIFFER).sentences
    assert (sentences.correct, sentences.gold, sentences.system) == (1, 4, 4)
    assert f1("sentences differ")["Tokens"] == 1.0
    annotations = compare(GOLD, ANNOTATIONS_DIFFER)
    assert annotations.words.f1 == annotations.tokens.f1 == annotations.sentences.f1 == 1.0
    metrics = annotations.metrics()
    assert all(metrics[name].f1 < 1 for name in ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas"))
    assert all(metrics[name].f1 < 1 for name in ("UAS", "LAS", "CLAS", "MLAS", "BLEX"))
    # The right lemmas: all but "n't", "to", "Go"; "Really" and "." of gold "_" count.
    assert (annotations.lemmas.correct, annotations.lemmas.gold) == (23 - 3, 23)


# --- the alignment cases of the reference's own TestAlignment -------------------------------


def words_conllu(words: List[str]) -> str:
    """The reference's ``TestAlignment._load_words``: "abc a b c" is a multi-word token."""
    lines, n = [], 0
    for word in words:
        parts = word.split(" ")
        if len(parts) == 1:
            n += 1
            lines.append(f"{n}\t{parts[0]}\t_\t_\t_\t_\t{int(n > 1)}\t_\t_\t_")
        else:
            lines.append(f"{n + 1}-{n + len(parts) - 1}\t{parts[0]}\t_\t_\t_\t_\t_\t_\t_\t_")
            for part in parts[1:]:
                n += 1
                lines.append(f"{n}\t{part}\t_\t_\t_\t_\t{int(n > 1)}\t_\t_\t_")
    return "\n".join(lines) + "\n\n"


ALIGNMENT_CASES = [
    (["a"], ["a"], 1),
    (["a", "b", "c"], ["a", "b", "c"], 3),
    (["abc a b c"], ["a", "b", "c"], 3),
    (["a", "bc b c", "d"], ["a", "b", "c", "d"], 4),
    (["abcd a b c d"], ["ab a b", "cd c d"], 4),
    (["abc a b c", "de d e"], ["a", "bcd b c d", "e"], 5),
    (["abcd"], ["a", "b", "c", "d"], 0),
    (["abc", "d"], ["a", "b", "c", "d"], 1),
    (["a", "bc", "d"], ["a", "b", "c", "d"], 2),
    (["a", "bc b c", "d"], ["a", "b", "cd"], 2),
    (["abc a BX c", "def d EX f"], ["ab a b", "cd c d", "ef e f"], 4),
    (["ab a b", "cd bc d"], ["a", "bc", "d"], 2),
    (["a", "bc b c", "d"], ["ab AX BX", "cd CX a"], 1),
]


@pytest.mark.parametrize("gold, system, aligned", ALIGNMENT_CASES)
def test_reference_alignment_cases(gold, system, aligned):
    assert compare(words_conllu(gold), words_conllu(system)).words.correct == aligned
    assert compare(words_conllu(system), words_conllu(gold)).words.correct == aligned


def test_different_characters_are_rejected_by_both():
    gold, system = words_conllu(["a"]), words_conllu(["b"])
    with pytest.raises(conll18.UDError):
        conll18.evaluate(conll18.load_conllu(io.StringIO(gold)), conll18.load_conllu(io.StringIO(system)))
    with pytest.raises(UDError, match="differ"):
        score_ud(parse_conllu(gold), parse_conllu(system))


def test_spaces_and_empty_nodes_as_in_the_reference(tmp_path):
    # A FORM with a space (removed from the characters, kept inside a multi-word
    # token for the LCS), a no-break space, an empty node and comments inside.
    gold = (
        "# text = New York's 5\u00a0000\n"
        "1\tNew York\tNew York\tPROPN\tNNP\t_\t4\tnmod:poss\t_\t_\n"
        "2-3\t's5\u00a0000\t_\t_\t_\t_\t_\t_\t_\t_\n"
        "2\t's\t's\tPART\tPOS\t_\t1\tcase\t_\t_\n"
        "3\t5 000\t5000\tNUM\tCD\tNumType=Card\t4\tnummod\t_\t_\n"
        "3.1\tx\tx\tX\tX\t_\t_\t_\t1:dep\t_\n"
        "4\tthings\tthing\tNOUN\tNNS\tNumber=Plur\t0\troot\t_\t_\n\n"
    )
    system = (
        "1\tNewYork's\tNew York\tPROPN\tNNP\t_\t3\tnmod\t_\t_\n"
        "2\t5000\t5000\tNUM\tCD\tNumType=Card\t3\tnummod\t_\t_\n"
        "3\tthings\tthing\tNOUN\tNNS\tNumber=Plur\t0\troot\t_\t_\n\n"
    )
    for sys_text in (system, gold):
        result = compare(gold, sys_text)
        assert_tables_equal(gold, sys_text, result, tmp_path)


# --- a retokenized and resegmented piece of EWT ---------------------------------------------


def _strip(form: str) -> str:
    return "".join(c for c in form if unicodedata.category(c) != "Zs")


def first_documents(path: Path, n: int) -> str:
    """The CoNLL-U text of the first ``n`` documents (``# newdoc``) of ``path``."""
    lines: List[str] = []
    docs = 0
    for line in path.read_text(encoding="utf8").split("\n"):
        if line.startswith("# newdoc"):
            docs += 1
            if docs > n:
                break
        lines.append(line)
    return "\n".join(lines).rstrip("\n") + "\n\n"


class _Gold:
    """What the system generator takes from the gold file: the raw text (FORMs of
    tokens with their SpaceAfter, a line break after each sentence), each word's
    columns with its head as an index into all words (``None`` for the root), the
    words of each token (a multi-word one or a word outside) by the token's
    character span, and the sentence ends."""

    def __init__(self, text: str) -> None:
        self.raw: List[str] = []
        self.columns: List[List[str]] = []
        self.heads: List[Optional[int]] = []
        self.by_span: Dict[Tuple[int, int], List[int]] = {}
        self.sentence_ends: List[int] = []
        offset = 0
        for block in text.strip("\n").split("\n\n"):
            rows = [line.split("\t") for line in block.split("\n") if not line.startswith("#")]
            base, mwt_end, span = len(self.columns), 0, (0, 0)
            for row in rows:
                if "." in row[0]:
                    continue
                if "-" not in row[0]:
                    head = int(row[6])
                    self.columns.append(row)
                    self.heads.append(base + head - 1 if head else None)
                    if int(row[0]) <= mwt_end:
                        self.by_span[span].append(len(self.columns) - 1)
                        continue
                else:
                    mwt_end = int(row[0].split("-")[1])
                span = (offset, offset + len(_strip(row[1])))
                self.by_span[span] = [] if "-" in row[0] else [len(self.columns) - 1]
                offset += len(_strip(row[1]))
                self.raw.append(row[1] + ("" if "SpaceAfter=No" in row[9] else " "))
            self.raw.append("\n")
            self.sentence_ends.append(offset)


def system_from_gold(gold_text: str, nlp) -> Tuple[str, Dict[str, int]]:
    """A system file for ``gold_text``: its raw text tokenized by ``nlp`` (spaCy's
    blank English), with deterministic changes: some attached token pairs made
    multi-word tokens (the second word upper-cased now and then) or merged into one
    word, some long tokens split; sentences end where gold ones do, except that some
    gold sentences are joined and long ones split (after 30 tokens). Annotation is
    copied from the gold words of the same token and changed every few words (see
    :func:`_write_system`). Returns the text and how often each change was made."""
    gold = _Gold(gold_text)
    raw = "".join(gold.raw)
    spans = [(t.idx, t.idx + len(t.text)) for t in nlp.make_doc(raw) if _strip(t.text).strip()]
    changes = dict.fromkeys(["multi-word", "merged", "split", "joined", "split sentence"], 0)
    tokens: List[Tuple[str, List[str], bool]] = []  # FORM, word FORMs, multi-word?
    i = 0
    while i < len(spans):
        text = _strip(raw[spans[i][0] : spans[i][1]])
        attached = i + 1 < len(spans) and spans[i][1] == spans[i + 1][0]
        second = _strip(raw[spans[i + 1][0] : spans[i + 1][1]]) if attached else ""
        if attached and i % 5 == 0:
            tokens.append((text + second, [text, second.upper() if i % 10 == 0 else second], True))
            changes["multi-word"] += 1
            i += 2
        elif attached and i % 5 == 2:
            tokens.append((text + second, [text + second], False))
            changes["merged"] += 1
            i += 2
        elif len(text) >= 6 and i % 4 == 1:
            tokens += [(text[:3], [text[:3]], False), (text[3:], [text[3:]], False)]
            changes["split"] += 1
            i += 1
        else:
            tokens.append((text, [text], False))
            i += 1
    sentences: List[List[Tuple[int, str, List[str], bool]]] = [[]]
    ends = {end: k for k, end in enumerate(gold.sentence_ends)}
    offset = 0
    for form, words, multi in tokens:
        sentences[-1].append((offset, form, words, multi))
        offset += len(form)
        if offset in ends and ends[offset] % 4 == 1 and ends[offset] + 1 < len(ends):
            changes["joined"] += 1
        elif offset in ends or len(sentences[-1]) == 30:
            changes["split sentence"] += offset not in ends
            sentences.append([])
    assert "".join(t[0] for t in tokens) == parse_conllu(gold_text).characters
    return _write_system([s for s in sentences if s], gold), changes


def _write_system(sentences: List[List[Tuple[int, str, List[str], bool]]], gold: _Gold) -> str:
    """CoNLL-U of the system sentences. The words of a token with the span and the
    number of words of a gold token take the columns of its gold words, the others
    made-up ones; then every 5th word gets another UPOS, every 6th another XPOS,
    every 7th a universal feature less, every 7th (another) a non-universal feature
    more and its features reversed, every 4th the LEMMA upper-cased, every 8th
    DEPREL ``det``, every 8th (another) a subtype. Heads: the gold head where it is
    in the same system sentence, else the sentence root (the first such word); every
    9th word is moved to the root, every 11th to a random word that is not its
    dependent."""
    rng = random.Random(35)
    lines: List[str] = []
    k = 0
    for n, sentence in enumerate(sentences, start=1):
        words: List[Tuple[str, Optional[int]]] = []
        for offset, form, parts, multi in sentence:
            gold_words = gold.by_span.get((offset, offset + len(form)), [])
            if len(gold_words) != len(parts):
                gold_words = [None] * len(parts)
            words += list(zip(parts, gold_words))
        rows = []
        for form, g in words:
            if g is None:
                lemma, upos, xpos, feats, deprel = form.lower(), "X", "XX", "_", "dep"
            else:
                lemma, upos, xpos, feats, deprel = (gold.columns[g][c] for c in (2, 3, 4, 5, 7))
            k += 1
            upos = ("NOUN" if upos != "NOUN" else "VERB") if k % 5 == 1 else upos
            xpos = xpos + "x" if k % 6 == 2 else xpos
            if k % 7 == 3 and feats != "_":
                feats = "|".join(feats.split("|")[:-1]) or "_"
            elif k % 7 == 4:
                feats = "|".join(reversed(["Typo=Yes"] + ([] if feats == "_" else feats.split("|"))))
            lemma = lemma.upper() if k % 4 == 3 else lemma
            deprel = "det" if k % 8 == 5 else deprel + ":sub" if k % 8 == 6 else deprel
            rows.append([form, lemma, upos, xpos, feats, deprel])
        local = {g: j for j, (_, g) in enumerate(words) if g is not None}
        heads: List[Optional[int]] = [
            None if g is None or gold.heads[g] is None else local.get(gold.heads[g]) for _, g in words
        ]
        roots = [j for j, head in enumerate(heads) if head is None]
        root = roots[0]
        heads = [root if head is None else head for head in heads]
        heads[root] = None
        rows[root][5] = "root"
        for j in range(len(words)):
            step = k - len(words) + j + 1
            if j == root:
                continue
            if step % 9 == 0:
                heads[j] = root
            elif step % 11 == 0:
                heads[j] = rng.choice([c for c in range(len(words)) if not _under(c, j, heads)])
        lines.append(f"# sent_id = {n}")
        j = 0
        for _, form, parts, multi in sentence:
            if multi:
                lines.append(f"{j + 1}-{j + len(parts)}\t{form}" + "\t_" * 8)
            for _ in parts:
                head = 0 if heads[j] is None else heads[j] + 1
                form_, lemma, upos, xpos, feats, deprel = rows[j]
                lines.append(f"{j + 1}\t{form_}\t{lemma}\t{upos}\t{xpos}\t{feats}\t{head}\t{deprel}\t_\t_")
                j += 1
        lines.append("")
    return "\n".join(lines) + "\n"


def _under(c: int, j: int, heads: List[Optional[int]]) -> bool:
    """Whether word ``c`` is ``j`` or one of its (transitive) dependents."""
    node: Optional[int] = c
    while node is not None:
        if node == j:
            return True
        node = heads[node]
    return False


@pytest.mark.skipif(not EWT_DEV.exists(), reason="needs ../shared/assets/UD_English-EWT")
def test_retokenized_ewt_equals_the_reference(nlp, tmp_path):
    gold = first_documents(EWT_DEV, 3)
    system, changes = system_from_gold(gold, nlp)
    assert all(changes.values()), changes
    result = compare(gold, system)
    assert_tables_equal(gold, system, result, tmp_path)
    for name, prf in result.metrics().items():
        assert 0.1 < prf.f1 < 1, (name, prf)
