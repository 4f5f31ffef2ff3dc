import pytest
from spacy.tokens import Doc

from spacy_lal.doc.extensions import clear_frames, set_frames
from spacy_lal.doc.frames import Frame, FrameData, check_frame


@pytest.fixture
def doc(nlp):
    # Two sentences: "Mary borrowed a book from John ." / "The book , she said , was old ."
    words = "Mary borrowed a book from John . The book , she said , was old .".split()
    return Doc(nlp.vocab, words=words, sent_starts=[i in (0, 7) for i in range(len(words))])


def test_str_prints_the_sentence_with_bracketed_arguments(doc):
    set_frames(doc, [FrameData(1, "01", ((0, 1, "ARG0"), (2, 4, "ARG1"), (5, 6, "ARG2")))])
    (frame,) = doc._.srl
    assert str(frame) == "[ARG0 Mary] [V borrowed] [ARG1 a book] from [ARG2 John] ."
    assert frame.predicate.i == 1 and frame.sense == "01"
    assert [(span.text, span.label_) for span in frame.arguments] == [
        ("Mary", "ARG0"),
        ("a book", "ARG1"),
        ("John", "ARG2"),
    ]


def test_continuation_and_reference_arguments(doc):
    set_frames(doc, [FrameData(11, None, ((7, 9, "ARG1"), (10, 11, "ARG0"), (13, 15, "C-ARG1")))])
    (frame,) = doc._.srl
    assert str(frame) == "[ARG1 The book] , [ARG0 she] [V said] , [C-ARG1 was old] ."
    assert frame.to_bio() == ["B-ARG1", "I-ARG1", "O", "B-ARG0", "B-V", "O", "B-C-ARG1", "I-C-ARG1", "O"]


def test_reference_argument_bio(nlp):
    doc = Doc(nlp.vocab, words="the man who saw me".split())
    set_frames(doc, [FrameData(3, "01", ((0, 2, "ARG0"), (2, 3, "R-ARG0"), (4, 5, "ARG1")))])
    (frame,) = doc._.srl
    assert frame.to_bio() == ["B-ARG0", "I-ARG0", "B-R-ARG0", "B-V", "B-ARG1"]
    assert str(frame) == "[ARG0 the man] [R-ARG0 who] [V saw] [ARG1 me]"
    assert frame.sentence.start == 0 and len(frame.sentence) == 5  # no boundaries: the whole doc


def test_multiword_v(nlp):
    doc = Doc(nlp.vocab, words="She picked it up".split())
    data = FrameData(1, None, ((0, 1, "ARG0"), (1, 2, "V"), (2, 3, "ARG1")))
    with pytest.raises(ValueError, match="V argument"):
        set_frames(doc, [data])
    doc = Doc(nlp.vocab, words="She picked up it".split())
    set_frames(doc, [FrameData(1, None, ((0, 1, "ARG0"), (1, 3, "V"), (3, 4, "ARG1")))])
    (frame,) = doc._.srl
    assert frame.to_bio() == ["B-ARG0", "B-V", "I-V", "B-ARG1"]
    assert str(frame) == "[ARG0 She] [V picked up] [ARG1 it]"


def test_bio_round_trip(doc):
    data = FrameData(11, "01", ((7, 9, "ARG1"), (10, 11, "ARG0"), (13, 15, "C-ARG1")))
    set_frames(doc, [data])
    (frame,) = doc._.srl
    assert FrameData.from_bio(frame.to_bio(), 11, "01", offset=7) == data
    assert frame.data == data


@pytest.mark.parametrize(
    "tags", [["I-ARG0", "B-V"], ["B-ARG0", "I-ARG1", "B-V"], ["B-", "B-V"], ["X-ARG0", "B-V"]]
)
def test_from_bio_rejects_bad_tags(tags):
    with pytest.raises(ValueError, match="bad BIO tag"):
        FrameData.from_bio(tags, 1)


def test_frames_come_in_predicate_order_and_replace_earlier_ones(doc):
    set_frames(doc, [FrameData(4, None, ())])
    set_frames(doc, [FrameData(11, None, ((10, 11, "ARG0"),)), FrameData(1, None, ((0, 1, "ARG0"),))])
    assert [frame.predicate.i for frame in doc._.srl] == [1, 11]
    clear_frames(doc)
    assert doc._.srl == []


@pytest.mark.parametrize(
    "frame,message",
    [
        (FrameData(20, None, ()), "not a token"),
        (FrameData(1, "", ()), "sense"),
        (FrameData(1, None, ((0, 8, "ARG0"),)), "not within the predicate's sentence"),
        (FrameData(1, None, ((2, 2, "ARG1"),)), "not within"),
        (FrameData(1, None, ((0, 1, ""),)), "label"),
        (FrameData(1, None, ((0, 1, "B-ARG0"),)), "label"),
        (FrameData(1, None, ((0, 2, "ARG0"),)), "contains the predicate"),
        (FrameData(1, None, ((2, 4, "ARG1"), (3, 5, "ARG2"))), "overlap"),
        (FrameData(1, None, ((3, 5, "V"),)), "V argument"),
    ],
)
def test_check_frame_errors(doc, frame, message):
    with pytest.raises(ValueError, match=message):
        check_frame(doc, frame)


def test_set_frames_rejects_two_frames_for_one_predicate(doc):
    with pytest.raises(ValueError, match="two frames for predicate 1"):
        set_frames(doc, [FrameData(1, None, ()), FrameData(1, "02", ())])


def test_check_frame_normalizes(doc):
    frame = check_frame(doc, FrameData(1, None, [(5, 6, "ARG2"), (0, 1, "ARG0")]))
    assert frame.arguments == ((0, 1, "ARG0"), (5, 6, "ARG2"))


def test_arguments_outside_a_resegmented_sentence_are_reported(doc):
    set_frames(doc, [FrameData(1, None, ((0, 1, "ARG0"), (2, 4, "ARG1")))])
    doc[2].is_sent_start = True
    (frame,) = doc._.srl
    with pytest.raises(ValueError, match="outside the predicate's sentence"):
        frame.to_bio()


def test_frame_repr(doc):
    frame = Frame(doc, FrameData(1, "01", ((0, 1, "ARG0"),)))
    assert repr(frame) == "<Frame 'borrowed' sense='01': [ARG0 Mary] [V borrowed] a book from John .>"
