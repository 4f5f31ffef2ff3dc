"""doc.noun_chunks over UD dependencies (spacy_lal.pipeline.heads.ud_noun_chunks): on
hand-built parses, independent of any model, and with the shipped pipeline on everyday sentences
whose parses were checked by hand."""
import pytest
import spacy
from spacy.tokens import Doc

import spacy_lal
from spacy_lal.pipeline.heads import ud_noun_chunks


def parsed(text: str) -> Doc:
    """A Doc from lines of ``word POS relation head`` (head: the 0-based index of the head
    word; a root heads itself), reading its noun chunks with ``ud_noun_chunks``."""
    rows = [line.split() for line in text.strip().splitlines()]
    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words=[r[0] for r in rows], pos=[r[1] for r in rows],
              deps=[r[2] for r in rows], heads=[int(r[3]) for r in rows])
    doc.noun_chunks_iterator = ud_noun_chunks
    return doc


def chunks(doc) -> list:
    found = list(doc.noun_chunks)
    # Base noun phrases: in order, never nested or overlapping, all labelled NP.
    assert all(a.end <= b.start for a, b in zip(found, found[1:]))
    assert all(chunk.label_ == "NP" for chunk in found)
    return [chunk.text for chunk in found]


HAND_BUILT = {
    "flat names and compounds": ("""
        Barack PROPN nsubj 2
        Obama PROPN flat 0
        visited VERB root 2
        New PROPN compound 5
        York PROPN compound 5
        City PROPN obj 2
        . PUNCT punct 2
    """, ["Barack Obama", "New York City"]),
    "a long flat name, a flat name after a preposition": ("""
        Martin PROPN nsubj 4
        Luther PROPN flat 0
        King PROPN flat 0
        Jr. PROPN flat 0
        spoke VERB root 4
        with ADP case 7
        Emmanuel PROPN obl 4
        Macron PROPN flat 6
        . PUNCT punct 4
    """, ["Martin Luther King Jr.", "Emmanuel Macron"]),
    "a title (nmod:desc) is inside the name's phrase": ("""
        Mr. PROPN nmod:desc 1
        Brown PROPN nsubj 2
        teaches VERB root 2
        history NOUN obj 2
        . PUNCT punct 2
    """, ["Mr. Brown", "history"]),
    "predicate nominal, the root": ("""
        Apple PROPN nsubj 4
        is AUX cop 4
        a DET det 4
        technology NOUN compound 4
        company NOUN root 4
        . PUNCT punct 4
    """, ["Apple", "a technology company"]),
    "predicate nominal: an adverb before it stays out": ("""
        Apple PROPN nsubj 5
        is AUX cop 5
        now ADV advmod 5
        a DET det 5
        big ADJ amod 5
        company NOUN root 5
        . PUNCT punct 5
    """, ["Apple", "a big company"]),
    "predicate nominal of a complement clause": ("""
        I PRON nsubj 1
        think VERB root 1
        Paris PROPN nsubj 6
        is AUX cop 6
        a DET det 6
        lovely ADJ amod 6
        city NOUN ccomp 1
        . PUNCT punct 1
    """, ["I", "Paris", "a lovely city"]),
    "predicate nominal of an adverbial clause": ("""
        When ADV advmod 4
        he PRON nsubj 4
        was AUX cop 4
        a DET det 4
        child NOUN advcl 8
        , PUNCT punct 4
        he PRON nsubj 8
        lived VERB root 8
        in ADP case 10
        Rome PROPN obl 8
        . PUNCT punct 8
    """, ["he", "a child", "he", "Rome"]),
    "an adjective predicate heads no phrase": ("""
        The DET det 1
        weather NOUN nsubj 3
        is AUX cop 3
        nice ADJ root 3
        today NOUN obl:unmarked 3
        . PUNCT punct 3
    """, ["The weather", "today"]),
    "a nominal secondary predicate (xcomp)": ("""
        They PRON nsubj 1
        elected VERB root 1
        him PRON obj 1
        president NOUN xcomp 1
        . PUNCT punct 1
    """, ["They", "him", "president"]),
    "apposition, each noun phrase its own": ("""
        My PRON nmod:poss 1
        sister NOUN nsubj 6
        , PUNCT punct 4
        a DET det 4
        doctor NOUN appos 1
        , PUNCT punct 4
        works VERB root 6
        at ADP case 9
        the DET det 9
        hospital NOUN obl 6
        . PUNCT punct 6
    """, ["My sister", "a doctor", "the hospital"]),
    "apposition with a prepositional modifier": ("""
        Paris PROPN nsubj 8
        , PUNCT punct 3
        the DET det 3
        capital NOUN appos 0
        of ADP case 5
        France PROPN nmod 3
        , PUNCT punct 3
        is AUX cop 8
        beautiful ADJ root 8
        . PUNCT punct 8
    """, ["Paris", "the capital", "France"]),
    "coordination, each conjunct its own": ("""
        I PRON nsubj 1
        bought VERB root 1
        apples NOUN obj 1
        , PUNCT punct 4
        oranges NOUN conj 2
        and CCONJ cc 6
        bananas NOUN conj 2
        . PUNCT punct 1
    """, ["I", "apples", "oranges", "bananas"]),
    "coordinated subjects with their own determiners and possessor": ("""
        The DET det 2
        old ADJ amod 2
        man NOUN nsubj 6
        and CCONJ cc 5
        his PRON nmod:poss 5
        dog NOUN conj 2
        walked VERB root 6
        . PUNCT punct 6
    """, ["The old man", "his dog"]),
    "coordinated predicate nominals": ("""
        She PRON nsubj 3
        is AUX cop 3
        a DET det 3
        doctor NOUN root 3
        and CCONJ cc 6
        a DET det 6
        writer NOUN conj 3
        . PUNCT punct 3
    """, ["She", "a doctor", "a writer"]),
    "coordinated verbs give no phrase": ("""
        He PRON nsubj 1
        sang VERB root 1
        and CCONJ cc 3
        danced VERB conj 1
        . PUNCT punct 1
    """, ["He"]),
    "possessors are inside the possessum's phrase": ("""
        John PROPN nmod:poss 2
        's PART case 0
        sister NOUN nsubj 3
        met VERB root 3
        the DET det 5
        man NOUN nmod:poss 7
        's PART case 5
        wife NOUN obj 3
        . PUNCT punct 3
    """, ["John 's sister", "the man 's wife"]),
    "prepositional modifiers are phrases of their own": ("""
        He PRON nsubj 1
        drank VERB root 1
        a DET det 3
        cup NOUN obj 1
        of ADP case 5
        coffee NOUN nmod 3
        . PUNCT punct 1
    """, ["He", "a cup", "coffee"]),
    "modifiers with their own dependents": ("""
        Our PRON nmod:poss 1
        teacher NOUN nsubj 6
        is AUX cop 6
        a DET det 6
        very ADV advmod 5
        kind ADJ amod 6
        woman NOUN root 6
        . PUNCT punct 6
    """, ["Our teacher", "a very kind woman"]),
}


