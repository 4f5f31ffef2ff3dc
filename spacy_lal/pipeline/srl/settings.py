"""``lal_srl``'s settings (``pipeline/settings.py``): each one's default, check and whether the
config wins over the saved value on load.

- ``predicates``: "gold" (default): the predicate tokens of the frames already on the Doc (a gold
  corpus, or predicates marked by hand with ``mark_predicates(doc, [i, ...])``), as in the paper;
  Docs without frames get the identification head's predicates, unless ``mark_predicates`` said
  they have none (an empty list). Training always uses the gold predicates; the
  ``spacy-lal.srl_gold_predicates.v1`` augmenter marks them on the dev Docs so that evaluation
  during training is done with gold predicates too. "predicted": always the
  predicate-identification head (trained on the same data: PropBank EWT marks verbal, nominal
  and adjectival predicates). "pos": tokens with ``pos_ == "VERB"`` or a ``tag_`` starting with
  "VB" (auxiliaries tagged VB* included, as PropBank annotates "be" and "have"); needs a tagger
  before the component.
- ``decoder``: "argmax" (the paper's: per-token argmax, repaired to valid BIO), "viterbi" (the
  best valid BIO sequence), "unique_roles" (the best valid BIO sequence in which no core role,
  ARG0-ARG5 or ARGA, starts twice: He et al. 2017's constraint, by an exact Viterbi over the set
  of roles started; ``decode.bio_viterbi``), "tree" (the best valid BIO sequence whose arguments
  are all single words or spans of ``argument_spans``: an exact span-level Viterbi,
  ``decode.span_viterbi``). A sentence for which the sources give no span (no tree on the Doc,
  e.g. ``lal_parser`` not in the pipeline) falls back to "viterbi", with one warning per call.
- ``argument_spans``: the sources of "tree"'s spans, as the parser's constraints name them
  (``constraints.py``): "tree" (the constituents ``lal_parser`` put on the Doc), "ents",
  "noun_chunks", "spans:KEY".
- ``tree_penalty``: how decoder "tree" treats an argument of several words that is not one of
  ``argument_spans``: null (default) never chooses one; a number >= 0 is what such an argument
  costs in the sequence's log-probability, so the labeller keeps a role off the spans only when
  its scores prefer it by more than that (``decode.span_viterbi``'s ``penalty``; 0 is
  "viterbi"). The shipped pipelines use "tree" at 2.0, chosen on EWT dev: more roles are
  constituents than with "viterbi" at no loss of role F1, where the hard constraint loses about 2
  (docs/results.md, "Roles on the tree").
- ``frames``: "propbank" (default) makes every sense a roleset of PropBank 3.4's frame files and
  allows only the numbered roles that roleset defines (``inventory.py``); null: the unconstrained
  senses and roles (``lemma.class`` whatever PropBank has). Training is the same either way.
- ``sense_prior``: the weight of the lemma's roleset counts in training beside the sense head's
  scores (``frames.sense_bonus``; 0: the head alone). The sense head's classes are shared by all
  lemmas ("01" is one class), so it is blind to which rolesets a lemma takes most often. 0.5 was
  chosen on EWT dev (+0.4 to +0.5 sense accuracy for the CPU pipelines, +0.1 with MiniLM
  features; docs/results.md).
- ``sense_loss`` (training only): "all" is the softmax over every sense class; "lemma" runs each
  predicate's softmax over the classes that form rolesets of its gold lemma in the frame files,
  so training asks the head the question decoding with ``frames = "propbank"`` asks it.
  Refitting the fine-tuned student's sense head so, offline, gave +0.3 to +0.7 sense accuracy on
  EWT test beside the prior (docs/results.md).
- ``sense_weight`` (training only): the sense term's weight in the loss. A labeller on a shared
  tok2vec trains with ``loss_reduction = "sum"``, where EWT's 25 role targets per sense target
  leave the sense term a small share; a weight above 1 gives it back without changing how the
  roles' gradient reaches the tok2vec (issue #51: at 10 it did not move the teacher's senses,
  docs/results.md).
- ``auxiliary_frames``: keep, in ``doc._.srl``, the frames of auxiliary and modal rolesets
  (be.03, do.01, have.01, ...) that the labeller found and that have no arguments (false: left
  out; a predicate given to the labeller keeps its frame either way). Scoring keeps them, as
  PropBank 3.4 annotates them (``component.keep_auxiliary_frames``).
- ``whose_phrases``: *whose* phrases of relative clauses as PropBank annotates them, one R- role
  ("[ARG1 The woman] [R-ARG1 whose car] was stolen"), where the labeller split the phrase or
  joined it to its antecedent, read off the dependencies (``relatives.py``; false: the labeller's
  arguments as decoded).
- ``piece_length``: sentences longer than this many words are labelled in pieces of at most this
  many, a predicate's arguments found within its own piece.
"""
import math
from typing import Any, List, Optional

from ..constraints import check_sources
from ..settings import PIECE_LENGTH, Setting, Settings, check_choice, check_flag, check_weight
from .adapter import DECODERS

PREDICATE_MODES = ("gold", "predicted", "pos")
TREE_SOURCE = "tree"
FRAME_INVENTORIES = ("propbank", None)
SENSE_LOSSES = ("all", "lemma")


def _check_tree_penalty(component: str, setting: str, value: Any) -> Optional[float]:
    """null, or a number >= 0; inf (what a command line can give) is null, the hard constraint."""
    if value is None:
        return None
    value = check_weight(component, setting, value)
    return None if math.isinf(value) else value


def _check_argument_spans(component: str, setting: str, value: Any) -> List[str]:
    return check_sources(component, setting, value, extra=(TREE_SOURCE,))


LAL_SRL = Settings(
    predicates=Setting("gold", check_choice(PREDICATE_MODES), runtime=True),
    decoder=Setting("argmax", check_choice(DECODERS), runtime=True),
    argument_spans=Setting([TREE_SOURCE], _check_argument_spans, runtime=True),
    tree_penalty=Setting(None, _check_tree_penalty, runtime=True),
    frames=Setting("propbank", check_choice(FRAME_INVENTORIES), runtime=True),
    sense_prior=Setting(0.5, check_weight, runtime=True),
    sense_loss=Setting("all", check_choice(SENSE_LOSSES)),
    sense_weight=Setting(1.0, check_weight),
    auxiliary_frames=Setting(False, check_flag, runtime=True),
    whose_phrases=Setting(True, check_flag, runtime=True),
    piece_length=PIECE_LENGTH,
)
