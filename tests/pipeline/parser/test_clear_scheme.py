"""spaCy's English (ClearNLP) dependency scheme from UD (``spacy_lal.pipeline.parser.clear``): the
conversion on hand-built UD trees (each expected result checked against spaCy's English scheme,
as ``en_core_web_sm`` writes it), its output always a tree, and ``lal_parser``'s
``dependency_scheme`` setting on the shipped pipeline."""
import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st
from spacy.tokens import Doc

import spacy_lal
from spacy_lal.pipeline.parser.clear import (
    check_scheme, set_clear_dependencies, ud_to_clear, use_english_noun_chunks,
)
from spacy_lal.pipeline.parser.clear_rules import _is_tree
from spacy_lal.pipeline.heads import ud_noun_chunks


def convert(text: str):
    """Lines of ``word TAG UPOS relation head`` (head: 0-based; a root heads itself) -> the
    converted ``[(word, label, head word)]``."""
    rows = [line.split() for line in text.strip().splitlines()]
    words = [r[0] for r in rows]
    heads, deps = ud_to_clear([int(r[4]) for r in rows], [r[3] for r in rows], words,
                              [r[1] for r in rows], [r[2] for r in rows])
    assert _is_tree(heads)
    return [(w, d, words[h]) for w, d, h in zip(words, deps, heads)]


def test_relabelling_and_negation():
    assert convert("""
        The DT DET det 1
        council NN NOUN nsubj 4
        will MD AUX aux 4
        not RB PART advmod 4
        include VB VERB root 4
        the DT DET det 6
        auditorium NN NOUN obj 4
        . . PUNCT punct 4
    """) == [("The", "det", "council"), ("council", "nsubj", "include"), ("will", "aux", "include"),
             ("not", "neg", "include"), ("include", "ROOT", "include"), ("the", "det", "auditorium"),
             ("auditorium", "dobj", "include"), (".", "punct", "include")]


def test_copula_heads_its_clause():
    assert convert("""
        Apple NNP PROPN nsubj 4
        is VBZ AUX cop 4
        a DT DET det 4
        technology NN NOUN compound 4
        company NN NOUN root 4
        . . PUNCT punct 4
    """) == [("Apple", "nsubj", "is"), ("is", "ROOT", "is"), ("a", "det", "company"),
             ("technology", "compound", "company"), ("company", "attr", "is"), (".", "punct", "is")]
    # An adjective: acomp; its own modifiers (very, the prepositional phrase) stay with it.
    assert convert("""
        The DT DET det 2
        new JJ ADJ amod 2
        library NN NOUN nsubj 5
        is VBZ AUX cop 5
        very RB ADV advmod 5
        popular JJ ADJ root 5
        with IN ADP case 7
        students NNS NOUN obl 5
        . . PUNCT punct 5
    """) == [("The", "det", "library"), ("new", "amod", "library"), ("library", "nsubj", "is"),
             ("is", "ROOT", "is"), ("very", "advmod", "popular"), ("popular", "acomp", "is"),
             ("with", "prep", "popular"), ("students", "pobj", "with"), (".", "punct", "is")]


def test_copula_negation_and_subordinate_clause():
    assert convert("""
        I PRP PRON nsubj 3
        did VBD AUX aux 3
        n't RB PART advmod 3
        see VB VERB root 3
        it PRP PRON obj 3
        because IN SCONJ mark 9
        I PRP PRON nsubj 9
        was VBD AUX cop 9
        not RB PART advmod 9
        busy JJ ADJ advcl 3
        . . PUNCT punct 3
    """) == [("I", "nsubj", "see"), ("did", "aux", "see"), ("n't", "neg", "see"), ("see", "ROOT", "see"),
             ("it", "dobj", "see"), ("because", "mark", "was"), ("I", "nsubj", "was"), ("was", "advcl", "see"),
             ("not", "neg", "was"), ("busy", "acomp", "was"), (".", "punct", "see")]


