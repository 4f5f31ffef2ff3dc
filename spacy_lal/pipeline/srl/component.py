"""``lal_srl``: the trainable semantic role labeller (DeepAtt, Tan et al. 2018; ``model.py``).

It writes one frame per predicate to ``doc._.srl`` (see ``spacy_lal.extensions.set_frames``):
the predicate, its roleset (``borrow.01``) and its labelled arguments (``ARG0``, ``ARGM-TMP``,
``C-ARG1``, ``R-ARG0``, ...; continuation and reference roles are labels of their own).

Predicates (``predicates`` setting):
- "gold" (default): the predicate tokens of the frames already on the Doc (a gold corpus, or
  predicates marked by hand with ``mark_predicates(doc, [i, ...])``), as in the paper; Docs
  without frames get the identification head's predicates, unless ``mark_predicates`` said
  they have none (an empty list). Training always uses the gold
  predicates; the ``spacy-lal.srl_gold_predicates.v1`` augmenter marks them on the dev Docs so
  that evaluation during training is done with gold predicates too.
- "predicted": always the predicate-identification head (trained on the same data: PropBank
  EWT marks verbal, nominal and adjectival predicates).
- "pos": tokens with ``pos_ == "VERB"`` or a ``tag_`` starting with "VB" (auxiliaries tagged
  VB* included, as PropBank annotates "be" and "have"); needs a tagger before the component.

Decoders (``decoder`` setting): "argmax" (the paper's: per-token argmax, repaired to valid BIO),
"viterbi" (the best valid BIO sequence), "unique_roles" (the best valid BIO sequence in which
no core role, ARG0-ARG5 or ARGA, starts twice: He et al. 2017's constraint, by an exact Viterbi
over the set of roles started; ``decode.bio_viterbi``), "tree" (the best valid BIO sequence whose
arguments are all single words or spans of ``argument_spans``, by default the constituents of the
trees that ``lal_parser`` put on the Doc before this component: an exact span-level Viterbi,
``decode.span_viterbi``). ``argument_spans`` lists sources as the parser's constraints do
(``constraints.py``): "tree", "ents", "noun_chunks", "spans:KEY". A sentence for which the
sources give no span (no tree on the Doc, e.g. ``lal_parser`` not in the pipeline) falls back to
"viterbi", with one warning per call.

Senses: the classes are the roleset suffixes seen in training ("01", "02", "LV", ...); the
lemma part is the token's lowercased lemma (its lowercased text without a lemmatizer), mapped
through a table learned at ``initialize`` from the gold rolesets wherever the most frequent gold
lemma differs from it (nominal and adjectival predicates: "service" -> "serve", forms without a
lemmatizer: "ran" -> "run"). Training data without senses gives no sense head (sense None).

Frames (``frames`` setting, issue #36): "propbank" (the default) makes every sense a roleset of
PropBank 3.4's frame files (``spacy_lal.propbank``): among the sense classes the model has, the
best-scoring one whose ``lemma.class`` PropBank defines; the lemma of a predicate with a particle
child (UD ``compound:prt``, ``prt`` in the "clear" dependency scheme) is the phrasal one
(``pick_up``) where PropBank has it; when no class forms a roleset of the lemma, the lemma's first
roleset in the frame files. The numbered roles (ARG0-ARG6, ARGA and their C-/R- forms) that
roleset does not define are not predicted (they score far below any allowed label before decoding); modifiers (ARGM-*)
always may be. A predicate whose lemma PropBank does not have gets no sense (None), its roles
labelled unconstrained (said once in the log). ``null``: the unconstrained senses and roles of
before (``lemma.class`` whatever PropBank has). Training is the same either way.

Sense prior (``sense_prior``, with ``frames = "propbank"``): the sense head's classes are shared
by all lemmas ("01" is one class), so it is blind to which rolesets a lemma takes most often.
``initialize`` counts each lemma's gold rolesets (``sense_counts``), and a roleset's score is the
head's logit plus ``sense_prior`` times the log of its smoothed count (``frames.sense_score``): a
product of the head and the lemma's roleset distribution. The weight 0.5 was chosen on EWT dev
(+0.4 to +0.5 sense accuracy for the CPU pipelines, +0.1 with MiniLM features; docs/results.md);
a lemma never seen in training leaves the head alone; 0 turns the prior off, and a pipeline
without counts (trained before them) decides as before (said once in the log).

Sense loss (``sense_loss``, training only): "all" (the default) is the softmax over every sense
class; "lemma" runs each predicate's softmax over the classes that form rolesets of its gold
lemma in the frame files (the gold class always included; a lemma the files lack keeps every
class), so training asks the head the question decoding with ``frames = "propbank"`` asks it:
which of this lemma's rolesets. Refitting the fine-tuned student's sense head so, offline, gave
+0.3 to +0.7 sense accuracy on EWT test beside the prior (docs/results.md).

Awkward input: units are sentences as for ``lal_parser`` (``units.py``): whitespace tokens are
not shown to the model (an argument may span them); a sentence longer than the model's
``max_length`` words is labelled in pieces, and a predicate's arguments are found within its own
piece only; sentences without predicates give no rows; empty Docs get no frames. Training uses
only Examples whose predicted tokens are the gold tokens (read corpora with ``gold_preproc``);
gold roles unseen at ``initialize`` are skipped (counted in a warning).
A gold Doc marked partial (``doc.user_data["lal_srl_partial"]``, ``extensions.PARTIAL_SRL``:
PropBank frame-file examples, ``convert propbank-examples``) annotates some predicates only: the
predicate-identification loss covers its annotated predicates alone (IGNORE on its other words),
and only those get role and sense targets.
"""
from collections import Counter, defaultdict
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy
from spacy.language import Language
from spacy.tokens import Doc, Token
from spacy.training import Example
from spacy.vocab import Vocab
from thinc.api import Model

