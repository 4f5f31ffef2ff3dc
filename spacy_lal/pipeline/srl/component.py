"""``lal_srl``: the trainable semantic role labeller (DeepAtt, Tan et al. 2018; ``model.py``).

It writes one frame per predicate to ``doc._.srl`` (see ``spacy_lal.doc.extensions.set_frames``):
the predicate, its roleset (``borrow.01``) and its labelled arguments (``ARG0``, ``ARGM-TMP``,
``C-ARG1``, ``R-ARG0``, ...; continuation and reference roles are labels of their own).

Settings (``predicates``, ``decoder``, ``argument_spans``, ``tree_penalty``, ``frames``, ``sense_prior``,
``sense_loss``, ``sense_weight``, ``auxiliary_frames``, ``whose_phrases``, ``piece_length``): ``settings.py``.

Senses: the classes are the roleset suffixes seen in training ("01", "02", "LV", ...); the
lemma part is the token's lowercased lemma (its lowercased text without a lemmatizer), mapped
through a table learned at ``initialize`` from the gold rolesets wherever the most frequent gold
lemma differs from it (nominal and adjectival predicates: "service" -> "serve", forms without a
lemmatizer: "ran" -> "run"). Training data without senses gives no sense head (sense None).

Frames (``frames = "propbank"``, the default): every sense is a roleset of PropBank 3.4's frame
files and only the numbered roles it defines are predicted (``inventory.py``).

Awkward input: units are sentences as for ``lal_parser`` (``units.py``): whitespace tokens are
not shown to the model (an argument may span them); a sentence longer than the model's
``max_length`` words is labelled in pieces, and a predicate's arguments are found within its own
piece only; sentences without predicates give no rows; empty Docs get no frames. Training uses
only Examples whose predicted tokens are the gold tokens (read corpora with ``gold_preproc``);
gold roles unseen at ``initialize`` are skipped (counted in a warning).
A gold Doc marked partial (``doc.user_data["lal_srl_partial"]``, ``extensions.PARTIAL_SRL``:
PropBank frame-file examples, ``convert propbank-examples``) annotates some predicates only: it
gives no predicate-identification targets (IGNORE on every word: positives alone would teach the
head that most words are predicates), and only its annotated predicates get role and sense
targets.
"""
from collections import Counter, defaultdict
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
from spacy.language import Language
from spacy.tokens import Doc, Token
from spacy.training import Example
from spacy.vocab import Vocab
from thinc.api import Model

from ...doc.extensions import PARTIAL_SRL, clear_frames, set_frames
from ...logs import logger
from ...doc.frames import FrameData
from ..base import Predictions, UnitPipe, label_set, pretrained_model
from ..constraints import source_spans, unit_spans
from ..gold import same_tokens
from ..units import Unit
from ..torch_bridge import torch_module
from .adapter import IGNORE, DecodedFrames, FrameChoices, FrameScores, SrlBatch, SrlTargets
from .targets import bio_spans, count_senses, roleset_key, split_roleset, unit_bio
from .inventory import frame_choices, learn_phrasal_adverbs, without_auxiliaries
from .predicate_marking import PREDICATES_GIVEN
from .relatives import whose_phrases
from .settings import LAL_SRL