def test_coordinated_copular_clauses():
    assert convert("""
        He PRP PRON nsubj 2
        is VBZ AUX cop 2
        tall JJ ADJ root 2
        and CC CCONJ cc 6
        she PRP PRON nsubj 6
        is VBZ AUX cop 6
        short JJ ADJ conj 2
        . . PUNCT punct 2
    """) == [("He", "nsubj", "is"), ("is", "ROOT", "is"), ("tall", "acomp", "is"), ("and", "cc", "is"),
             ("she", "nsubj", "is"), ("is", "conj", "is"), ("short", "acomp", "is"), (".", "punct", "is")]


def test_prepositional_predicate():
    # "is in London": the preposition under the copula, London its object.
    assert convert("""
        He PRP PRON nsubj 3
        is VBZ AUX cop 3
        in IN ADP case 3
        London NNP PROPN root 3
    """) == [("He", "nsubj", "is"), ("is", "ROOT", "is"), ("in", "prep", "is"), ("London", "pobj", "in")]


def test_passive_agent_and_prepositions():
    assert convert("""
        The DT DET det 1
        report NN NOUN nsubj:pass 3
        was VBD AUX aux:pass 3
        written VBN VERB root 3
        by IN ADP case 6
        two CD NUM nummod 6
        analysts NNS NOUN obl:agent 3
        in IN ADP case 8
        London NNP PROPN nmod 6
        . . PUNCT punct 3
    """) == [("The", "det", "report"), ("report", "nsubjpass", "written"), ("was", "auxpass", "written"),
             ("written", "ROOT", "written"), ("by", "agent", "written"), ("two", "nummod", "analysts"),
             ("analysts", "pobj", "by"), ("in", "prep", "analysts"), ("London", "pobj", "in"),
             (".", "punct", "written")]


def test_possessives_particles_dative_and_time():
    assert convert("""
        John NNP PROPN nmod:poss 2
        's POS PART case 0
        sister NN NOUN nsubj 3
        gave VBD VERB root 3
        her PRP PRON iobj 3
        books NNS NOUN obj 3
        yesterday NN NOUN obl:unmarked 3
    """) == [("John", "poss", "sister"), ("'s", "case", "John"), ("sister", "nsubj", "gave"),
             ("gave", "ROOT", "gave"), ("her", "dative", "gave"), ("books", "dobj", "gave"),
             ("yesterday", "npadvmod", "gave")]
    assert convert("""
        We PRP PRON nsubj 1
        looked VBD VERB root 1
        up RP ADP compound:prt 1
        it PRP PRON obj 1
    """)[2] == ("up", "prt", "looked")


def test_multiword_preposition_chain():
    # "out of the truck": out -> of -> truck, as spaCy writes it.
    assert convert("""
        The DT DET det 1
        box NN NOUN nsubj 2
        fell VBD VERB root 2
        out IN ADP case 6
        of IN ADP case 6
        the DT DET det 6
        truck NN NOUN obl 2
    """) == [("The", "det", "box"), ("box", "nsubj", "fell"), ("fell", "ROOT", "fell"),
             ("out", "prep", "fell"), ("of", "prep", "out"), ("the", "det", "truck"), ("truck", "pobj", "of")]


def test_coordination_chains_conjuncts():
    # UD: every conjunct under the first, cc and commas under the conjunct after them.
    # spaCy: each conjunct under the one before it, cc and commas too.
    assert convert("""
        books NNS NOUN root 0
        , , PUNCT punct 2
        articles NNS NOUN conj 0
        and CC CCONJ cc 4
        papers NNS NOUN conj 0
    """) == [("books", "ROOT", "books"), (",", "punct", "books"), ("articles", "conj", "books"),
             ("and", "cc", "articles"), ("papers", "conj", "articles")]
    # Coordinated prepositional phrases: the second preposition is a conjunct of the first.
    assert convert("""
        went VBD VERB root 0
        to IN ADP case 2
        Paris NNP PROPN obl 0
        and CC CCONJ cc 5
        to IN ADP case 5
        Rome NNP PROPN conj 2
    """) == [("went", "ROOT", "went"), ("to", "prep", "went"), ("Paris", "pobj", "to"), ("and", "cc", "to"),
             ("to", "conj", "to"), ("Rome", "pobj", "to")]