from ...extensions import PARTIAL_SRL, clear_frames, set_frames
from ...logs import log_once, logger
from ...srl import FrameData
from ..base import DEFAULT_PIECE_LENGTH, Predictions, UnitPipe, label_set, pretrained_model
from ..constraints import check_sources, source_spans, unit_spans
from ..gold import same_tokens
from ..units import Unit
from .adapter import DECODERS, IGNORE, FrameRule, SrlBatch, SrlTargets
from .frames import bio_spans, count_senses, roleset_key, sense_score, split_roleset, unit_bio
from .predicates import PREDICATES_GIVEN


PREDICATE_MODES = ("gold", "predicted", "pos")
TREE_SOURCE = "tree"
FRAME_INVENTORIES = ("propbank", None)
SENSE_LOSSES = ("all", "lemma")
# A particle's dependency label: UD's, and the "clear" scheme's (lal_parser's dependency_scheme).
PARTICLE_DEPS = ("compound:prt", "prt")


@Language.factory(
    "lal_srl",
    assigns=["token._.lal_frame"],
    default_config={
        "model": pretrained_model("lal_srl"),
        "predicates": "gold",
        "decoder": "argmax",
        "argument_spans": [TREE_SOURCE],
        "piece_length": DEFAULT_PIECE_LENGTH,
        # A pipeline saved before this setting existed gets it from here on load.
        "frames": "propbank",
        "sense_prior": 0.5,
        "sense_loss": "all",
        "auxiliary_frames": False,
        "scorer": {"@scorers": "spacy-lal.srl_full_scorer.v1"},
    },
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
    predicates: str,
    decoder: str,
    argument_spans: List[str],
    piece_length: int,
    scorer: Optional[Callable],
    frames: Optional[str] = "propbank",
    sense_prior: float = 0.5,
    sense_loss: str = "all",
    auxiliary_frames: bool = False,
) -> "SemanticRoleLabeler":
    """DeepAtt semantic role labeller; ``predicates``: "gold" | "predicted" | "pos",
    ``decoder``: "argmax" (the paper's) | "viterbi" (constrained BIO Viterbi) | "unique_roles"
    (Viterbi, each core role at most once per frame) | "tree"
    (arguments restricted to single words and the spans of ``argument_spans``: "tree" = the
    constituents ``lal_parser`` predicted, "ents", "noun_chunks", "spans:KEY"); ``piece_length``:
    sentences longer than this many words are labelled in pieces of at most this many;
    ``frames``: "propbank" (senses are PropBank 3.4 rolesets of the predicate's lemma, numbered
    roles only those the roleset defines) | null (unconstrained); ``sense_prior``: the weight of
    the lemma's roleset frequencies in training beside the sense head's scores (0: the head alone);
    ``sense_loss`` (training): "all" | "lemma" (the softmax over the gold lemma's rolesets);
    ``auxiliary_frames``: keep, in ``doc._.srl``, the frames of auxiliary and modal rolesets
    (be.03, do.01, have.01, ...) that the labeller found and that have no arguments (false: left
    out; a predicate given to the labeller keeps its frame either way).

    The default ``model`` is the shipped English labeller (``spacy-lal.Pretrained.v1``); give a
    ``spacy-lal.SemanticRoleLabeler.v1`` model config to train one from scratch."""
    srl = SemanticRoleLabeler(
        nlp.vocab,
        model,
        name,
        predicates=predicates,
        decoder=decoder,
        argument_spans=argument_spans,
        piece_length=piece_length,
        scorer=scorer,
        frames=frames,
        sense_prior=sense_prior,
        sense_loss=sense_loss,
        auxiliary_frames=auxiliary_frames,
    )
    srl.adopt_pretrained("lal_srl")
    return srl