@pytest.mark.parametrize("name", list(HAND_BUILT))
def test_hand_built_parses(name):
    text, expected = HAND_BUILT[name]
    assert chunks(parsed(text)) == expected


def test_span_noun_chunks():
    doc = parsed(HAND_BUILT["apposition, each noun phrase its own"][0])
    assert [c.text for c in doc[6:].noun_chunks] == ["the hospital"]
    assert [c.text for c in doc[0:2].noun_chunks] == ["My sister"]


def test_whitespace_stays_out_of_chunks():
    doc = parsed("""
        _ SPACE dep 1
        The DET det 2
        cat NOUN nsubj 3
        sat VERB root 3
        . PUNCT punct 3
    """)
    nlp = spacy.blank("en")
    words = ["  "] + [t.text for t in doc[1:]]
    doc = Doc(nlp.vocab, words=words, pos=[t.pos_ for t in doc], deps=[t.dep_ for t in doc],
              heads=[t.head.i for t in doc])
    doc.noun_chunks_iterator = ud_noun_chunks
    assert doc[0].is_space and chunks(doc) == ["The cat"]


def test_empty_and_unparsed_docs():
    nlp = spacy.blank("en")
    for text in ("", "   ", "\n\n", " \t "):
        doc = nlp(text)
        doc.noun_chunks_iterator = ud_noun_chunks
        assert list(doc.noun_chunks) == []  # as spaCy's parsers give: no words, no chunks
    doc = nlp("The cat sat.")  # words, but no parse: spaCy's E029, as its own iterators raise
    doc.noun_chunks_iterator = ud_noun_chunks
    with pytest.raises(ValueError, match="E029"):
        list(doc.noun_chunks)