def test_flat_names_become_compounds_headed_by_the_last_word():
    assert convert("""
        Barack NNP PROPN nsubj:pass 3
        Obama NNP PROPN flat 0
        was VBD AUX aux:pass 3
        elected VBN VERB root 3
        president NN NOUN xcomp 3
    """) == [("Barack", "compound", "Obama"), ("Obama", "nsubjpass", "elected"), ("was", "auxpass", "elected"),
             ("elected", "ROOT", "elected"), ("president", "oprd", "elected")]


def test_existential_there_infinitive_and_gerund():
    assert convert("""
        There EX PRON expl 1
        is VBZ VERB root 1
        a DT DET det 3
        cat NN NOUN nsubj 1
    """) == [("There", "expl", "is"), ("is", "ROOT", "is"), ("a", "det", "cat"), ("cat", "attr", "is")]
    assert convert("""
        They PRP PRON nsubj 1
        want VBP VERB root 1
        to TO PART mark 3
        buy VB VERB xcomp 1
        it PRP PRON obj 3
    """)[2:4] == [("to", "aux", "buy"), ("buy", "xcomp", "want")]
    assert convert("""
        She PRP PRON nsubj 1
        left VBD VERB root 1
        after IN SCONJ mark 3
        finishing VBG VERB advcl 1
        it PRP PRON obj 3
    """)[2:4] == [("after", "prep", "left"), ("finishing", "pcomp", "after")]
    assert convert("""
        My PRP$ PRON nmod:poss 1
        brother NN NOUN nsubj 2
        seems VBZ VERB root 2
        happy JJ ADJ xcomp 2
    """)[3] == ("happy", "acomp", "seems")


def test_raising_to_object_infinitival_relatives_and_superlatives():
    # "let me know": UD's object + xcomp are spaCy's subject of a ccomp.
    assert convert("""
        Let VB VERB root 0
        me PRP PRON obj 0
        know VB VERB xcomp 0
    """) == [("Let", "ROOT", "Let"), ("me", "nsubj", "know"), ("know", "ccomp", "Let")]
    # "a way to go": an infinitival clause on a noun is relcl in spaCy's English models.
    assert convert("""
        a DT DET det 1
        way NN NOUN root 1
        to TO PART mark 3
        go VB VERB acl 1
    """)[2:] == [("to", "aux", "go"), ("go", "relcl", "way")]
    # "is the greatest": an adjective with a determiner is attr.
    assert convert("""
        It PRP PRON nsubj 3
        is VBZ AUX cop 3
        the DT DET det 3
        greatest JJS ADJ root 3
    """)[3] == ("greatest", "attr", "is")


def test_punctuation_goes_to_the_clause():
    # "In Fallujah , hundreds came": UD puts the comma under Fallujah, spaCy under the verb.
    assert convert("""
        In IN ADP case 1
        Fallujah NNP PROPN obl 4
        , , PUNCT punct 1
        hundreds NNS NOUN nsubj 4
        came VBD VERB root 4
        . . PUNCT punct 4
    """) == [("In", "prep", "came"), ("Fallujah", "pobj", "In"), (",", "punct", "came"),
             ("hundreds", "nsubj", "came"), ("came", "ROOT", "came"), (".", "punct", "came")]


