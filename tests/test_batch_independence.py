"""A sentence's analysis does not depend on the sentences batched with it (issue #52's must):
the shipped pipelines, as they load (int8 on CPUs), parse every behavioural sentence alone, in
batches of 4 and in one batch of 1,000, and every tree, arc, tag, morphology, lemma and frame
is the same."""
import pytest
from spacy.tokens import Doc

from spacy_lal.behaviour import read_set
from spacy_lal.pretrained import shipped_pipelines


def analyses(docs):
    return [
        ([t.tag_ for t in doc], [t.pos_ for t in doc], [str(t.morph) for t in doc], [t.lemma_ for t in doc],
         [(t.head.i, t.dep_) for t in doc], [tree.to_string() for tree in doc._.trees],
         [(f.data.predicate, f.data.sense, f.data.arguments) for f in doc._.srl])
        for doc in docs
    ]


@pytest.mark.parametrize("name", ["en_lal_ewt", "en_lal_ewt_trf"])
def test_every_analysis_is_the_same_alone_and_in_any_batch(name):
    import spacy_lal

    if name not in shipped_pipelines():
        pytest.skip(f"{name} is not built")
    nlp = spacy_lal.load(name)
    nlp.get_pipe("lal_srl").cfg["predicates"] = "predicted"  # every word a candidate, as raw text gets it
    words = [sentence.words for set_name in ("core", "everyday") for sentence in read_set(set_name)]
    assert len(words) > 100

    def docs():  # one sentence each, its words given (the splitter keeps them whole)
        return [Doc(nlp.vocab, words=list(w), sent_starts=[True] + [False] * (len(w) - 1)) for w in words]

    together = analyses(nlp.pipe(docs(), batch_size=1000))
    assert any(frames for *_, frames in together)
    assert analyses(nlp.pipe(docs(), batch_size=4)) == together
    assert analyses(nlp(doc) for doc in docs()) == together
