"""The registered SRL architecture: a spaCy tok2vec feeding DeepAtt (Tan et al. 2018) and the
predicate-identification and sense heads (``spacy_lal.nn.srl``).

The Thinc model takes ``(docs, units, SrlBatch)``. One forward pass serves a whole batch: the
torch side runs the predicate-identification head over all units, gathers one row per
(unit, predicate) pair inside DeepAtt (after its input projection, so the projection runs once
per sentence), and either returns the summed loss (training: role, predicate and sense losses,
all computed in torch) or decodes BIO sequences (argmax or constrained Viterbi) and senses.

The torch module's shape depends on the label counts, which the component learns in
``initialize`` (or reads from its saved cfg), so ``configure_srl_model`` builds the torch layer,
as for the parser (``parser_model.py``).
"""
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

import numpy
import torch
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model, PyTorchWrapper_v3
from thinc.types import Floats2d

from ..nn.srl import DeepAtt, DeepAttConfig, PredicateIdentifier, SenseClassifier, lengths_to_mask, predicate_rows
from .torch_bridge import convert_loss_outputs, convert_padded_inputs, forward_units, init_tok2vec

__all__ = ["DecodedFrames", "SrlBatch", "SrlTargets", "build_semantic_role_labeler", "configure_srl_model"]

IGNORE = -100  # target id the losses skip
DECODERS = ("argmax", "viterbi")
PRESETS = {"cpu": DeepAttConfig.cpu, "paper": DeepAttConfig.paper}


@dataclass
class SrlTargets:
    """Gold targets of a batch; rows are the (unit, predicate) pairs of ``SrlBatch.predicates``
    in unit-then-list order."""

    roles: numpy.ndarray  # (R, T) int64 BIO label ids; IGNORE on padding and skipped labels
    is_predicate: numpy.ndarray  # (N, T) int64 0/1 per word; IGNORE where unknown
    senses: numpy.ndarray  # (R,) int64 sense-class ids; IGNORE where unknown


@dataclass
class SrlBatch:
    """What the component passes along with the units.

    ``predicates[u]``: the predicate positions (word indices) of unit u, or None to let the
    identification head find them (prediction only; in training every unit has a list).
    """

    predicates: List[Optional[List[int]]]
    decoder: str = "argmax"
    targets: Optional[SrlTargets] = None


@dataclass
class DecodedFrames:
    """Per row (unit, predicate position): the BIO label ids of the unit's words and the sense
    class (None without a sense head)."""

    units: List[int]
    positions: List[int]
    tags: List[List[int]]
    senses: List[Optional[int]]


@registry.architectures("spacy-lal.SemanticRoleLabeler.v1")
def build_semantic_role_labeler(
    tok2vec: Model[List[Doc], List[Floats2d]],
    preset: str = "cpu",
    n_layers: Optional[int] = None,
    d_model: Optional[int] = None,
    n_heads: Optional[int] = None,
    d_ff: Optional[int] = None,
    sublayer: Optional[str] = None,
    d_mask: Optional[int] = None,
    top_layer: str = "softmax",
    lal_heads: Optional[int] = None,
    lal_d_kv: int = 32,
    lal_d_proj: int = 16,
    lal_ffn: bool = True,
    label_smoothing: Optional[float] = None,
    dropout: Optional[float] = None,
    d_head_hidden: int = 128,
    max_length: int = 256,
) -> Model:
    """DeepAtt semantic role labeller over any tok2vec.

    ``preset``: "cpu" (4 layers, d = 128, 4 heads, FFN 256) or "paper" (10 layers, d = 200,
    8 heads, FFN 800, mask embedding 100); the other DeepAtt arguments override the preset when
    set. ``sublayer``: "ffn", "rnn" (BiLSTM) or "cnn" (GLU). ``top_layer = "lal"`` puts a Label
    Attention Layer under the softmax, with one head per BIO role label unless ``lal_heads`` is
    set. ``dropout`` (None = the preset's 0.2 residual/input, 0.1 attention/ReLU) sets all
    dropouts inside the torch model: spaCy's ``training.dropout`` does not reach into it.
    ``d_head_hidden``: hidden width of the predicate-identification and sense MLPs.
    ``max_length``: longer sentences are labelled in pieces (see ``units.py``).
    """
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {sorted(PRESETS)}, got {preset!r}")
    overrides: Dict[str, Any] = {
        "n_layers": n_layers,
        "d_model": d_model,
        "n_heads": n_heads,
        "d_ff": d_ff,
        "sublayer": sublayer,
        "d_mask": d_mask,
        "label_smoothing": label_smoothing,
    }
    if dropout is not None:
        overrides.update(
            residual_dropout=dropout, attention_dropout=dropout, relu_dropout=dropout,
            input_dropout=dropout, lal_dropout=dropout,
        )
    config = PRESETS[preset](
        top_layer=top_layer, lal_n_heads=lal_heads, lal_d_kv=lal_d_kv, lal_d_proj=lal_d_proj,
        lal_ffn=lal_ffn, **{k: v for k, v in overrides.items() if v is not None},
    )  # validated here, so a bad config fails when the pipeline is created
    return Model(
        "lal_srl",
        forward_units,
        init=init_tok2vec,
        layers=[tok2vec],
        dims={"nI": None},
        attrs={
            "deepatt": config.to_dict(),
            "d_head_hidden": d_head_hidden,
            "head_dropout": config.relu_dropout,
            "max_length": max_length,
        },
    )