class SemanticRoleLabeler(UnitPipe):
    """A spaCy component around DeepAtt and its predicate and sense heads (``spacy_lal.nn.deepatt``, ``spacy_lal.nn.predicates``)."""

    RUNTIME_SETTINGS = ("predicates", "decoder", "argument_spans", "frames", "sense_prior", "auxiliary_frames")
    # max_length has no learned table behind it: DeepAtt's timing signal is sinusoidal.
    RUNTIME_ATTRS = ("max_length", "max_chart_cells")
    # Units of 8 batches are length-sorted together (max_chart_cells): every predicate's row is
    # padded to its chunk's longest sentence, so the fewer lengths a chunk mixes, the less work.
    BUCKET_BATCHES = 8
    LONG_SENTENCES = "each piece is labelled on its own, a predicate's arguments found within its piece"
    LABEL_DATA = {"labels": [], "senses": [], "sense_lemmas": {}, "sense_counts": {}}

    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str = "lal_srl",
        *,
        predicates: str,
        decoder: str,
        argument_spans: Sequence[str],
        piece_length: int,
        scorer: Optional[Callable] = None,
        frames: Optional[str] = "propbank",
        sense_prior: float = 0.5,
        sense_loss: str = "all",
        auxiliary_frames: bool = False,
    ) -> None:
        # The settings' defaults are the factory's (``default_config``), written nowhere else.
        if predicates not in PREDICATE_MODES:
            raise ValueError(f"{name}: predicates must be one of {PREDICATE_MODES}, got {predicates!r}")
        _check_decoder(name, decoder)
        if frames not in FRAME_INVENTORIES:
            raise ValueError(f"{name}: frames must be one of {FRAME_INVENTORIES}, got {frames!r}")
        if sense_loss not in SENSE_LOSSES:
            raise ValueError(f"{name}: sense_loss must be one of {SENSE_LOSSES}, got {sense_loss!r}")
        settings = {
            "frames": frames,
            "sense_loss": sense_loss,
            "sense_prior": check_sense_prior(name, sense_prior),
            "auxiliary_frames": _check_flag(name, "auxiliary_frames", auxiliary_frames),
            "predicates": predicates,
            "decoder": decoder,
            "argument_spans": check_sources(name, "argument_spans", argument_spans, extra=(TREE_SOURCE,)),
        }
        super().__init__(vocab, model, name, settings, piece_length=piece_length, scorer=scorer)
        self._warned_no_lemmas = False

    def set_decoder(self, decoder: str, argument_spans: Optional[Sequence[str]] = None) -> None:
        """Switch decoding on a trained labeller: "argmax", "viterbi", "unique_roles" or "tree" (see the
        factory); ``argument_spans``: the sources of "tree"'s allowed spans (None keeps them)."""
        _check_decoder(self.name, decoder)
        self.cfg["decoder"] = decoder
        if argument_spans is not None:
            self.cfg["argument_spans"] = check_sources(
                self.name, "argument_spans", argument_spans, extra=(TREE_SOURCE,)
            )

    # Labels ---------------------------------------------------------------------------------

    labels = label_set("labels", 'The BIO role labels ("O", "B-ARG0", "I-ARG0", ..., "B-V", "I-V").')
    senses = label_set("senses", 'The sense classes: roleset suffixes seen in training ("01", "02", ...).')

    # Initialization -------------------------------------------------------------------------

    def _read_labels(self, examples: Iterable[Example]) -> Dict[str, Any]:
        roles = {"V"}
        suffixes = set()
        rolesets: List[str] = []
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
        # no gold non-predicates, so their predicate flags are IGNORE (no loss), and only the
        # annotated predicates get role and sense rows.
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
            is_predicate[u, : len(unit)] = [1 if flag else IGNORE for flag in flags] if partial[unit.doc_index] else flags
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
        sense_loss = self.cfg.get("sense_loss", "all")
        if sense_loss not in SENSE_LOSSES:  # set after construction, e.g. by component_settings
            raise ValueError(f"{self.name}: sense_loss must be one of {SENSE_LOSSES}, got {sense_loss!r}")
        allowed = self._lemma_senses(lemmas) if sense_loss == "lemma" and self.senses else None
        targets = SrlTargets(role_array, is_predicate, numpy.asarray(senses, dtype="int64"), sense_allowed=allowed)
        return SrlBatch(predicates, targets=targets)

    def _lemma_senses(self, lemmas: Sequence[str]) -> numpy.ndarray:
        """(R, n_senses) bool: per gold predicate, the sense classes that form a roleset of its
        lemma in the frame files (every class for a lemma the files lack)."""
        from ... import propbank

        suffix_ids = {suffix: c for c, suffix in enumerate(self.senses)}
        allowed = numpy.ones((len(lemmas), len(self.senses)), dtype=bool)
        for r, lemma in enumerate(lemmas):
            suffixes = (roleset.id.rpartition(".")[2] for roleset in propbank.rolesets(lemma))
            classes = [suffix_ids[suffix] for suffix in suffixes if suffix in suffix_ids]
            if classes:
                allowed[r] = False
                allowed[r, classes] = True
        return allowed

    # Prediction -----------------------------------------------------------------------------

    def _prediction_batch(self, docs: List[Doc], units: List[Unit]) -> SrlBatch:
        decoder = self.cfg["decoder"]
        spans = self._argument_spans(docs, units) if decoder == "tree" else None
        rules = self._frame_rules(docs, units) if self.cfg.get("frames") == "propbank" and self.senses else None
        return SrlBatch(self._unit_predicates(docs, units), decoder=decoder, spans=spans, frame_rules=rules)

    def _frame_rules(self, docs: List[Doc], units: List[Unit]) -> List[Optional[FrameRule]]:
        """Per unit, the rule that makes each predicate's sense a PropBank roleset of its lemma
        and allows only the numbered roles that roleset defines (setting ``frames = "propbank"``)."""
        from ... import propbank

        suffix_ids = {suffix: c for c, suffix in enumerate(self.senses)}
        prior_weight = self.cfg.get("sense_prior", 0.0)
        counts = self.cfg.get("sense_counts") or {}
        if prior_weight and not counts:
            log_once(
                f"{self.name}: sense_prior is {prior_weight:g} but this labeller has no roleset counts "
                "(it was trained before they existed), so its senses come from the sense head alone; "
                "scripts/add_sense_counts.py PIPELINE --train CORPUS gives it the counts",
            )
        # The roleset key of each label ("B-ARG2" -> "2"), None for labels always allowed.
        numbers = [None if label == "O" else propbank.numbered_role(label[2:]) for label in self.labels]
        masks: Dict[str, numpy.ndarray] = {}  # per roleset id, within this batch

        def allowed(roleset: "propbank.Roleset") -> numpy.ndarray:
            if roleset.id not in masks:
                masks[roleset.id] = numpy.asarray([n is None or n in roleset.roles for n in numbers], dtype=bool)
            return masks[roleset.id]

        def rule_of(doc: Doc, unit: Unit) -> FrameRule:
            def rule(position: int, sense_scores: Optional[numpy.ndarray]) -> Tuple[Optional[str], Optional[numpy.ndarray]]:
                lemma = self._frame_lemma(doc[unit.words[position]])
                candidates = propbank.rolesets(lemma)
                if not candidates:
                    log_once(
                        f"{self.name}: frames = 'propbank': predicates whose lemma has no PropBank roleset "
                        f"(such as {lemma!r}) get no sense, and their roles are not constrained",
                    )
                    return None, None
                chosen = candidates[0]  # no sense class forms one of the lemma's rolesets
                if sense_scores is not None:
                    seen = counts.get(lemma, {}) if prior_weight else {}
                    scored = [(sense_score(sense_scores[suffix_ids[suffix]], seen.get(suffix, 0), prior_weight), r)
                              for r in candidates for suffix in [r.id.rpartition(".")[2]] if suffix in suffix_ids]
                    if scored:
                        chosen = max(scored, key=lambda pair: pair[0])[1]
                return chosen.id, allowed(chosen)

            return rule

        return [rule_of(docs[unit.doc_index], unit) for unit in units]

    def _frame_lemma(self, token: Token) -> str:
        """The lemma a predicate's roleset is looked up under: the roleset key, mapped through the
        table learned at ``initialize`` ("decision" -> "decide"), joined with a particle child's
        text where PropBank has that phrasal lemma ("picked ... up" -> "pick_up")."""
        from ... import propbank

        key = roleset_key(token)
        lemma = self.cfg["sense_lemmas"].get(key, key)
        for child in token.children:
            if child.dep_ in PARTICLE_DEPS or _ud_dep(child) == "compound:prt":
                phrasal = f"{lemma}_{child.lower_}"
                if propbank.has_lemma(phrasal):
                    return phrasal
        return lemma

    def _argument_spans(self, docs: List[Doc], units: List[Unit]) -> List[Optional[List[Tuple[int, int]]]]:
        """Per unit, the word spans its arguments may take (decoder "tree"), None where the
        sources give none (that unit falls back to BIO Viterbi, with one warning per call)."""
        notes: List[str] = []
        sources = self.cfg.get("argument_spans") or [TREE_SOURCE]
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
        for u, position, tags, sense in rows:
            unit = units[u]
            doc = docs[unit.doc_index]
            frames[unit.doc_index].append(self._frame(doc, unit, position, [labels[t] for t in tags], sense))
        self._check_lemmas(docs, frames)
        if not self.cfg.get("auxiliary_frames", True):
            frames = [_without_auxiliaries(doc, doc_frames) for doc, doc_frames in zip(docs, frames)]
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
        from ... import propbank

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

    def _frame(
        self, doc: Doc, unit: Unit, position: int, tags: Sequence[str], sense: Union[int, str, None]
    ) -> FrameData:
        words = unit.words
        predicate = words[position]
        arguments = []
        for start, end, role in bio_spans(tags):
            span = (words[start], words[end - 1] + 1, role)
            if span != (predicate, predicate + 1, "V"):
                arguments.append(span)
        roleset = sense if isinstance(sense, str) else None  # a frame rule's roleset
        if isinstance(sense, int):
            key = roleset_key(doc[predicate])
            roleset = f"{self.cfg['sense_lemmas'].get(key, key)}.{self.senses[sense]}"
        return FrameData(predicate, roleset, tuple(arguments))