UD_LABELS = ["nsubj", "obj", "iobj", "obl", "nmod", "case", "cop", "flat", "conj", "cc", "punct", "advmod",
             "mark", "fixed", "xcomp", "acl:relcl", "nmod:poss", "aux", "amod", "det", "expl", "obl:agent"]


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 14), st.randoms(use_true_random=False))
def test_any_ud_forest_converts_to_a_forest(n, rng):
    """Whatever the parser writes (wrong trees included), the output is a forest over the same
    tokens with one label each."""
    heads = [i if rng.random() < 0.1 else rng.randrange(i) if i else 0 for i in range(n)]
    order = list(range(n))
    rng.shuffle(order)  # a random tree whose heads are anywhere, not only to the left
    position = {old: new for new, old in enumerate(order)}
    shuffled = [0] * n
    for old in range(n):
        shuffled[position[old]] = position[heads[old]]
    deps = [rng.choice(UD_LABELS) for _ in range(n)]
    words = [rng.choice(["not", "'s", "is", "there", "by", "of", "word"]) for _ in range(n)]
    tags = [rng.choice(["NN", "IN", "VBZ", "JJ", "POS", "TO", "VBG", "RP"]) for _ in range(n)]
    pos = [rng.choice(["NOUN", "ADP", "AUX", "ADJ", "VERB", "PROPN", "PART"]) for _ in range(n)]
    new_heads, new_deps = ud_to_clear(shuffled, deps, words, tags, pos)
    assert _is_tree(new_heads) and len(new_deps) == n and all(new_deps)
    assert sum(h == i for i, h in enumerate(new_heads)) == sum(h == i for i, h in enumerate(shuffled))
    assert all(d == "ROOT" for i, (h, d) in enumerate(zip(new_heads, new_deps)) if h == i)


def test_checks():
    with pytest.raises(ValueError, match="same length"):
        ud_to_clear([0], ["root", "det"], ["a"], ["DT"], ["DET"])
    with pytest.raises(ValueError, match="dependency_scheme must be"):
        check_scheme("lal_parser", "stanford")
    assert not _is_tree([1, 0]) and _is_tree([0, 0, 1])


def test_doc_conversion_keeps_ud_readable():
    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words=["Apple", "is", "a", "company", "."], tags=["NNP", "VBZ", "DT", "NN", "."],
              pos=["PROPN", "AUX", "DET", "NOUN", "PUNCT"], deps=["nsubj", "cop", "det", "root", "punct"],
              heads=[3, 3, 3, 3, 3])
    set_clear_dependencies(doc)
    assert [t.dep_ for t in doc] == ["nsubj", "ROOT", "det", "attr", "punct"]
    assert [t._.ud_dep for t in doc] == ["nsubj", "cop", "det", "root", "punct"]
    assert [t._.ud_head.i for t in doc] == [3, 3, 3, 3, 3]
    assert [c.text for c in doc.noun_chunks] == ["Apple", "a company"]  # spaCy's English iterator
    copy = Doc(nlp.vocab).from_bytes(doc.to_bytes())
    assert [t._.ud_dep for t in copy] == ["nsubj", "cop", "det", "root", "punct"]
    # Two Docs joined: the stored values follow their tokens.
    joined = Doc.from_docs([copy, copy])
    assert [t._.ud_head.i for t in joined][5:] == [8, 8, 8, 8, 8]


# The shipped pipeline -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped():
    return spacy_lal.load(exclude=["lal_srl", "trainable_lemmatizer"])


@pytest.fixture(scope="module")
def shipped_clear():
    return spacy_lal.load(exclude=["lal_srl", "trainable_lemmatizer"],
                          config={"components": {"lal_parser": {"dependency_scheme": "clear"}}})


def test_default_scheme_is_ud(shipped):
    parser = shipped.get_pipe("lal_parser")
    assert parser.cfg["dependency_scheme"] == "ud"
    assert "dependency_scheme" in parser.runtime_settings
    doc = shipped("The council will not include the auditorium.")
    assert [t.dep_ for t in doc] == ["det", "nsubj", "aux", "advmod", "root", "det", "obj", "punct"]
    assert [t._.ud_dep for t in doc] == [t.dep_ for t in doc]  # the getters read the UD parse
    assert doc.noun_chunks_iterator is ud_noun_chunks


