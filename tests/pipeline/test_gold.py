"""Gold targets: which Examples' predicted tokens are the gold tokens."""
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_lal.pipeline.gold import same_tokens, training_sentences


def test_same_tokens_compares_the_words_not_only_their_number():
    vocab = spacy.blank("en").vocab
    gold = Doc(vocab, words=["Dogs", "bark", "."], sent_starts=[True, False, False])
    assert same_tokens(Example(Doc(vocab, words=["Dogs", "bark", "."]), gold))
    assert not same_tokens(Example(Doc(vocab, words=["Dogs", "bark."], spaces=[True, False]), gold))
    assert not same_tokens(Example(Doc(vocab, words=["dogs", "bark", "."]), gold))
    assert same_tokens(Example(Doc(vocab, words=[]), Doc(vocab, words=[])))


def test_training_sentences_take_the_gold_sentences_only_on_the_gold_tokens():
    vocab = spacy.blank("en").vocab
    gold = Doc(vocab, words=["Dogs", "bark", ".", "Cats", "mew", "."],
               sent_starts=[True, False, False, True, False, False])
    same = Doc(vocab, words=["Dogs", "bark", ".", "Cats", "mew", "."])
    assert training_sentences(Example(same, gold)) == [range(0, 3), range(3, 6)]
    other = Doc(vocab, words=["Dogs", "bark.", "Cats", "mew", "."], spaces=[True, True, True, False, False])
    assert training_sentences(Example(other, gold)) == [range(0, 5)]