@Language.factory(
    "lal_srl",
    assigns=["token._.lal_frame"],
    default_config=LAL_SRL.default_config(
        model=pretrained_model("lal_srl"), scorer={"@scorers": "spacy-lal.srl_full_scorer.v1"}
    ),
    default_score_weights={
        "srl_f": 1.0,
        "srl_p": 0.0,
        "srl_r": 0.0,
        "srl_perfect": 0.0,
        "srl_pred_f": 0.0,
        "srl_sense_acc": 0.0,
    },
)
def make_lal_srl(
    nlp: Language,
    name: str,
    model: Model,
    scorer: Optional[Callable],
    predicates: str,
    decoder: str,
    argument_spans: List[str],
    tree_penalty: Optional[float],
    frames: Optional[str],
    sense_prior: float,
    sense_loss: str,
    sense_weight: float,
    auxiliary_frames: bool,
    whose_phrases: bool,
    piece_length: int,
) -> "SemanticRoleLabeler":
    """DeepAtt semantic role labeller; the settings, their defaults and checks: ``settings.py``.

    The default ``model`` is the shipped English labeller (``spacy-lal.Pretrained.v1``); give a
    ``spacy-lal.SemanticRoleLabeler.v1`` model config to train one from scratch."""
    srl = SemanticRoleLabeler(
        nlp.vocab,
        model,
        name,
        scorer=scorer,
        predicates=predicates,
        decoder=decoder,
        argument_spans=argument_spans,
        tree_penalty=tree_penalty,
        frames=frames,
        sense_prior=sense_prior,
        sense_loss=sense_loss,
        sense_weight=sense_weight,
        auxiliary_frames=auxiliary_frames,
        whose_phrases=whose_phrases,
        piece_length=piece_length,
    )
    srl.adopt_pretrained("lal_srl")
    return srl