def test_clear_scheme_at_load(shipped_clear, shipped):
    assert shipped_clear.get_pipe("lal_parser").cfg["dependency_scheme"] == "clear"
    doc = shipped_clear("The council will not include the auditorium.")
    assert [t.dep_ for t in doc] == ["det", "nsubj", "aux", "neg", "ROOT", "det", "dobj", "punct"]
    assert [t._.ud_dep for t in doc] == ["det", "nsubj", "aux", "advmod", "root", "det", "obj", "punct"]
    assert [t._.ud_head.i for t in doc] == [t.head.i for t in shipped("The council will not include the auditorium.")]
    doc = shipped_clear("The new library is very popular with students.")
    assert [(t.text, t.dep_, t.head.text) for t in doc if t.dep_ in ("nsubj", "ROOT", "acomp", "prep", "pobj")] == [
        ("library", "nsubj", "is"), ("is", "ROOT", "is"), ("popular", "acomp", "is"),
        ("with", "prep", "popular"), ("students", "pobj", "with")]
    # spaCy's own English noun chunks read the converted labels.
    from spacy.lang.en.syntax_iterators import noun_chunks

    assert [c.text for c in doc.noun_chunks] == ["The new library", "students"]
    assert [doc[start:end].text for start, end, _ in noun_chunks(doc)] == ["The new library", "students"]
    doc = shipped_clear("Large banks shift credit risk toward small investors.")
    assert [c.text for c in doc.noun_chunks] == ["Large banks", "credit risk", "small investors"]


def test_clear_scheme_docs_without_words_have_no_noun_chunks(shipped_clear):
    # The parser leaves them unparsed; spaCy's English iterator alone would raise E029 (issue #37).
    for text in ("", "   ", "\n\n", " \n \t", "\u3000"):
        doc = shipped_clear(text)
        assert list(doc.noun_chunks) == []
        assert list(doc[:].noun_chunks) == []
    assert [c.text for c in shipped_clear("Hi there.\n\n   \n").noun_chunks] == []
    # A whitespace token inside a sentence is a `dep` of the next word, as en_core_web_sm attaches
    # it, so spaCy's iterator starts the name's chunk there, as it does on en_core_web_sm's parse.
    assert [c.text for c in shipped_clear("  Barack Obama visited Paris.").noun_chunks] == ["  Barack Obama", "Paris"]
    doc = spacy.blank("en")("The cat sat.")  # words but no parse: spaCy's E029 stands
    use_english_noun_chunks(doc.vocab, doc)
    with pytest.raises(ValueError, match="E029"):
        list(doc.noun_chunks)


def test_clear_scheme_survives_saving(shipped_clear, tmp_path):
    shipped_clear.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe("lal_parser").cfg["dependency_scheme"] == "clear"
    ud = spacy.load(tmp_path / "p", config={"components": {"lal_parser": {"dependency_scheme": "ud"}}})
    assert ud("Apple is a company.")[1].dep_ == "cop"


def test_bad_scheme_is_refused():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="dependency_scheme must be"):
        nlp.add_pipe("lal_parser", config={"dependency_scheme": "stanford"})


def test_whitespace_tokens_lose_morphology(shipped, shipped_clear):
    for nlp in (shipped, shipped_clear):
        doc = nlp("I  like  green apples.\n\nYou don't.")
        spaces = [t for t in doc if t.is_space]
        assert spaces and all(t.tag_ == "_SP" and t.pos_ == "SPACE" and str(t.morph) == "" for t in spaces)


def test_conllu_of_the_clear_scheme_is_ud(shipped_clear, shipped, tmp_path):
    # CoNLL-U is UD's format: written from a "clear" Doc it holds the UD tree the parser kept,
    # not spaCy's English labels (no `dobj`, `pobj`, `ROOT`), the same file as from the "ud" scheme.
    from spacy_lal.corpora.conllu import read_conllu
    from spacy_lal.corpora.export import write_conllu

    texts = ["The council will not include the auditorium.", "Mary gave her brother a book from the library.",
             "The new library is very popular with students."]
    write_conllu(shipped_clear.pipe(texts), tmp_path / "clear.conllu")
    write_conllu(shipped.pipe(texts), tmp_path / "ud.conllu")
    assert (tmp_path / "clear.conllu").read_text() == (tmp_path / "ud.conllu").read_text()
    docs = list(read_conllu(tmp_path / "clear.conllu", shipped.vocab))
    assert [t.dep_ for doc in docs for t in doc] == [t._.ud_dep for doc in shipped_clear.pipe(texts) for t in doc]
    assert not {"dobj", "pobj", "prep", "neg", "ROOT"} & {t.dep_ for doc in docs for t in doc}