def check_sense_prior(name: str, weight: Any) -> float:
    """``weight`` as the ``sense_prior`` setting, or a ValueError naming the component."""
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not weight >= 0:
        raise ValueError(f"{name}: sense_prior must be a number >= 0 (0 turns it off), got {weight!r}")
    return float(weight)


def _check_flag(name: str, setting: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name}: {setting} must be true or false, got {value!r}")
    return value


def _without_auxiliaries(doc: Doc, frames: List[FrameData]) -> List[FrameData]:
    """``frames`` less those of an auxiliary or modal roleset without arguments ("be.03 [V were]"):
    PropBank 3.4 annotates them, so the labeller finds them and scoring keeps them, but a reader of
    ``doc._.srl`` gets clutter. A predicate the caller marked (the frames already on the Doc)
    keeps its frame."""
    from ... import propbank

    given = {frame.predicate.i for frame in doc._.srl}
    return [
        frame for frame in frames
        if frame.arguments or frame.predicate in given or not propbank.is_auxiliary(frame.sense)
    ]


def _ud_dep(token: Token) -> Optional[str]:
    """The token's UD label where the "clear" scheme stores it (``token._.ud_dep``)."""
    return token._.ud_dep if token.has_extension("ud_dep") else None


def _check_decoder(name: str, decoder: str) -> None:
    if decoder not in DECODERS:
        raise ValueError(f"{name}: decoder must be one of {DECODERS}, got {decoder!r}")