class SemanticRoleLabeler(UnitPipe):
    """A spaCy component around DeepAtt and its predicate and sense heads (``spacy_lal.nn.deepatt``, ``spacy_lal.nn.predicates``)."""

    SETTINGS = LAL_SRL
    # Units of 8 batches are length-sorted together (max_chart_cells): every predicate's row is
    # padded to its chunk's longest sentence, so the fewer lengths a chunk mixes, the less work.
    BUCKET_BATCHES = 8
    LONG_SENTENCES = "each piece is labelled on its own, a predicate's arguments found within its piece"
    LABEL_DATA = {"labels": [], "senses": [], "sense_lemmas": {}, "sense_counts": {}, "phrasal_adverbs": []}

    def __init__(
        self, vocab: Vocab, model: Model, name: str = "lal_srl", *, scorer: Optional[Callable] = None, **settings: Any
    ) -> None:
        """``settings``: as the factory's (``settings.py``), their defaults where not given."""
        super().__init__(vocab, model, name, settings, scorer=scorer)
        self._warned_no_lemmas = False

    def set_decoder(self, decoder: str, argument_spans: Optional[Sequence[str]] = None) -> None:
        """Switch decoding on a trained labeller: "argmax", "viterbi", "unique_roles" or "tree"
        (``settings.py``); ``argument_spans``: the sources of "tree"'s allowed spans (None keeps them)."""
        self.configure(decoder=decoder, **({} if argument_spans is None else {"argument_spans": argument_spans}))

    # Labels ---------------------------------------------------------------------------------

    labels = label_set("labels", 'The BIO role labels ("O", "B-ARG0", "I-ARG0", ..., "B-V", "I-V").')
    senses = label_set("senses", 'The sense classes: roleset suffixes seen in training ("01", "02", ...).')

    # Initialization -------------------------------------------------------------------------

    def _read_labels(self, examples: Iterable[Example]) -> Dict[str, Any]:
        roles = {"V"}
        suffixes = set()
        rolesets: List[str] = []
        predicates: List[Token] = []  # each roleset's predicate, in the gold Doc
        lemma_counts: Dict[str, Counter] = defaultdict(Counter)
        n_examples = n_frames = 0
        for eg in examples:
            n_examples += 1
            for frame in eg.reference._.srl:
                n_frames += 1
                roles.update(span.label_ for span in frame.arguments)
                lemma, suffix = split_roleset(frame.sense)
                if suffix is None:
                    continue
                suffixes.add(suffix)
                rolesets.append(frame.sense)
                predicates.append(frame.predicate)
                keys = {roleset_key(frame.predicate)}
                if same_tokens(eg):  # the predicted Doc's key is what prediction will look up
                    keys.add(roleset_key(eg.x[frame.predicate.i]))
                for key in keys:
                    lemma_counts[key][lemma] += 1
        if not n_frames:
            raise ValueError(
                f"{self.name}: none of the {n_examples} training examples has SRL frames "
                "(doc._.srl is empty). Convert a PropBank corpus with `python -m spacy_lal convert "
                "ewt` or `conll05`/`conll12`, and read it with the spacy-lal.Corpus.v1 reader."
            )
        lemmas = {}
        for key, counts in lemma_counts.items():
            best = counts.most_common(1)[0][0]
            if best != key:
                lemmas[key] = best
        return {
            "labels": ["O"] + [f"{bio}-{role}" for role in sorted(roles) for bio in "BI"],
            "senses": sorted(suffixes),
            "sense_lemmas": lemmas,
            "sense_counts": count_senses(rolesets),
            "phrasal_adverbs": learn_phrasal_adverbs(predicates, rolesets, lemmas),
        }

    def _build_torch_model(self) -> None:
        from .model import configure_srl_model

        configure_srl_model(self.model, self.labels, len(self.senses), self.cfg["nI"])

    # Training -------------------------------------------------------------------------------

    def _training_examples(self, examples: List[Example]) -> List[Example]:
        # A span of gold tokens has no exact counterpart in other tokens: learn from the
        # Examples whose predicted tokens are the gold tokens. Predicates are always gold.
        return [eg for eg in examples if same_tokens(eg)]

    def _training_batch(self, examples: List[Example], units: List[Unit]) -> SrlBatch:
        """The gold predicates of each unit, and their BIO roles, flags and sense classes."""
        label_ids = {label: i for i, label in enumerate(self.labels)}
        sense_ids = {sense: i for i, sense in enumerate(self.senses)}
        frames = [{frame.predicate.i: frame.data for frame in eg.reference._.srl} for eg in examples]
        # A Doc marked partial (PARTIAL_SRL) annotates some predicates only: its other words are
        # no gold non-predicates, and its annotated ones alone are positives without negatives (a
        # run on PropBank's 21,351 examples flagged so lost 0.83 of EWT test predicate F1,
        # docs/results.md), so it gives no predicate flags; only its annotated predicates get role
        # and sense rows.
        partial = [bool(eg.reference.user_data.get(PARTIAL_SRL)) for eg in examples]
        width = max(len(unit) for unit in units)
        is_predicate = numpy.full((len(units), width), IGNORE, dtype="int64")
        predicates: List[List[int]] = []
        roles: List[numpy.ndarray] = []
        senses: List[int] = []
        lemmas: List[str] = []  # each gold predicate's roleset lemma
        unknown = 0
        for u, unit in enumerate(units):
            doc_frames = frames[unit.doc_index]
            flags = [token in doc_frames for token in unit.words]
            if not partial[unit.doc_index]:
                is_predicate[u, : len(unit)] = flags
            positions = [k for k, flag in enumerate(flags) if flag]
            predicates.append(positions)
            for k in positions:
                frame = doc_frames[unit.words[k]]
                row = numpy.full(width, IGNORE, dtype="int64")
                tags = unit_bio(frame, unit)
                for j, tag in enumerate(tags):
                    row[j] = label_ids.get(tag, IGNORE)
                unknown += sum(1 for tag in tags if tag.startswith("B-") and tag not in label_ids)
                roles.append(row)
                senses.append(sense_ids.get(split_roleset(frame.sense)[1], IGNORE))
                lemmas.append(split_roleset(frame.sense)[0])
        if unknown:
            logger.warning("%s: %d gold arguments with roles unseen at initialize were skipped", self.name, unknown)
        role_array = numpy.stack(roles) if roles else numpy.zeros((0, width), dtype="int64")
        allowed = self._lemma_senses(lemmas) if self.cfg["sense_loss"] == "lemma" and self.senses else None
        targets = SrlTargets(role_array, is_predicate, numpy.asarray(senses, dtype="int64"), sense_allowed=allowed,
                             sense_weight=self.cfg["sense_weight"])
        return SrlBatch(predicates, targets=targets)

    def _lemma_senses(self, lemmas: Sequence[str]) -> numpy.ndarray:
        """(R, n_senses) bool: per gold predicate, the sense classes that form a roleset of its
        lemma in the frame files, or of the rolesets listing it as an alias (every class for a word
        the files lack)."""
        from ...doc import propbank

        suffix_ids = {suffix: c for c, suffix in enumerate(self.senses)}
        allowed = numpy.ones((len(lemmas), len(self.senses)), dtype=bool)
        for r, lemma in enumerate(lemmas):
            suffixes = (roleset.id.rpartition(".")[2] for roleset in propbank.predicate_rolesets(lemma))
            classes = [suffix_ids[suffix] for suffix in suffixes if suffix in suffix_ids]
            if classes:
                allowed[r] = False
                allowed[r, classes] = True
        return allowed

    # Prediction -----------------------------------------------------------------------------

    def _prediction_batch(self, docs: List[Doc], units: List[Unit]) -> SrlBatch:
        return SrlBatch(self._unit_predicates(docs, units))

    def _decode_output(self, docs: List[Doc], units: List[Unit], output: FrameScores) -> DecodedFrames:
        # The model gives the rows' scores: decoded here, once the predicates are known.
        return self.decode(docs, units, output)

    def decode(self, docs: List[Doc], units: List[Unit], scores: FrameScores) -> DecodedFrames:
        """Each row's BIO labels and sense from ``scores`` (this labeller's, or an ensemble's
        average), with the component's decoder and, with ``frames = "propbank"``, within the
        frame inventory (``inventory.py``)."""
        decoder = self.cfg["decoder"]
        spans = self._argument_spans(docs, units) if decoder == "tree" else None
        choices = None
        if self.cfg["frames"] == "propbank" and self.senses:
            choices = frame_choices(
                self.name, docs, units, scores, labels=self.labels, senses=self.senses,
                sense_lemmas=self.cfg["sense_lemmas"], sense_counts=self.cfg["sense_counts"],
                sense_prior=self.cfg["sense_prior"], phrasal_adverbs=set(self.cfg["phrasal_adverbs"]),
            )
        return torch_module(self.model).decode_rows(scores, decoder, spans, choices, self.cfg["tree_penalty"])

    def _argument_spans(self, docs: List[Doc], units: List[Unit]) -> List[Optional[List[Tuple[int, int]]]]:
        """Per unit, the word spans its arguments may take (decoder "tree"), None where the
        sources give none (that unit falls back to BIO Viterbi, with one warning per call)."""
        notes: List[str] = []
        sources = self.cfg["argument_spans"]
        per_doc = [[span for source in sources for span in source_spans(doc, source, notes)] for doc in docs]
        spans: List[Optional[List[Tuple[int, int]]]] = list(unit_spans(docs, units, per_doc))
        for u, unit_list in enumerate(spans):
            if not unit_list and len(units[u]) > 1:  # one word needs no span: singles are allowed
                spans[u] = None
        missing = sum(1 for s in spans if s is None)
        if missing:
            logger.warning(
                "%s: decoder 'tree': %d of %d sentences have no spans from %s (is lal_parser before "
                "this component?); decoding them with BIO Viterbi%s",
                self.name, missing, len(units), sources, "".join(f"; {note}" for note in sorted(set(notes))),
            )
        return spans

    def _unit_predicates(self, docs: List[Doc], units: List[Unit]) -> List[Optional[List[int]]]:
        """Per unit, the word positions of its predicates, or None for the identification head."""
        mode = self.cfg["predicates"]
        if mode == "predicted":
            return [None] * len(units)
        if mode == "pos":
            marked = [{t.i for t in doc if t.pos_ == "VERB" or t.tag_.startswith("VB")} for doc in docs]
        else:
            marked = [{frame.predicate.i for frame in doc._.srl} for doc in docs]
        given = [
            mode == "pos" or bool(marked[i]) or bool(doc.user_data.get(PREDICATES_GIVEN))
            for i, doc in enumerate(docs)
        ]
        return [
            [k for k, token in enumerate(unit.words) if token in marked[unit.doc_index]]
            if given[unit.doc_index]
            else None
            for unit in units
        ]

    def set_annotations(self, docs: Iterable[Doc], predictions: Predictions) -> None:
        docs = list(docs)
        units, decoded = predictions
        frames: List[List[FrameData]] = [[] for _ in docs]
        rows = [] if decoded is None else zip(decoded.units, decoded.positions, decoded.tags, decoded.senses)
        labels = self.labels  # read once: the property copies the label list at every read
        for r, (u, position, tags, sense) in enumerate(rows):
            unit = units[u]
            doc = docs[unit.doc_index]
            roleset = self._roleset(doc[unit.words[position]], r, sense, decoded.choices)
            frames[unit.doc_index].append(self._frame(unit, position, [labels[t] for t in tags], roleset))
        self._check_lemmas(docs, frames)
        if self.cfg["whose_phrases"]:
            frames = [whose_phrases(doc, doc_frames) for doc, doc_frames in zip(docs, frames)]
        if not self.cfg["auxiliary_frames"]:
            frames = [without_auxiliaries(doc, doc_frames) for doc, doc_frames in zip(docs, frames)]
        for doc, doc_frames in zip(docs, frames):
            if doc_frames:
                set_frames(doc, doc_frames)
            else:
                clear_frames(doc)

    def _check_lemmas(self, docs: List[Doc], frames: List[List[FrameData]]) -> None:
        """Rolesets are built on lemmas. Without a lemmatizer before the component, the table
        learned at ``initialize`` maps the forms it saw ("borrowed" -> "borrow"); a form it does
        not know, and that is no PropBank lemma itself, stays a word form ("zorbled.01", or no
        sense with ``frames = "propbank"``). Said once, at the first call that meets one."""
        if self._warned_no_lemmas or not self.senses:
            return
        from ...doc import propbank

        table = self.cfg["sense_lemmas"]
        forms = [
            key for doc, doc_frames in zip(docs, frames) for frame in doc_frames
            if not doc[frame.predicate].lemma_
            for key in [roleset_key(doc[frame.predicate])]
            if key not in table and not propbank.has_lemma(key)
        ]
        if forms:
            self._warned_no_lemmas = True
            logger.warning(
                "%s: no lemmatizer runs before %s, and the predicate %r is a form the labeller's "
                "lemma table does not know, so its roleset is built on the word form (with frames = "
                "'propbank': no sense). Add a lemmatizer before it (the shipped pipeline has "
                "'trainable_lemmatizer'; spaCy's 'lemmatizer' works too).",
                self.name, self.name, forms[0],
            )

    def _roleset(self, predicate: Token, row: int, sense: Optional[int], choices: Optional[FrameChoices]) -> Optional[str]:
        """The roleset a decoded sense stands for: the frame inventory's choice, else the
        predicate's lemma (through the table learned at ``initialize``) and the sense class."""
        if choices is not None and choices.constrained[row]:
            return choices.rolesets[row][sense]
        if sense is None:
            return None
        key = roleset_key(predicate)
        return f"{self.cfg['sense_lemmas'].get(key, key)}.{self.senses[sense]}"

    @staticmethod
    def _frame(unit: Unit, position: int, tags: Sequence[str], roleset: Optional[str]) -> FrameData:
        words = unit.words
        predicate = words[position]
        arguments = []
        for start, end, role in bio_spans(tags):
            span = (words[start], words[end - 1] + 1, role)
            if span != (predicate, predicate + 1, "V"):
                arguments.append(span)
        return FrameData(predicate, roleset, tuple(arguments))


def keep_auxiliary_frames(nlp: Language) -> List[str]:
    """Make every ``lal_srl`` of ``nlp`` keep the frames of auxiliary and modal rolesets (be.03,
    do.01, ...) in ``doc._.srl`` (``auxiliary_frames``), which it leaves out by default: scores are
    PropBank 3.4's, which annotates them, and so must silver be that a labeller trains on. Returns
    the names of the components set (none: ``nlp`` has no ``lal_srl``)."""
    names = [name for name in nlp.pipe_names if nlp.get_pipe_meta(name).factory == "lal_srl"]
    for name in names:
        nlp.get_pipe(name).configure(auxiliary_frames=True)
    return names