# Everyday sentences and their noun chunks with the shipped pipeline; each sentence's parse was
# checked by hand to give these chunks (sentences it mis-parses are not here).
EVERYDAY = {
    "Barack Obama visited Paris.": ["Barack Obama", "Paris"],
    "Angela Merkel met Emmanuel Macron in Berlin.": ["Angela Merkel", "Emmanuel Macron", "Berlin"],
    "Mr. Brown teaches history at the local school.": ["Mr. Brown", "history", "the local school"],
    "Apple is a technology company.": ["Apple", "a technology company"],
    "Mary Smith is the new manager.": ["Mary Smith", "the new manager"],
    "Our teacher is a very kind woman.": ["Our teacher", "a very kind woman"],
    "I think Paris is a lovely city.": ["I", "Paris", "a lovely city"],
    "The weather is nice today.": ["The weather", "today"],
    "John's sister is a nurse.": ["John's sister", "a nurse"],
    "I met John's sister yesterday.": ["I", "John's sister", "yesterday"],
    "The dog's owner called the police.": ["The dog's owner", "the police"],
    "My sister, a doctor, works at the hospital.": ["My sister", "a doctor", "the hospital"],
    "Paris, the capital of France, is beautiful.": ["Paris", "the capital", "France"],
    "Cats and dogs are popular pets.": ["Cats", "dogs", "popular pets"],
    "Tom and Jerry are cartoon characters.": ["Tom", "Jerry", "cartoon characters"],
    "I bought apples, oranges and bananas.": ["I", "apples", "oranges", "bananas"],
    "The old man and his dog walked to the park.": ["The old man", "his dog", "the park"],
    "My brother bought a new car last week.": ["My brother", "a new car", "last week"],
    "He drank a cup of coffee.": ["He", "a cup", "coffee"],
    "The students finished their homework.": ["The students", "their homework"],
}

shipped = pytest.mark.skipif("en_lal_ewt" not in spacy_lal.shipped_pipelines(),
                             reason="the shipped pipeline is not built")


@pytest.fixture(scope="module")
def shipped_nlp():
    return spacy_lal.load()


@shipped
def test_everyday_sentences(shipped_nlp):
    texts = list(EVERYDAY)
    found = {doc.text: chunks(doc) for doc in shipped_nlp.pipe(texts)}
    assert found == EVERYDAY


@shipped
def test_everyday_sentences_in_one_doc(shipped_nlp):
    # A Doc of several sentences: each sentence's chunks, and a sentence's own through Span.
    texts = list(EVERYDAY)[:4]
    doc = shipped_nlp(" ".join(texts))
    assert chunks(doc) == [c for text in texts for c in EVERYDAY[text]]
    assert [[c.text for c in sent.noun_chunks] for sent in doc.sents] == [EVERYDAY[t] for t in texts]


@shipped
def test_no_words_no_chunks(shipped_nlp):
    for text in ("", "   ", "\n\n", " \n \t"):
        assert list(shipped_nlp(text).noun_chunks) == []
    assert chunks(shipped_nlp("Hi there.\n\n   \n")) == []
    assert chunks(shipped_nlp("  The cat sat on the mat.")) == ["The cat", "the mat"]