def configure_srl_model(model: Model, labels: Sequence[str], n_senses: int, nI: int) -> None:
    """Build (or rebuild) the torch layer for these BIO ``labels`` and ``n_senses`` sense
    classes (0 = no sense head)."""
    module = _SrlAdapter(
        DeepAtt(nI, len(labels), DeepAttConfig(**model.attrs["deepatt"])),
        PredicateIdentifier(nI, 2, model.attrs["d_head_hidden"], model.attrs["head_dropout"]),
        n_senses,
        model.attrs["d_head_hidden"],
        labels,
    )
    wrapper = PyTorchWrapper_v3(module, convert_inputs=convert_padded_inputs, convert_outputs=convert_loss_outputs)
    model.set_dim("nI", nI, force=True)
    model._layers = [model.layers[0], wrapper]


class _SrlAdapter(torch.nn.Module):
    """Runs the SRL heads for spaCy: the summed loss in training, decoded frames otherwise."""

    def __init__(
        self,
        tagger: DeepAtt,
        identifier: PredicateIdentifier,
        n_senses: int,
        d_hidden: int,
        labels: Sequence[str],
    ) -> None:
        super().__init__()
        from ..decode import BIOScheme

        self.tagger = tagger
        self.identifier = identifier
        d_top = tagger.output.in_features
        # Senses are read off DeepAtt's top states at the predicate: they are contextual and
        # predicate-aware, which the raw token vectors are not.
        self.sense: Optional[SenseClassifier] = (
            SenseClassifier(d_top, n_senses, d_hidden, tagger.config.relu_dropout) if n_senses else None
        )
        self.scheme = BIOScheme(labels)

    def forward(self, padded: torch.Tensor, lengths: torch.Tensor, batch: SrlBatch):
        mask = lengths_to_mask(lengths, padded.shape[1])
        predicate_logits = self.identifier(padded)  # (N, T, 2)
        predicates = batch.predicates
        if any(p is None for p in predicates):
            found = ((predicate_logits.argmax(-1) == 1) & mask).cpu().numpy()
            predicates = [numpy.flatnonzero(found[u]).tolist() if p is None else p for u, p in enumerate(predicates)]
        rows, positions = predicate_rows(predicates, device=padded.device)
        role_logits = sense_logits = None
        if len(rows):  # sentences without predicates give no rows; DeepAtt never sees R = 0
            hidden, _ = self.tagger.encode(padded, mask, positions, rows)
            role_logits = self.tagger.output(hidden)
            if self.sense is not None:
                sense_logits = self.sense(hidden, torch.arange(len(rows), device=rows.device), positions)
        if batch.targets is None:
            return self._decode(rows, positions, lengths, role_logits, sense_logits, batch.decoder)
        return self._loss(batch.targets, mask, rows, predicate_logits, role_logits, sense_logits)

    def _loss(self, targets: SrlTargets, mask, rows, predicate_logits, role_logits, sense_logits) -> torch.Tensor:
        device = predicate_logits.device
        is_predicate = torch.as_tensor(targets.is_predicate, device=device)
        loss = self.identifier.loss(predicate_logits, is_predicate, mask)
        if role_logits is not None:
            roles = torch.as_tensor(targets.roles, device=device)
            loss = loss + self.tagger.loss(role_logits, roles, mask.index_select(0, rows))
        if sense_logits is not None:
            loss = loss + self.sense.loss(sense_logits, torch.as_tensor(targets.senses, device=device))
        return loss

    def _decode(self, rows, positions, lengths, role_logits, sense_logits, decoder: str) -> DecodedFrames:
        from ..decode import bio_argmax_batch, bio_viterbi_batch

        if decoder not in DECODERS:
            raise ValueError(f"decoder must be one of {DECODERS}, got {decoder!r}")
        units, positions = rows.tolist(), positions.tolist()
        if role_logits is None:
            return DecodedFrames([], [], [], [])
        # Log-probabilities, so that Viterbi maximises the sequence's probability.
        scores = torch.log_softmax(role_logits.float(), -1).cpu().numpy()
        n_words = lengths.tolist()
        decode = bio_viterbi_batch if decoder == "viterbi" else bio_argmax_batch
        tags = decode([scores[r, : n_words[u]] for r, u in enumerate(units)], self.scheme, positions)
        senses: List[Optional[int]] = [None] * len(units)
        if sense_logits is not None:
            senses = sense_logits.argmax(-1).tolist()
        return DecodedFrames(units, positions, tags, senses)

